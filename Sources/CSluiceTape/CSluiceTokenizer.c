// See `sluice_fast_tokenize` in CSluiceTape.h for what this is for.
//
// Why it exists: yajl lexes about 30 instructions a byte, and then the callbacks find each
// token's start and line again (yajl reports neither), check its UTF-8 again and copy it; together
// about 600 instructions a token, more than the typed decoding that follows. Reading the bytes
// once, knowing where each token starts, costs a fraction of that.
//
// Why it can be this small: it never reports a fault. It stops before anything it does not take
// (see the header), and yajl, put in the same state by a short prefix, reads on from there with
// the callbacks in CSluiceTape.c: every message, limit and unusual case keeps its one definition
// there and in ParserState.swift. The tokenizer need only be exact about what it accepts. The
// tests compare its tapes, token by token, with yajl's alone over every JSONTestSuite case, the
// corpora and generated documents, cut into chunks of many sizes.
#include "CSluiceTape.h"
#include "TapeWriting.h"
#include "CPUFeatures.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__SSE2__)
#include <tmmintrin.h>
#include <immintrin.h>
#endif

static inline bool is_digit(uint8_t byte) { return byte >= '0' && byte <= '9'; }

#if !defined(__SSE2__)
/// Nonzero when one of the eight bytes of `word` is a quote, a backslash or a control character:
/// the bytes a string's scan must stop at. Its lowest set bit marks the first such byte (the
/// borrows of the subtractions set bits only above a byte that is one).
static inline uint64_t stop_bytes(uint64_t word) {
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t quotes = word ^ (ones * '"');
    const uint64_t backslashes = word ^ (ones * '\\');
    return (((quotes - ones) & ~quotes) | ((backslashes - ones) & ~backslashes) | ((word - ones * 0x20) & ~word)) &
           0x8080808080808080ULL;
}
#endif

/// Writes `code_point` as UTF-8 at `target`; returns the byte count.
static inline size_t encode_utf8(uint32_t code_point, uint8_t *target) {
    if (code_point < 0x80) {
        target[0] = (uint8_t)code_point;
        return 1;
    }
    if (code_point < 0x800) {
        target[0] = (uint8_t)(0xC0 | code_point >> 6);
        target[1] = (uint8_t)(0x80 | (code_point & 0x3F));
        return 2;
    }
    if (code_point < 0x10000) {
        target[0] = (uint8_t)(0xE0 | code_point >> 12);
        target[1] = (uint8_t)(0x80 | ((code_point >> 6) & 0x3F));
        target[2] = (uint8_t)(0x80 | (code_point & 0x3F));
        return 3;
    }
    target[0] = (uint8_t)(0xF0 | code_point >> 18);
    target[1] = (uint8_t)(0x80 | ((code_point >> 12) & 0x3F));
    target[2] = (uint8_t)(0x80 | ((code_point >> 6) & 0x3F));
    target[3] = (uint8_t)(0x80 | (code_point & 0x3F));
    return 4;
}

/// Whether the `length` bytes of text at `text` are UTF-8, one sequence at a time, by the same
/// `utf8_sequence` as `sluice_check_utf8` (CSluiceTape.c). Not a call to that: with it, clang
/// laid out this file's tokenizer loop otherwise, at 1 M more instructions a 2 000-article
/// JSON:API decode (callgrind), for a check off the usual path.
static bool utf8_text_valid(const uint8_t *text, size_t length) {
    size_t at = 0;
    while (at < length) {
        if (text[at] < 0x80) {
            at += 1;
            continue;
        }
        const intptr_t sequence = utf8_sequence(text + at, (intptr_t)(length - at));
        if (sequence == 0) return false;
        at += (size_t)sequence;
    }
    return true;
}

#if defined(__x86_64__) && defined(__SSE2__)
// The UTF-8 check sixteen or 32 bytes at a time: each byte classed by table lookups on its high
// and low nibbles and the next byte's high nibble, where a fault is a class the three share, and
// the bytes two and three before it say whether it must be a continuation (Keiser and Lemire's
// check, "Validating UTF-8 in less than one instruction per byte", 2021). Checked a sequence at
// a time, text in most scripts but Latin, where every few bytes start a sequence, cost a
// mispredicted branch for most of them.

/// The faults a pair of bytes can show, one bit each.
enum {
    utf8_too_short = 1 << 0,     // a lead or ASCII byte, then a lead or ASCII byte where a continuation must be
    utf8_too_long = 1 << 1,      // ASCII, then a continuation
    utf8_overlong_3 = 1 << 2,    // E0, then 80-9F
    utf8_too_large = 1 << 3,     // F4 then 90-BF, or F5-FF then 90-BF
    utf8_surrogate = 1 << 4,     // ED, then A0-BF
    utf8_overlong_2 = 1 << 5,    // C0 or C1, then a continuation
    utf8_too_large_1000 = 1 << 6, // F5-FF, then 80-8F
    utf8_overlong_4 = 1 << 6,    // F0, then 80-8F
    utf8_two_continuations = 1 << 7,
    utf8_carry = utf8_too_short | utf8_too_long | utf8_two_continuations,
};

/// The three lookup tables, by the first byte's high nibble, its low nibble, and the second
/// byte's high nibble.
static const uint8_t utf8_first_high[16] = {
    utf8_too_long, utf8_too_long, utf8_too_long, utf8_too_long, utf8_too_long, utf8_too_long, utf8_too_long, utf8_too_long,
    utf8_two_continuations, utf8_two_continuations, utf8_two_continuations, utf8_two_continuations,
    utf8_too_short | utf8_overlong_2, utf8_too_short, utf8_too_short | utf8_overlong_3 | utf8_surrogate,
    utf8_too_short | utf8_too_large | utf8_too_large_1000 | utf8_overlong_4};
static const uint8_t utf8_first_low[16] = {
    utf8_carry | utf8_overlong_3 | utf8_overlong_2 | utf8_overlong_4, utf8_carry | utf8_overlong_2, utf8_carry, utf8_carry,
    utf8_carry | utf8_too_large, utf8_carry | utf8_too_large | utf8_too_large_1000, utf8_carry | utf8_too_large | utf8_too_large_1000,
    utf8_carry | utf8_too_large | utf8_too_large_1000, utf8_carry | utf8_too_large | utf8_too_large_1000,
    utf8_carry | utf8_too_large | utf8_too_large_1000, utf8_carry | utf8_too_large | utf8_too_large_1000,
    utf8_carry | utf8_too_large | utf8_too_large_1000, utf8_carry | utf8_too_large | utf8_too_large_1000,
    utf8_carry | utf8_too_large | utf8_too_large_1000 | utf8_surrogate, utf8_carry | utf8_too_large | utf8_too_large_1000,
    utf8_carry | utf8_too_large | utf8_too_large_1000};
