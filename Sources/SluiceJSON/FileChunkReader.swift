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
public final class FileChunkReader {
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
            if count == 0 { return }
            bytesRead += count
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    private static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
