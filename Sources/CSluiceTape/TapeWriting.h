// What the tape's two writers share: the callbacks yajl makes (CSluiceTape.c) and the tokenizer
// that stands in for yajl in the common case (CSluiceTokenizer.c). Both must write the same
// tokens in the same way, so the writing lives here, once.
#ifndef SLUICE_TAPE_WRITING_H
#define SLUICE_TAPE_WRITING_H

#include "CSluiceTape.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { kind_object_start = 0, kind_object_end = 1, kind_array_start = 2, kind_array_end = 3, kind_key = 4, kind_string = 5, kind_number = 6, kind_true = 7, kind_false = 8, kind_null = 9 };

/// The index of the first byte at or after `index` that is not a space: indentation after a
/// line feed, sixteen bytes at a time where SSE2 is at hand (one compare and one mask: most
/// indentation ends in the first sixteen), then eight at a time, the first other byte found from
/// the mask's or word's lowest set bit.
static inline intptr_t skip_spaces(const uint8_t *base, intptr_t index, intptr_t end) {
#if defined(__SSE2__)
    const __m128i spaces = _mm_set1_epi8(' ');
    while (index + 16 <= end) {
        const __m128i bytes = _mm_loadu_si128((const __m128i *)(const void *)(base + index));
        const unsigned others = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, spaces)) ^ 0xFFFFu;
        if (others != 0) return index + __builtin_ctz(others);
        index += 16;
    }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (index + 8 <= end) {
        uint64_t word;
        memcpy(&word, base + index, 8);
        const uint64_t other = word ^ 0x2020202020202020ULL;
        if (other != 0) return index + (__builtin_ctzll(other) >> 3);
        index += 8;
    }
#endif
    while (index < end && base[index] == 0x20) index += 1;
    return index;
}

/// The value of four hexadecimal digits, or -1 when one is not a hexadecimal digit.
static inline int32_t hex4(const uint8_t *digits) {
    int32_t value = 0;
    for (int index = 0; index < 4; index++) {
        const uint8_t byte = digits[index];
        int32_t digit;
        if (byte >= '0' && byte <= '9') digit = byte - '0';
        else if (byte >= 'a' && byte <= 'f') digit = byte - 'a' + 10;
        else if (byte >= 'A' && byte <= 'F') digit = byte - 'A' + 10;
        else return -1;
        value = value << 4 | digit;
    }
    return value;
}

static inline uint32_t clamp32(intptr_t value) {
    if (value < 0) return 0;
    if ((uint64_t)value > UINT32_MAX) return UINT32_MAX;
    return (uint32_t)value;
}

/// What writing tokens reads and changes: a copy of those fields of `sluice_parser_hot`, and of
/// the tape's buffer they point into, loaded once and stored back when done (`load_writer`,
/// `store_writer`). Why a copy: stores through the hot struct's pointers may alias any of its
/// fields as far as the compiler knows, so written in place every field is read again after
/// every store; a local copy stays in registers across all the tokens of a chunk.
typedef struct tape_writer {
    sluice_token *tokens;
    intptr_t token_count;
    intptr_t token_capacity;
    uint8_t *bytes;
    intptr_t byte_count;
    intptr_t byte_capacity;
    intptr_t arena_base;
    intptr_t first_index;
    sluice_open_container *containers;
    intptr_t container_count;
    intptr_t container_capacity;
    intptr_t top_child_count;
    intptr_t line;
    intptr_t line_start;
    intptr_t scan_offset;
    bool last_token_was_key;
    bool last_token_ended_value;
    bool saw_token;
} tape_writer;

