// Parse suite: the cost of turning bytes into tokens.
//
// Two contenders on the same bytes, fed in the same 64 KiB chunks:
// - "yajl": yajl with callbacks that do nothing, the limit of Sluice's design (DESIGN.md);
// - "tape": Sluice's JSONParser building its tape, releasing tokens after each chunk as a
//   streaming consumer would.
// The ratio between them is what Sluice's own layer costs.

import Benchmark
import CYajlBaseline
import Foundation
import SluiceJSON

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

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .peakMemoryResident, .instructions],
        timeUnits: .microseconds,
        maxDuration: .seconds(3),
        maxIterations: 200
    )
    for name in ["twitter", "citm_catalog", "canada"] {
        guard let bytes = try? Array(Data(contentsOf: corpora.appendingPathComponent("\(name).json"))) else {
            print("Parse: \(name).json not found under \(corpora.path); set SLUICE_CORPORA")
            continue
        }
        Benchmark("yajl empty callbacks \(name) (\(bytes.count) bytes)") { benchmark in
            for _ in benchmark.scaledIterations { parseWithEmptyCallbacks(bytes) }
        }
        Benchmark("Sluice tape \(name) (\(bytes.count) bytes)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try parseIntoTape(bytes)) }
        }
    }
}
