// swift-tools-version:6.2
import PackageDescription

/// Upcoming language features turned on for every regular target: explicit `any` for existentials,
/// imports that are internal unless marked otherwise (so no yajl type leaks into the public API),
/// and member lookups that only see what a file imports itself. Warnings fail the build of our own targets
/// (SwiftPM ignores this setting when Sluice is a dependency of another package).
let strictSettings: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Sluice",
    products: [
        .library(name: "SluiceJSON", targets: ["SluiceJSON"]),
        .library(name: "SluiceJSONAPI", targets: ["SluiceJSONAPI"]),
        .library(name: "SluiceSQLite", targets: ["SluiceSQLite"]),
        .executable(name: "sluice", targets: ["SluiceCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // yajl, the only tokenizer: a system library found through pkg-config.
        .systemLibrary(
            name: "CYajl",
            path: "CYajl",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"]), .brew(["yajl"])]
        ),
        .target(
            name: "SluiceJSON",
            dependencies: ["CYajl"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SluiceJSONAPI",
            dependencies: ["SluiceJSON"],
            swiftSettings: strictSettings
        ),
        // JSON:API documents streamed into SQLite (the `sluice import` job), on GRDB.
        .target(
            name: "SluiceSQLite",
            dependencies: [
                "SluiceJSONAPI",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "SluiceCLI",
            dependencies: [
                "SluiceJSON",
                "SluiceJSONAPI",
                "SluiceSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SluiceJSONTests",
            dependencies: ["SluiceJSON"],
            exclude: ["Resources"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SluiceJSONAPITests",
            dependencies: ["SluiceJSONAPI"],
            exclude: ["Resources"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SluiceCLITests",
            dependencies: ["SluiceCLI", "SluiceJSONAPI", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
    ]
)
