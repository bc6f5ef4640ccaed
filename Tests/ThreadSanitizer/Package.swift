// swift-tools-version:6.2
// The concurrent code under Thread Sanitizer (`make test-tsan`): a package of its own that
// depends on Sluice by path, so that only what the concurrent code runs on is instrumented (the
// whole suite would also build swift-syntax for the macro tests). Three targets:
//
// - ParallelRaceTests: the parallel path's worker threads and merger (yajl, SluiceJSON,
//   SluiceJSONAPI only).
// - ImportRaceTests: the import pipe (a reading thread, the writer on the caller's thread or an
//   async task) through `SQLiteImporter` and `PostgresImporter`, and `sluice import` of a URL,
//   which bridges an HTTP body into the pipe: the CLI is built here, instrumented, and run.
// - HTTPRaceTests: `JSONAPIClient` on AsyncHTTPClient and NIO against the loopback test server
//   (the root package's `SluiceTestServer`, linked in as a target of this package).
//
// The tests use public API only, and check outcomes against a run without concurrency, so that a
// race that changes a result fails here as well as in the sanitizer's report.
import Foundation
import PackageDescription

/// A path dependency's identity is its folder's name, which is whatever the checkout was cloned as.
let sluice = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL
let sluiceName = sluice.lastPathComponent

let package = Package(
    name: "ThreadSanitizer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: sluice.path),
        // The same versions as the root package's (the mirror has these).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .testTarget(
            name: "ParallelRaceTests",
            dependencies: [
                .product(name: "SluiceJSONAPI", package: sluiceName),
                .product(name: "SluiceTools", package: sluiceName),
            ]
        ),
        // Tests/SluiceTestServer is a link to the root package's Tests/SluiceTestServer.
        .target(
            name: "SluiceTestServer",
            dependencies: [
                .product(name: "SluiceJSONAPI", package: sluiceName),
                .product(name: "SluicePostgres", package: sluiceName),
                .product(name: "SluiceTools", package: sluiceName),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/SluiceTestServer"
        ),
        .testTarget(
            name: "ImportRaceTests",
            dependencies: [
                .product(name: "SluiceJSON", package: sluiceName),
                .product(name: "SluiceJSONAPI", package: sluiceName),
                .product(name: "SluiceSQLite", package: sluiceName),
                .product(name: "SluicePostgres", package: sluiceName),
                .product(name: "SluiceTools", package: sluiceName),
                .product(name: "GRDB", package: "GRDB.swift"),
                // Built (instrumented) so that the tests can run it; never imported.
                .product(name: "sluice", package: sluiceName),
                "SluiceTestServer",
            ]
        ),
        .testTarget(
            name: "HTTPRaceTests",
            dependencies: [
                .product(name: "SluiceHTTP", package: sluiceName),
                .product(name: "SluiceJSONAPI", package: sluiceName),
                "SluiceTestServer",
            ]
        ),
    ]
)