static const uint8_t utf8_second_high[16] = {
    utf8_too_short, utf8_too_short, utf8_too_short, utf8_too_short, utf8_too_short, utf8_too_short, utf8_too_short, utf8_too_short,
    utf8_too_long | utf8_overlong_2 | utf8_two_continuations | utf8_overlong_3 | utf8_too_large_1000 | utf8_overlong_4,
    utf8_too_long | utf8_overlong_2 | utf8_two_continuations | utf8_overlong_3 | utf8_too_large,
    utf8_too_long | utf8_overlong_2 | utf8_two_continuations | utf8_surrogate | utf8_too_large,
    utf8_too_long | utf8_overlong_2 | utf8_two_continuations | utf8_surrogate | utf8_too_large,
    utf8_too_short, utf8_too_short, utf8_too_short, utf8_too_short};

/// A sliding mask: sixteen kept bytes, then sixteen cleared, for the last, partial sixteen.
static const uint8_t utf8_kept[32] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

/// The faults of the sixteen bytes `input`, `previous` the sixteen before them (zeros at the
/// text's start): zero where there are none.
__attribute__((target("ssse3"))) static inline __attribute__((always_inline)) __m128i utf8_faults16(__m128i input, __m128i previous) {
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m128i before1 = _mm_alignr_epi8(input, previous, 15);
    const __m128i classes =
        _mm_and_si128(_mm_and_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)utf8_first_high), _mm_and_si128(_mm_srli_epi16(before1, 4), nibble)),
                                    _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)utf8_first_low), _mm_and_si128(before1, nibble))),
                      _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)utf8_second_high), _mm_and_si128(_mm_srli_epi16(input, 4), nibble)));
    // Third and fourth bytes of a sequence (two or three after a lead of E0-FF or F0-FF) must be
    // continuations: the pair check marks those as two continuations, which this cancels.
    const __m128i third = _mm_subs_epu8(_mm_alignr_epi8(input, previous, 14), _mm_set1_epi8((char)(0xE0 - 0x80)));
    const __m128i fourth = _mm_subs_epu8(_mm_alignr_epi8(input, previous, 13), _mm_set1_epi8((char)(0xF0 - 0x80)));
    const __m128i continuing = _mm_and_si128(_mm_or_si128(third, fourth), _mm_set1_epi8((char)0x80));
    return _mm_xor_si128(continuing, classes);
}

/// The check from byte `at` of the `length` bytes at `text` to their end, sixteen at a time, the
/// sixteen bytes after them readable, `previous` the sixteen before `at` and `faults` those found
/// before it: whether the whole text is UTF-8.
__attribute__((target("ssse3"))) static inline __attribute__((always_inline)) bool utf8_finish16(const uint8_t *text, size_t length, size_t at,
                                                                                                  __m128i previous, __m128i faults) {
    for (; at < length; at += 16) {
        __m128i input = _mm_loadu_si128((const __m128i *)(const void *)(text + at));
        // Past the end, zeros: ASCII, which ends a sequence left open as too short.
        if (length - at < 16) input = _mm_and_si128(input, _mm_loadu_si128((const __m128i *)(const void *)(utf8_kept + 16 - (length - at))));
        faults = _mm_or_si128(faults, utf8_faults16(input, previous));
        previous = input;
    }
    // A sequence left open by the last sixteen bytes, where they were whole: a lead in the last
    // byte, E0 or above in the one before, F0 or above in the one before that.
    const __m128i open_limits = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, (char)(0xF0 - 1), (char)(0xE0 - 1), (char)(0xC0 - 1));
    faults = _mm_or_si128(faults, _mm_subs_epu8(previous, open_limits));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(faults, _mm_setzero_si128())) == 0xFFFF;
}

/// Whether the `length` bytes of text at `text` are UTF-8, sixteen at a time, the sixteen bytes
/// after them readable.
__attribute__((target("ssse3"))) static bool utf8_text_valid_ssse3(const uint8_t *text, size_t length) {
    return utf8_finish16(text, length, 0, _mm_setzero_si128(), _mm_setzero_si128());
}

/// `utf8_text_valid_ssse3` 32 bytes at a time while 32 remain, then sixteen: the same tables
/// in both halves of each register, the bytes before each half taken across the halves. Long
/// strings in scripts but Latin (most of twitter.json's text) take half the steps.
__attribute__((target("avx2"))) static bool utf8_text_valid_avx2(const uint8_t *text, size_t length) {
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i first_high = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)utf8_first_high));
    const __m256i first_low = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)utf8_first_low));
    const __m256i second_high = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)utf8_second_high));
    __m256i faults = _mm256_setzero_si256();
    __m256i previous = _mm256_setzero_si256();
    size_t at = 0;
    for (; length - at >= 32; at += 32) {
        const __m256i input = _mm256_loadu_si256((const __m256i *)(const void *)(text + at));
        // The 32 bytes before each byte's lane: the previous block's high half, then this
        // block's low half.
        const __m256i shifted = _mm256_permute2x128_si256(previous, input, 0x21);
        const __m256i before1 = _mm256_alignr_epi8(input, shifted, 15);
        const __m256i classes = _mm256_and_si256(
            _mm256_and_si256(_mm256_shuffle_epi8(first_high, _mm256_and_si256(_mm256_srli_epi16(before1, 4), nibble)),
                             _mm256_shuffle_epi8(first_low, _mm256_and_si256(before1, nibble))),
            _mm256_shuffle_epi8(second_high, _mm256_and_si256(_mm256_srli_epi16(input, 4), nibble)));
        const __m256i third = _mm256_subs_epu8(_mm256_alignr_epi8(input, shifted, 14), _mm256_set1_epi8((char)(0xE0 - 0x80)));
        const __m256i fourth = _mm256_subs_epu8(_mm256_alignr_epi8(input, shifted, 13), _mm256_set1_epi8((char)(0xF0 - 0x80)));
        const __m256i continuing = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
        faults = _mm256_or_si256(faults, _mm256_xor_si256(continuing, classes));
        previous = input;
    }
    return utf8_finish16(text, length, at, _mm256_extracti128_si256(previous, 1),
                         _mm_or_si128(_mm256_castsi256_si128(faults), _mm256_extracti128_si256(faults, 1)));
}

