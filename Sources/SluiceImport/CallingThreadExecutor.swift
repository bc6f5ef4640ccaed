// Running the async import engine on one thread that blocks: a database whose connection belongs
// to a thread (GRDB hands SQLite's out inside a closure, on the thread that called it) is driven
// by the same engine as one that is async all the way down, without blocking one of Swift's
// cooperative threads while it works.

import Foundation

/// A task executor that runs its jobs on the thread that called ``run(_:)``, until the operation
/// given there ends.
package final class CallingThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `running` and `ended` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    /// Whether a thread is running the jobs; once the operation has ended it is not, and a job
    /// that still comes (a continuation resumed late) runs on a thread of its own.
    private var running = true
    private var ended = false

    private init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if running {
            jobs.append(job)
            condition.signal()
            condition.unlock()
            return
        }
        condition.unlock()
        let executor = asUnownedTaskExecutor()
        let late = LateJob(job: job, executor: executor)
        Thread { late.job.runSynchronously(on: late.executor) }.start()
    }

    /// Runs `operation` to its end on the calling thread, which it blocks, and returns what it
    /// returned. Every job of the operation's task (and of child tasks that inherit the
    /// preference) runs here, between its suspension points.
    package static func run<T>(_ operation: @escaping () async throws -> T) throws -> T {
        let executor = CallingThreadExecutor()
        // Both are used by the task, which runs on this thread only, while this call waits.
        let work = Unchecked(operation)
        let result = Unchecked(Result<T, any Error>?.none)
        Task(executorPreference: executor) {
            do {
                result.value = .success(try await work.value())
            } catch {
                result.value = .failure(error)
            }
            executor.end()
        }
        executor.runJobs()
        return try result.value!.get()
    }

    /// Runs jobs as they come until the operation has ended.
    private func runJobs() {
        let me = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty && !ended { condition.wait() }
            if jobs.isEmpty {
                running = false
                condition.unlock()
                return
            }
            let next = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in next { job.runSynchronously(on: me) }
        }
    }

    private func end() {
        condition.lock()
        ended = true
        condition.signal()
        condition.unlock()
    }
}

/// A job to run after the thread has gone back to its caller.
private struct LateJob: @unchecked Sendable {
    let job: UnownedJob
    let executor: UnownedTaskExecutor
}

/// A value handed to a task that runs on the thread that made it.
private final class Unchecked<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
