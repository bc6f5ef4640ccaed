import Foundation

/// Locates the test fixtures checked in under `Tests/SluiceJSONTests/Resources`.
enum Fixtures {
    static let resources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Resources")

    static let jsonTestSuite = resources.appendingPathComponent("JSONTestSuite")

    /// The names of the JSONTestSuite files whose names start with `prefix` (`y_`, `n_` or `i_`).
    static func jsonTestSuite(prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: jsonTestSuite.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(ofJSONTestSuiteCase name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: jsonTestSuite.appendingPathComponent(name)))
    }

    /// A file of the shared corpora (`../shared/corpora` beside the project), such as
    /// `twitter.json`.
    static func corpus(_ name: String) throws -> [UInt8] {
        // Symbolic links resolved: Tests/AddressSanitizer runs this suite through one.
        let url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("../shared/corpora/\(name)").standardizedFileURL
        return Array(try Data(contentsOf: url))
    }
}

/// A small, fast, seeded generator (SplitMix64), so that "random" splits are the same every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
