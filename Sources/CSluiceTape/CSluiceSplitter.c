// See CSluiceSplitter.h for what this is for.
#include "CSluiceSplitter.h"

#include <string.h>

/// Whether any byte of `word` is `byte` (the classic zero-byte test on `word ^ byte * 0x01..`).
static inline uint64_t has_byte(uint64_t word, uint8_t byte) {
    const uint64_t x = word ^ (0x0101010101010101ULL * byte);
    return (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
}

static inline void report(sluice_splitter *s, sluice_split_event *events, intptr_t *event_count, uint8_t kind, int32_t level, int64_t offset) {
    sluice_split_event *event = events + *event_count;
    event->kind = kind;
    event->level = level;
    event->offset = offset;
    event->line = s->line;
    event->line_start = s->line_start;
    *event_count += 1;
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
    // Each step of the loop reports at most one event, so checking for room once a step is enough.
    while (index < count) {
        if (*event_count >= capacity) break;
        if (s->in_string) {
            if (s->escaped) {
                s->escaped = false;
                index += 1;
                continue;
            }
            // Eight bytes at a time up to the next quote or backslash. A raw line feed inside a
            // string is not counted: JSON allows none there, and the parser, which reports it,
            // counts lines only between tokens.
            while (index + 8 <= count) {
                uint64_t word;
                memcpy(&word, bytes + index, 8);
                if (has_byte(word, '"') | has_byte(word, '\\')) break;
                index += 8;
            }
            while (index < count) {
                const uint8_t byte = bytes[index];
                if (byte == '\\') {
                    if (index + 1 < count) {
                        index += 2;
                        continue;
                    }
                    s->escaped = true;
                    index += 1;
                    break;
                }
                if (byte == '"') {
                    s->in_string = false;
                    if (s->string_reported) {
                        report(s, events, event_count, sluice_split_string_end, s->depth, base + index);
                    }
                    index += 1;
                    break;
                }
                index += 1;
            }
            continue;
        }
        const uint8_t byte = bytes[index];
        switch (byte) {
        case '"':
            s->in_string = true;
            s->string_reported = s->depth <= s->report_level;
            if (s->string_reported) report(s, events, event_count, sluice_split_string_start, s->depth, base + index);
            break;
        case '{':
        case '[':
            if (s->depth <= s->report_level) {
                report(s, events, event_count, byte == '{' ? sluice_split_open_object : sluice_split_open_array, s->depth, base + index);
            }
            s->depth += 1;
            break;
        case '}':
        case ']':
            if (s->depth == 0) {
                s->unbalanced = true;
                s->report_level = -1;
                break;
            }
            s->depth -= 1;
            if (s->depth <= s->report_level) {
                report(s, events, event_count, byte == '}' ? sluice_split_close_object : sluice_split_close_array, s->depth, base + index);
            }
            break;
        case ',':
        case ':':
            if (s->depth <= s->report_level) {
                report(s, events, event_count, byte == ',' ? sluice_split_comma : sluice_split_colon, s->depth, base + index);
            }
            break;
        case '\n':
            s->line += 1;
            s->line_start = base + index + 1;
            break;
        default:
            break;
        }
        index += 1;
    }
    s->offset = base + index;
    return index;
}
