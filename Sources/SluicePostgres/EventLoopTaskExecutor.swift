// A Swift task executor on a SwiftNIO event loop: the jobs of a task that prefers it run on the
// loop's thread, between the loop's own events, so what they read of a channel is what the
// channel's handlers see (see `PostgresImporter.copy(_:into:columns:)`, which needs exactly
// that). SwiftNIO 2.101 offers no such executor of its own.

import Foundation
import NIOCore

final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: it holds only the event loop, which is thread-safe.
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// The task of an operation on the connection, for the caller's cancellation to reach it: set
/// once it is made, which may be after the caller was cancelled.
final class OperationTaskHandle: @unchecked Sendable {
    // @unchecked: its state is guarded by `lock`.
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var cancelled = false

    func set(_ task: Task<Void, Never>) {
        lock.lock()
        self.task = task
        let cancelNow = cancelled
        lock.unlock()
        if cancelNow { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}

/// The continuation of an operation that can end more than one way (an answer, the connection's
/// close): the first outcome resumes it, later ones are dropped.
final class FirstOutcome<Value: Sendable>: @unchecked Sendable {
    // @unchecked: its state is guarded by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?

    init(_ continuation: CheckedContinuation<Value, any Error>) {
        self.continuation = continuation
    }

    func resume(with outcome: Result<Value, any Error>) {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(with: outcome)
    }
}
