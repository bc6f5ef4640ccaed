// See CSluiceSplitter.h for what this is for.
//
// Two scanners that report the same events and leave the same states, byte for byte:
//
// - Sixty-four bytes at a time where the CPU has AVX2, PCLMUL, POPCNT and BMI1, asked once at run
//   time (SwiftPM builds for the baseline x86-64, so that code is compiled with a target
//   attribute). As in simdjson's stage 1, a block becomes bit masks, one bit a byte: the
//   backslashes, the bytes they escape (found without a loop over the backslashes), the quotes
//   left unescaped, and from those the bytes inside strings (a running XOR of the quotes: one
//   carry-less multiplication). Brackets and line feeds outside strings follow by masking. Most
//   blocks lie deeper than `report_level`, inside the elements of the arrays being cut: when even
//   all of a block's closing brackets cannot bring the depth up to the skeleton, nothing in it is
//   reported, and it is stepped over by counting bits. The other blocks walk their brackets in
//   order, and look at the separators and quotes between two brackets only where that stretch is
//   on the skeleton. About 1.3 to 2.5 instructions a byte on the corpora, where the scanner below
//   takes 4 to 10.
// - Sixteen bytes at a time with SSE2 (every x86-64), one at a time elsewhere: a byte needs a look
//   only if it can change the scanner's state (a quote, a bracket, a line feed; inside a string, a
//   quote or a backslash; on the skeleton, also a comma or a colon), and such bytes are found with
//   a few vector compares per block, then visited in order through the block's bit mask. This
//   scanner also takes the bytes after a chunk's last whole block of sixty-four, and the rare
//   block whose masks cannot be trusted (see `scan_blocks`).
#include "CSluiceSplitter.h"
#include "CPUFeatures.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define SLUICE_SPLIT_BLOCKS 1
#include <immintrin.h>
#endif

/// Appends an event, or returns false when there is no room: the caller then leaves the byte for
/// the next call, its state unchanged.
static inline __attribute__((always_inline)) bool report(sluice_splitter *s, sluice_split_event *events, intptr_t *event_count, intptr_t capacity, uint8_t kind, int32_t level, int64_t offset) {
    if (*event_count >= capacity) return false;
    sluice_split_event *event = events + *event_count;
    event->kind = kind;
    event->level = level;
    event->offset = offset;
    event->line = s->line;
    event->line_start = s->line_start;
    *event_count += 1;
    return true;
}

/// Whether the byte outside a string at the current depth would be reported.
static inline bool shallow(const sluice_splitter *s) { return s->depth <= s->report_level; }

/// Handles one byte outside a string that may change the state. Returns false when it would
/// report an event and there is no room (the byte is then left for the next call).
static inline __attribute__((always_inline)) bool step_outside(sluice_splitter *s, uint8_t byte, int64_t offset, sluice_split_event *events, intptr_t *event_count, intptr_t capacity) {
    switch (byte) {
    case '"':
        s->string_reported = shallow(s);
        if (s->string_reported && !report(s, events, event_count, capacity, sluice_split_string_start, s->depth, offset)) return false;
        s->in_string = true;
        return true;
    case '{':
    case '[':
        if (shallow(s) && !report(s, events, event_count, capacity, byte == '{' ? sluice_split_open_object : sluice_split_open_array, s->depth, offset)) return false;
        s->depth += 1;
        return true;
    case '}':
    case ']':
        if (s->depth == 0) {
            s->unbalanced = true;
            s->report_level = -1;
            return true;
        }
        if (s->depth - 1 <= s->report_level && !report(s, events, event_count, capacity, byte == '}' ? sluice_split_close_object : sluice_split_close_array, s->depth - 1, offset)) return false;
        s->depth -= 1;
        return true;
    case ',':
    case ':':
        return !shallow(s) || report(s, events, event_count, capacity, byte == ',' ? sluice_split_comma : sluice_split_colon, s->depth, offset);
    case '\n':
        s->line += 1;
        s->line_start = offset + 1;
        return true;
    default:
        return true;
    }
}

