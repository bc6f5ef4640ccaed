// PlainDecode suite: plain JSON into Codable models and back. Sluice's StreamingJSONDecoder (the
// models' @JSONModel generated readers, and their Codable conformance: the general path) against
// Foundation's JSONDecoder, and Sluice's StreamingJSONEncoder against JSONEncoder, on the
// three corpora (twitter.json, citm_catalog.json, canada.json) and the same models
// (CorpusModels.swift). Every coder runs on default settings; before any timing, the decoders'
// results are checked equal, and so are the encoders' bytes, so each contest is between equal
// outputs. (Encoding lives here because it needs the same models.)
//
// SLUICE_METRICS=malloc measures allocation counts only (the checked-in thresholds).

import Benchmark
import Foundation
import SluiceJSON
import SluiceMacros

/// The corpora: `SLUICE_CORPORA` or `../shared/corpora` beside the repository.
let corpora: URL = {
    if let path = ProcessInfo.processInfo.environment["SLUICE_CORPORA"] { return URL(fileURLWithPath: path) }
    return URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/corpora")
}()

let mallocOnly = ProcessInfo.processInfo.environment["SLUICE_METRICS"] == "malloc"

/// Registers the three decoders for one corpus, after checking they agree on it.
func register<Model: Decodable & Equatable>(_ model: Model.Type, corpus name: String) {
    guard let data = try? Data(contentsOf: corpora.appendingPathComponent("\(name).json")) else {
        print("PlainDecode: \(name).json not found under \(corpora.path); set SLUICE_CORPORA")
        return
    }
    do {
        let expected = try JSONDecoder().decode(Model.self, from: data)
        let actual = try StreamingJSONDecoder().decode(Model.self, from: data)
        precondition(actual == expected, "PlainDecode: the decoders disagree on \(name).json")
        let general = StreamingJSONDecoder()
        general.usesGeneratedReaders = false
        let generally = try general.decode(Model.self, from: data)
        precondition(generally == expected, "PlainDecode: the two paths disagree on \(name).json")
    } catch {
        fatalError("PlainDecode: \(name).json does not decode: \(error)")
    }
    // Names without spaces: see the Parse suite. The general path keeps its earlier name, so its
    // thresholds stay comparable.
    Benchmark("Sluice-JSONModel-\(name)") { benchmark in
        let decoder = StreamingJSONDecoder()
        for _ in benchmark.scaledIterations { blackHole(try decoder.decode(Model.self, from: data)) }
    }
    Benchmark("Sluice-StreamingJSONDecoder-\(name)") { benchmark in
        let decoder = StreamingJSONDecoder()
        decoder.usesGeneratedReaders = false
        for _ in benchmark.scaledIterations { blackHole(try decoder.decode(Model.self, from: data)) }
    }
    Benchmark("Foundation-JSONDecoder-\(name)") { benchmark in
        let decoder = JSONDecoder()
        for _ in benchmark.scaledIterations { blackHole(try decoder.decode(Model.self, from: data)) }
    }
}

/// Registers the two encoders for one corpus's models, after checking they write the same bytes.
func registerEncoding<Model: Codable & Equatable>(_ model: Model.Type, corpus name: String) {
    guard let data = try? Data(contentsOf: corpora.appendingPathComponent("\(name).json")),
        let value = try? JSONDecoder().decode(Model.self, from: data)
    else { return }
    let foundation = JSONEncoder()
    foundation.outputFormatting = .sortedKeys
    let sluice = StreamingJSONEncoder()
    sluice.outputFormatting = .sortedKeys
    do {
        let ours = try sluice.encode(value)
        let theirs = try foundation.encode(value)
        precondition(ours == theirs, "PlainDecode: the encoders disagree on \(name).json's models")
        sluice.usesGeneratedWriters = false
        precondition(
            try sluice.encode(value) == ours,
            "PlainDecode: the general path disagrees on \(name).json's models"
        )
        sluice.usesGeneratedWriters = true
    } catch {
        fatalError("PlainDecode: \(name).json's models do not encode: \(error)")
    }
    Benchmark("Sluice-StreamingJSONEncoder-\(name)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try sluice.encode(value)) }
    }
    // The general path (the models' Codable conformance, a tree, yajl's generator), for
    // comparison with the generated writers above: it must not get slower.
    let general = StreamingJSONEncoder()
    general.outputFormatting = .sortedKeys
    general.usesGeneratedWriters = false
    Benchmark("Sluice-general-StreamingJSONEncoder-\(name)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try general.encode(value)) }
    }
    Benchmark("Foundation-JSONEncoder-\(name)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try foundation.encode(value)) }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: mallocOnly
            ? [.mallocCountTotal]
            : [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .peakMemoryResident, .instructions],
        timeUnits: .milliseconds,
        maxDuration: .seconds(4),
        maxIterations: mallocOnly ? 3 : 100,
        thresholds: [.mallocCountTotal: .init(relative: [.p90: 1.0])]
    )
    register(Twitter.self, corpus: "twitter")
    register(CitmCatalog.self, corpus: "citm_catalog")
    register(Canada.self, corpus: "canada")
    registerEncoding(Twitter.self, corpus: "twitter")
    registerEncoding(CitmCatalog.self, corpus: "citm_catalog")
    registerEncoding(Canada.self, corpus: "canada")
}
