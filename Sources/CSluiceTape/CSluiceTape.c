// See CSluiceTape.h for why this exists. The callbacks here mirror pieces of
// Sources/SluiceJSON/Parsing/ParserState.swift (each names its Swift counterpart): a change to one needs
// the same change in the other. The UTF-8 check at the end is the one both sides call.
#include "CSluiceTape.h"
#include "TapeWriting.h"

#include <string.h>

static inline sluice_parser_hot *hot_of(void *context) { return (sluice_parser_hot *)context; }

/// `ParserState.skipGap(until:)` up to the chunk's end: steps over whitespace, line feeds
/// (counted) and separators. Returns the absolute offset of the first other byte, or -1 when
/// the chunk ends first.
static inline intptr_t skip_gap(sluice_parser_hot *h) {
    intptr_t index = (h->scan_offset > h->chunk_base ? h->scan_offset : h->chunk_base) - h->chunk_base;
    const intptr_t end = h->chunk_count;
    const uint8_t *base = h->chunk;
    if (index >= end || base == NULL) {
        h->scan_offset = h->chunk_base + end;
        return -1;
    }
    while (index < end) {
        const uint8_t byte = base[index];
        if (byte == 0x20 || byte == 0x09 || byte == 0x0D) {
            index += 1;
        } else if (byte == 0x0A) {
            index += 1;
            h->line += 1;
            h->line_start = h->chunk_base + index;
            index = skip_spaces(base, index, end);
        } else if (byte == ',' || byte == ':') {
            index += 1;
            h->gap_had_separator = true;
        } else {
            break;
        }
    }
    h->scan_offset = h->chunk_base + index;
    return index < end ? h->scan_offset : -1;
}

/// `ParserState.beginToken()` for a token that starts in this chunk: its absolute offset, or -1
/// for the Swift path (a token left pending at the last chunk's end, the finishing space, a gap
/// that runs to the chunk's end). The separator seen belongs to this token, so the next gap
/// starts without one, as the Swift version's `defer` has it. Stepping over the gap again in
/// Swift, after -1 or after the caller gives up, finds the same start: the gap is behind
/// `scan_offset` by then.
static inline intptr_t begin_token(sluice_parser_hot *h) {
    if (h->pending_start >= 0 || h->chunk_is_virtual) return -1;
    const intptr_t start = skip_gap(h);
    if (start >= 0) h->gap_had_separator = false;
    return start;
}

static inline intptr_t token_end(sluice_parser_hot *h) {
    return h->yajl_base + (intptr_t)yajl_get_bytes_consumed(h->handle);
}

/// A callback's answer to yajl: stops it after a completed token when the tokenizer takes over
/// again from there (see `hand_back`).
static inline int settle(sluice_parser_hot *h, int result) {
    if (result && h->hand_back) {
        h->handed_back = true;
        return 0;
    }
    return result;
}

/// `null`, `true` or `false` whose first byte is `first`.
static inline bool on_literal(sluice_parser_hot *h, uint8_t kind, uint8_t first) {
    const intptr_t start = begin_token(h);
    tape_writer w = load_writer(h);
    if (start < 0 || h->chunk[start - h->chunk_base] != first || !has_room(&w, 0)) return false;
    append_token(&w, kind, false, 0, 0, start);
    end_value(&w, token_end(h));
    store_writer(h, &w);
    return true;
}

static int on_null(void *context) {
    sluice_parser_hot *h = hot_of(context);
    if (h->muted) return 1;
    return settle(h, on_literal(h, kind_null, 'n') ? 1 : h->slow_null(h->swift_state));
}

static int on_boolean(void *context, int value) {
    sluice_parser_hot *h = hot_of(context);
    if (h->muted) return 1;
    return settle(h, on_literal(h, value ? kind_true : kind_false, value ? 't' : 'f') ? 1 : h->slow_boolean(h->swift_state, value));
}

