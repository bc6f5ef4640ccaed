// swift-tools-version:6.1
import PackageDescription

// Sluice's benchmark suites, on ordo-one/benchmark, as a package of their own so that the library
// and its CI never build the benchmark tooling. Run them with
//     swift package --package-path Benchmarks benchmark
let package = Package(
    name: "SluiceBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Sluice", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The corpora's models as `sluice models` writes them (links to the checked-in output),
        // with the checksums the peers print too.
        .target(
            name: "FullModels",
            dependencies: [.product(name: "SluiceMacros", package: "Sluice")],
            path: "Sources/FullModels"
        ),
        // A harness for callgrind over the suites' contenders (see Sources/Profile/main.swift).
        .executableTarget(
            name: "Profile",
            dependencies: [
                "FullModels",
                .product(name: "SluiceJSON", package: "Sluice"),
                .product(name: "SluiceJSONAPI", package: "Sluice"),
                .product(name: "SluiceTools", package: "Sluice"),
                .product(name: "SluiceMacros", package: "Sluice"),
            ],
            path: "Sources/Profile"
        ),
        // yajl itself, for the baseline "yajl with empty callbacks": the limit of Sluice's design.
        .systemLibrary(name: "CYajlBaseline", path: "Sources/CYajlBaseline", pkgConfig: "yajl"),
        .executableTarget(
            name: "Parse",
            dependencies: [
                .product(name: "SluiceJSON", package: "Sluice"),
                .product(name: "SluiceJSONAPI", package: "Sluice"),
                .product(name: "SluiceTools", package: "Sluice"),
                "CYajlBaseline",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/Parse",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "JSONAPIDecode",
            dependencies: [
                .product(name: "SluiceJSON", package: "Sluice"),
                .product(name: "SluiceJSONAPI", package: "Sluice"),
                .product(name: "SluiceTools", package: "Sluice"),
                .product(name: "SluiceMacros", package: "Sluice"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/JSONAPIDecode",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "PlainDecode",
            dependencies: [
                .product(name: "SluiceJSON", package: "Sluice"),
                .product(name: "SluiceMacros", package: "Sluice"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/PlainDecode",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