static inline tape_writer load_writer(const sluice_parser_hot *h) {
    tape_writer w;
    w.tokens = *h->tokens;
    w.token_count = *h->token_count;
    w.token_capacity = *h->token_capacity;
    w.bytes = *h->bytes;
    w.byte_count = *h->byte_count;
    w.byte_capacity = *h->byte_capacity;
    w.arena_base = *h->arena_base;
    w.first_index = *h->first_index;
    w.containers = h->containers;
    w.container_count = h->container_count;
    w.container_capacity = h->container_capacity;
    w.top_child_count = h->top_child_count;
    w.line = h->line;
    w.line_start = h->line_start;
    w.scan_offset = h->scan_offset;
    w.last_token_was_key = h->last_token_was_key;
    w.last_token_ended_value = h->last_token_ended_value;
    w.saw_token = h->saw_token;
    return w;
}

/// Stores what writing changed (the buffers' addresses and capacities do not change meanwhile).
static inline void store_writer(sluice_parser_hot *h, const tape_writer *w) {
    *h->token_count = w->token_count;
    *h->byte_count = w->byte_count;
    h->container_count = w->container_count;
    h->top_child_count = w->top_child_count;
    h->line = w->line;
    h->line_start = w->line_start;
    h->scan_offset = w->scan_offset;
    h->last_token_was_key = w->last_token_was_key;
    h->last_token_ended_value = w->last_token_ended_value;
    h->saw_token = w->saw_token;
}

/// Fills in one token: the one way both writers lay a token out.
static inline __attribute__((always_inline)) void write_token(sluice_token *token, uint8_t kind, bool is_ascii, uint32_t length, uint32_t column, uint32_t line, int64_t payload, intptr_t start) {
    token->kind = kind;
    token->is_ascii = is_ascii;
    token->length = length;
    token->column = column;
    token->line = line;
    token->payload = payload;
    token->byte_offset = start;
}

static inline void append_token(tape_writer *w, uint8_t kind, bool is_ascii, uint32_t length, int64_t payload, intptr_t start) {
    write_token(w->tokens + w->token_count, kind, is_ascii, length, clamp32(start - w->line_start + 1), clamp32(w->line), payload, start);
    w->token_count += 1;
}

/// Copies `length` bytes of text from `source` to `target`.
static inline __attribute__((always_inline)) void copy_text(uint8_t *target, const uint8_t *source, size_t length) {
    // Short text (most keys and many values) in two overlapping fixed-size moves, which compile
    // to plain loads and stores; a call to memcpy costs more than the copy.
    if (length > 16 && length <= 32) {
        // Doubles as serializers write them (17 digits, a sign and a point) land here.
        memcpy(target, source, 16);
        memcpy(target + length - 16, source + length - 16, 16);
    } else if (length >= 8 && length <= 16) {
        memcpy(target, source, 8);
        memcpy(target + length - 8, source + length - 8, 8);
    } else if (length >= 4 && length < 8) {
        memcpy(target, source, 4);
        memcpy(target + length - 4, source + length - 4, 4);
    } else if (length < 4) {
        for (size_t index = 0; index < length; index++) target[index] = source[index];
    } else {
        memcpy(target, source, length);
    }
}

/// Copies text into the arena; returns its absolute offset.
static inline int64_t append_text(tape_writer *w, const void *text, size_t length) {
    const int64_t offset = w->arena_base + w->byte_count;
    copy_text(w->bytes + w->byte_count, text, length);
    w->byte_count += (intptr_t)length;
    return offset;
}

