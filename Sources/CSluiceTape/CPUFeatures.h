// What this processor offers the vector code compiled with target attributes (SwiftPM builds for
// the baseline x86-64): one probe for the tokenizer's UTF-8 check and the splitter's scanner.
#ifndef SLUICE_CPU_FEATURES_H
#define SLUICE_CPU_FEATURES_H

enum {
    /// SSSE3's byte shuffle.
    sluice_cpu_ssse3 = 1 << 0,
    /// AVX2, with the OS saving the 256-bit registers on a context switch.
    sluice_cpu_avx2 = 1 << 1,
    /// AVX2 as above, with PCLMUL, POPCNT and BMI1 besides.
    sluice_cpu_avx2_bits = 1 << 2,
};

/// The answer of `sluice_ask_cpu_features`, with its top bit set once asked (0 before). Kept
/// here so that the check is one inline load: the UTF-8 check asks for every long string.
extern unsigned sluice_cpu_feature_bits;

/// Asks the processor, through CPUID rather than `__builtin_cpu_supports` (which needs a runtime
/// library's CPU model that a SwiftPM link may not bring in), and records the answer. Threads
/// that race here record the same answer.
unsigned sluice_ask_cpu_features(void);

/// This processor's features among those above; none off x86-64.
static inline unsigned sluice_cpu_features(void) {
    const unsigned known = __atomic_load_n(&sluice_cpu_feature_bits, __ATOMIC_RELAXED);
    return known != 0 ? known & ~(1u << 31) : sluice_ask_cpu_features();
}

#endif