/// The widest check allowed (`sluice_limit_utf8_vectors`), for tests of the narrower ones.
static int utf8_vector_limit = 2;

/// The widest check this processor runs and the limit allows: 2 for AVX2, 1 for SSSE3, 0 for
/// neither.
static int utf8_vectors(void) {
    const unsigned features = sluice_cpu_features();
    const int level = (features & sluice_cpu_avx2) ? 2 : (features & sluice_cpu_ssse3) ? 1 : 0;
    const int limit = __atomic_load_n(&utf8_vector_limit, __ATOMIC_RELAXED);
    return level < limit ? level : limit;
}

void sluice_limit_utf8_vectors(int level) { __atomic_store_n(&utf8_vector_limit, level, __ATOMIC_RELAXED); }
#else
void sluice_limit_utf8_vectors(int level) { (void)level; }
#endif

/// Whether the `length` bytes of text at `text` are UTF-8, with the sixteen bytes after them
/// readable: 32 or sixteen at a time where the processor has AVX2 or SSSE3, else a sequence at
/// a time.
static inline bool utf8_text_valid_fast(const uint8_t *text, size_t length) {
#if defined(__x86_64__) && defined(__SSE2__)
    switch (utf8_vectors()) {
    case 2: return utf8_text_valid_avx2(text, length);
    case 1: return utf8_text_valid_ssse3(text, length);
    default: break;
    }
#endif
    return utf8_text_valid(text, length);
}

/// The escape at `at`, a backslash before `end`: its length in the input (2, 6, or 12 for a
/// surrogate pair) with the code point it stands for in `*code_point`; 0 where it is not the
/// tokenizer's to take (a fault, a lone surrogate, or its end not before `end`).
static inline __attribute__((always_inline)) intptr_t escape_sequence(const uint8_t *at, const uint8_t *end, uint32_t *code_point) {
    if (end - at < 2) return 0;
    const uint8_t escape = at[1];
    switch (escape) {
    case '"': case '\\': case '/': *code_point = escape; return 2;
    case 'b': *code_point = '\b'; return 2;
    case 'f': *code_point = '\f'; return 2;
    case 'n': *code_point = '\n'; return 2;
    case 'r': *code_point = '\r'; return 2;
    case 't': *code_point = '\t'; return 2;
    case 'u': break;
    default: return 0;
    }
    if (end - at < 6) return 0;
    const int32_t unit = hex4(at + 2);
    if (unit < 0 || (unit & 0xFC00) == 0xDC00) return 0;
    if ((unit & 0xFC00) != 0xD800) {
        *code_point = (uint32_t)unit;
        return 6;
    }
    if (end - at < 12 || at[6] != '\\' || at[7] != 'u') return 0;
    const int32_t low = hex4(at + 8);
    if (low < 0 || (low & 0xFC00) != 0xDC00) return 0;
    *code_point = 0x10000 + (((uint32_t)unit - 0xD800) << 10) + ((uint32_t)low - 0xDC00);
    return 12;
}

/// One pass over the string whose opening quote is at `at`: its closing quote, or NULL when it
/// is not the tokenizer's to take (a fault, a lone surrogate, or its end not before `end`).
/// `copying` (a constant at each call, so that each gets code of its own, without a test of it
/// per step): the text is copied to `target` with its escapes decoded, its length put in
/// `*written` and whether it is all ASCII in `*is_ascii`; else the string is only found and
/// checked.
///
/// The scan stops only at quotes, backslashes and control characters, sixteen bytes at a time
/// (eight without SSE2); each sixteen read are stored at once where the text stands, and the
/// bytes past a stop are overwritten by what follows. Bytes that are not ASCII do not stop it:
/// where there are any, the text is checked as UTF-8 once whole. Checked a sequence at a time,
/// text in most scripts but Latin stopped the scan at nearly every character, a mispredicted
/// branch for most; and a string with escapes was read twice more to decode it. The text and the
/// input are UTF-8 alike, since escapes stand for ASCII or for whole sequences. When copying,
/// `end` must leave the text room for what is read before it and sixteen bytes more: what
/// `room_limit` keeps (decoded text is never longer than its input), and the room the check
/// reads past the text.
static inline __attribute__((always_inline)) const uint8_t *string_pass(const uint8_t *at, const uint8_t *end, bool copying, uint8_t *target, size_t *written,
                                                                      bool *is_ascii) {
    const uint8_t *source = at + 1;
    // The text's length so far (when copying).
    size_t length = 0;
    // Nonzero where a byte of the input's own text (not of an escape) is not ASCII.
    uint64_t high = 0;
    bool escaped_high = false;
#if defined(__SSE2__)
    // The sixteen-byte blocks passed whole, OR-ed: their sign bits join `high` once, at the end,
    // rather than a mask and three operations per block (a long string's loop was 27
    // instructions a block, now 16).
    __m128i passed = _mm_setzero_si128();
#endif
    for (;;) {
#if defined(__SSE2__)
        const __m128i quotes = _mm_set1_epi8('"'), backslashes = _mm_set1_epi8('\\'), controls = _mm_set1_epi8(0x1F);
        for (;;) {
            if (end - source < 16) goto bytes;
            const __m128i chunk = _mm_loadu_si128((const __m128i *)(const void *)source);
            if (copying) _mm_storeu_si128((__m128i *)(void *)(target + length), chunk);
            // Unsigned: a byte at most 0x1F is its own minimum with 0x1F.
            const __m128i stops = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(chunk, quotes), _mm_cmpeq_epi8(chunk, backslashes)),
                                               _mm_cmpeq_epi8(_mm_min_epu8(chunk, controls), chunk));
            const unsigned mask = (unsigned)_mm_movemask_epi8(stops);
            if (mask != 0) {
                // The sign bits of the bytes before the first stop.
                high |= (unsigned)_mm_movemask_epi8(chunk) & ((mask & -mask) - 1);
                const unsigned skipped = (unsigned)__builtin_ctz(mask);
                source += skipped;
                length += skipped;
                goto found;
            }
            passed = _mm_or_si128(passed, chunk);
            source += 16;
            length += 16;
        }
