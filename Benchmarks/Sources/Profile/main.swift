// A harness for callgrind: runs one contender of the JSONAPIDecode or PlainDecode suite N times,
// with the suites' own models (the model files are links to theirs), so that instruction counts
// per decode are (run with N=2) - (run with N=1). `make profile` runs every mode that way.
//
//     Profile MODE N [ARTICLES]
//
// Modes: jsonapi-{general,generated}-{whole,stream}, jsonapi-foundation, jsonapi-flatten,
// jsonapi-generated-phases (the generated whole-document run with the median CPU time of its
// decode, its walk over the links and its release printed on standard error)
// (ARTICLES, default 2000; SLUICE_DOC=FILE reads that document instead, to weigh a variant of it);
// jsonapi-document writes the generated document to standard output and exits;
// {twitter,citm_catalog,canada}-{general,generated,foundation,tape} (corpora from SLUICE_CORPORA,
// which scripts/profile.sh sets), with the suites' models, a subset of each corpus's fields;
// {twitter,citm_catalog,canada}-full and -full-foundation: every field, in the models `sluice
// models` writes (Sources/FullModels), ending in the checksum line the peers print.

import Foundation
import FullModels
import SluiceJSON
import SluiceJSONAPI
import SluiceTools

let arguments = CommandLine.arguments
guard arguments.count >= 3, let repeats = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: Profile MODE N [ARTICLES]\n".utf8))
    exit(2)
}
let mode = arguments[1]
let articles = arguments.count > 3 ? Int(arguments[3]) ?? 2000 : 2000
/// The JSON:API modes' threads: SLUICE_THREADS, or every core.
let threads =
    ProcessInfo.processInfo.environment["SLUICE_THREADS"].flatMap(Int.init).map(Parallelism.workers) ?? .automatic

