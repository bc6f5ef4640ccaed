// The tape builder in C: the tokenizer that reads the common case without yajl
// (`sluice_fast_tokenize`), and the callbacks yajl makes for strings, keys, numbers and literals
// when yajl reads, which build the tokens themselves when nothing about them is unusual.
//
// Why C: these run once per token, and in Swift each one paid for a closure thunk, exclusivity
// and bounds checks, and reads of state through a struct that Swift may not keep in registers
// (measured: about 400 instructions per token besides yajl's own work). The fast path here does
// only what the common case needs and leaves everything else to the Swift callbacks, which it
// calls with the same arguments: a token cut by a chunk's end, a string with escapes, any byte
// yajl lets through that JSON does not allow, a limit, a full buffer. The Swift code stays the
// one definition of every rule and every error; this file only skips work when the outcome of
// that code is known.
#ifndef CSLUICETAPE_H
#define CSLUICETAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_parse.h>

// The splitter's scanner lives beside the tape's callbacks; this header is the module's umbrella.
#include "CSluiceSplitter.h"

/// One tape token, laid out as Swift's `JSONToken` is (kind, length, column, line, payload,
/// byte offset); `ParserState` checks the layout once before the first parse.
typedef struct sluice_token {
    uint8_t kind;
    /// Whether the token's text is all ASCII.
    bool is_ascii;
    uint32_t length;
    uint32_t column;
    uint32_t line;
    int64_t payload;
    int64_t byte_offset;
} sluice_token;

/// An array or object open at the current point: Swift's `ParserState.OpenContainer`.
typedef struct sluice_open_container {
    intptr_t token_index;
    intptr_t child_count;
    intptr_t byte_offset;
    intptr_t line;
    intptr_t column;
    bool is_object;
} sluice_open_container;

/// The parser state the fast path reads and writes: the fields of Swift's `ParserState` that
/// every token touches, kept here so that C and Swift share one copy. `tokens` through
/// `arena_base` point into the tape's `TapeBuffer` (set again at every chunk's start, since a
/// copy-on-write may move the tape).
typedef struct sluice_parser_hot {
    const uint8_t *chunk;
    intptr_t chunk_count;
    intptr_t chunk_base;
    bool chunk_is_virtual;
    bool gap_had_separator;
    bool last_token_was_key;
    bool last_token_ended_value;
    bool saw_token;
    intptr_t scan_offset;
    intptr_t line;
    intptr_t line_start;
    intptr_t pending_start;
    intptr_t top_child_count;
    intptr_t max_token_bytes;
    intptr_t max_depth;
    /// The yajl handle while yajl reads (NULL while the tokenizer below does), and the absolute
    /// offset of the first byte of the buffer it was handed, which need not be the chunk's.
    yajl_handle handle;
    intptr_t yajl_base;
    /// Set while yajl reads the prefix that puts it in the tokenizer's state: callbacks do nothing.
    bool muted;
    /// Set while yajl reads on the tokenizer's behalf: the first callback that completes a token
    /// stops yajl (`handed_back`), so that the tokenizer takes over again after that token.
    bool hand_back;
    bool handed_back;

    /// The open containers, innermost last (Swift's `ContainerStack` grows it).
    sluice_open_container *containers;
    intptr_t container_count;
    intptr_t container_capacity;

    sluice_token **tokens;
    intptr_t *token_count;
    intptr_t *token_capacity;
    uint8_t **bytes;
    intptr_t *byte_count;
    intptr_t *byte_capacity;
    intptr_t *arena_base;
    intptr_t *first_index;

    /// The Swift `ParserState`, and its callbacks for everything the fast path leaves to it.
    void *swift_state;
    int (*slow_null)(void *swift_state);
    int (*slow_boolean)(void *swift_state, int value);
    int (*slow_number)(void *swift_state, const char *text, size_t length);
    int (*slow_string)(void *swift_state, const unsigned char *text, size_t length);
    int (*slow_key)(void *swift_state, const unsigned char *text, size_t length);
    int (*start_map)(void *swift_state);
    int (*end_map)(void *swift_state);
    int (*start_array)(void *swift_state);
    int (*end_array)(void *swift_state);
} sluice_parser_hot;

/// The bytes that follow a number token's text in the tape's arena: the number's digits read once,
/// while the tape is written, so that a conversion need not read the text again. Laid out as
/// `sluice_number_digits` (unaligned: read it with memcpy or Swift's `loadUnaligned`).
#define SLUICE_NUMBER_TRAILER_SIZE 12

/// The number's significant digits as an integer, when there are at most 19 of them.
#define SLUICE_NUMBER_EXACT 1
/// The number has a minus sign.
#define SLUICE_NUMBER_NEGATIVE 2
/// The number has neither a fraction nor an exponent.
#define SLUICE_NUMBER_INTEGER 4

/// The number has a fraction or an exponent, at most 19 digits and a magnitude within `double`'s
/// range: `significand` holds the bits of that magnitude as the nearest `double`, already
/// converted (a number written with a point is almost always read as a floating-point value).
#define SLUICE_NUMBER_CONVERTED 8
/// The number was written in hexadecimal (JSON5's `0x1F`; its text on the tape is decimal): it
/// converts to floating point only exactly, as Foundation's decoder converts it.
#define SLUICE_NUMBER_HEXADECIMAL 16