#else
        for (;;) {
            if (end - source < 8) goto bytes;
            uint64_t word;
            memcpy(&word, source, 8);
            if (copying) memcpy(target + length, &word, 8);
            const uint64_t stops = stop_bytes(word);
            if (stops == 0) {
                high |= word & 0x8080808080808080ULL;
                source += 8;
                length += 8;
                continue;
            }
            const unsigned skipped = (unsigned)__builtin_ctzll(stops) >> 3;
            if (skipped > 0) high |= word & (~UINT64_C(0) >> (64 - 8 * skipped)) & 0x8080808080808080ULL;
            source += skipped;
            length += skipped;
            goto found;
        }
#endif
    bytes:
        // The last bytes before `end`, one at a time.
        while (source < end) {
            const uint8_t byte = *source;
            if (byte == '"' || byte == '\\' || byte < 0x20) break;
            high |= byte & 0x80;
            if (copying) target[length] = byte;
            length += 1;
            source += 1;
        }
        if (source >= end) return NULL;
    found:;
        const uint8_t byte = *source;
        if (byte == '"') break;
        if (byte != '\\') return NULL;  // a control character
        uint32_t code_point;
        const intptr_t escape = escape_sequence(source, end, &code_point);
        if (escape == 0) return NULL;
        source += escape;
        escaped_high |= code_point >= 0x80;
        if (copying) length += encode_utf8(code_point, target + length);
    }
#if defined(__SSE2__)
    high |= (unsigned)_mm_movemask_epi8(passed);
#endif
    if (high != 0 && !(copying ? utf8_text_valid_fast(target, length) : utf8_text_valid(at + 1, (size_t)(source - at - 1)))) return NULL;
    if (copying) {
        *written = length;
        *is_ascii = high == 0 && !escaped_high;
    }
    return source;
}

/// `string_pass` copying the text: the path of every string the short path does not take. Out
/// of line: the usual string is the short path's, and these registers would be taken from every
/// token.
__attribute__((noinline)) static const uint8_t *copy_string(const uint8_t *at, const uint8_t *end, uint8_t *target, size_t *written, bool *is_ascii) {
    return string_pass(at, end, true, target, written, is_ascii);
}

/// `string_pass` finding the string's closing quote only: where `copy_string` may not write (its
/// end past the tape's room), and for the last token when the tokenizer stops. Out of line: both
/// are rare, and inlined into the tokenizer it took registers from every token.
__attribute__((noinline)) static const uint8_t *scan_string(const uint8_t *at, const uint8_t *end) { return string_pass(at, end, false, NULL, NULL, NULL); }

/// The number at `at`: its length with `*digits` filled, or 0 where it is not one or reaches
/// `limit` (more digits may follow in the next chunk: yajl takes it). Out of line: inside the
/// tokenizer its registers and its 128-bit product cost every string and key spills (a
/// percent of a JSON:API decode), and a call per number costs canada.json less than that.
__attribute__((noinline)) static intptr_t tokenize_number(const uint8_t *at, const uint8_t *limit, sluice_number_digits *digits) {
    const intptr_t next = read_number(at, 0, limit - at, digits);
    return next < 0 || next == limit - at ? 0 : next;
}

/// How many bytes of input the tape has room for, read into tokens and text: one token a byte at
/// most, and a sixteen-byte move's spare bytes.
static inline intptr_t room_for(intptr_t tokens, intptr_t bytes) {
    // A byte of input may be a whole number token, whose text has a trailer after it.
    const intptr_t text = (bytes - 16) / (1 + SLUICE_NUMBER_TRAILER_SIZE);
    const intptr_t room = tokens < text ? tokens : text;
    return room > 0 ? room : 0;
}

enum {
    /// A string the short path (`SLUICE_SHORT_STRING`) may take, from its opening quote: at most
    /// 32 bytes between its quotes.
    short_string_span = 32 + 2,
    /// The bytes from a string's opening quote that must lie before the chunk's end for the short
    /// path: the 32 it reads after the quote, and the ones after the string that the code after it
    /// looks at unchecked, with room to spare.
    short_string_reach = 48,
};

/// `room_limit` for the tokenizer at `at` with room for `tokens` tokens and `bytes` bytes of
/// text: `at` plus `room_for`, and far enough before the chunk's `limit` that a string whose
/// `short_string_span` ends before it has its `short_string_reach` before `limit`. So one
/// comparison per string decides the short path, where there were four; a token in a chunk's
/// last few bytes is checked exactly instead (`SLUICE_CHECK_ROOM`).
static inline const uint8_t *room_limit_at(const uint8_t *at, const uint8_t *limit, intptr_t tokens, intptr_t bytes) {
    const uintptr_t by_room = (uintptr_t)at + (uintptr_t)room_for(tokens, bytes);
    const uintptr_t by_end = (uintptr_t)limit - (short_string_reach - short_string_span);
    return (const uint8_t *)(by_room < by_end ? by_room : by_end);
}

/// Four bytes of text as one word, to compare a literal with one load.
static inline uint32_t literal_word(const char *text) {
    uint32_t word;
    memcpy(&word, text, 4);
    return word;
}

/// The line the tokenizer stands on. Only what every line feed changes: the line the last token
/// left, wanted only when the tokenizer stops, is worked out then (see `finish`), since indented
/// JSON has a line feed for every few tokens.
typedef struct line_state {
    intptr_t line;
    /// `line`, clamped for tokens.
    uint32_t line_number;
    /// The address just before the line's first byte (it may lie before the chunk): the last
    /// line feed counted. A line's start is one past it.
    intptr_t column_base;
    /// The line's indentation, and the last change of it from one line to the next, learned as
    /// the tokenizer goes (see `indented_token`); a chunk starts without them. Here rather than
    /// in locals of their own: the line state lives in memory (`skip_space` takes its address),
    /// and two more registers taken for the whole tokenizer slowed canada.json's numbers.
    intptr_t indent;
    intptr_t step;
} line_state;

/// Counts the line feed at `feed`: the next line starts after it.
static inline __attribute__((always_inline)) void count_line_feed(line_state *lines, const uint8_t *feed) {
    lines->line += 1;
    lines->line_number = clamp32(lines->line);
    lines->column_base = (intptr_t)feed;
}

