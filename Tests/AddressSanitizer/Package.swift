// swift-tools-version:6.2
// The core test suites under Address Sanitizer (`make sanitize`): a package of its own that depends
// on Sluice by path and runs the SluiceJSON and SluiceJSONAPI suites (linked here, not copied) over
// yajl, the tape, the C fast path, the writers and the document engine: the code that handles raw
// memory. Instrumenting only what they run takes minutes; the whole suite (swift-syntax, NIO,
// GRDB) runs under ASan with `make sanitize SANITIZE_ALL=1`.
import Foundation
import PackageDescription

/// A path dependency's identity is its folder's name, which is whatever the checkout was cloned as.
let sluice = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL

let package = Package(
    name: "AddressSanitizer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: sluice.path)
    ],
    targets: [
        .testTarget(
            name: "SluiceJSONTests",
            dependencies: [.product(name: "SluiceJSON", package: sluice.lastPathComponent)],
            // It names yajl's faults through `package` API, which another package cannot reach;
            // the faults' messages are checked under ASan through ParserErrorTests.
            exclude: ["Resources", "YajlFaultTests.swift"]
        ),
        .testTarget(
            name: "SluiceJSONAPITests",
            dependencies: [
                .product(name: "SluiceJSONAPI", package: sluice.lastPathComponent),
                .product(name: "SluiceTools", package: sluice.lastPathComponent),
            ],
            // It sets the batch size through `package` API, which another package cannot reach;
            // the parallel path runs under Thread Sanitizer (test-tsan) instead.
            exclude: ["Resources", "ParallelDocumentTests.swift"]
        ),
    ]
)
