// Page faults per decode, a custom metric beside the allocation counts that the benchmark
// package measures itself. A decode that reuses its memory takes few; one that maps
// fresh pages for its tape, stores and results takes one per 4 KiB it touches, and the kernel's
// time for them is CPU that no profile of Sluice's own code shows.

import Benchmark
import Foundation

extension BenchmarkMetric {
    /// Minor page faults during one decode (no scaling: it is read per decode).
    static let pageFaults = BenchmarkMetric.custom("pageFaults", polarity: .prefersSmaller, useScalingFactor: false)
}

/// The process's minor page faults so far.
func minorPageFaults() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_minflt
}

/// Runs `decode` once per scaled iteration, recording the page faults of each.
func measuringPageFaults(_ benchmark: Benchmark, _ decode: () throws -> Void) rethrows {
    for _ in benchmark.scaledIterations {
        let before = minorPageFaults()
        try decode()
        benchmark.measurement(.pageFaults, minorPageFaults() - before)
    }
}

/// Runs `decode` once per scaled iteration, recording the page faults of each.
func measuringPageFaults(_ benchmark: Benchmark, _ decode: () async throws -> Void) async rethrows {
    for _ in benchmark.scaledIterations {
        let before = minorPageFaults()
        try await decode()
        benchmark.measurement(.pageFaults, minorPageFaults() - before)
    }
}
