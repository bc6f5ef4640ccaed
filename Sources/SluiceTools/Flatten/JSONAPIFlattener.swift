import Foundation
public import SluiceJSON
public import SluiceJSONAPI

/// Turns a JSON:API document into NDJSON, one line per resource object: primary data first, then
/// included, each in document order (the form `sluice flatten` prints).
///
/// It streams: each resource is written as soon as its object closes. When `included` comes before
/// `data`, included lines wait in a temporary file until primary data is done, so memory stays
/// constant either way.
public struct JSONAPIFlattener: Sendable {
    /// Limits on the input. Default: `JSONLimits.streaming`: one resource is held at a time.
    public var limits = JSONLimits.streaming
    /// How many threads read the document (see `Parallelism`). Default: `.automatic`.
    /// The lines and their order are the same for any setting.
    public var parallelism = Parallelism.automatic

    /// Creates a flattener.
    public init() {}

    /// Reads the document from `reader` and hands each NDJSON line (with its line feed) to `write`.
    ///
    /// - Returns: The document's summary (counts, top-level meta and links).
    @discardableResult
    public func flatten(_ reader: FileChunkReader, write: ([UInt8]) throws -> Void) throws -> DocumentSummary {
        let decoder = JSONAPIDecoder()
        decoder.limits = limits
        decoder.parallelism = parallelism
        decoder.rawEncoding = FlattenedLine.encoding
        var spill: FileHandle?
        var spillURL: URL?
        defer {
            try? spill?.close()
            if let spillURL { try? FileManager.default.removeItem(at: spillURL) }
        }
        var dataStarted = false
        func handle(_ streamed: StreamedResource) throws {
            let resource = streamed.resource
            let isIncluded = streamed.section == .included
            guard let line = resource.encoded else { return }
            if isIncluded && !dataStarted {
                if spill == nil {
                    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
                        "sluice-flatten-\(UUID().uuidString).ndjson"
                    )
                    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
                    }
                    spill = try FileHandle(forUpdating: url)
                    spillURL = url
                }
                try spill?.write(contentsOf: line)
            } else {
                try write(line)
            }
        }
        let summary = try decoder.forEachResource(in: reader, primaryStarted: { dataStarted = true }, handle)
        if let spill {
            try spill.seek(toOffset: 0)
            while let block = try spill.read(upToCount: 64 * 1024), !block.isEmpty {
                try write(Array(block))
            }
        }
        return summary
    }
}