/// The process's CPU time so far, in seconds.
func processCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Keeps a result alive; SLUICE_PRINT=1 prints it (the JSON:API modes' checksums, to compare
/// with a peer's).
func consume<T>(_ value: T) {
    if printsResults { print(value) }
    withExtendedLifetime(value) {}
}

/// Read once: copying the environment into a dictionary costs some 150 000 instructions, which
/// every decode's count would otherwise carry.
let printsResults = ProcessInfo.processInfo.environment["SLUICE_PRINT"] == "1"

/// The input of a mode: the generated JSON:API document or a corpus file.
func input(for mode: String) throws -> [UInt8] {
    if mode.hasPrefix("jsonapi") {
        if let path = ProcessInfo.processInfo.environment["SLUICE_DOC"] {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        var bytes: [UInt8] = []
        SampleDocumentGenerator(articles: articles).write { bytes.append(contentsOf: $0) }
        return bytes
    }
    let directory = ProcessInfo.processInfo.environment["SLUICE_CORPORA"] ?? "../../shared/corpora"
    let name = String(mode.prefix { $0 != "-" })
    return Array(try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name).json")))
}

/// One run of `mode` over `bytes`.
func run(_ mode: String, _ bytes: [UInt8]) async throws {
    let general = StreamingJSONDecoder()
    general.usesGeneratedReaders = false
    switch mode {
    case "jsonapi-general-whole": consume(try SluiceModels.wholeDocument(bytes, threads: threads))
    case "jsonapi-generated-whole": consume(try GeneratedModels.wholeDocument(bytes, threads: threads))
    case "jsonapi-generated-phases": try phases(bytes)
    case "jsonapi-general-stream": consume(try await SluiceModels.streaming(bytes, threads: threads))
    case "jsonapi-generated-stream": consume(try await GeneratedModels.streaming(bytes, threads: threads))
    case "jsonapi-foundation": consume(try CodableModels.decodeAndLink(Data(bytes)))
    case "jsonapi-flatten": consume(try flatten())
    case "twitter-general": consume(try general.decode(Twitter.self, from: bytes))
    case "twitter-generated": consume(try StreamingJSONDecoder().decode(Twitter.self, from: bytes))
    case "twitter-foundation": consume(try JSONDecoder().decode(Twitter.self, from: Data(bytes)))
    case "citm_catalog-general": consume(try general.decode(CitmCatalog.self, from: bytes))
    case "citm_catalog-generated": consume(try StreamingJSONDecoder().decode(CitmCatalog.self, from: bytes))
    case "citm_catalog-foundation": consume(try JSONDecoder().decode(CitmCatalog.self, from: Data(bytes)))
    case "canada-general": consume(try general.decode(Canada.self, from: bytes))
    case "canada-generated": consume(try StreamingJSONDecoder().decode(Canada.self, from: bytes))
    case "canada-foundation": consume(try JSONDecoder().decode(Canada.self, from: Data(bytes)))
    case _ where mode.hasSuffix("-full"), _ where mode.hasSuffix("-full-foundation"):
        let corpus = String(mode.prefix { $0 != "-" })
        let line = try FullModels.decode(corpus, bytes, with: mode.hasSuffix("-foundation") ? .foundation : .sluice)
        consume(line)
    case _ where mode.hasSuffix("-tape"): consume(try JSONParser.parse(bytes))
    case _ where mode.contains("-encode-"): try encode(mode)
    default:
        FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
        exit(2)
    }
}

/// The CPU time of each phase of `jsonapi-generated-whole`, one list per phase: the decode, the
/// checksum's walk over the links, and the release of the document.
nonisolated(unsafe) var phaseTimes: [[Double]] = [[], [], []]

/// `jsonapi-generated-whole` in its three phases, each timed (`phaseTimes`): where the time of a
/// decode and link goes, to set beside a peer's own phases.
func phases(_ bytes: [UInt8]) throws {
    let start = processCPUTime()
    var document = Optional(try GeneratedModels.document(bytes, threads: threads))
    let decoded = processCPUTime()
    consume(GeneratedModels.checksum(of: document!))
    let linked = processCPUTime()
    document = nil
    let released = processCPUTime()
    phaseTimes[0].append(decoded - start)
    phaseTimes[1].append(linked - decoded)
    phaseTimes[2].append(released - linked)
}

/// `sluice flatten`'s work on the generated document, read from a file as the command reads it:
/// the NDJSON's byte count.
func flatten() throws -> Int {
    var flattener = JSONAPIFlattener()
    flattener.parallelism = threads
    var count = 0
    try flattener.flatten(try FileChunkReader(path: documentPath)) { count += $0.count }
    return count
}

/// The encoders' modes: `{twitter,citm_catalog,canada,jsonapi}-encode-{generated,general,foundation}`,
/// each writing the models decoded once up front (`.sortedKeys` for the corpora, as the suite).
func encode(_ mode: String) throws {
    let contender = mode.split(separator: "-").last.map(String.init) ?? ""
    let sluice = StreamingJSONEncoder()
    sluice.outputFormatting = .sortedKeys
    sluice.usesGeneratedWriters = contender == "generated"
    let foundation = JSONEncoder()
    foundation.outputFormatting = .sortedKeys
    func write<T: Encodable>(_ value: T) throws {
        consume(contender == "foundation" ? try foundation.encode(value) : try sluice.encode(value))
    }
    switch models {
    case .twitter(let value): try write(value)
    case .citm(let value): try write(value)
    case .canada(let value): try write(value)
    case .jsonapi(let general, let generatedModels, let codable):
        let encoder = JSONAPIEncoder()
        encoder.valueEncoder.keyEncodingStrategy = .convertToKebabCase
        switch contender {
        case "generated": consume(try encoder.encode(generatedModels.articles, included: generatedModels.included))
        case "general":
            encoder.valueEncoder.usesGeneratedWriters = false
            consume(try encoder.encode(general.articles, included: general.included))
        default: consume(try JSONEncoder().encode(codable))
        }
    case .none: break
    }
}

/// Models decoded once before the runs an encoding mode times.
enum Models {
    case twitter(Twitter)
    case citm(CitmCatalog)
    case canada(Canada)
    case jsonapi(
        (articles: [SluiceModels.Article], included: [any Resource & Encodable]),
        (articles: [GeneratedModels.Article], included: [any Resource & Encodable]),
        CodableModels.Document
    )
    case none
}

let bytes = try input(for: mode)
if mode == "jsonapi-document" {
    // The generated document itself, for peers outside Swift (Benchmarks/msgspec_anchor.py).
    FileHandle.standardOutput.write(Data(bytes))
    exit(0)
}
/// The input written to a temporary file, for the modes that read one.
let documentPath: String = {
    guard mode == "jsonapi-flatten" else { return "" }
    let path = NSTemporaryDirectory() + "sluice-profile-\(getpid()).json"
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    atexit { unlink(NSTemporaryDirectory() + "sluice-profile-\(getpid()).json") }
    return path
}()
let models: Models = try {
    guard mode.contains("-encode-") else { return .none }
    if mode.hasPrefix("twitter") { return .twitter(try JSONDecoder().decode(Twitter.self, from: Data(bytes))) }
    if mode.hasPrefix("citm") { return .citm(try JSONDecoder().decode(CitmCatalog.self, from: Data(bytes))) }
    if mode.hasPrefix("canada") { return .canada(try JSONDecoder().decode(Canada.self, from: Data(bytes))) }
    return .jsonapi(
        try SluiceModels.models(bytes),
        try GeneratedModels.models(bytes),
        try JSONDecoder().decode(CodableModels.Document.self, from: Data(bytes))
    )
}()
// Detached, so that the top-level code's main actor is not the one waiting for it.
let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var failure: (any Error)?
Task.detached {
    do {
        // SLUICE_TIMES=1: the CPU time of each run (clock_gettime of the process), and their
        // median, on standard error: finer than timing whole processes, for runs of a few ms.
        let timed = ProcessInfo.processInfo.environment["SLUICE_TIMES"] == "1"
        var times: [Double] = []
        for _ in 0..<repeats {
            let start = processCPUTime()
            try await run(mode, bytes)
            if timed { times.append(processCPUTime() - start) }
        }
        if timed, !times.isEmpty {
            let median = times.sorted()[times.count / 2]
            FileHandle.standardError.write(
                Data("\(mode) median \(String(format: "%.3f", median * 1000)) ms of \(times.count)\n".utf8)
            )
        }
        if !phaseTimes[0].isEmpty {
            let medians = phaseTimes.map { $0.sorted()[$0.count / 2] * 1000 }
            let line = String(format: "decode %.2f ms, link %.2f ms, release %.2f ms", medians[0], medians[1], medians[2])
            FileHandle.standardError.write(Data("\(mode) medians of \(phaseTimes[0].count): \(line)\n".utf8))
        }
    } catch {
        failure = error
    }
    done.signal()
}
done.wait()
if let failure {
    FileHandle.standardError.write(Data("\(failure)\n".utf8))
    exit(1)
}