/// Steps over the whitespace at `at` (which is whitespace or a control character) of every
/// kind, a byte or sixteen at a time, counting lines; returns the first other byte's address, or
/// `limit`. Out of line: the usual gap is `indented_token`'s, and this loop's registers would
/// otherwise be taken from every token.
__attribute__((noinline)) static const uint8_t *skip_space(const uint8_t *at, const uint8_t *base, const uint8_t *limit, line_state *lines) {
    while (at < limit) {
        const uint8_t space = *at;
        // A line feed first, then the other three by a bit mask: the usual call is a line feed
        // and its indentation, and a switch on the byte (what the compiler made of a chain of
        // comparisons) cost an indirect jump per byte looked at.
        if (__builtin_expect(space == '\n', 1)) {
            count_line_feed(lines, at);
            at = base + skip_spaces(base, at + 1 - base, limit - base);
        } else if (space <= ' ' && ((UINT64_C(1) << space) & ((UINT64_C(1) << ' ') | (UINT64_C(1) << '\t') | (UINT64_C(1) << '\r')))) {
            at += 1;
        } else {
            break;
        }
    }
    return at;
}

#if defined(__SSE2__)
/// The spaces after the line feed at `at`: bit i set where byte `at + 1 + i` is a space, for the
/// 32 bytes after it (which must be there).
static inline __attribute__((always_inline)) uint32_t indentation_run(const uint8_t *at) {
    const __m128i spaces = _mm_set1_epi8(' ');
    const uint32_t low = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(at + 1)), spaces));
    const uint32_t high = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(at + 17)), spaces));
    return low | high << 16;
}
#endif

/// The usual gap of indented JSON found from the masks alone: `indented_token` without the
/// prediction, for the gaps `SLUICE_SKIP_SPACE` steps over (an array's opening and closing
/// lines, around a colon, at the top level). Predicted at an array's opening and closing too,
/// the sites canada.json's coordinates pass through carried the prediction's code, and its
/// tokenizing took 0.3 M instructions more (spills on its numbers' path) for lines that are
/// rare in any document.
static inline __attribute__((always_inline)) const uint8_t *indented_token_found(const uint8_t *at, const uint8_t *limit) {
#if defined(__SSE2__)
    if (limit - at > 32 && *at == '\n') {
        const uint32_t others = ~indentation_run(at);
        if (others != 0 && at[1 + __builtin_ctz(others)] > ' ') return at + 1 + __builtin_ctz(others);
    }
#else
    (void)at;
    (void)limit;
#endif
    return NULL;
}

/// The usual gap of indented JSON, a line feed at `at` and at most 31 spaces: the address of the
/// token after it, or NULL for any other gap (`skip_space`'s). Two loads and one mask find the
/// token, inline: called, the gap cost some 80 instructions a line with the call's setup
/// (twitter.json has a line for every two tokens, citm_catalog.json 50 000 lines).
///
/// The indentation the grammar's state predicts (`lines->indent` plus `direction` times
/// `lines->step`, see `SLUICE_SKIP_SPACE_EXPECTING`) is tried first: when the spaces end exactly
/// there, the token's address is the line feed's plus a number known before the masks are, so
/// the tokenizer reads on from it while they are worked out, and they only confirm it. Found
/// from the masks, each line's token waited for two loads, a compare, a mask and a count of
/// zeros: a chain of some fifteen cycles a line on citm_catalog.json, where the prediction holds
/// for every line. `lines->indent` is left at the line's indentation and `lines->step` at the
/// last change of it. The prediction is worked out only here, past the line feed, so that the
/// tokenizer's other paths (canada.json's numbers) carry none of it.
static inline __attribute__((always_inline)) const uint8_t *indented_token(const uint8_t *at, const uint8_t *limit, intptr_t direction, line_state *lines) {
#if defined(__SSE2__)
    if (limit - at > 32 && *at == '\n') {
        const intptr_t expected = lines->indent + direction * lines->step;
        const uint64_t run = indentation_run(at);
        // Spaces up to the expected column and none there, and no other whitespace after them.
        if (__builtin_expect((uintptr_t)expected < 32 && (run & ((UINT64_C(2) << expected) - 1)) == (UINT64_C(1) << expected) - 1 &&
                                 at[1 + expected] > ' ',
                             1)) {
            lines->indent = expected;
            return at + 1 + expected;
        }
        const uint32_t others = ~(uint32_t)run;
        // The first byte after the spaces, if it is within the 32 looked at and no other
        // whitespace (that, or more spaces, is the general loop's).
        if (others != 0 && at[1 + __builtin_ctz(others)] > ' ') {
            const intptr_t found = __builtin_ctz(others);
            if (found != lines->indent) lines->step = found > lines->indent ? found - lines->indent : lines->indent - found;
            lines->indent = found;
            return at + 1 + found;
        }
    }
#else
    (void)at;
    (void)limit;
    (void)direction;
    (void)lines;
#endif
    return NULL;
}

/// Steps over whitespace; jumps to `chunk_done` at the chunk's end. One comparison passes over
/// none, the common case, and one space (after a colon or comma) is stepped over here.
///
/// `direction` is where the next line's indentation should lie where the grammar stands, in
/// steps from the line before: a container's first member one step in (1) from the line that
/// opened it, a member after a comma where the one before it began (0), a container's closing
/// bracket (after a member with no comma) one step out (-1). Pretty printers write exactly that;
/// anything else costs a mispredicted branch.
#define SLUICE_SKIP_SPACE_EXPECTING(direction) SLUICE_SKIP_SPACE_FINDING(indented_token(at, limit, (direction), &lines))

/// The same without a prediction (`indented_token_found`).
#define SLUICE_SKIP_SPACE() SLUICE_SKIP_SPACE_FINDING(indented_token_found(at, limit))

/// What both share: `find` gives the usual gap's end, or NULL for the general loop's.
#define SLUICE_SKIP_SPACE_FINDING(find)                                      \
    if (at >= limit || *at <= ' ') {                                         \
        if (at < limit && *at == ' ') at += 1;                               \
        if (at >= limit || *at <= ' ') {                                     \
            const uint8_t *const indented = (find);                          \
            if (indented != NULL) {                                          \
                count_line_feed(&lines, at);                                 \
                at = indented;                                               \
            } else {                                                         \
                at = skip_space(at, base, limit, &lines);                    \
                if (at >= limit) goto chunk_done;                            \
            }                                                                \
        }                                                                    \
    }

/// The column of the byte at `at` (`column_base` is the address just before its line's first
/// byte, so the difference is at least 1), clamped as `clamp32` clamps.
#define SLUICE_COLUMN() ((uintptr_t)at - (uintptr_t)lines.column_base > UINT32_MAX ? UINT32_MAX : (uint32_t)((uintptr_t)at - (uintptr_t)lines.column_base))

