import Foundation

/// Runs the test server's tasks on threads of its own. Other tests block Swift's cooperative
/// pool while they wait for a child process (2 threads on a 2-core machine); a server on that
/// pool would then stall, and a client test would see timeouts that are the test run's, not the
/// client's.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init(threads: Int, name: String) {
        for index in 0..<threads {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// One executor for every server of the test process (its threads live as long as it).
    static let shared = ThreadExecutor(threads: 4, name: "sluice-test-server")
}
