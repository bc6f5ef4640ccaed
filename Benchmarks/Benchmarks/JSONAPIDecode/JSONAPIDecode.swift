// JSON:API decode + link suite: one generated compound document, four contenders, the same
// linked result (checked equal once before timing):
// - Sluice whole-document: JSONAPIDecoder into [Linked<Article>] with a navigable graph;
// - Sluice streaming: resources delivered one by one from an async sequence of 64 KiB chunks;
// - both again with the same models under `@JSONModel` (generated readers);
// - Sluice's contenders read with every core (the default); the `-1-thread` ones on one;
// - Foundation JSONDecoder + Codable JSON:API structs + linking by dictionaries;
// - Foundation JSONSerialization + hand mapping + linking.
// And the way back (encoding, same document): Sluice's JSONAPIEncoder from the resource models,
// Foundation's JSONEncoder from the Codable JSON:API structs, JSONSerialization from the parsed
// dictionaries; each output is decoded by Sluice and checked against the same linked result.

import Benchmark
import Foundation
import SluiceJSONAPI
import SluiceTools

func generated(_ generator: SampleDocumentGenerator) -> [UInt8] {
    var bytes: [UInt8] = []
    generator.write { bytes.append(contentsOf: $0) }
    return bytes
}

/// Runs `contender` once and checks it against Sluice's whole-document result, outside the timed
/// part: every contender must produce the same linked result.
func check(_ label: String, _ bytes: [UInt8], _ contender: () async throws -> Checksum) async {
    let reference = try! SluiceModels.wholeDocument(bytes)
    let result = try! await contender()
    precondition(result == reference, "\(label) differs: \(result) vs \(reference)")
}

/// Checks that an encoder's output decodes to the same linked result as the input document.
func sameResult(_ output: Data, _ bytes: [UInt8], _ label: String) throws {
    let result = try SluiceModels.wholeDocument(Array(output))
    let reference = try SluiceModels.wholeDocument(bytes)
    precondition(result == reference, "\(label) output differs: \(result) vs \(reference)")
}

