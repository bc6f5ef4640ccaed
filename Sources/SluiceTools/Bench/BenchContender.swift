import Foundation
package import SluiceJSON
import SluiceJSONAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The two ways of reading a JSON:API document that `sluice bench` compares, with no user models:
/// both turn every resource of `data` and `included` into the same generic form (type, id,
/// attributes, relationship linkage) and sum it up in a ``BenchChecksum``, so that a run whose
/// contenders read different documents is caught.
package enum BenchContender: String, CaseIterable, Sendable {
    /// Sluice's streaming decoder: 64 KiB chunks, one resource held at a time.
    case sluice
    /// Foundation: the file read into memory, `JSONSerialization`, dictionaries mapped by hand.
    case foundation

    package var title: String {
        switch self {
        case .sluice: "Sluice streaming"
        case .foundation: "Foundation JSONSerialization + mapping"
        }
    }

    /// Foundation's contender could not read the document (its parser's own words).
    package struct Refusal: Error, CustomStringConvertible {
        package var description: String
    }

    /// Reads the document at `path` once, timing the whole read including the file.
    ///
    /// - Throws: Sluice's errors as its decoder reports them; ``Refusal`` when Foundation cannot
    ///   read the document.
    package func measure(path: String, parallelism: Parallelism) throws -> BenchMeasurement {
        let clock = ContinuousClock()
        let cpuBefore = Self.cpuSeconds()
        let start = clock.now
        let checksum: BenchChecksum
        switch self {
        case .sluice: checksum = try Self.sluice(path: path, parallelism: parallelism)
        case .foundation: checksum = try Self.foundation(path: path)
        }
        return BenchMeasurement(
            seconds: (clock.now - start) / .seconds(1),
            cpuSeconds: Self.cpuSeconds() - cpuBefore,
            peakMemoryBytes: Self.peakResidentBytes(),
            checksum: checksum
        )
    }

    /// Sluice: resources streamed from the file in their generic form, one at a time.
    private static func sluice(path: String, parallelism: Parallelism) throws -> BenchChecksum {
        var checksum = BenchChecksum()
        let decoder = JSONAPIDecoder()
        decoder.parallelism = parallelism
        try decoder.forEachResource(in: try FileChunkReader(path: path)) { streamed in
            guard let raw = streamed.resource.raw else { return }
            checksum.add(type: raw.type, id: raw.id ?? raw.lid, attributes: raw.attributes.count)
            for (_, relationship) in raw.relationships {
                checksum.addRelationship()
                switch relationship.data {
                case .one(let identifier)?:
                    checksum.addLinkage(type: identifier.type, id: identifier.id ?? identifier.lid)
                case .many(let identifiers)?:
                    for identifier in identifiers {
                        checksum.addLinkage(type: identifier.type, id: identifier.id ?? identifier.lid)
                    }
                case .null?, nil: break
                }
            }
        }
        return checksum
    }

    /// A resource as Foundation's contender maps it by hand from `JSONSerialization`'s dictionaries.
    private struct MappedResource {
        var type: String
        var id: String?
        var attributes: [String: Any]
        var relationships: [(name: String, identifiers: [(type: String, id: String?)])]
    }

    /// Foundation: the file read into memory, parsed into dictionaries, every resource mapped.
    private static func foundation(path: String) throws -> BenchChecksum {
        let object: Any
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw Refusal(description: "Foundation could not read the document: \(error)")
        }
        guard let document = object as? [String: Any] else {
            throw Refusal(description: "the document is not a JSON object")
        }
        var resources: [MappedResource] = []
        func map(_ value: Any) {
            guard let resource = value as? [String: Any], let type = resource["type"] as? String else { return }
            var mapped = MappedResource(
                type: type,
                id: resource["id"] as? String ?? resource["lid"] as? String,
                attributes: resource["attributes"] as? [String: Any] ?? [:],
                relationships: []
            )
            for (name, relationship) in resource["relationships"] as? [String: Any] ?? [:] {
                let data = (relationship as? [String: Any])?["data"]
                var identifiers: [(type: String, id: String?)] = []
                for item in (data as? [Any]) ?? (data.map { [$0] } ?? []) {
                    guard let identifier = item as? [String: Any], let type = identifier["type"] as? String else {
                        continue
                    }
                    identifiers.append((type, identifier["id"] as? String ?? identifier["lid"] as? String))
                }
                mapped.relationships.append((name, identifiers))
            }
            resources.append(mapped)
        }
        if let data = document["data"] as? [Any] { data.forEach(map) } else if let data = document["data"] { map(data) }
        (document["included"] as? [Any] ?? []).forEach(map)
        var checksum = BenchChecksum()
        for resource in resources {
            checksum.add(type: resource.type, id: resource.id, attributes: resource.attributes.count)
            for relationship in resource.relationships {
                checksum.addRelationship()
                for identifier in relationship.identifiers {
                    checksum.addLinkage(type: identifier.type, id: identifier.id)
                }
            }
        }
        return checksum
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The process's peak resident set size (Linux reports kibibytes).
    private static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
    }
}