static int on_number(void *context, const char *text, size_t length) {
    sluice_parser_hot *h = hot_of(context);
    if (h->muted) return 1;
    const intptr_t start = begin_token(h);
    tape_writer w = load_writer(h);
    if (start >= 0 && (intptr_t)length <= h->max_token_bytes && has_room(&w, length + SLUICE_NUMBER_TRAILER_SIZE)) {
        const uint8_t first = h->chunk[start - h->chunk_base];
        if (first == '-' || (first >= '0' && first <= '9')) {
            const int64_t offset = append_number(&w, text, length);
            append_token(&w, kind_number, true, (uint32_t)length, offset, start);
            end_value(&w, token_end(h));
            store_writer(h, &w);
            return settle(h, 1);
        }
    }
    return settle(h, h->slow_number(h->swift_state, text, length));
}

/// A string or key without escapes, wholly in this chunk, well-formed UTF-8, within the limit.
static inline __attribute__((always_inline)) bool on_text(sluice_parser_hot *h, const unsigned char *text, size_t length, uint8_t kind) {
    const intptr_t start = begin_token(h);
    if (start < 0 || h->chunk[start - h->chunk_base] != '"') return false;
    const intptr_t end = token_end(h);
    const intptr_t raw_length = end - start - 2;
    tape_writer w = load_writer(h);
    if (raw_length > h->max_token_bytes || (intptr_t)length != raw_length || !has_room(&w, length)) return false;
    bool is_ascii = false;
    if (sluice_check_utf8(text, (intptr_t)length, &is_ascii) >= 0) return false;
    const int64_t offset = append_text(&w, text, length);
    append_token(&w, kind, is_ascii, (uint32_t)length, offset, start);
    if (kind == kind_key) end_key(&w, end);
    else end_value(&w, end);
    store_writer(h, &w);
    return true;
}

static int on_string(void *context, const unsigned char *text, size_t length) {
    sluice_parser_hot *h = hot_of(context);
    if (h->muted) return 1;
    if (on_text(h, text, length, kind_string)) return settle(h, 1);
    return settle(h, h->slow_string(h->swift_state, text, length));
}

static int on_key(void *context, const unsigned char *text, size_t length) {
    sluice_parser_hot *h = hot_of(context);
    if (h->muted) return 1;
    if (on_text(h, text, length, kind_key)) return settle(h, 1);
    return settle(h, h->slow_key(h->swift_state, text, length));
}

/// `ParserState.didStartContainer(isObject:)` when the depth limit is not reached and the stack
/// has room.
static inline bool start_container(sluice_parser_hot *h, bool is_object) {
    const intptr_t start = begin_token(h);
    tape_writer w = load_writer(h);
    if (start < 0 || h->chunk[start - h->chunk_base] != (is_object ? '{' : '[') || !has_room(&w, 0)) return false;
    if (w.container_count >= h->max_depth || w.container_count == w.container_capacity) return false;
    open_container(&w, is_object, start, token_end(h));
    store_writer(h, &w);
    return true;
}

/// `ParserState.didEndContainer()`.
static inline bool end_container(sluice_parser_hot *h, bool is_object) {
    const intptr_t start = begin_token(h);
    tape_writer w = load_writer(h);
    if (start < 0 || h->chunk[start - h->chunk_base] != (is_object ? '}' : ']') || !has_room(&w, 0)) return false;
    if (w.container_count == 0) return false;
    close_container(&w, start, token_end(h));
    store_writer(h, &w);
    return true;
}

static int on_start_map(void *context) {
    sluice_parser_hot *h = hot_of(context);
    if (h->muted) return 1;
    return settle(h, start_container(h, true) ? 1 : h->start_map(h->swift_state));
}

static int on_end_map(void *context) {
    sluice_parser_hot *h = hot_of(context);
    if (h->muted) return 1;
    return settle(h, end_container(h, true) ? 1 : h->end_map(h->swift_state));
}

