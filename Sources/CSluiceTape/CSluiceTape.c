// See CSluiceTape.h for why this exists. The callbacks here mirror pieces of
// Sources/SluiceJSON/ParserState.swift (each names its Swift counterpart): a change to one needs
// the same change in the other. The UTF-8 check at the end is the one both sides call.
#include "CSluiceTape.h"

#include <string.h>

enum { kind_object_start = 0, kind_object_end = 1, kind_array_start = 2, kind_array_end = 3, kind_key = 4, kind_string = 5, kind_number = 6, kind_true = 7, kind_false = 8, kind_null = 9 };

static inline sluice_parser_hot *hot_of(void *context) { return (sluice_parser_hot *)context; }

/// The index of the first byte at or after `index` that is not a space: indentation after a
/// line feed, eight bytes at a time, the first other byte found from the word's lowest set bit.
static inline intptr_t skip_spaces(const uint8_t *base, intptr_t index, intptr_t end) {
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

static inline uint32_t clamp32(intptr_t value) {
    if (value < 0) return 0;
    if ((uint64_t)value > UINT32_MAX) return UINT32_MAX;
    return (uint32_t)value;
}

static inline intptr_t token_end(sluice_parser_hot *h) {
    return h->chunk_base + (intptr_t)yajl_get_bytes_consumed(h->handle);
}

static inline void append_token(sluice_parser_hot *h, uint8_t kind, bool is_ascii, uint32_t length, int64_t payload, intptr_t start) {
    sluice_token *token = *h->tokens + *h->token_count;
    token->kind = kind;
    token->is_ascii = is_ascii;
    token->length = length;
    token->column = clamp32(start - h->line_start + 1);
    token->line = clamp32(h->line);
    token->payload = payload;
    token->byte_offset = start;
    *h->token_count += 1;
}

/// Copies text into the arena; returns its absolute offset.
static inline int64_t append_text(sluice_parser_hot *h, const void *text, size_t length) {
    const int64_t offset = *h->arena_base + *h->byte_count;
    uint8_t *target = *h->bytes + *h->byte_count;
    const uint8_t *source = text;
    // Short text (most keys and many values) in two overlapping fixed-size moves, which compile
    // to plain loads and stores; a call to memcpy costs more than the copy.
    if (length >= 8 && length <= 16) {
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
    *h->byte_count += (intptr_t)length;
    return offset;
}

/// `ParserState.endValue(at:)`.
static inline void end_value(sluice_parser_hot *h, intptr_t end) {
    h->top_child_count += 1;
    h->scan_offset = end;
    h->last_token_was_key = false;
    h->last_token_ended_value = true;
    h->saw_token = true;
}

static inline bool has_room(sluice_parser_hot *h, size_t text_length) {
    return *h->token_count < *h->token_capacity && *h->byte_count + (intptr_t)text_length <= *h->byte_capacity;
}

/// `null`, `true` or `false` whose first byte is `first`.
static inline bool on_literal(sluice_parser_hot *h, uint8_t kind, uint8_t first) {
    const intptr_t start = begin_token(h);
    if (start < 0 || h->chunk[start - h->chunk_base] != first || !has_room(h, 0)) return false;
    append_token(h, kind, false, 0, 0, start);
    end_value(h, token_end(h));
    return true;
}

static int on_null(void *context) {
    sluice_parser_hot *h = hot_of(context);
    return on_literal(h, kind_null, 'n') ? 1 : h->slow_null(h->swift_state);
}

static int on_boolean(void *context, int value) {
    sluice_parser_hot *h = hot_of(context);
    return on_literal(h, value ? kind_true : kind_false, value ? 't' : 'f') ? 1 : h->slow_boolean(h->swift_state, value);
}

static int on_number(void *context, const char *text, size_t length) {
    sluice_parser_hot *h = hot_of(context);
    const intptr_t start = begin_token(h);
    if (start >= 0 && (intptr_t)length <= h->max_token_bytes && has_room(h, length)) {
        const uint8_t first = h->chunk[start - h->chunk_base];
        if (first == '-' || (first >= '0' && first <= '9')) {
            const int64_t offset = append_text(h, text, length);
            append_token(h, kind_number, true, (uint32_t)length, offset, start);
            end_value(h, token_end(h));
            return 1;
        }
    }
    return h->slow_number(h->swift_state, text, length);
}

/// A string or key without escapes, wholly in this chunk, well-formed UTF-8, within the limit.
static inline __attribute__((always_inline)) bool on_text(sluice_parser_hot *h, const unsigned char *text, size_t length, uint8_t kind) {
    const intptr_t start = begin_token(h);
    if (start < 0 || h->chunk[start - h->chunk_base] != '"') return false;
    const intptr_t end = token_end(h);
    const intptr_t raw_length = end - start - 2;
    if (raw_length > h->max_token_bytes || (intptr_t)length != raw_length || !has_room(h, length)) return false;
    bool is_ascii = false;
    if (sluice_check_utf8(text, (intptr_t)length, &is_ascii) >= 0) return false;
    const int64_t offset = append_text(h, text, length);
    append_token(h, kind, is_ascii, (uint32_t)length, offset, start);
    if (kind == kind_key) {
        h->scan_offset = end;
        h->last_token_was_key = true;
        h->last_token_ended_value = false;
    } else {
        end_value(h, end);
    }
    return true;
}

static int on_string(void *context, const unsigned char *text, size_t length) {
    sluice_parser_hot *h = hot_of(context);
    if (on_text(h, text, length, kind_string)) return 1;
    return h->slow_string(h->swift_state, text, length);
}

static int on_key(void *context, const unsigned char *text, size_t length) {
    sluice_parser_hot *h = hot_of(context);
    if (on_text(h, text, length, kind_key)) return 1;
    return h->slow_key(h->swift_state, text, length);
}

/// `ParserState.didStartContainer(isObject:)` when the depth limit is not reached and the stack
/// has room.
static inline bool start_container(sluice_parser_hot *h, bool is_object) {
    const intptr_t start = begin_token(h);
    if (start < 0 || h->chunk[start - h->chunk_base] != (is_object ? '{' : '[') || !has_room(h, 0)) return false;
    if (h->container_count >= h->max_depth || h->container_count == h->container_capacity) return false;
    h->top_child_count += 1;
    if (h->container_count > 0) h->containers[h->container_count - 1].child_count = h->top_child_count;
    sluice_open_container *open = h->containers + h->container_count;
    open->token_index = *h->first_index + *h->token_count;
    open->child_count = 0;
    open->byte_offset = start;
    open->line = h->line;
    open->column = start - h->line_start + 1;
    open->is_object = is_object;
    h->container_count += 1;
    h->top_child_count = 0;
    append_token(h, is_object ? kind_object_start : kind_array_start, false, 0, -1, start);
    h->scan_offset = token_end(h);
    h->last_token_was_key = false;
    h->last_token_ended_value = false;
    h->saw_token = true;
    return true;
}

/// `ParserState.didEndContainer()`.
static inline bool end_container(sluice_parser_hot *h, bool is_object) {
    const intptr_t start = begin_token(h);
    if (start < 0 || h->chunk[start - h->chunk_base] != (is_object ? '}' : ']') || !has_room(h, 0)) return false;
    if (h->container_count == 0) return false;
    h->container_count -= 1;
    const sluice_open_container open = h->containers[h->container_count];
    const intptr_t child_count = h->top_child_count;
    h->top_child_count = h->container_count > 0 ? h->containers[h->container_count - 1].child_count : 0;
    const intptr_t end_index = *h->first_index + *h->token_count;
    append_token(h, open.is_object ? kind_object_end : kind_array_end, false, 0, open.token_index, start);
    // Record on the start token where its container ends, unless a consumer has released it.
    const intptr_t start_position = open.token_index - *h->first_index;
    if (start_position >= 0) {
        sluice_token *opening = *h->tokens + start_position;
        opening->payload = end_index;
        opening->length = clamp32(child_count);
    }
    h->scan_offset = token_end(h);
    h->last_token_was_key = false;
    h->last_token_ended_value = true;
    return true;
}

static int on_start_map(void *context) {
    sluice_parser_hot *h = hot_of(context);
    return start_container(h, true) ? 1 : h->start_map(h->swift_state);
}

static int on_end_map(void *context) {
    sluice_parser_hot *h = hot_of(context);
    return end_container(h, true) ? 1 : h->end_map(h->swift_state);
}

static int on_start_array(void *context) {
    sluice_parser_hot *h = hot_of(context);
    return start_container(h, false) ? 1 : h->start_array(h->swift_state);
}

static int on_end_array(void *context) {
    sluice_parser_hot *h = hot_of(context);
    return end_container(h, false) ? 1 : h->end_array(h->swift_state);
}

/// The value of four hexadecimal digits (yajl has checked they are hex digits).
static inline uint32_t hex_value(const uint8_t *digits) {
    uint32_t value = 0;
    for (int offset = 0; offset < 4; offset++) {
        const uint8_t byte = digits[offset];
        uint32_t digit;
        if (byte >= '0' && byte <= '9') digit = byte - '0';
        else if (byte >= 'a' && byte <= 'f') digit = byte - 'a' + 10;
        else digit = byte - 'A' + 10;
        value = value << 4 | digit;
    }
    return value;
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
        const uint32_t unit = hex_value(content + index + 2);
        if ((unit & 0xFC00) == 0xDC00) return index;  // a low half with no high half before it
        if ((unit & 0xFC00) == 0xD800) {
            const intptr_t next = index + 6;
            if (next + 6 > count || content[next] != '\\' || content[next + 1] != 'u' ||
                (hex_value(content + next + 2) & 0xFC00) != 0xDC00) {
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
            return index;
        }
        if (index + length > count || bytes[index + 1] < low || bytes[index + 1] > high) return index;
        for (intptr_t continuation = index + 2; continuation < index + length; continuation++) {
            if ((bytes[continuation] & 0xC0) != 0x80) return index;
        }
        index += length;
    }
    *is_ascii = ascii;
    return -1;
}