/// Handles one byte inside a string that may end it (a quote) or escape the next (a backslash).
/// Returns the number of bytes consumed (2 for an escape whose next byte is at hand), or 0 when
/// the string's end would be reported and there is no room.
static inline __attribute__((always_inline)) intptr_t step_inside(sluice_splitter *s, const uint8_t *bytes, intptr_t index, intptr_t end, int64_t base, sluice_split_event *events, intptr_t *event_count, intptr_t capacity) {
    const uint8_t byte = bytes[index];
    if (byte == '\\') {
        if (index + 1 < end) return 2;
        s->escaped = true;
        return 1;
    }
    if (byte == '"') {
        if (s->string_reported && !report(s, events, event_count, capacity, sluice_split_string_end, s->depth, base + index)) return 0;
        s->in_string = false;
    }
    return 1;
}

/// Scans `bytes[index..<end]` (`bytes[0]` at absolute offset `base`) with the bytewise scanner.
/// Returns where it stopped: `end`, or before the byte whose event found no room.
static intptr_t scan_bytes(
    sluice_splitter *s,
    const uint8_t *bytes,
    intptr_t index,
    intptr_t end,
    int64_t base,
    sluice_split_event *events,
    intptr_t capacity,
    intptr_t *event_count
) {
    while (index < end) {
        if (s->in_string) {
            if (s->escaped) {
                s->escaped = false;
                index += 1;
                continue;
            }
#if defined(__SSE2__)
            // Skip to the next quote or backslash.
            const __m128i quote = _mm_set1_epi8('"');
            const __m128i backslash = _mm_set1_epi8('\\');
            while (index + 16 <= end) {
                const __m128i block = _mm_loadu_si128((const __m128i *)(bytes + index));
                const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)));
                if (mask != 0) {
                    index += __builtin_ctz((unsigned)mask);
                    break;
                }
                index += 16;
            }
#endif
            while (index < end && bytes[index] != '"' && bytes[index] != '\\') index += 1;
            if (index >= end) break;
            const intptr_t used = step_inside(s, bytes, index, end, base, events, event_count, capacity);
            if (used == 0) break;
            index += used;
            continue;
        }
#if defined(__SSE2__)
        if (index + 16 <= end) {
            // The bytes that matter here: quotes, brackets ('[' and ']' are '{' and '}' without
            // bit 5, so one OR folds them together), line feeds, and on the skeleton separators.
            const __m128i block = _mm_loadu_si128((const __m128i *)(bytes + index));
            const __m128i folded = _mm_or_si128(block, _mm_set1_epi8(0x20));
            __m128i hits = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('"')), _mm_cmpeq_epi8(block, _mm_set1_epi8('\n'))),
                _mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')), _mm_cmpeq_epi8(folded, _mm_set1_epi8('}')))
            );
            const bool was_shallow = shallow(s);
            if (was_shallow) {
                hits = _mm_or_si128(hits, _mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8(',')), _mm_cmpeq_epi8(block, _mm_set1_epi8(':'))));
            }
            unsigned mask = (unsigned)_mm_movemask_epi8(hits);
            if (mask == 0) {
                index += 16;
                continue;
            }
            // Visit the block's hits in order, until one changes what the rest of the block
            // means (a string begins, or the depth crosses the skeleton's boundary).
            intptr_t next = index + 16;
            bool stopped = false;
            while (mask != 0) {
                const intptr_t at = index + __builtin_ctz(mask);
                mask &= mask - 1;
                if (!step_outside(s, bytes[at], base + at, events, event_count, capacity)) {
                    next = at;
                    stopped = true;
                    break;
                }
                if (s->in_string || shallow(s) != was_shallow) {
                    next = at + 1;
                    break;
                }
            }
            index = next;
            if (stopped) break;
            continue;
        }
#endif
        if (!step_outside(s, bytes[index], base + index, events, event_count, capacity)) break;
        index += 1;
    }
    return index;
}

#if defined(SLUICE_SPLIT_BLOCKS)

/// What the 64-byte scanner needs of the CPU: AVX2 for the compares, PCLMUL for the strings' XOR,
/// POPCNT and BMI1 (TZCNT, BLSR) for walking the masks.
#define SLUICE_SPLIT_BLOCK_TARGET __attribute__((target("avx2,pclmul,popcnt,bmi")))

/// Whether this CPU and its OS run the 64-byte scanner.
static inline bool blocks_supported(void) { return (sluice_cpu_features() & sluice_cpu_avx2_bits) != 0; }

