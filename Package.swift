// swift-tools-version:6.2
import CompilerPluginSupport
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
        .library(name: "SluiceImport", targets: ["SluiceImport"]),
        .library(name: "SluiceJSONAPIImport", targets: ["SluiceJSONAPIImport"]),
        .library(name: "SluiceSQLite", targets: ["SluiceSQLite"]),
        .library(name: "SluicePostgres", targets: ["SluicePostgres"]),
        .library(name: "SluiceHTTP", targets: ["SluiceHTTP"]),
        .library(name: "SluiceURLSession", targets: ["SluiceURLSession"]),
        .library(name: "SluiceMacros", targets: ["SluiceMacros"]),
        .library(name: "SluiceTools", targets: ["SluiceTools"]),
        .executable(name: "sluice", targets: ["SluiceCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // @JSONModel only (SluiceMacros and its tests); the CLI and the other libraries never
        // build it. 600 through 603 all serve: 603 matches Swift 6.3.
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
        // For the test server only (both already come with Hummingbird).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // yajl: it reads what Sluice's tokenizer does not finish, and judges and words every
        // fault. A system library found through pkg-config.
        .systemLibrary(
            name: "CYajl",
            path: "CYajl",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"]), .brew(["yajl"])]
        ),
        // The tape builder's per-token fast path, in C beside yajl (see its header for why).
        .target(
            name: "CSluiceTape",
            dependencies: ["CYajl"]
        ),
        .target(
            name: "SluiceJSON",
            dependencies: ["CYajl", "CSluiceTape"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SluiceJSONAPI",
            dependencies: ["SluiceJSON"],
            swiftSettings: strictSettings
        ),
        // What the `sluice` tool is made of besides its commands, kept out of the libraries a
        // program links: the model writer (`sluice models`), the sample document generator
        // (`sluice generate`, tests, benchmarks), the `sluice flatten` line format and the engine
        // of `sluice bench`.
        .target(
            name: "SluiceTools",
            dependencies: ["SluiceJSON", "SluiceJSONAPI"],
            swiftSettings: strictSettings
        ),
        // What every import target shares: the reading threads and the pipe of import records,
        // progress, summaries and resume points.
        .target(
            name: "SluiceImport",
            dependencies: ["SluiceJSON"],
            swiftSettings: strictSettings
        ),
        // The import's JSON:API format: resources as import records, the document's top level for
        // its `documents` row.
        .target(
            name: "SluiceJSONAPIImport",
            dependencies: ["SluiceImport", "SluiceJSONAPI"],
            swiftSettings: strictSettings
        ),
        // JSON:API documents streamed into SQLite (the `sluice import` job), on GRDB.
        .target(
            name: "SluiceSQLite",
            dependencies: [
                "SluiceJSONAPIImport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // JSON:API documents streamed into PostgreSQL (`sluice import --postgres`), on postgres-nio.
        .target(
            name: "SluicePostgres",
            dependencies: [
                "SluiceJSONAPIImport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The JSON:API client: transports, query building, pagination, bodies parsed as they arrive.
        .target(
            name: "SluiceHTTP",
            dependencies: [
                "SluiceJSONAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        // URLSessionTransport: a library of its own so that FoundationNetworking (libcurl) is
        // loaded only by programs that ask for it, never by the CLI.
        .target(
            name: "SluiceURLSession",
            dependencies: [
                "SluiceHTTP",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        // The @JSONModel macro's implementation, on swift-syntax: a library of its own, so that
        // the expansion tests can call it without depending on the macro target. A test that
        // depends on a macro target is built for the host, and with it everything it links:
        // SwiftPM then builds every dependency twice (once for the host, once for the target).
        .target(
            name: "SluiceMacrosExpansion",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        // The compiler plugin that serves @JSONModel, run by the compiler.
        .macro(
            name: "SluiceMacrosPlugin",
            dependencies: [
                "SluiceMacrosExpansion",
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        // `import SluiceMacros`: the @JSONModel declaration, and SluiceJSON re-exported.
        .target(
            name: "SluiceMacros",
            dependencies: ["SluiceJSON", "SluiceMacrosPlugin"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "SluiceCLI",
            dependencies: [
                "SluiceJSON",
                "SluiceJSONAPI",
                "SluiceSQLite",
                "SluicePostgres",
                "SluiceHTTP",
                "SluiceTools",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SluiceJSONTests",
            dependencies: ["SluiceJSON", "CYajl"],
            exclude: ["Resources"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SluiceMacrosTests",
            dependencies: [
                "SluiceMacros",
                "SluiceJSONAPI",
                "SluiceTools",
                "SluiceMacrosExpansion",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SluiceJSONAPITests",
            dependencies: ["SluiceJSONAPI", "SluiceTools"],
            exclude: ["Resources"],
            swiftSettings: strictSettings
        ),
        // The models `sluice models` writes, checked in as it writes them (Generated/), compiled
        // with the macro and decoding the samples they came from.
        .testTarget(
            name: "SluiceModelsTests",
            dependencies: ["SluiceMacros", "SluiceJSONAPI", "SluiceTools"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        // The same for the documents `sluice generate` writes, in a module of their own: their
        // `Metadata` would meet twitter.json's.
        .testTarget(
            name: "SluiceGeneratedModelsTests",
            dependencies: ["SluiceMacros", "SluiceJSONAPI", "SluiceTools"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SluiceCLITests",
            dependencies: [
                "SluiceCLI", "SluiceJSON", "SluiceJSONAPI", "SluiceHTTP", "SluicePostgres",
                "SluiceTestServer",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // What test targets share: a JSON:API server on loopback (Hummingbird), the PostgreSQL
        // server `scripts/with-postgres.sh` starts, and generated documents.
        .target(
            name: "SluiceTestServer",
            dependencies: [
                "SluiceJSONAPI", "SluicePostgres", "SluiceTools",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/SluiceTestServer"
        ),
        // The import's sources, feed and job, against a real SQLite file.
        .testTarget(
            name: "SluiceImportTests",
            dependencies: [
                "SluiceImport", "SluiceJSONAPIImport", "SluiceSQLite", "SluiceJSON", "SluiceJSONAPI", "SluiceTools",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // The importers through their library API, against a real SQLite file and the private
        // PostgreSQL cluster `make test` starts.
        .testTarget(
            name: "SluiceSQLiteTests",
            dependencies: [
                "SluiceSQLite", "SluiceJSON", "SluiceJSONAPI", "SluiceTestServer",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SluicePostgresTests",
            dependencies: ["SluicePostgres", "SluiceJSON", "SluiceJSONAPI", "SluiceTestServer"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SluiceHTTPTests",
            dependencies: ["SluiceHTTP", "SluiceURLSession", "SluiceJSONAPI", "SluiceTestServer"],
            swiftSettings: strictSettings
        ),
    ]
)