/// The value of the eight digit values (0-9, not ASCII) in `value`, the first (lowest) byte the
/// most significant: the usual SWAR conversion, three multiplications.
static inline uint64_t eight_digit_values(uint64_t value) {
    value = value * 10 + (value >> 8);
    return (((value & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
            (((value >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
}

/// Nonzero in each byte of `word` that is not an ASCII digit (0x30-0x39: each such byte's high
/// nibble is 3, and stays 3 when 6 is added; no carry crosses bytes then, since every digit is
/// below 0x40, and a carry out of a byte that is not a digit marks only bytes above it).
static inline uint64_t non_digit_bytes(uint64_t word) {
    const uint64_t high = 0xF0F0F0F0F0F0F0F0ull, threes = 0x3030303030303030ull;
    return ((word & high) ^ threes) | (((word + 0x0606060606060606ull) & high) ^ threes);
}

/// Reads the run of digits at `base[at]` (it may be empty) into `*significand` (which wraps past
/// 19 digits; the caller counts them) and returns the index just past it, or `end`.
///
/// Why eight at a time, the last few too: serializers write doubles with 15 to 17 digits
/// (canada.json's 223 000 coordinates), and a byte loop over them cost more than the rest of the
/// token. A word that is not all digits still gives its leading digits: shifted up, the bytes
/// below them become leading zeros of the SWAR conversion.
static inline intptr_t read_digits(const uint8_t *base, intptr_t at, intptr_t end, uint64_t *significand) {
    static const uint64_t powers[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    uint64_t value = *significand;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (at + 8 <= end) {
        uint64_t word;
        memcpy(&word, base + at, 8);
        const uint64_t others = non_digit_bytes(word);
        if (others == 0) {
            value = value * 100000000ull + eight_digit_values(word - 0x3030303030303030ull);
            at += 8;
            continue;
        }
        const int count = __builtin_ctzll(others) >> 3;
        if (count > 0) {
            const uint64_t digits = (word - 0x3030303030303030ull) << (8 * (8 - count));
            value = value * powers[count] + eight_digit_values(digits);
            at += count;
        }
        *significand = value;
        return at;
    }
#endif
    while (at < end && base[at] >= '0' && base[at] <= '9') {
        value = value * 10 + (uint64_t)(base[at] - '0');
        at += 1;
    }
    *significand = value;
    return at;
}

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/// A bit per byte of the sixteen at `at` that is an ASCII digit (the first byte the lowest bit).
static inline __attribute__((always_inline)) unsigned digit_mask16(const uint8_t *at) {
    const __m128i chunk = _mm_loadu_si128((const __m128i *)(const void *)at);
    const __m128i digits = _mm_and_si128(_mm_cmpgt_epi8(chunk, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(chunk, _mm_set1_epi8('9' + 1)));
    return (unsigned)_mm_movemask_epi8(digits);
}

/// The value of the `count` digits at `at` (1 to 16; sixteen bytes may be read): one eight-byte
/// conversion per eight digits, the bytes past the run shifted out (as in `read_digits`).
static inline __attribute__((always_inline)) uint64_t digit_run_value(const uint8_t *at, intptr_t count) {
    static const uint64_t powers[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    uint64_t word;
    memcpy(&word, at, 8);
    word -= 0x3030303030303030ull;
    if (count <= 8) return eight_digit_values(word << (8 * (8 - count)));
    uint64_t rest;
    memcpy(&rest, at + 8, 8);
    rest -= 0x3030303030303030ull;
    return eight_digit_values(word) * powers[count - 8] + eight_digit_values(rest << (8 * (16 - count)));
}
#endif

/// The product step of Daniel Lemire's and Michael Eisel's conversion: `significand` (not zero)
/// times 10^`scale` (-342...308) as the top bits of a 128-bit product, one bit more than a
/// double's mantissa holds (for rounding), and the biased binary exponent they stand at.
typedef struct lemire_parts {
    uint64_t mantissa;
    int64_t power2;
} lemire_parts;

static inline __attribute__((always_inline)) lemire_parts lemire_product(uint64_t significand, int32_t scale) {
    const int leading_zeros = __builtin_clzll(significand);
    const uint64_t w = significand << leading_zeros;
    const int index = 2 * (scale + 342);
    // The product's top 64 bits hold the result's 53 bits and the rounding bits; the lower power
    // word matters only when those bits are all ones.
    const __uint128_t product = (__uint128_t)w * sluice_powers_of_five[index];
    uint64_t high = (uint64_t)(product >> 64), low = (uint64_t)product;
    const uint64_t precision_mask = UINT64_MAX >> (52 + 3);
    if ((high & precision_mask) == precision_mask) {
        const __uint128_t second = (__uint128_t)w * sluice_powers_of_five[index + 1];
        const uint64_t sum = low + (uint64_t)(second >> 64);
        if (sum < low) high += 1;
        low = sum;
    }
    const int upper_bit = (int)(high >> 63);
    const int shift = upper_bit + 64 - 52 - 3;
    lemire_parts parts;
    parts.mantissa = high >> shift;
    // floor(log2(10^scale)) + 63, from log2(10) = 217706 / 2^16 (exact for |scale| <= 1 300).
    parts.power2 = (((int64_t)(152170 + 65536) * scale) >> 16) + 63 + upper_bit - leading_zeros + 1023;
    // Exactly halfway between two doubles (possible only for small powers, so never for a
    // subnormal result): round to even.
    // A branch, not a chain of conditional moves: `low` is almost never 0 or 1.
    if (__builtin_expect(low <= 1, 0) && scale >= -4 && scale <= 23 && (parts.mantissa & 3) == 1 && (parts.mantissa << shift) == high) {
        parts.mantissa &= ~UINT64_C(1);
    }
    return parts;
}

/// The bits of the normal double (or infinity) that `parts` rounds to, `parts.power2` above 0.
static inline __attribute__((always_inline)) uint64_t lemire_normal_bits(lemire_parts parts) {
    // Rounded, the mantissa lies in [2^52, 2^53] with its leading bit set. Added to the exponent
    // less one, that bit restores it, and a mantissa rounded up to 2^53 carries into it: the
    // same bits as masking the leading bit and bumping the exponent, without the branch.
    const uint64_t mantissa = (parts.mantissa + (parts.mantissa & 1)) >> 1;
    const uint64_t bits = ((uint64_t)(parts.power2 - 1) << 52) + mantissa;
    return bits >= UINT64_C(0x7FF) << 52 ? UINT64_C(0x7FF) << 52 : bits;
}

/// `sluice_decimal_to_double`, inline for `read_number`.
static inline double decimal_to_double(uint64_t significand, int32_t scale) {
    static const double exact_powers_of_ten[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (significand == 0 || scale < -342) return 0;
    if (significand <= (UINT64_C(1) << 53) && scale >= -22 && scale <= 22) {
        // Clinger: an exact mantissa and an exact power of ten round once.
        const double mantissa = (double)significand;
        return scale >= 0 ? mantissa * exact_powers_of_ten[scale] : mantissa / exact_powers_of_ten[-scale];
    }
    if (scale > 308) return __builtin_inf();
    const lemire_parts parts = lemire_product(significand, scale);
    uint64_t bits;
    if (parts.power2 <= 0) {
        // Subnormal (or zero): shift the mantissa into place, rounding half up, then to even by
        // the bit below.
        if (-parts.power2 + 1 >= 64) return 0;
        uint64_t mantissa = parts.mantissa >> (-parts.power2 + 1);
        mantissa += mantissa & 1;
        mantissa >>= 1;
        const uint64_t power2 = mantissa < (UINT64_C(1) << 52) ? 0 : 1;
        bits = power2 << 52 | (mantissa & ((UINT64_C(1) << 52) - 1));
    } else {
        bits = lemire_normal_bits(parts);
    }
    double value;
    memcpy(&value, &bits, 8);
    return value;
}

/// Fills a trailer in two stores, an eight-byte word and a four-byte one. Why not field by
/// field: the tokenizer copies the trailer on into the arena with the same two widths, and a
/// load that spans several smaller stores cannot take its bytes from them while they are in
/// flight; it waits for them to reach the cache (a sixth of canada.json's tokenizing time).
static inline __attribute__((always_inline)) void store_trailer(sluice_number_digits *digits, uint64_t significand, int16_t scale, uint8_t flags) {
    // The last four bytes laid out as the struct lays them out, then moved as one word.
    const struct {
        int16_t scale;
        uint8_t flags;
        uint8_t reserved;
    } tail = {scale, flags, 0};
    uint32_t rest;
    memcpy(&rest, &tail, 4);
    memcpy(digits, &significand, 8);
    memcpy((uint8_t *)digits + 8, &rest, 4);
}

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/// The usual number, read where the tokenizer stands: an integer of 1 to 15 digits or a decimal
/// of 1 to 15 digits, a point and 1 to 15 more (at most 19 in all), no exponent, not starting
/// with 0. Returns its length and fills `*digits` exactly as `read_number_general` would, or
/// returns 0 for `read_number_general` to read it. It declines unless 33 bytes follow the first
/// digit before `limit`, and reads nothing past them.
///
/// Why a second reader: `read_number_general` takes every form and range, and canada.json's 111 000
/// coordinates paid for that generality (a call, the checks of exponents, ranges and zeros, the
/// general conversion) at some 230 instructions each. Here a decimal of 16 to 19 digits is
/// converted with the product step only (its scale, -15 to -1, keeps it far from the ends of
/// double's range), a shorter one by one exact division.
static inline __attribute__((always_inline)) intptr_t read_usual_number(const uint8_t *start, const uint8_t *limit, sluice_number_digits *digits) {
    static const uint64_t scales[16] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
        10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull, 1000000000000000ull};
    static const double powers[16] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const bool negative = *start == '-';
    const uint8_t *const at = start + negative;
    if (limit - at < 33 || (uint8_t)(*at - '1') > 8) return 0;
    const unsigned whole = __builtin_ctz(~digit_mask16(at));
    if (whole >= 16) return 0;
    const uint8_t after = at[whole];
    const uint8_t sign = negative ? SLUICE_NUMBER_NEGATIVE : 0;
    if (after != '.') {
        if ((after | 0x20) == 'e') return 0;
        store_trailer(digits, digit_run_value(at, whole), 0, SLUICE_NUMBER_EXACT | SLUICE_NUMBER_INTEGER | sign);
        return (at + whole) - start;
    }
    const uint8_t *const fraction = at + whole + 1;
    const unsigned places = __builtin_ctz(~digit_mask16(fraction));
    if (places - 1 >= 15 || whole + places > 19 || (fraction[places] | 0x20) == 'e') return 0;
    const uint64_t significand = digit_run_value(at, whole) * scales[places] + digit_run_value(fraction, places);
    uint64_t bits;
    if (significand <= (UINT64_C(1) << 53)) {
        const double value = (double)significand / powers[places];
        memcpy(&bits, &value, 8);
    } else {
        bits = lemire_normal_bits(lemire_product(significand, -(int32_t)places));
    }
    store_trailer(digits, bits, -(int16_t)places, SLUICE_NUMBER_EXACT | SLUICE_NUMBER_CONVERTED | sign);
    return (fraction + places) - start;
}
#else
static inline intptr_t read_usual_number(const uint8_t *start, const uint8_t *limit, sluice_number_digits *digits) {
    (void)start;
    (void)limit;
    (void)digits;
    return 0;
}
#endif

/// `read_number` for every number, a byte at a time but for runs of digits (what
/// `read_usual_number` declines).
static inline intptr_t read_number_general(const uint8_t *base, intptr_t index, intptr_t end, sluice_number_digits *digits) {
    intptr_t at = index;
    uint8_t flags = SLUICE_NUMBER_INTEGER;
    if (base[at] == '-') {
        flags |= SLUICE_NUMBER_NEGATIVE;
        if (++at >= end) return -1;
    }
    uint64_t significand = 0;
    intptr_t count = 0;
    intptr_t fraction = 0;
    int64_t exponent = 0;
    // JSON allows one leading zero, before a fraction or nothing: it is not a significant digit.
    if (base[at] == '0') {
        at += 1;
    } else if (base[at] >= '1' && base[at] <= '9') {
        const intptr_t first = at;
        at = read_digits(base, at, end, &significand);
        count = at - first;
    } else {
        return -1;
    }
    if (at < end && base[at] == '.') {
        flags &= ~SLUICE_NUMBER_INTEGER;
        const intptr_t first = at + 1;
        at = read_digits(base, first, end, &significand);
        fraction = at - first;
        if (fraction == 0) return -1;
        count += fraction;
    }
    if (at < end && (base[at] == 'e' || base[at] == 'E')) {
        flags &= ~SLUICE_NUMBER_INTEGER;
        at += 1;
        const bool negative = at < end && base[at] == '-';
        if (at < end && (base[at] == '+' || base[at] == '-')) at += 1;
        const intptr_t first = at;
        for (; at < end && base[at] >= '0' && base[at] <= '9'; at++) {
            if (exponent < 1000000) exponent = exponent * 10 + (base[at] - '0');
        }
        if (at == first) return -1;
        if (negative) exponent = -exponent;
    }
    uint64_t trailer_significand = 0;
    int16_t trailer_scale = 0;
    if (count <= 19) {
        flags |= SLUICE_NUMBER_EXACT;
        trailer_significand = significand;
        int64_t scale = exponent - fraction;
        if (scale > 30000) scale = 30000;
        if (scale < -30000) scale = -30000;
        trailer_scale = (int16_t)scale;
        // Why convert here: the digits are in registers now, and read back from the trailer
        // later each conversion cost as much again in loads and calls.
        if (!(flags & SLUICE_NUMBER_INTEGER)) {
            const double value = decimal_to_double(significand, (int32_t)scale);
            // Not past the range either way: infinity, or zero from digits that are not all zero
            // (the Swift side refuses both, as Foundation's decoder does).
            if (value != __builtin_inf() && (value != 0 || significand == 0)) {
                memcpy(&trailer_significand, &value, 8);
                flags |= SLUICE_NUMBER_CONVERTED;
            }
        }
    }
    store_trailer(digits, trailer_significand, trailer_scale, flags);
    return at;
}

/// Reads the JSON number at `base[index]` (before `end`): returns the index just past it, or -1
/// when what is there is not a number's start, or stops being one before it ends; `*digits`
/// gets its trailer (`sluice_number_digits`). A return of `end` means the number reached `end`,
/// where more digits might follow in input not yet read: only a caller that knows the text is
/// whole may take it. One pass both checks the grammar and reads the digits, for the tokenizer
/// and, over a number's whole text, for every other tape writer.
static inline intptr_t read_number(const uint8_t *base, intptr_t index, intptr_t end, sluice_number_digits *digits) {
    const intptr_t length = read_usual_number(base + index, base + end, digits);
    return length > 0 ? index + length : read_number_general(base, index, end, digits);
}

/// Copies a number's text to the arena with its trailer after it; returns the text's offset.
/// The caller has checked the room for `length + SLUICE_NUMBER_TRAILER_SIZE` bytes.
static inline int64_t append_number(tape_writer *w, const void *text, size_t length) {
    const int64_t offset = append_text(w, text, length);
    sluice_number_trailer((const uint8_t *)text, length, w->bytes + w->byte_count);
    w->byte_count += SLUICE_NUMBER_TRAILER_SIZE;
    return offset;
}

/// `ParserState.endValue(at:)`.
static inline void end_value(tape_writer *w, intptr_t end) {
    w->top_child_count += 1;
    w->scan_offset = end;
    w->last_token_was_key = false;
    w->last_token_ended_value = true;
    w->saw_token = true;
}

/// `ParserState.didReceiveString(_:isKey:)`'s bookkeeping after a key.
static inline void end_key(tape_writer *w, intptr_t end) {
    w->scan_offset = end;
    w->last_token_was_key = true;
    w->last_token_ended_value = false;
}

static inline bool has_room(const tape_writer *w, size_t text_length) {
    return w->token_count < w->token_capacity && w->byte_count + (intptr_t)text_length <= w->byte_capacity;
}

/// Records a container opened at `start` as the innermost one (`ParserState.OpenContainer`).
static inline __attribute__((always_inline)) void push_container(sluice_open_container *open, intptr_t token_index, bool is_object, intptr_t start, intptr_t line, intptr_t line_start) {
    open->token_index = token_index;
    open->child_count = 0;
    open->byte_offset = start;
    open->line = line;
    open->column = start - line_start + 1;
    open->is_object = is_object;
}

/// Records on a container's start token, once it is closed, the index of its end token and its
/// child count.
static inline __attribute__((always_inline)) void finish_container(sluice_token *opening, intptr_t end_index, intptr_t child_count) {
    opening->payload = end_index;
    opening->length = clamp32(child_count);
}

/// Opens an array or object whose bracket stands at `start` (the caller has checked the depth
/// limit, the stack's room and the tape's): `ParserState.didStartContainer(isObject:)`.
static inline void open_container(tape_writer *w, bool is_object, intptr_t start, intptr_t end) {
    w->top_child_count += 1;
    if (w->container_count > 0) w->containers[w->container_count - 1].child_count = w->top_child_count;
    push_container(w->containers + w->container_count, w->first_index + w->token_count, is_object, start, w->line, w->line_start);
    w->container_count += 1;
    w->top_child_count = 0;
    append_token(w, is_object ? kind_object_start : kind_array_start, false, 0, -1, start);
    w->scan_offset = end;
    w->last_token_was_key = false;
    w->last_token_ended_value = false;
    w->saw_token = true;
}

/// Closes the innermost container at the bracket at `start` (the caller has checked there is
/// one and that the tape has room): `ParserState.didEndContainer()`.
static inline void close_container(tape_writer *w, intptr_t start, intptr_t end) {
    w->container_count -= 1;
    const sluice_open_container open = w->containers[w->container_count];
    const intptr_t child_count = w->top_child_count;
    w->top_child_count = w->container_count > 0 ? w->containers[w->container_count - 1].child_count : 0;
    const intptr_t end_index = w->first_index + w->token_count;
    append_token(w, open.is_object ? kind_object_end : kind_array_end, false, 0, open.token_index, start);
    // Record on the start token where its container ends, unless a consumer has released it.
    const intptr_t start_position = open.token_index - w->first_index;
    if (start_position >= 0) finish_container(w->tokens + start_position, end_index, child_count);
    w->scan_offset = end;
    w->last_token_was_key = false;
    w->last_token_ended_value = true;
}

/// The length of the well-formed UTF-8 sequence whose lead byte (0x80 or above) is `bytes[0]`,
/// of at most `available` bytes; 0 when it is ill-formed or cut short (Unicode's table 3-7: no
/// overlong forms, no surrogates, nothing above U+10FFFF).
static inline intptr_t utf8_sequence(const uint8_t *bytes, intptr_t available) {
    const uint8_t lead = bytes[0];
    intptr_t length;
    uint8_t low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead == 0xE0) {
        length = 3;
        low = 0xA0;
    } else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) {
        length = 3;
    } else if (lead == 0xED) {
        length = 3;
        high = 0x9F;
    } else if (lead == 0xF0) {
        length = 4;
        low = 0x90;
    } else if (lead >= 0xF1 && lead <= 0xF3) {
        length = 4;
    } else if (lead == 0xF4) {
        length = 4;
        high = 0x8F;
    } else {
        return 0;
    }
    if (length > available || bytes[1] < low || bytes[1] > high) return 0;
    for (intptr_t index = 2; index < length; index++) {
        if ((bytes[index] & 0xC0) != 0x80) return 0;
    }
    return length;
}

#endif
