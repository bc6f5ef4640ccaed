// swift-tools-version:6.2
// A user's app, as the README's "Adding Sluice to a package" section sets one up: it depends on
// Sluice (here by path, the checkout this folder is in) and uses its libraries' products only.
// `make check-install` resolves it, lists what it resolved (no test-only dependency of Sluice may
// appear) and runs its tests, which compile the README's examples verbatim.
import Foundation
import PackageDescription

/// A path dependency's identity is its folder's name, which is whatever the checkout was cloned as.
let sluice = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL

let package = Package(
    name: "FirstHour",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: sluice.path)
    ],
    targets: [
        .target(
            name: "FirstHour",
            dependencies: [.product(name: "SluiceJSONAPI", package: sluice.lastPathComponent)]
        ),
        .testTarget(
            name: "FirstHourTests",
            dependencies: [
                "FirstHour",
                .product(name: "SluiceJSONAPI", package: sluice.lastPathComponent),
                .product(name: "SluiceImport", package: sluice.lastPathComponent),
                .product(name: "SluiceJSONAPIImport", package: sluice.lastPathComponent),
                .product(name: "SluiceHTTP", package: sluice.lastPathComponent),
            ]
        ),
    ]
)
