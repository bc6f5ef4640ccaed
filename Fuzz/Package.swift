// swift-tools-version:6.2
// libFuzzer targets for Sluice (`make fuzz`): a package of its own, like Tests/ThreadSanitizer, so
// that building every module with `-sanitize=fuzzer,address` touches only what the targets run
// (yajl, SluiceJSON, SluiceJSONAPI) and never the main build's products. Each target is an
// executable without a `main`: libFuzzer supplies it and calls `LLVMFuzzerTestOneInput`.
import Foundation
import PackageDescription

/// A path dependency's identity is its folder's name, which is whatever the checkout was cloned as.
let sluice = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("..").standardizedFileURL

let targets = ["FuzzParser", "FuzzTokenizer", "FuzzDocument", "FuzzDecoder", "FuzzValidator", "FuzzElements", "FuzzRoundTrip"]

let package = Package(
    name: "SluiceFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: sluice.path)],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "SluiceJSON", package: sluice.lastPathComponent),
                .product(name: "SluiceJSONAPI", package: sluice.lastPathComponent),
            ]
        )
    ]
        + targets.map { name in
            .executableTarget(
                name: name,
                dependencies: [
                    "FuzzSupport",
                    .product(name: "SluiceJSON", package: sluice.lastPathComponent),
                    .product(name: "SluiceJSONAPI", package: sluice.lastPathComponent),
                ]
            )
        }
)
