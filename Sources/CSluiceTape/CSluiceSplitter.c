// See CSluiceSplitter.h for what this is for.
//
// Sixteen bytes at a time where SSE2 is there (every x86-64): a byte needs a look only if it can
// change the scanner's state (a quote, a bracket, a line feed; inside a string, a quote or a
// backslash; on the skeleton, also a comma or a colon), and such bytes are found with a few vector
// compares per block, then visited in order through the block's bit mask. Elsewhere the same
// states are stepped through one byte at a time.
#include "CSluiceSplitter.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
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
static inline __attribute__((always_inline)) intptr_t step_inside(sluice_splitter *s, const uint8_t *bytes, intptr_t index, intptr_t count, int64_t base, sluice_split_event *events, intptr_t *event_count, intptr_t capacity) {
    const uint8_t byte = bytes[index];
    if (byte == '\\') {
        if (index + 1 < count) return 2;
        s->escaped = true;
        return 1;
    }
    if (byte == '"') {
        if (s->string_reported && !report(s, events, event_count, capacity, sluice_split_string_end, s->depth, base + index)) return 0;
        s->in_string = false;
    }
    return 1;
}

intptr_t sluice_split_scan(
    sluice_splitter *s,
    const uint8_t *bytes,
    intptr_t count,
    sluice_split_event *events,
    intptr_t capacity,
    intptr_t *event_count
) {
    *event_count = 0;
    intptr_t index = 0;
    const int64_t base = s->offset;
    while (index < count) {
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
            while (index + 16 <= count) {
                const __m128i block = _mm_loadu_si128((const __m128i *)(bytes + index));
                const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)));
                if (mask != 0) {
                    index += __builtin_ctz((unsigned)mask);
                    break;
                }
                index += 16;
            }
#endif
            while (index < count && bytes[index] != '"' && bytes[index] != '\\') index += 1;
            if (index >= count) break;
            const intptr_t used = step_inside(s, bytes, index, count, base, events, event_count, capacity);
            if (used == 0) break;
            index += used;
            continue;
        }
#if defined(__SSE2__)
        if (index + 16 <= count) {
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
    s->offset = base + index;
    return index;
}