/// Checks that the tape has room for a token that ends at `token_end` and needs `text_bytes` of
/// text room (see `room_limit`), and stops where it has not.
#define SLUICE_CHECK_ROOM(token_end, text_bytes)                                        \
    if ((token_end) > room_limit) {                                                      \
        if (token == token_limit || (intptr_t)(text_bytes) > text_limit - text) goto stop; \
        room_limit = room_limit_at(at, limit, token_limit - token, text_limit - text);  \
    }

/// Reads the string at `at` as a token, a key or a value (`is_key`, a constant at each use, so
/// that each gets code of its own); stops where the tokenizer does not take it.
#define SLUICE_STRING(is_key)                                                                                   \
    {                                                                                                           \
        bool ascii = true;                                                                                      \
        size_t length = 0;                                                                                      \
        /* `room_limit` lies before `limit` (`room_limit_at`). */                                             \
        const uint8_t *close = copy_string(at, room_limit, text, &length, &ascii);                             \
        if (close == NULL) {                                                                                    \
            /* Not closed before the tape's room ends (or the chunk's), or a fault: found first, */            \
            /* and copied once the room for it is sure. */                                                      \
            const uint8_t *const found = scan_string(at, limit);                                                \
            if (found == NULL) goto stop;                                                                       \
            SLUICE_CHECK_ROOM(found + 1, found - at - 1 + 16);                                                  \
            close = copy_string(at, found + 1, text, &length, &ascii);                                          \
            if (close == NULL) goto stop;                                                                       \
        }                                                                                                       \
        if (close - at - 1 > max_token_bytes) goto stop;                                                       \
        write_token(token, (is_key) ? kind_key : kind_string, ascii, (uint32_t)length, SLUICE_COLUMN(), lines.line_number, \
                    (intptr_t)text + text_origin, (intptr_t)at + origin);                                      \
        token += 1;                                                                                             \
        text += length;                                                                                         \
        at = close + 1;                                                                                         \
    }

#if defined(__SSE2__)
/// The bytes of `chunk` a string's short path stops at: quotes, backslashes, control characters
/// and (signed: at or above 0x80 is below 0x20) every byte that is not ASCII, one bit each.
static inline __attribute__((always_inline)) unsigned short_string_stops(__m128i chunk) {
    const __m128i stops = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(chunk, _mm_set1_epi8('"')), _mm_cmpeq_epi8(chunk, _mm_set1_epi8('\\'))),
                                       _mm_cmplt_epi8(chunk, _mm_set1_epi8(0x20)));
    return (unsigned)_mm_movemask_epi8(stops);
}

/// The short path's token for the ASCII string of `length` bytes at `at`, its text already moved
/// to `text`; then on to `done`.
#define SLUICE_SHORT_TOKEN(is_key, length, done)                                                                \
    write_token(token, (is_key) ? kind_key : kind_string, true, (uint32_t)(length), SLUICE_COLUMN(), lines.line_number, \
                (intptr_t)text + text_origin, (intptr_t)at + origin);                                         \
    token += 1;                                                                                                 \
    text += (length);                                                                                           \
    at += (length) + 2;                                                                                         \
    goto done;

/// Reads the usual string at `at` as a token and goes to `done`: at most thirty-two bytes of
/// ASCII without escapes, within the limit on token length, its closing quote before
/// `room_limit` (so that its text fits, and the code after it may look at the bytes after it
/// unchecked). One load and one mask find the end of one of up to
/// sixteen bytes, one move copies it; the next sixteen bytes are looked at only when the first
/// sixteen hold no stop. Through `SLUICE_STRING` a short key cost some 40 instructions more,
/// most of it its cases for long, escaped and non-ASCII text, and one of 17 to 32 bytes (a
/// quarter of twitter.json's keys, `in_reply_to_status_id_str`, and its dates) some 120 more
/// with the call. Anything else falls through to it.
#define SLUICE_SHORT_STRING(is_key, done)                                                                       \
    if (at + short_string_span < room_limit) {                                                                  \
        const __m128i chunk = _mm_loadu_si128((const __m128i *)(const void *)(at + 1));                        \
        const unsigned mask = short_string_stops(chunk);                                                        \
        intptr_t length = __builtin_ctz(mask | 0x10000u);                                                       \
        if (at[1 + length] == '"') {                                                                            \
            /* The move writes past the text into free space: `room_limit` keeps sixteen spare. */             \
            _mm_storeu_si128((__m128i *)(void *)text, chunk);                                                   \
            SLUICE_SHORT_TOKEN(is_key, length, done);                                                           \
        }                                                                                                       \
        if (mask == 0) {                                                                                        \
            const __m128i more = _mm_loadu_si128((const __m128i *)(const void *)(at + 17));                    \
            length = 16 + __builtin_ctz(short_string_stops(more) | 0x10000u);                                   \
            if (at[1 + length] == '"' && length <= max_token_bytes) {                                           \
                /* At least seventeen bytes of text: the second move's spare bytes are fifteen at most. */      \
                _mm_storeu_si128((__m128i *)(void *)text, chunk);                                               \
                _mm_storeu_si128((__m128i *)(void *)(text + 16), more);                                         \
                SLUICE_SHORT_TOKEN(is_key, length, done);                                                       \
            }                                                                                                   \
        }                                                                                                       \
    }
#else
#define SLUICE_SHORT_STRING(is_key, done)
#endif

/// Opens the container whose bracket is at `at` (`is_object` and `kind` are constants at each
/// use) and goes to `opened`.
#define SLUICE_OPEN(is_object, kind, opened)                                                                    \
    {                                                                                                           \
        if (depth >= depth_limit) goto stop;                                                                    \
        SLUICE_CHECK_ROOM(at + 1, 0);                                                                           \
        const intptr_t start = (intptr_t)at + origin;                                                          \
        top_child_count += 1;                                                                                   \
        if (depth > 0) containers[depth - 1].child_count = top_child_count;                                     \
        push_container(containers + depth, first_index + (token - first_token), is_object, start, lines.line, \
                       lines.column_base + 1 + origin);                                                        \
        depth += 1;                                                                                             \
        top_child_count = 0;                                                                                    \
        in_object = is_object;                                                                                  \
        write_token(token, kind, false, 0, SLUICE_COLUMN(), lines.line_number, -1, start);                     \
        token += 1;                                                                                             \
        at += 1;                                                                                                \
        goto opened;                                                                                            \
    }

