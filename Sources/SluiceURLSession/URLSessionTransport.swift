// A library of its own, so that only programs that use it load FoundationNetworking (and with
// it libcurl): linked into the `sluice` CLI, they were loaded by every command, raising the
// memory of `sluice --help` by about a quarter.

import HTTPTypes
public import SluiceHTTP

#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// A transport on Foundation's `URLSession`, for code that already configures sessions (proxies,
/// certificates, cookies) or runs where AsyncHTTPClient does not.
///
/// The body streams through a session delegate, chunk by chunk as the system receives it, on
/// Linux too (where `URLSession.bytes(for:)` does not exist). So that a fast server cannot fill
/// memory, the data task is suspended while more than ``bufferLimit`` bytes wait for the client,
/// and resumed when it has caught up.
///
/// The session holds its delegate until invalidated: call ``invalidate()`` when done with a
/// transport you made (``shared`` lives as long as the process).
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    /// A process-wide transport on an ephemeral configuration.
    public static let shared = URLSessionTransport()

    /// Bytes received and not yet read by the client above which the task is paused.
    public let bufferLimit: Int

    private let session: URLSession
    private let router: Router

    /// A transport on a session with `configuration` (its `timeoutIntervalForRequest` bounds a
    /// silence while waiting or reading, as `URLSession` defines it).
    public init(configuration: URLSessionConfiguration = .ephemeral, bufferLimit: Int = 1 << 20) {
        self.bufferLimit = bufferLimit
        router = Router()
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: nil)
    }

    /// Cancels what is in flight and releases the session.
    public func invalidate() {
        session.invalidateAndCancel()
    }

    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        guard let url = request.url else { throw URLError(.badURL) }
        var outgoing = URLRequest(url: url)
        outgoing.httpMethod = request.head.method.rawValue
        for field in request.head.headerFields {
            outgoing.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        outgoing.httpBody = request.body
        if let timeout = request.timeout {
            let (seconds, attoseconds) = timeout.components
            outgoing.timeoutInterval = Double(seconds) + Double(attoseconds) / 1e18
        }
        let task = session.dataTask(with: outgoing)
        let stream = Stream(task: task, bufferLimit: bufferLimit)
        router.register(stream, for: task)
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                stream.awaitHead(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        var fields = HTTPFields()
        for (name, value) in head.allHeaderFields {
            if let name = HTTPField.Name("\(name)") { fields.append(HTTPField(name: name, value: "\(value)")) }
        }
        return HTTPTransportResponse(
            head: HTTPResponse(status: .init(code: head.statusCode), headerFields: fields),
            body: HTTPBody(StreamChunks(stream: stream))
        )
    }

    /// Hands each task's delegate callbacks to its stream.
    final class Router: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var streams: [Int: Stream] = [:]

        func register(_ stream: Stream, for task: URLSessionTask) {
            lock.withLock { streams[task.taskIdentifier] = stream }
        }

        private func stream(_ task: URLSessionTask) -> Stream? {
            lock.withLock { streams[task.taskIdentifier] }
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            stream(dataTask)?.received(head: response)
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            stream(dataTask)?.received(data: data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let stream = lock.withLock { streams.removeValue(forKey: task.taskIdentifier) }
            stream?.completed(error: error)
        }
    }

    /// One response: the head once, then chunks handed to one reader, with the task paused while
    /// too many bytes wait.
    final class Stream: @unchecked Sendable {
        private let lock = NSLock()
        private let task: URLSessionTask
        private let bufferLimit: Int
        private var head: CheckedContinuation<HTTPURLResponse, any Error>?
        private var chunks: [[UInt8]] = []
        private var chunkStart = 0
        private var buffered = 0
        private var paused = false
        private var ended = false
        private var failure: (any Error)?
        private var reader: CheckedContinuation<[UInt8]?, any Error>?

        init(task: URLSessionTask, bufferLimit: Int) {
            self.task = task
            self.bufferLimit = bufferLimit
        }

        /// Waits for the head; a task that already ended (cancelled before it started) answers at once.
        func awaitHead(_ continuation: CheckedContinuation<HTTPURLResponse, any Error>) {
            let failed: (any Error)? = lock.withLock {
                if ended { return failure ?? HTTPTransportError(timedOut: false, message: "no response") }
                head = continuation
                return nil
            }
            if let failed { continuation.resume(throwing: failed) }
        }

        /// The body was dropped before its end (a limit, an error status, a consumer that stopped):
        /// the task is cancelled, or a suspended one would hold its connection and buffer forever.
        func abandon() {
            let running = lock.withLock { !ended }
            if running { task.cancel() }
        }

        func received(head response: URLResponse) {
            let continuation = lock.withLock {
                defer { head = nil }
                return head
            }
            if let http = response as? HTTPURLResponse {
                continuation?.resume(returning: http)
            } else {
                continuation?.resume(throwing: HTTPTransportError(timedOut: false, message: "not an HTTP response"))
            }
        }

        func received(data: Data) {
            let bytes = [UInt8](data)
            let waiting: CheckedContinuation<[UInt8]?, any Error>? = lock.withLock {
                if let reader {
                    self.reader = nil
                    return reader
                }
                chunks.append(bytes)
                buffered += bytes.count
                if buffered > bufferLimit && !paused {
                    paused = true
                    task.suspend()
                }
                return nil
            }
            waiting?.resume(returning: bytes)
        }

        func completed(error: (any Error)?) {
            let translated = error.map(Self.translate)
            let (headWaiting, readerWaiting):
                (CheckedContinuation<HTTPURLResponse, any Error>?, CheckedContinuation<[UInt8]?, any Error>?) =
                    lock.withLock {
                        ended = true
                        failure = translated
                        defer {
                            head = nil
                            reader = nil
                        }
                        return (head, reader)
                    }
            headWaiting?.resume(throwing: translated ?? HTTPTransportError(timedOut: false, message: "no response"))
            if let readerWaiting {
                if let translated {
                    readerWaiting.resume(throwing: translated)
                } else {
                    readerWaiting.resume(returning: nil)
                }
            }
        }

        /// The next chunk, waiting for one when none is buffered.
        func next() async throws -> [UInt8]? {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                    let ready: Result<[UInt8]?, any Error>? = lock.withLock {
                        if chunkStart < chunks.count {
                            let chunk = chunks[chunkStart]
                            chunkStart += 1
                            if chunkStart == chunks.count {
                                chunks.removeAll(keepingCapacity: true)
                                chunkStart = 0
                            }
                            buffered -= chunk.count
                            if paused && buffered <= bufferLimit / 2 {
                                paused = false
                                task.resume()
                            }
                            return .success(chunk)
                        }
                        if ended { return failure.map { .failure($0) } ?? .success(nil) }
                        reader = continuation
                        return nil
                    }
                    if let ready { continuation.resume(with: ready) }
                }
            } onCancel: {
                task.cancel()
            }
        }

        private static func translate(_ error: any Error) -> any Error {
            let error = error as NSError
            guard error.domain == NSURLErrorDomain else { return error }
            switch error.code {
            case NSURLErrorCancelled: return CancellationError()
            case NSURLErrorTimedOut:
                return HTTPTransportError(timedOut: true, message: "the server sent nothing within the timeout")
            case NSURLErrorNetworkConnectionLost:
                return HTTPTransportError(
                    timedOut: false,
                    message: "the connection closed before the response was complete"
                )
            default:
                return HTTPTransportError(timedOut: false, message: error.localizedDescription)
            }
        }
    }

    struct StreamChunks: AsyncSequence, Sendable {
        typealias Element = [UInt8]
        let lifetime: Lifetime
        init(stream: Stream) { lifetime = Lifetime(stream: stream) }
        func makeAsyncIterator() -> Iterator { Iterator(lifetime: lifetime) }
        struct Iterator: AsyncIteratorProtocol {
            let lifetime: Lifetime
            mutating func next() async throws -> [UInt8]? { try await lifetime.stream.next() }
        }
    }

    /// Shared by a body and its iterator: when the last of them goes, an unfinished task is cancelled.
    final class Lifetime: Sendable {
        let stream: Stream
        init(stream: Stream) { self.stream = stream }
        deinit { stream.abandon() }
    }
}