/// A number token's trailer: with `SLUICE_NUMBER_EXACT`, the number's magnitude is
/// `significand` × 10^`scale` exactly (leading zeros of the integer part not counted as digits,
/// those of the fraction counted; the scale clamped to ±30 000, far past any double's range),
/// unless `SLUICE_NUMBER_CONVERTED` says `significand` holds that magnitude as a double.
/// Without either, `significand` and `scale` mean nothing and a conversion reads the text.
typedef struct __attribute__((packed)) sluice_number_digits {
    uint64_t significand;
    int16_t scale;
    uint8_t flags;
    uint8_t reserved;
} sluice_number_digits;

/// Writes the trailer of the number `text` (a well-formed JSON number, nothing before or after)
/// to `out`, `SLUICE_NUMBER_TRAILER_SIZE` bytes. The one definition both tape writers and
/// Swift's `TapeBuffer` use.
void sluice_number_trailer(const uint8_t *text, size_t length, uint8_t *out);

/// 128-bit approximations of 5^q for q in -342...308, two words each (high, low), each normalized
/// so that its top bit is set: the Eisel-Lemire conversion's table (PowersOfFive.c, generated by
/// scripts/generate-powers-of-five.py).
extern const uint64_t sluice_powers_of_five[1302];

/// `significand` × 10^`scale` correctly rounded to the nearest double: exact when Clinger's
/// condition holds, else Daniel Lemire's and Michael Eisel's algorithm ("Number Parsing at a
/// Gigabyte per Second", 2021; the product is always precise enough, Mushtak and Lemire 2023).
/// Infinity past `double`'s range, zero below it. The one conversion the tape's writers and
/// Swift's `JSONNumberText` use.
double sluice_decimal_to_double(uint64_t significand, int32_t scale);

/// Fills `table` with the fast-path callbacks; yajl's context must be the `sluice_parser_hot`.
void sluice_tape_callbacks(yajl_callbacks *table);

/// The tape's tokenizer: reads the current chunk from `scan_offset` and appends the tokens yajl's
/// callbacks would have appended, without yajl. It takes only what it can prove well-formed and
/// ordinary: the grammar at each point, strings (escapes included) of strict UTF-8 and numbers
/// whose end it has seen, within the limits and the tape's room. At anything else (a fault, a
/// token cut by the chunk's end, a limit, a full buffer, a lone surrogate) it stops just after the
/// last token it appended, where yajl, put in the same state, takes over: so every message and
/// every unusual case stays yajl's and the Swift callbacks'.
///
/// Returns 1 when only whitespace and at most the separator the grammar expects follow the last
/// token in the chunk (the chunk is done), 0 when it stopped for yajl.
int sluice_fast_tokenize(sluice_parser_hot *h);

/// Writes to `out` the shortest text that leaves a fresh yajl handle in the state the parser is
/// in after its last token (the same open containers, the same place in the innermost one, the
/// separator after it if one was read): what yajl reads, muted, before it takes over from
/// `sluice_fast_tokenize`. `capacity` must be at least 4 * container_count + 8. Returns the length.
size_t sluice_yajl_prefix(const sluice_parser_hot *h, uint8_t *out, size_t capacity);

/// The index of the first byte of the first ill-formed UTF-8 sequence in `bytes`, or -1 when
/// all of it is well formed (Unicode's table 3-7: no overlong forms, no surrogates, nothing
/// above U+10FFFF). The one definition of the rule: Swift's `UTF8Validation.firstInvalidSequence`
/// calls it.
intptr_t sluice_first_invalid_utf8(const uint8_t *bytes, intptr_t count);

/// `sluice_first_invalid_utf8`, also telling whether every byte is ASCII (`*is_ascii`, set only
/// when the answer is -1): one pass gives both the check and the flag a String is made with.
intptr_t sluice_check_utf8(const uint8_t *bytes, intptr_t count, bool *is_ascii);

/// The widest vectors the tokenizer's UTF-8 check of long strings may use: 2 (the default) lets
/// it take AVX2 where the processor has it, 1 only sixteen-byte SSSE3, 0 none. Every width gives
/// the same answers; a processor runs only its widest, so tests narrow it to check the others.
void sluice_limit_utf8_vectors(int level);

/// Whether every byte of `bytes` is ASCII.
bool sluice_is_ascii(const uint8_t *bytes, intptr_t count);

/// What Swift's `UTF8Validation` found of the standard library's small-string layout: 0 not
/// checked yet, 1 it matches, -1 it does not. Held here, read and written through the two
/// functions below, because every short string made asks: a Swift `static let` is read through
/// a call to the runtime's once-guard at each use, some 20 instructions per string.
extern int sluice_small_string_layout;

/// `sluice_small_string_layout`, read (inline: one load).
static inline int sluice_small_string_layout_known(void) { return __atomic_load_n(&sluice_small_string_layout, __ATOMIC_RELAXED); }

/// Records the check's answer. Threads that race to check write the same answer.
static inline void sluice_record_small_string_layout(int answer) { __atomic_store_n(&sluice_small_string_layout, answer, __ATOMIC_RELAXED); }

/// The index of the backslash of the first `\u` escape in `content` (a string's bytes between
/// its quotes, escapes already checked by yajl) that names one half of a UTF-16 surrogate pair
/// without the other, or -1 when there is none.
intptr_t sluice_first_unpaired_surrogate(const uint8_t *content, intptr_t count);

#endif
