// Parse suite: the cost of turning bytes into tokens.
//
// Two contenders on the same bytes, fed in the same 64 KiB chunks:
// - "yajl": yajl with callbacks that do nothing: what reading the bytes costs before Sluice
//   builds anything, the floor for a parser that hands yajl's events on;
// - "tape": Sluice's JSONParser building its tape, releasing tokens after each chunk as a
//   streaming consumer would.
// The ratio between them is what Sluice's own layer costs. Inputs: the three corpora and the
// generated 10k-article JSON:API document of the JSONAPIDecode suite, whose strings (escapes,
// non-ASCII) make yajl itself slower than on the corpora: that speed bounds every JSON:API path.
//
// SLUICE_METRICS=malloc measures allocation counts only, which is what the checked-in thresholds
// (Thresholds/) hold: counts are exact on any machine where times are noisy.

import Benchmark
import CYajlBaseline
import Foundation
import SluiceJSON
import SluiceJSONAPI
import SluiceTools

/// The corpora: `SLUICE_CORPORA` or `../shared/corpora` beside the repository.
let corpora: URL = {
    if let path = ProcessInfo.processInfo.environment["SLUICE_CORPORA"] { return URL(fileURLWithPath: path) }
    return URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/corpora")
}()

let chunkSize = 64 * 1024

/// Callbacks that accept every event and do nothing with it.
nonisolated(unsafe) var emptyCallbacks = yajl_callbacks(
    yajl_null: { _ in 1 },
    yajl_boolean: { _, _ in 1 },
    yajl_integer: nil,
    yajl_double: nil,
    yajl_number: { _, _, _ in 1 },
    yajl_string: { _, _, _ in 1 },
    yajl_start_map: { _ in 1 },
    yajl_map_key: { _, _, _ in 1 },
    yajl_end_map: { _ in 1 },
    yajl_start_array: { _ in 1 },
    yajl_end_array: { _ in 1 }
)

func parseWithEmptyCallbacks(_ bytes: [UInt8]) {
    let handle = yajl_alloc(&emptyCallbacks, nil, nil)
    bytes.withUnsafeBufferPointer { buffer in
        var offset = 0
        while offset < buffer.count {
            let count = min(chunkSize, buffer.count - offset)
            precondition(yajl_parse(handle, buffer.baseAddress! + offset, count) == yajl_status_ok)
            offset += count
        }
    }
    precondition(yajl_complete_parse(handle) == yajl_status_ok)
    yajl_free(handle)
}

func parseIntoTape(_ bytes: [UInt8]) throws -> Int {
    let parser = JSONParser()
    var tokens = 0
    try bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let end = min(offset + chunkSize, buffer.count)
            try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[offset..<end]))
            tokens += parser.tape.count
            parser.removeAllTokens()
            offset = end
        }
    }
    try parser.finish()
    return tokens + parser.tape.count
}

let mallocOnly = ProcessInfo.processInfo.environment["SLUICE_METRICS"] == "malloc"

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: mallocOnly
            ? [.mallocCountTotal]
            : [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .peakMemoryResident, .instructions],
        timeUnits: .microseconds,
        maxDuration: .seconds(3),
        maxIterations: mallocOnly ? 3 : 200,
        // Parsing allocates only when the tape grows: tens of times per parse, whatever the size.
        thresholds: [.mallocCountTotal: .init(absolute: [.p90: 64])]
    )
    var inputs: [(name: String, bytes: [UInt8])] = []
    for name in ["twitter", "citm_catalog", "canada"] {
        guard let bytes = try? Array(Data(contentsOf: corpora.appendingPathComponent("\(name).json"))) else {
            print("Parse: \(name).json not found under \(corpora.path); set SLUICE_CORPORA")
            continue
        }
        inputs.append((name, bytes))
    }
    var generated: [UInt8] = []
    SampleDocumentGenerator(articles: 10_000).write { generated.append(contentsOf: $0) }
    inputs.append(("generated-JSON-API-10k-articles", generated))
    // Names without spaces: the benchmark tool writes threshold files with spaces turned into
    // underscores but looks them up with the spaces kept, so only such names find their files.
    for (name, bytes) in inputs {
        Benchmark("yajl-empty-callbacks-\(name)") { benchmark in
            for _ in benchmark.scaledIterations { parseWithEmptyCallbacks(bytes) }
        }
        Benchmark("Sluice-tape-\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try parseIntoTape(bytes)) }
        }
    }
}