static int on_start_array(void *context) {
    sluice_parser_hot *h = hot_of(context);
    if (h->muted) return 1;
    return settle(h, start_container(h, false) ? 1 : h->start_array(h->swift_state));
}

static int on_end_array(void *context) {
    sluice_parser_hot *h = hot_of(context);
    if (h->muted) return 1;
    return settle(h, end_container(h, false) ? 1 : h->end_array(h->swift_state));
}

void sluice_tape_callbacks(yajl_callbacks *table) {
    memset(table, 0, sizeof *table);
    table->yajl_null = on_null;
    table->yajl_boolean = on_boolean;
    // yajl_number set: every number arrives as its text, never converted by yajl.
    table->yajl_number = on_number;
    table->yajl_string = on_string;
    table->yajl_start_map = on_start_map;
    table->yajl_map_key = on_key;
    table->yajl_end_map = on_end_map;
    table->yajl_start_array = on_start_array;
    table->yajl_end_array = on_end_array;
}

int sluice_small_string_layout = 0;

intptr_t sluice_first_invalid_utf8(const uint8_t *bytes, intptr_t count) {
    bool is_ascii;
    return sluice_check_utf8(bytes, count, &is_ascii);
}

bool sluice_is_ascii(const uint8_t *bytes, intptr_t count) {
    intptr_t index = 0;
    uint64_t high = 0;
    for (; index + 8 <= count; index += 8) {
        uint64_t word;
        memcpy(&word, bytes + index, 8);
        high |= word;
    }
    for (; index < count; index++) high |= bytes[index];
    return (high & 0x8080808080808080ULL) == 0;
}

intptr_t sluice_first_unpaired_surrogate(const uint8_t *content, intptr_t count) {
    intptr_t index = 0;
    while (index < count) {
        const uint8_t *found = memchr(content + index, '\\', (size_t)(count - index));
        if (found == NULL) return -1;
        index = found - content;
        if (index + 5 >= count || content[index + 1] != 'u') {
            index += 2;
            continue;
        }
        // yajl has checked the digits, so hex4 cannot answer -1 here.
        const uint32_t unit = (uint32_t)hex4(content + index + 2);
        if ((unit & 0xFC00) == 0xDC00) return index;  // a low half with no high half before it
        if ((unit & 0xFC00) == 0xD800) {
            const intptr_t next = index + 6;
            if (next + 6 > count || content[next] != '\\' || content[next + 1] != 'u' ||
                ((uint32_t)hex4(content + next + 2) & 0xFC00) != 0xDC00) {
                return index;
            }
            index = next + 6;
            continue;
        }
        index += 6;
    }
    return -1;
}

intptr_t sluice_check_utf8(const uint8_t *bytes, intptr_t count, bool *is_ascii) {
    intptr_t index = 0;
    bool ascii = true;
    while (index < count) {
        // Eight ASCII bytes at a time, the common case for JSON text.
        while (index + 8 <= count) {
            uint64_t word;
            memcpy(&word, bytes + index, 8);
            if (word & 0x8080808080808080ULL) break;
            index += 8;
        }
        if (index >= count) break;
        const uint8_t lead = bytes[index];
        if (lead < 0x80) {
            index += 1;
            continue;
        }
        ascii = false;
        const intptr_t length = utf8_sequence(bytes + index, count - index);
        if (length == 0) return index;
        index += length;
    }
    *is_ascii = ascii;
    return -1;
}

void sluice_number_trailer(const uint8_t *text, size_t length, uint8_t *out) {
    sluice_number_digits digits;
    // The text is a whole number that yajl or a builder has checked, so reaching its end is its end.
    if (length == 0 || read_number(text, 0, (intptr_t)length, &digits) != (intptr_t)length) {
        digits = (sluice_number_digits){0, 0, 0, 0};
    }
    memcpy(out, &digits, SLUICE_NUMBER_TRAILER_SIZE);
}

double sluice_decimal_to_double(uint64_t significand, int32_t scale) {
    return decimal_to_double(significand, scale);
}
