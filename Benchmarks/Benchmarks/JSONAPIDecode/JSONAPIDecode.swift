// JSON:API decode + link suite: one generated compound document, four contenders, the same
// linked result (checked equal once before timing):
// - Sluice whole-document: JSONAPIDecoder into [Linked<Article>] with a navigable graph;
// - Sluice streaming: resources delivered one by one from an async sequence of 64 KiB chunks;
// - Foundation JSONDecoder + Codable JSON:API structs + linking by dictionaries;
// - Foundation JSONSerialization + hand mapping + linking.

import Benchmark
import Foundation
import SluiceJSONAPI

func generated(_ articles: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    SampleDocumentGenerator(articles: articles).write { bytes.append(contentsOf: $0) }
    return bytes
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        maxDuration: .seconds(10),
        maxIterations: 20
    )
    let sizes = (ProcessInfo.processInfo.environment["SLUICE_ARTICLES"] ?? "10000,100000").split(separator: ",")
        .compactMap { Int($0) }
    for articles in sizes {
        let bytes = generated(articles)
        let data = Data(bytes)
        let label = "\(articles / 1000)k articles (\(bytes.count / 1_000_000) MB)"
        // Same result from every contender before any timing.
        let reference = try! SluiceModels.wholeDocument(bytes)
        precondition(try! CodableModels.decodeAndLink(data) == reference, "JSONDecoder result differs")
        precondition(try! HandMapped.decodeAndLink(data) == reference, "JSONSerialization result differs")
        let semaphore = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var streamed = Checksum()
        Task {
            streamed = try! await SluiceModels.streaming(bytes)
            semaphore.signal()
        }
        semaphore.wait()
        precondition(streamed == reference, "streaming result differs: \(streamed) vs \(reference)")

        Benchmark("Sluice whole document \(label)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try SluiceModels.wholeDocument(bytes)) }
        }
        Benchmark("Sluice streaming \(label)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try await SluiceModels.streaming(bytes)) }
        }
        Benchmark("Foundation JSONDecoder \(label)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try CodableModels.decodeAndLink(data)) }
        }
        Benchmark("Foundation JSONSerialization \(label)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try HandMapped.decodeAndLink(data)) }
        }
    }
}
