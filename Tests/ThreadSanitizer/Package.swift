// swift-tools-version:6.2
// The parallel path under Thread Sanitizer (`make test-tsan`): a package of its own that depends on
// Sluice by path and builds only what the parallel path runs on (yajl, SluiceJSON, SluiceJSONAPI),
// so that instrumenting every module takes a couple of minutes rather than the quarter of an hour
// the whole test suite (swift-syntax, the HTTP stack) would. Its tests use the public API only.
import Foundation
import PackageDescription

/// A path dependency's identity is its folder's name, which is whatever the checkout was cloned as.
let sluice = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL

let package = Package(
    name: "ThreadSanitizer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: sluice.path)
    ],
    targets: [
        .testTarget(
            name: "ParallelRaceTests",
            dependencies: [.product(name: "SluiceJSONAPI", package: sluice.lastPathComponent)]
        )
    ]
)
