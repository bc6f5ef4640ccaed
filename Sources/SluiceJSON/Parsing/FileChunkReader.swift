#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Reads a file, or standard input, in fixed-size chunks, reusing one buffer.
///
/// It is how Sluice's streaming entry points and the `sluice` command read input without holding
/// it in memory: each chunk is handed to a body and then overwritten by the next.
///
/// ```swift
/// let parser = JSONParser()
/// let reader = try FileChunkReader(path: "export.json")
/// try reader.forEachChunk { chunk in
///     try parser.parse(chunk)
///     parser.removeAllTokens()
/// }
/// try parser.finish()
/// ```
/// Bytes that a streaming reader takes a chunk at a time, on the thread that reads them: a file
/// (``FileChunkReader``), or chunks another task hands over (`ImportFeed` in SluiceImport).
public protocol ChunkSource: AnyObject {
    /// Reads the input to its end, calling `body` with each chunk (valid only inside `body`).
    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws
    /// Bytes read so far.
    var bytesRead: Int { get }
    /// The input's size in bytes, when known before it is read.
    var size: Int? { get }
}

public final class FileChunkReader: ChunkSource {
    /// A file that could not be opened or read.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The path as given (`-` for standard input).
        public let path: String
        /// The operating system's description of the cause, such as "No such file or directory".
        public let reason: String

        /// `path: cannot read: reason`.
        public var description: String { "\(path): cannot read: \(reason)" }
    }

    /// The path as given; `-` means standard input.
    public let path: String
    /// The size of each chunk read, in bytes.
    public let chunkSize: Int
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// The number of bytes read so far.
    public private(set) var bytesRead = 0
    /// Whether a read has found the end of the input: the whole file, or everything the process
    /// writing a pipe wrote before it closed it. A reader stopped by its body's error has not.
    public private(set) var reachedEnd = false

    /// Opens `path` for reading; `-` reads standard input.
    ///
    /// - Parameters:
    ///   - path: A file's path, or `-` for standard input.
    ///   - chunkSize: How many bytes to read at a time. Default: 64 KiB.
    /// - Throws: ``Failure`` when the file cannot be opened.
    public init(path: String, chunkSize: Int = 64 * 1024) throws(Failure) {
        precondition(chunkSize > 0, "chunkSize must be positive")
        self.path = path
        self.chunkSize = chunkSize
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
        } else {
            let opened = open(path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else { throw Failure(path: path, reason: Self.describe(errno)) }
            var info = stat()
            if fstat(opened, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                close(opened)
                throw Failure(path: path, reason: "Is a directory")
            }
            descriptor = opened
            ownsDescriptor = true
        }
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// The file's size in bytes, or `nil` for standard input, pipes and other streams.
    public var size: Int? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Reads the input to its end, calling `body` with each chunk. The buffer is reused: it is
    /// valid only inside `body`. A chunk may be shorter than ``chunkSize``.
    ///
    /// - Throws: ``Failure`` when reading fails, or whatever `body` throws.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, reason: Self.describe(errno))
            }
            if count == 0 {
                reachedEnd = true
                return
            }
            bytesRead += count
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Reads the next chunk into a new array, or returns `nil` at the end of the input: the
    /// pull-style counterpart of ``forEachChunk(_:)``, for callers that keep chunks.
    ///
    /// - Throws: ``Failure`` when reading fails.
    public func nextChunk() throws(Failure) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, chunkSize) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, reason: Self.describe(errno))
            }
            if count == 0 {
                reachedEnd = true
                return nil
            }
            bytesRead += count
            if count < chunkSize { chunk.removeLast(chunkSize - count) }
            return chunk
        }
    }

    /// The chunks of the file at `path` (`-` for standard input) as an asynchronous sequence:
    /// what the streaming decoders' `from:` parameters take, with no glue.
    ///
    /// ```swift
    /// for try await streamed in decoder.resources(from: FileChunkReader.chunks(ofFileAt: "export.json")) {
    ///     ...
    /// }
    /// ```
    ///
    /// The file is opened when iteration starts; each chunk is read when the consumer asks for
    /// it, so a slow consumer holds one chunk, not the file. A read blocks its thread until data
    /// comes: immediate for files, as long as the writer takes for a pipe or standard input.
    public static func chunks(ofFileAt path: String, chunkSize: Int = 64 * 1024) -> FileChunks {
        FileChunks(path: path, chunkSize: chunkSize)
    }

    private static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

/// The chunks of a file as an asynchronous sequence of byte arrays; see
/// ``FileChunkReader/chunks(ofFileAt:chunkSize:)``.
public struct FileChunks: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    /// The path as given; `-` means standard input.
    public let path: String
    /// The most bytes in one chunk.
    public let chunkSize: Int

    public func makeAsyncIterator() -> Iterator { Iterator(path: path, chunkSize: chunkSize) }

    /// Opens the file on the first call to ``next()``, and reads one chunk per call.
    public struct Iterator: AsyncIteratorProtocol {
        let path: String
        let chunkSize: Int
        private var reader: FileChunkReader?
        private var finished = false

        init(path: String, chunkSize: Int) {
            self.path = path
            self.chunkSize = chunkSize
        }

        /// The next chunk, or `nil` at the end of the file.
        ///
        /// - Throws: ``FileChunkReader/Failure`` when the file cannot be opened or read.
        public mutating func next() async throws -> [UInt8]? {
            guard !finished else { return nil }
            let reader = try self.reader ?? FileChunkReader(path: path, chunkSize: chunkSize)
            self.reader = reader
            guard let chunk = try reader.nextChunk() else {
                finished = true
                self.reader = nil
                return nil
            }
            return chunk
        }
    }
}