let benchmarks: @Sendable () -> Void = {
    // SLUICE_METRICS=malloc measures counts only: allocations and page faults per decode (retains
    // come from scripts/profile.sh), what the checked-in thresholds (Thresholds/, for
    // SLUICE_ARTICLES=10000) hold, since counts are exact (page faults nearly so) where times
    // are noisy.
    let countsOnly = ProcessInfo.processInfo.environment["SLUICE_METRICS"] == "malloc"
    let counts: [BenchmarkMetric] = [.mallocCountTotal, .pageFaults]
    Benchmark.defaultConfiguration = .init(
        metrics: countsOnly ? counts : [.wallClock, .cpuTotal, .throughput, .peakMemoryResident] + counts,
        timeUnits: .milliseconds,
        maxDuration: .seconds(10),
        maxIterations: countsOnly ? 3 : 10,
        thresholds: [
            .mallocCountTotal: .init(relative: [.p90: 0.5], absolute: [.p90: 1000]),
            // The kernel hands pages back and forth: a looser bound than for exact counts.
            .pageFaults: .init(relative: [.p90: 10.0], absolute: [.p90: 2000]),
        ]
    )
    let sizes = (ProcessInfo.processInfo.environment["SLUICE_ARTICLES"] ?? "10000,100000").split(separator: ",")
        .compactMap {
            Int($0)
        }
    for articles in sizes {
        // Each benchmark runs in a process of its own, so the document is made only when one runs.
        let generator = SampleDocumentGenerator(articles: articles)
        // No spaces in names: see the Parse suite.
        let label = "\(articles / 1000)k-articles"

        registerEncoder(SluiceModels.self, "Sluice-JSONAPIEncoder-\(label)", generator)
        registerEncoder(GeneratedModels.self, "Sluice-JSONAPIEncoder-generated-\(label)", generator)
        Benchmark("Foundation-JSONEncoder-encode-\(label)") { benchmark in
            let bytes = generated(generator)
            let document = try JSONDecoder().decode(CodableModels.Document.self, from: Data(bytes))
            let encoder = JSONEncoder()
            let output = try encoder.encode(document)
            try sameResult(output, bytes, "JSONEncoder")
            benchmark.startMeasurement()
            try measuringPageFaults(benchmark) { blackHole(try encoder.encode(document)) }
        }
        Benchmark("Foundation-JSONSerialization-encode-\(label)") { benchmark in
            let bytes = generated(generator)
            let object = try JSONSerialization.jsonObject(with: Data(bytes))
            let output = try JSONSerialization.data(withJSONObject: object)
            try sameResult(output, bytes, "JSONSerialization")
            benchmark.startMeasurement()
            try measuringPageFaults(benchmark) { blackHole(try JSONSerialization.data(withJSONObject: object)) }
        }
        Benchmark("Sluice-whole-document-\(label)") { benchmark in
            let bytes = generated(generator)
            benchmark.startMeasurement()
            try measuringPageFaults(benchmark) { blackHole(try SluiceModels.wholeDocument(bytes)) }
        }
        Benchmark("Sluice-streaming-\(label)") { benchmark in
            let bytes = generated(generator)
            await check("streaming", bytes) { try await SluiceModels.streaming(bytes) }
            benchmark.startMeasurement()
            try await measuringPageFaults(benchmark) { blackHole(try await SluiceModels.streaming(bytes)) }
        }
        Benchmark("Sluice-JSONModel-whole-document-\(label)") { benchmark in
            let bytes = generated(generator)
            await check("JSONModel whole document", bytes) { try GeneratedModels.wholeDocument(bytes) }
            benchmark.startMeasurement()
            try measuringPageFaults(benchmark) { blackHole(try GeneratedModels.wholeDocument(bytes)) }
        }
        Benchmark("Sluice-JSONModel-streaming-\(label)") { benchmark in
            let bytes = generated(generator)
            await check("JSONModel streaming", bytes) { try await GeneratedModels.streaming(bytes) }
            benchmark.startMeasurement()
            try await measuringPageFaults(benchmark) { blackHole(try await GeneratedModels.streaming(bytes)) }
        }
        // The same on one thread: the sequential path, beside the parallel default above (which
        // uses every core: two on the machines these figures come from).
        Benchmark("Sluice-JSONModel-whole-document-1-thread-\(label)") { benchmark in
            let bytes = generated(generator)
            benchmark.startMeasurement()
            try measuringPageFaults(benchmark) {
                blackHole(try GeneratedModels.wholeDocument(bytes, threads: .workers(1)))
            }
        }
        Benchmark("Sluice-JSONModel-streaming-1-thread-\(label)") { benchmark in
            let bytes = generated(generator)
            benchmark.startMeasurement()
            try await measuringPageFaults(benchmark) {
                blackHole(try await GeneratedModels.streaming(bytes, threads: .workers(1)))
            }
        }
        Benchmark("Sluice-streaming-1-thread-\(label)") { benchmark in
            let bytes = generated(generator)
            benchmark.startMeasurement()
            try await measuringPageFaults(benchmark) {
                blackHole(try await SluiceModels.streaming(bytes, threads: .workers(1)))
            }
        }
        Benchmark("Foundation-JSONDecoder-\(label)") { benchmark in
            let bytes = generated(generator)
            let data = Data(bytes)
            await check("JSONDecoder", bytes) { try CodableModels.decodeAndLink(data) }
            benchmark.startMeasurement()
            try measuringPageFaults(benchmark) { blackHole(try CodableModels.decodeAndLink(data)) }
        }
        Benchmark("Foundation-JSONSerialization-\(label)") { benchmark in
            let bytes = generated(generator)
            let data = Data(bytes)
            await check("JSONSerialization", bytes) { try HandMapped.decodeAndLink(data) }
            benchmark.startMeasurement()
            try measuringPageFaults(benchmark) { blackHole(try HandMapped.decodeAndLink(data)) }
        }
    }
}

/// `JSONAPIEncoder` writing one model family's articles and included resources back (the
/// Codable models take the general path, the `@JSONModel` ones their generated writers), after
/// checking the output decodes to the input's linked result.
func registerEncoder<Family: ModelFamily>(
    _ family: Family.Type,
    _ name: String,
    _ generator: SampleDocumentGenerator
) where Family.Article: Encodable, Family.Person: Encodable, Family.Comment: Encodable {
    Benchmark(name) { benchmark in
        let bytes = generated(generator)
        let (articles, included) = try Family.models(bytes)
        let encoder = JSONAPIEncoder()
        encoder.valueEncoder.keyEncodingStrategy = .convertToKebabCase
        let output = try encoder.encode(articles, included: included)
        try sameResult(output, bytes, name)
        benchmark.startMeasurement()
        try measuringPageFaults(benchmark) { blackHole(try encoder.encode(articles, included: included)) }
    }
}