/// A block's bytes of each kind the scanner needs on every block, one bit a byte (bit i for
/// byte i), whether or not inside a string.
typedef struct block_masks {
    uint64_t quotes;
    uint64_t backslashes;
    uint64_t line_feeds;
    uint64_t opens;
    uint64_t closes;
} block_masks;

/// The 64 bits of two 32-byte compares.
SLUICE_SPLIT_BLOCK_TARGET static inline __attribute__((always_inline)) uint64_t bits_of(__m256i low, __m256i high) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(low) | (uint64_t)(uint32_t)_mm256_movemask_epi8(high) << 32;
}

SLUICE_SPLIT_BLOCK_TARGET static inline __attribute__((always_inline)) uint64_t bits_equal(__m256i low, __m256i high, char byte) {
    const __m256i wanted = _mm256_set1_epi8(byte);
    return bits_of(_mm256_cmpeq_epi8(low, wanted), _mm256_cmpeq_epi8(high, wanted));
}

SLUICE_SPLIT_BLOCK_TARGET static inline __attribute__((always_inline)) block_masks classify(const uint8_t *block) {
    const __m256i low = _mm256_loadu_si256((const __m256i *)block);
    const __m256i high = _mm256_loadu_si256((const __m256i *)(block + 32));
    // '[' and ']' are '{' and '}' without bit 5, so one OR folds them together.
    const __m256i fold = _mm256_set1_epi8(0x20);
    const __m256i low_folded = _mm256_or_si256(low, fold);
    const __m256i high_folded = _mm256_or_si256(high, fold);
    block_masks masks;
    masks.quotes = bits_equal(low, high, '"');
    masks.backslashes = bits_equal(low, high, '\\');
    masks.line_feeds = bits_equal(low, high, '\n');
    masks.opens = bits_equal(low_folded, high_folded, '{');
    masks.closes = bits_equal(low_folded, high_folded, '}');
    return masks;
}

/// The block's commas and colons: needed only on blocks that reach the skeleton, so not
/// computed with the rest.
SLUICE_SPLIT_BLOCK_TARGET static inline __attribute__((always_inline)) uint64_t separators_of(const uint8_t *block) {
    const __m256i low = _mm256_loadu_si256((const __m256i *)block);
    const __m256i high = _mm256_loadu_si256((const __m256i *)(block + 32));
    return bits_equal(low, high, ',') | bits_equal(low, high, ':');
}

/// Each bit set to the XOR of itself and every bit below it: a carry-less multiplication by all
/// ones. On the unescaped quotes, this sets the bits from each opening quote up to (not
/// including) its closing one.
SLUICE_SPLIT_BLOCK_TARGET static inline __attribute__((always_inline)) uint64_t prefix_xor(uint64_t bits) {
    const __m128i product = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)bits), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(product);
}

/// The bytes of a block that a backslash escapes, taking every backslash as inside a string
/// (`scan_blocks` checks that). `carry` says on entry whether the block's first byte is escaped
/// (an odd run of backslashes ended the block before) and on return whether the next block's is.
///
/// simdjson's way, without a loop over the runs of backslashes. In a run, the backslashes at an
/// even distance from its start escape the byte after them, the others are escaped. Subtracting
/// the runs from their copy shifted up by one, with the odd positions set, borrows through each
/// run that starts at an even position and not through one that starts at an odd position; XORed
/// with the odd positions, that leaves set the escaping backslashes and the byte after each run of
/// odd length; XORed with the backslashes, the escaped bytes. A backslash escaped by the previous
/// block's last one starts no run.
static inline __attribute__((always_inline)) uint64_t escaped_bytes(uint64_t backslashes, bool *carry) {
    const uint64_t escaped_first = *carry;
    if (backslashes == 0) {
        *carry = false;
        return escaped_first;
    }
    const uint64_t odd_bits = 0xAAAAAAAAAAAAAAAAull;
    const uint64_t escaping = backslashes & ~escaped_first;
    const uint64_t code = (((escaping << 1) | odd_bits) - escaping) ^ odd_bits;
    *carry = (code & backslashes) >> 63;
    return code ^ (backslashes | escaped_first);
}

