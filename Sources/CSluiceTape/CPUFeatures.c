// See CPUFeatures.h.
#include "CPUFeatures.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>

static unsigned ask_cpu(void) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const unsigned leaf1 = c;
    unsigned features = (leaf1 & bit_SSSE3) ? sluice_cpu_ssse3 : 0;
    if ((leaf1 & (bit_OSXSAVE | bit_AVX)) != (bit_OSXSAVE | bit_AVX)) return features;
    // The OS must save the 256-bit registers on a context switch (XCR0's SSE and AVX bits).
    unsigned xcr0, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
    if ((xcr0 & 6) != 6) return features;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || (b & bit_AVX2) == 0) return features;
    features |= sluice_cpu_avx2;
    if ((leaf1 & (bit_PCLMUL | bit_POPCNT)) == (bit_PCLMUL | bit_POPCNT) && (b & bit_BMI) != 0) features |= sluice_cpu_avx2_bits;
    return features;
}
#else
static unsigned ask_cpu(void) { return 0; }
#endif

unsigned sluice_cpu_feature_bits = 0;

unsigned sluice_ask_cpu_features(void) {
    const unsigned features = ask_cpu();
    __atomic_store_n(&sluice_cpu_feature_bits, features | 1u << 31, __ATOMIC_RELAXED);
    return features;
}