/// Closes the innermost container, whose end token is `kind`, with the bracket at `at`.
#define SLUICE_CLOSE(kind)                                                                                      \
    {                                                                                                           \
        SLUICE_CHECK_ROOM(at + 1, 0);                                                                           \
        const intptr_t start = (intptr_t)at + origin;                                                          \
        depth -= 1;                                                                                             \
        const intptr_t opening = containers[depth].token_index;                                                \
        const intptr_t child_count = top_child_count;                                                           \
        if (depth > 0) {                                                                                        \
            top_child_count = containers[depth - 1].child_count;                                                \
            in_object = containers[depth - 1].is_object;                                                        \
        } else {                                                                                                \
            top_child_count = 0;                                                                                \
            in_object = false;                                                                                  \
        }                                                                                                       \
        const intptr_t end_index = first_index + (token - first_token);                                        \
        write_token(token, kind, false, 0, SLUICE_COLUMN(), lines.line_number, opening, start);                \
        token += 1;                                                                                             \
        /* Record on the start token where its container ends, unless a consumer has released it. */           \
        if (opening >= first_index) finish_container(first_token + (opening - first_index), end_index, child_count); \
        at += 1;                                                                                                \
        SLUICE_AFTER_VALUE();                                                                                   \
    }

/// After a value: where the grammar stands depends on what holds it.
#define SLUICE_AFTER_VALUE()               \
    if (in_object) goto object_value_done; \
    if (depth > 0) goto array_value_done;  \
    goto top_value_done;

int sluice_fast_tokenize(sluice_parser_hot *h) {
    const uint8_t *const base = h->chunk;
    // A limit on token length under sixteen bytes is yajl's to keep: the short path takes
    // strings of sixteen unchecked.
    if (base == NULL || h->chunk_is_virtual || h->pending_start >= 0 || h->max_token_bytes < 16) return 0;
    // Why this shape: every token passes through here, so the state a token changes lives in
    // few locals that the compiler can keep in registers (a cursor into the chunk, the next free
    // token and text byte), and where the grammar stands is where the code stands: each label
    // below is one state between tokens, with the separator the grammar allows there, so nothing
    // is worked out again from flags at every token.
    const uint8_t *const limit = base + h->chunk_count;
    // A byte's absolute offset is its address plus `origin`; a text byte's, plus `text_origin`.
    const intptr_t origin = h->chunk_base - (intptr_t)base;
    const intptr_t max_token_bytes = h->max_token_bytes;
    const intptr_t max_depth = h->max_depth;
    sluice_token *const first_token = *h->tokens;
    sluice_token *token = first_token + *h->token_count;
    sluice_token *const entry_token = token;
    sluice_token *const token_limit = first_token + *h->token_capacity;
    uint8_t *const first_byte = *h->bytes;
    uint8_t *text = first_byte + *h->byte_count;
    uint8_t *const text_limit = first_byte + *h->byte_capacity;
    const intptr_t text_origin = *h->arena_base - (intptr_t)first_byte;
    const intptr_t first_index = *h->first_index;
    sluice_open_container *const containers = h->containers;
    const intptr_t container_capacity = h->container_capacity;
    // One comparison per container opened: the limit's and the stack's bounds at once.
    const intptr_t depth_limit = max_depth < container_capacity ? max_depth : container_capacity;
    intptr_t depth = h->container_count;
    intptr_t top_child_count = h->top_child_count;
    bool in_object = depth > 0 && containers[depth - 1].is_object;
    const intptr_t from = h->scan_offset > h->chunk_base ? h->scan_offset : h->chunk_base;
    const uint8_t *at = (const uint8_t *)(from - origin);
    // The line as the gap's line feeds leave it.
    line_state lines = {
        .line = h->line,
        .line_number = clamp32(h->line),
        .column_base = h->line_start - origin - 1,
        .indent = 0,
        .step = 0,
    };
    // Tokens are at least a byte long, and no text is longer than the bytes it is read from
    // (but for one sixteen-byte move, see `string`), so tokens that end before `room_limit` fit
    // in the tape: one comparison per token instead of one per buffer. A token that ends past
    // it is checked exactly, and the limit worked out again from there.
    const uint8_t *room_limit = room_limit_at(at, limit, token_limit - token, text_limit - text);
    int outcome;

    // The state the last token left, and whether the gap read before this chunk held the
    // separator (the grammar allows one).
    const bool separated = h->gap_had_separator;
    if (depth == 0) {
        if (h->saw_token) goto top_value_done;
        SLUICE_SKIP_SPACE();
        goto value;
    }
    if (h->last_token_was_key) {
        if (separated) goto after_colon;
        goto key_done;
    }
    if (h->last_token_ended_value) {
        if (in_object) {
            if (separated) goto after_object_comma;
            goto object_value_done;
        }
        if (separated) goto after_array_comma;
        goto array_value_done;
    }
    if (in_object) goto object_opened;
    goto array_opened;

top_value_done:
    // Only whitespace may follow the document's one value.
    SLUICE_SKIP_SPACE();
    goto stop;

object_opened:
    SLUICE_SKIP_SPACE_EXPECTING(1);
    if (*at == '}') goto close_object;
    goto key;

array_opened:
    SLUICE_SKIP_SPACE();
    if (*at == ']') goto close_array;
    goto value;

key_done:
    SLUICE_SKIP_SPACE();
    if (*at != ':') goto stop;
    at += 1;
after_colon:
    SLUICE_SKIP_SPACE();
    goto value;

object_value_done:
    SLUICE_SKIP_SPACE_EXPECTING(-1);
    if (*at == '}') goto close_object;
    if (*at != ',') goto stop;
    at += 1;
after_object_comma:
    SLUICE_SKIP_SPACE_EXPECTING(0);
    goto key;

array_value_done:
    SLUICE_SKIP_SPACE();
    if (*at == ']') goto close_array;
    if (*at != ',') goto stop;
    at += 1;
after_array_comma:
    SLUICE_SKIP_SPACE_EXPECTING(0);
    goto value;

key:
    if (*at != '"') goto stop;
    SLUICE_SHORT_STRING(true, short_key_done);
    SLUICE_STRING(true);
    goto key_done;
short_key_done:
    // The usual separator, `:` or `: `, with the bytes it needs known to be there.
    if (*at == ':') {
        at += 1;
        if (*at == ' ') at += 1;
        if (*at > ' ') goto value;
        goto after_colon;
    }
    goto key_done;

value: {
    const uint8_t byte = *at;
    if (byte == '"') {
        SLUICE_SHORT_STRING(false, string_done);
        SLUICE_STRING(false);
    string_done:
        top_child_count += 1;
        SLUICE_AFTER_VALUE();
    }
    if (byte == '{') SLUICE_OPEN(true, kind_object_start, object_opened);
    if (byte == '[') SLUICE_OPEN(false, kind_array_start, array_opened);
    const intptr_t start = (intptr_t)at + origin;
    if (byte == 't' || byte == 'f' || byte == 'n') {
        const intptr_t length = byte == 'f' ? 5 : 4;
        if (limit - at < length) goto stop;
        // The literal's last four bytes, compared in one load (its first byte is known).
        uint32_t word;
        memcpy(&word, at + length - 4, 4);
        if (word != (byte == 't' ? literal_word("true") : byte == 'f' ? literal_word("alse") : literal_word("null"))) goto stop;
        SLUICE_CHECK_ROOM(at + length, 0);
        write_token(token, byte == 't' ? kind_true : byte == 'f' ? kind_false : kind_null, false, 0, SLUICE_COLUMN(), lines.line_number, 0, start);
        at += length;
    } else if (byte == '-' || is_digit(byte)) {
        // A number that reaches the chunk's end may go on in the next one: yajl takes it.
        sluice_number_digits digits;
        const intptr_t length = tokenize_number(at, limit, &digits);
        if (length <= 0) goto stop;
        if (length > max_token_bytes) goto stop;
        SLUICE_CHECK_ROOM(at + length, length + SLUICE_NUMBER_TRAILER_SIZE);
        copy_text(text, at, (size_t)length);
        memcpy(text + length, &digits, SLUICE_NUMBER_TRAILER_SIZE);
        write_token(token, kind_number, true, (uint32_t)length, SLUICE_COLUMN(), lines.line_number, (intptr_t)text + text_origin, start);
        text += length + SLUICE_NUMBER_TRAILER_SIZE;
        at += length;
    } else {
        goto stop;
    }
    token += 1;
    top_child_count += 1;
    SLUICE_AFTER_VALUE();
}

    // Each kind of container opens and closes in code of its own, so that its token's kind and
    // the state after it are constants there rather than worked out from a flag.
close_object:
    SLUICE_CLOSE(kind_object_end);
close_array:
    SLUICE_CLOSE(kind_array_end);

chunk_done:
    outcome = 1;
    goto finish;
stop:
    outcome = 0;
finish:;
    // Where the last token ended, and what it was: what stopping leaves the parser. Worked out
    // here from the token rather than kept for every token, where it took two registers.
    const uint8_t *last_end = (const uint8_t *)(from - origin);
    enum { opened, keyed, ended } last = opened;
    if (token != entry_token) {
        const sluice_token *const final_token = token - 1;
        const uint8_t *const start = (const uint8_t *)(final_token->byte_offset - origin);
        switch (final_token->kind) {
        case kind_key:
        case kind_string: {
            // Taken whole before, so its closing quote is found again.
            last_end = scan_string(start, limit) + 1;
            break;
        }
        case kind_number: last_end = start + final_token->length; break;
        case kind_true:
        case kind_null: last_end = start + 4; break;
        case kind_false: last_end = start + 5; break;
        default: last_end = start + 1; break;
        }
        last = final_token->kind == kind_key ? keyed : final_token->kind == kind_object_start || final_token->kind == kind_array_start ? opened : ended;
    }
    *h->token_count = token - first_token;
    *h->byte_count = text - first_byte;
    h->container_count = depth;
    h->top_child_count = top_child_count;
    // The line as the last token left it: line feeds after it are stepped over again. Every
    // line feed between the entry and here was counted (strings hold none), so the ones after
    // the last token are taken off again, and its line's start is one past the feed before it,
    // or the entry's line start where none stands between them.
    if (lines.column_base >= (intptr_t)last_end) {
        intptr_t line = lines.line;
        for (const uint8_t *byte = last_end; byte <= (const uint8_t *)lines.column_base; byte++) line -= *byte == '\n';
        intptr_t line_start = h->line_start;
        for (const uint8_t *byte = last_end; byte > (const uint8_t *)(from - origin); byte--) {
            if (byte[-1] == '\n') {
                line_start = (intptr_t)byte + origin;
                break;
            }
        }
        h->line = line;
        h->line_start = line_start;
    } else {
        h->line = lines.line;
        h->line_start = lines.column_base + 1 + origin;
    }
    if (token != entry_token) {
        h->scan_offset = (intptr_t)last_end + origin;
        h->last_token_was_key = last == keyed;
        h->last_token_ended_value = last == ended;
        h->saw_token = true;
        h->gap_had_separator = false;
    }
    return outcome;
}
#undef SLUICE_SKIP_SPACE
#undef SLUICE_SKIP_SPACE_EXPECTING
#undef SLUICE_SKIP_SPACE_FINDING
#undef SLUICE_COLUMN
#undef SLUICE_CHECK_ROOM
#undef SLUICE_AFTER_VALUE
#undef SLUICE_STRING
#undef SLUICE_SHORT_STRING
#undef SLUICE_SHORT_TOKEN
#undef SLUICE_OPEN
#undef SLUICE_CLOSE