/// Appends the event of the block's byte at `bit`, on the line that the block's line feeds before
/// it lead to. Returns false when there is no room, with the state as it is just before the byte
/// (the line included: the caller counts it only at the end of the block).
static inline __attribute__((always_inline)) bool report_in_block(
    sluice_splitter *s,
    uint8_t kind,
    int32_t level,
    int64_t at,
    int bit,
    uint64_t line_feeds,
    sluice_split_event *events,
    intptr_t capacity,
    intptr_t *event_count
) {
    // One line more for each line feed before the byte, starting after the last of them.
    const uint64_t earlier = line_feeds & ((1ull << bit) - 1);
    const int64_t line = s->line + __builtin_popcountll(earlier);
    const int64_t line_start = earlier != 0 ? at + 64 - __builtin_clzll(earlier) : s->line_start;
    if (*event_count >= capacity) {
        s->line = line;
        s->line_start = line_start;
        s->in_string = kind == sluice_split_string_end;
        s->escaped = false;
        return false;
    }
    sluice_split_event *event = events + *event_count;
    event->kind = kind;
    event->level = level;
    event->offset = at + bit;
    event->line = line;
    event->line_start = line_start;
    *event_count += 1;
    return true;
}

/// Visits in order the block's bytes that may be reported, all outside strings (`in_string` has
/// the bytes inside, opening quotes included): its brackets, and its separators and quotes,
/// updating the state as `step_outside` and `step_inside` would (the line aside: the caller counts
/// it at the end of the block). The depth changes only at brackets, so the bytes between two
/// brackets are looked at one by one only when that stretch is on the skeleton. Returns -1 when
/// done, or the index of the byte whose event found no room, with the state as it is just before
/// it. Out of line: most blocks never come here, and the loop over them keeps its registers.
SLUICE_SPLIT_BLOCK_TARGET __attribute__((noinline)) static intptr_t visit_block(
    sluice_splitter *s,
    const uint8_t *block,
    int64_t at,
    uint64_t opens,
    uint64_t closes,
    uint64_t quotes,
    uint64_t in_string,
    uint64_t line_feeds,
    sluice_split_event *events,
    intptr_t capacity,
    intptr_t *event_count
) {
    const uint64_t opening_quotes = quotes & in_string;
    // A closer bound than the caller's: the closing brackets of each half of the block taken as if
    // they came before its opening ones. When it says the block is off the skeleton after all, it
    // is stepped over as the caller would.
    const uint64_t first_half = 0xFFFFFFFFull;
    const int32_t lowest_first = s->depth - __builtin_popcountll(closes & first_half);
    const int32_t lowest_second = s->depth + __builtin_popcountll(opens & first_half) - __builtin_popcountll(closes);
    const int32_t lowest = lowest_first < lowest_second ? lowest_first : lowest_second;
    if (lowest >= 0 && lowest > s->report_level) {
        s->depth += __builtin_popcountll(opens) - __builtin_popcountll(closes);
        if (opening_quotes != 0) s->string_reported = false;
        return -1;
    }
    uint64_t brackets = opens | closes;
    // The separators, found once a stretch on the skeleton needs them.
    uint64_t separators = 0;
    bool separators_found = false;
    // The bytes from the start of the current stretch on.
    uint64_t from = ~0ull;
    for (;;) {
        // The stretch runs up to the next bracket (to the block's end when none is left).
        const uint64_t bracket = brackets & (0 - brackets);
        const uint64_t stretch = from & (bracket - 1);
        if (s->depth <= s->report_level) {
            if (!separators_found) {
                separators = separators_of(block) & ~in_string;
                separators_found = true;
            }
            uint64_t pending = (quotes | separators) & stretch;
            while (pending != 0) {
                const int bit = __builtin_ctzll(pending);
                pending &= pending - 1;
                uint8_t kind;
                switch (block[bit]) {
                case '"':
                    if (opening_quotes >> bit & 1) {
                        s->string_reported = true;
                        kind = sluice_split_string_start;
                    } else {
                        if (!s->string_reported) continue;
                        kind = sluice_split_string_end;
                    }
                    break;
                case ',':
                    kind = sluice_split_comma;
                    break;
                default:
                    kind = sluice_split_colon;
                    break;
                }
                if (!report_in_block(s, kind, s->depth, at, bit, line_feeds, events, capacity, event_count)) return bit;
            }
        } else if ((opening_quotes & stretch) != 0) {
            // A string begun this deep is not reported (nor is its end, in this block or later).
            s->string_reported = false;
        }
        if (bracket == 0) return -1;
        brackets ^= bracket;
        from = ~((bracket << 1) - 1);
        const int bit = __builtin_ctzll(bracket);
        if (bracket & opens) {
            if (s->depth <= s->report_level && !report_in_block(s, block[bit] == '{' ? sluice_split_open_object : sluice_split_open_array, s->depth, at, bit, line_feeds, events, capacity, event_count)) return bit;
            s->depth += 1;
        } else if (s->depth == 0) {
            s->unbalanced = true;
            s->report_level = -1;
        } else {
            if (s->depth - 1 <= s->report_level && !report_in_block(s, block[bit] == '}' ? sluice_split_close_object : sluice_split_close_array, s->depth - 1, at, bit, line_feeds, events, capacity, event_count)) return bit;
            s->depth -= 1;
        }
    }
}

