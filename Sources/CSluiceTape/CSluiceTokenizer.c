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

#include <string.h>

static inline bool is_digit(uint8_t byte) { return byte >= '0' && byte <= '9'; }

/// Nonzero when one of the eight bytes of `word` is a quote, a backslash, a control character
/// or not ASCII: the bytes a string's scan must stop at. Its lowest set bit marks the first such
/// byte (the borrows of the subtractions set bits only above a byte that is one).
static inline uint64_t stop_bytes(uint64_t word) {
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t quotes = word ^ (ones * '"');
    const uint64_t backslashes = word ^ (ones * '\\');
    return (((quotes - ones) & ~quotes) | ((backslashes - ones) & ~backslashes) | (word - ones * 0x20) | word) &
           0x8080808080808080ULL;
}

/// Finds the end of the string whose opening quote is `base[index]`: the index of its closing
/// quote, or -1 when it is not the tokenizer's to take (a fault, a lone surrogate, or its end not
/// in the chunk). Tells whether its decoded text is all ASCII and whether it has escapes.
static intptr_t scan_string(const uint8_t *base, intptr_t index, intptr_t end, bool *is_ascii, bool *escaped) {
    intptr_t at = index + 1;
    bool ascii = true;
    bool escapes = false;
    for (;;) {
        for (;;) {
            if (at + 8 <= end) {
                uint64_t word;
                memcpy(&word, base + at, 8);
                const uint64_t stops = stop_bytes(word);
                if (stops == 0) {
                    at += 8;
                    continue;
                }
                at += __builtin_ctzll(stops) >> 3;
                break;
            }
            while (at < end) {
                const uint8_t byte = base[at];
                if (byte == '"' || byte == '\\' || byte < 0x20 || byte >= 0x80) break;
                at += 1;
            }
            if (at >= end) return -1;
            break;
        }
        const uint8_t byte = base[at];
        if (byte == '"') {
            *is_ascii = ascii;
            *escaped = escapes;
            return at;
        }
        if (byte == '\\') {
            if (at + 1 >= end) return -1;
            escapes = true;
            const uint8_t escape = base[at + 1];
            if (escape == 'u') {
                if (at + 6 > end) return -1;
                const int32_t unit = hex4(base + at + 2);
                if (unit < 0 || (unit & 0xFC00) == 0xDC00) return -1;
                if ((unit & 0xFC00) == 0xD800) {
                    if (at + 12 > end || base[at + 6] != '\\' || base[at + 7] != 'u') return -1;
                    const int32_t low = hex4(base + at + 8);
                    if (low < 0 || (low & 0xFC00) != 0xDC00) return -1;
                    ascii = false;
                    at += 12;
                } else {
                    if (unit >= 0x80) ascii = false;
                    at += 6;
                }
                continue;
            }
            switch (escape) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                at += 2;
                continue;
            default:
                return -1;
            }
        }
        if (byte < 0x20) return -1;
        // A run of non-ASCII characters (text in most scripts but Latin) is checked sequence by
        // sequence here, without going back to the word scan, which would stop at once.
        do {
            const intptr_t length = utf8_sequence(base + at, end - at);
            if (length == 0) return -1;
            at += length;
        } while (at < end && base[at] >= 0x80);
        ascii = false;
    }
}

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

/// Writes the text of a string's content (between its quotes, checked by `scan_string`) with its
/// escapes decoded, as yajl hands it over; returns the byte count, at most `length`.
static size_t decode_string(const uint8_t *content, intptr_t length, uint8_t *target) {
    size_t written = 0;
    intptr_t at = 0;
    while (at < length) {
        const uint8_t *backslash = memchr(content + at, '\\', (size_t)(length - at));
        const intptr_t run = (backslash != NULL ? backslash - content : length) - at;
        memcpy(target + written, content + at, (size_t)run);
        written += (size_t)run;
        at += run;
        if (at >= length) break;
        const uint8_t escape = content[at + 1];
        at += 2;
        switch (escape) {
        case 'b': target[written++] = '\b'; break;
        case 'f': target[written++] = '\f'; break;
        case 'n': target[written++] = '\n'; break;
        case 'r': target[written++] = '\r'; break;
        case 't': target[written++] = '\t'; break;
        case 'u': {
            uint32_t code_point = (uint32_t)hex4(content + at);
            at += 4;
            if ((code_point & 0xFC00) == 0xD800) {
                const uint32_t low = (uint32_t)hex4(content + at + 2);
                code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
                at += 6;
            }
            written += encode_utf8(code_point, target + written);
            break;
        }
        default: target[written++] = escape; break;  // '"', '\\' and '/' stand for themselves
        }
    }
    return written;
}

/// The index just past the number that starts at `base[index]`, or -1 when it is ill-formed or
/// its end is not in the chunk (a number ends at the first byte that cannot continue it, as in
/// yajl, which reports what follows as the next token).
static inline intptr_t scan_number(const uint8_t *base, intptr_t index, intptr_t end) {
    intptr_t at = index;
    if (base[at] == '-' && ++at >= end) return -1;
    if (base[at] == '0') {
        at += 1;
    } else if (base[at] >= '1' && base[at] <= '9') {
        do at += 1;
        while (at < end && is_digit(base[at]));
    } else {
        return -1;
    }
    if (at >= end) return -1;
    if (base[at] == '.') {
        at += 1;
        if (at >= end || !is_digit(base[at])) return -1;
        do at += 1;
        while (at < end && is_digit(base[at]));
        if (at >= end) return -1;
    }
    if (base[at] == 'e' || base[at] == 'E') {
        at += 1;
        if (at < end && (base[at] == '+' || base[at] == '-')) at += 1;
        if (at >= end || !is_digit(base[at])) return -1;
        do at += 1;
        while (at < end && is_digit(base[at]));
        if (at >= end) return -1;
    }
    return at;
}

