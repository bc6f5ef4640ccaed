package import SluiceJSON

/// What both contenders compute from every resource, to check they read the same document.
package struct BenchChecksum: Decodable, Hashable, Sendable, CustomStringConvertible {
    package var resources = 0
    package var attributes = 0
    package var relationships = 0
    package var linkage = 0
    package var identityBytes = 0

    package init() {}

    package var description: String {
        "\(resources) resources, \(attributes) attributes, \(relationships) relationships, \(linkage) identifiers in linkage"
    }

    mutating func add(type: String, id: String?, attributes: Int) {
        resources += 1
        self.attributes += attributes
        identityBytes += type.utf8.count + (id?.utf8.count ?? 0)
    }

    mutating func addRelationship() {
        relationships += 1
    }

    mutating func addLinkage(type: String, id: String?) {
        linkage += 1
        identityBytes += type.utf8.count + (id?.utf8.count ?? 0)
    }

    package var json: JSONValue {
        [
            "resources": .number(String(resources)),
            "attributes": .number(String(attributes)),
            "relationships": .number(String(relationships)),
            "linkage": .number(String(linkage)),
            "identityBytes": .number(String(identityBytes)),
        ]
    }
}

/// One run of one contender: what a child process of `sluice bench` reports as one JSON line.
package struct BenchMeasurement: Decodable, Sendable {
    package var seconds: Double
    package var cpuSeconds: Double
    package var peakMemoryBytes: Int
    package var checksum: BenchChecksum

    package var json: JSONValue {
        [
            "seconds": .number(String(seconds)),
            "cpuSeconds": .number(String(cpuSeconds)),
            "peakMemoryBytes": .number(String(peakMemoryBytes)),
            "checksum": checksum.json,
        ]
    }
}

/// The medians of a contender's runs, and the largest peak memory of any.
package struct BenchSummary: Sendable {
    package var seconds: Double
    package var cpuSeconds: Double
    package var peakMemoryBytes: Int
    package var checksum: BenchChecksum

    package init(_ runs: [BenchMeasurement], checksum: BenchChecksum) {
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        seconds = median(runs.map(\.seconds))
        cpuSeconds = median(runs.map(\.cpuSeconds))
        peakMemoryBytes = runs.map(\.peakMemoryBytes).max() ?? 0
        self.checksum = checksum
    }
}
