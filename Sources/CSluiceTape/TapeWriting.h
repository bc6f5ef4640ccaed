// What the tape's two writers share: the callbacks yajl makes (CSluiceTape.c) and the tokenizer
// that stands in for yajl in the common case (CSluiceTokenizer.c). Both must write the same
// tokens in the same way, so the writing lives here, once.
#ifndef SLUICE_TAPE_WRITING_H
#define SLUICE_TAPE_WRITING_H

#include "CSluiceTape.h"

#include <string.h>

enum { kind_object_start = 0, kind_object_end = 1, kind_array_start = 2, kind_array_end = 3, kind_key = 4, kind_string = 5, kind_number = 6, kind_true = 7, kind_false = 8, kind_null = 9 };

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
}

/// Copies text into the arena; returns its absolute offset.
static inline int64_t append_text(tape_writer *w, const void *text, size_t length) {
    const int64_t offset = w->arena_base + w->byte_count;
    copy_text(w->bytes + w->byte_count, text, length);
    w->byte_count += (intptr_t)length;
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