size_t sluice_yajl_prefix(const sluice_parser_hot *h, uint8_t *out, size_t capacity) {
    size_t length = 0;
#define SLUICE_PUT(text)                                      \
    do {                                                      \
        const size_t count = sizeof(text) - 1;                \
        if (length + count <= capacity) {                     \
            memcpy(out + length, text, count);                \
            length += count;                                  \
        }                                                     \
    } while (0)
    const intptr_t depth = h->container_count;
    if (depth == 0) {
        if (h->saw_token) SLUICE_PUT("\"\"");
        return length;
    }
    // Each outer container holds the next as a value.
    for (intptr_t index = 0; index + 1 < depth; index++) {
        if (h->containers[index].is_object) SLUICE_PUT("{\"\":");
        else SLUICE_PUT("[");
    }
    const bool separated = h->gap_had_separator;
    if (h->containers[depth - 1].is_object) {
        if (h->last_token_was_key) {
            if (separated) SLUICE_PUT("{\"\":");
            else SLUICE_PUT("{\"\"");
        } else if (h->last_token_ended_value) {
            if (separated) SLUICE_PUT("{\"\":\"\",");
            else SLUICE_PUT("{\"\":\"\"");
        } else {
            SLUICE_PUT("{");
        }
    } else if (h->last_token_ended_value) {
        if (separated) SLUICE_PUT("[\"\",");
        else SLUICE_PUT("[\"\"");
    } else {
        SLUICE_PUT("[");
    }
#undef SLUICE_PUT
    return length;
}