int sluice_fast_tokenize(sluice_parser_hot *h) {
    const uint8_t *base = h->chunk;
    if (base == NULL || h->chunk_is_virtual || h->pending_start >= 0) return 0;
    const intptr_t end = h->chunk_count;
    const intptr_t chunk_base = h->chunk_base;
    const intptr_t max_token_bytes = h->max_token_bytes;
    const intptr_t max_depth = h->max_depth;
    tape_writer w = load_writer(h);
    intptr_t at = (w.scan_offset > chunk_base ? w.scan_offset : chunk_base) - chunk_base;
    // The gap's state stays local until a token is written: stopping leaves the parser as the
    // last token left it, for yajl and the callbacks to step over the gap again.
    bool separated = h->gap_had_separator;
    bool written = false;
    intptr_t line = w.line;
    intptr_t line_start = w.line_start;
    int outcome;
    for (;;) {
        const intptr_t depth = w.container_count;
        const bool in_object = depth > 0 && w.containers[depth - 1].is_object;
        // The one separator the grammar allows before the next token, if any.
        uint8_t separator = 0;
        if (depth > 0) {
            if (w.last_token_was_key) separator = ':';
            else if (w.last_token_ended_value) separator = ',';
        }
        while (at < end) {
            const uint8_t byte = base[at];
            if (byte == ' ' || byte == '\t' || byte == '\r') {
                at += 1;
            } else if (byte == '\n') {
                at += 1;
                line += 1;
                line_start = chunk_base + at;
                at = skip_spaces(base, at, end);
            } else if (byte == ',' || byte == ':') {
                if (byte != separator || separated) goto stop;
                separated = true;
                at += 1;
            } else {
                break;
            }
        }
        if (at >= end) {
            outcome = 1;
            goto done;
        }

        // What may stand here.
        bool value_allowed = false, key_allowed = false, close_allowed = false;
        if (depth == 0) {
            if (w.saw_token) goto stop;
            value_allowed = true;
        } else if (w.last_token_was_key) {
            value_allowed = separated;
        } else if (w.last_token_ended_value) {
            if (in_object) key_allowed = separated;
            else value_allowed = separated;
            close_allowed = !separated;
        } else {
            // Just after '{' or '['.
            key_allowed = in_object;
            value_allowed = !in_object;
            close_allowed = true;
        }

        const uint8_t byte = base[at];
        const intptr_t start = chunk_base + at;
        intptr_t next;
        if (byte == '"') {
            if (!value_allowed && !key_allowed) goto stop;
            bool ascii = true, escaped = false;
            const intptr_t close = scan_string(base, at, end, &ascii, &escaped);
            if (close < 0) goto stop;
            const intptr_t raw_length = close - at - 1;
            if (raw_length > max_token_bytes || !has_room(&w, (size_t)raw_length)) goto stop;
            w.line = line;
            w.line_start = line_start;
            int64_t offset;
            size_t length;
            if (escaped) {
                offset = w.arena_base + w.byte_count;
                length = decode_string(base + at + 1, raw_length, w.bytes + w.byte_count);
                w.byte_count += (intptr_t)length;
            } else {
                offset = append_text(&w, base + at + 1, (size_t)raw_length);
                length = (size_t)raw_length;
            }
            next = close + 1;
            append_token(&w, key_allowed ? kind_key : kind_string, ascii, (uint32_t)length, offset, start);
            if (key_allowed) end_key(&w, chunk_base + next);
            else end_value(&w, chunk_base + next);
        } else if (byte == '{' || byte == '[') {
            if (!value_allowed || depth >= max_depth || depth == w.container_capacity || !has_room(&w, 0)) goto stop;
            w.line = line;
            w.line_start = line_start;
            next = at + 1;
            open_container(&w, byte == '{', start, chunk_base + next);
        } else if (byte == '}' || byte == ']') {
            if (!close_allowed || (byte == '}') != in_object || !has_room(&w, 0)) goto stop;
            w.line = line;
            w.line_start = line_start;
            next = at + 1;
            close_container(&w, start, chunk_base + next);
        } else if (byte == 't' || byte == 'f' || byte == 'n') {
            const char *word = byte == 't' ? "true" : byte == 'f' ? "false" : "null";
            const intptr_t length = byte == 'f' ? 5 : 4;
            if (!value_allowed || at + length > end || memcmp(base + at, word, (size_t)length) != 0 || !has_room(&w, 0)) {
                goto stop;
            }
            w.line = line;
            w.line_start = line_start;
            next = at + length;
            append_token(&w, byte == 't' ? kind_true : byte == 'f' ? kind_false : kind_null, false, 0, 0, start);
            end_value(&w, chunk_base + next);
        } else if (byte == '-' || is_digit(byte)) {
            if (!value_allowed) goto stop;
            next = scan_number(base, at, end);
            if (next < 0) goto stop;
            const intptr_t length = next - at;
            if (length > max_token_bytes || !has_room(&w, (size_t)length)) goto stop;
            w.line = line;
            w.line_start = line_start;
            const int64_t offset = append_text(&w, base + at, (size_t)length);
            append_token(&w, kind_number, true, (uint32_t)length, offset, start);
            end_value(&w, chunk_base + next);
        } else {
            goto stop;
        }
        // The token's separator is spent; the next gap starts without one.
        written = true;
        separated = false;
        at = next;
    }
stop:
    outcome = 0;
done:
    store_writer(h, &w);
    if (written) h->gap_had_separator = false;
    return outcome;
}

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