/// Scans the whole 64-byte blocks at the start of `bytes` (`bytes[0]` at absolute offset `base`).
/// Returns where it stopped: after the last whole block, or before the byte whose event found no
/// room (then `*stopped` is set).
SLUICE_SPLIT_BLOCK_TARGET static intptr_t scan_blocks(
    sluice_splitter *s,
    const uint8_t *bytes,
    intptr_t count,
    int64_t base,
    sluice_split_event *events,
    intptr_t capacity,
    intptr_t *event_count,
    bool *stopped
) {
    intptr_t index = 0;
    while (index + 64 <= count) {
        const uint8_t *block = bytes + index;
        const int64_t at = base + index;
        const block_masks masks = classify(block);
        bool escape_carry = s->escaped;
        const uint64_t escaped = escaped_bytes(masks.backslashes, &escape_carry);
        const uint64_t quotes = masks.quotes & ~escaped;
        // The bytes inside strings, opening quotes included, closing ones not: set from each
        // unescaped quote to the next, starting set when a string runs on from before.
        const uint64_t in_string = prefix_xor(quotes) ^ (s->in_string ? ~0ull : 0);
        if ((masks.backslashes & ~in_string) != 0) {
            // A backslash outside a string (malformed input) escapes nothing, where the masks
            // took it to escape the next byte. Leave such a block to the bytewise scanner. (With
            // every backslash inside a string, the masks read the block as that scanner would.)
            const intptr_t end = scan_bytes(s, bytes, index, index + 64, base, events, capacity, event_count);
            if (end < index + 64) {
                index = end;
                *stopped = true;
                break;
            }
            index += 64;
            continue;
        }
        const uint64_t outside = ~in_string;
        const uint64_t opens = masks.opens & outside;
        const uint64_t closes = masks.closes & outside;
        const uint64_t line_feeds = masks.line_feeds & outside;
        // The shallowest the block can get: its closing brackets taken as if they came before
        // its opening ones. At 0 or above, none closes more than was opened; deeper than the
        // skeleton, none of the block is reported.
        const int32_t closed = __builtin_popcountll(closes);
        const int32_t lowest = s->depth - closed;
        if (lowest >= 0 && lowest > s->report_level) {
            s->depth = lowest + __builtin_popcountll(opens);
            // Any string begun here is too deep to report.
            if ((quotes & in_string) != 0) s->string_reported = false;
        } else {
            const intptr_t stop = visit_block(s, block, at, opens, closes, quotes, in_string, line_feeds, events, capacity, event_count);
            if (stop >= 0) {
                index += stop;
                *stopped = true;
                break;
            }
        }
        if (line_feeds != 0) {
            s->line += __builtin_popcountll(line_feeds);
            s->line_start = at + 64 - __builtin_clzll(line_feeds);
        }
        s->in_string = in_string >> 63;
        s->escaped = escape_carry;
        index += 64;
    }
    return index;
}

#endif

intptr_t sluice_split_scan(
    sluice_splitter *s,
    const uint8_t *bytes,
    intptr_t count,
    sluice_split_event *events,
    intptr_t capacity,
    intptr_t *event_count
) {
    *event_count = 0;
    const int64_t base = s->offset;
    intptr_t index = 0;
    bool stopped = false;
#if defined(SLUICE_SPLIT_BLOCKS)
    if (count >= 64 && blocks_supported()) index = scan_blocks(s, bytes, count, base, events, capacity, event_count, &stopped);
#endif
    if (!stopped) index = scan_bytes(s, bytes, index, count, base, events, capacity, event_count);
    s->offset = base + index;
    return index;
}
