// The splitter's byte scanner, for the parallel path: one pass over the document's bytes
// that keeps only what is needed to find where the elements of its big arrays begin and end, so
// that whole elements can be handed to other threads to parse.
//
// Why C, and why so little: it runs over every byte of the document on the one thread that feeds
// the workers, so its cost per byte bounds how far the parallel path can scale. It tracks strings
// (and their escapes), nesting depth and line feeds; everything at or above `report_level` (the
// document's skeleton: the containers that lead to the arrays and those arrays' separators) is
// reported as an event for the Swift side (`JSONSplitter`) to interpret. What lies deeper, inside
// the elements, is stepped over without a report. The scanner checks nothing JSON requires: what
// is not in a batch goes to a sequential parser, and a batch no worker can parse is read by it too,
// so the parser's own messages say what is wrong.
#ifndef CSLUICESPLITTER_H
#define CSLUICESPLITTER_H

#include <stdbool.h>
#include <stdint.h>

/// What an event reports: a bracket, a separator, or a string's opening or closing quote.
enum {
    sluice_split_open_object = 1,
    sluice_split_open_array = 2,
    sluice_split_close_object = 3,
    sluice_split_close_array = 4,
    sluice_split_comma = 5,
    sluice_split_colon = 6,
    sluice_split_string_start = 7,
    sluice_split_string_end = 8,
};

/// One skeleton byte. `level` is the number of containers open around it: for an opening
/// bracket, before it opens; for a closing one, after it closes.
typedef struct sluice_split_event {
    uint8_t kind;
    int32_t level;
    int64_t offset;
    int64_t line;
    int64_t line_start;
} sluice_split_event;

/// The scanner's state between chunks.
typedef struct sluice_splitter {
    /// The absolute offset of the next byte.
    int64_t offset;
    /// The line of the next byte (1-based) and the offset its line starts at.
    int64_t line;
    int64_t line_start;
    /// The number of containers open.
    int32_t depth;
    /// Bytes at this level or above (lower numbers) are reported.
    int32_t report_level;
    bool in_string;
    bool escaped;
    /// Whether the open string's quotes are reported.
    bool string_reported;
    /// Set when a bracket closes more than was opened: nothing after it is reported.
    bool unbalanced;
} sluice_splitter;

/// Scans up to `count` bytes, appending at most `capacity` events. Returns the number of bytes
/// scanned: fewer than `count` only when the events filled up, in which case the caller handles
/// them and calls again with the rest.
intptr_t sluice_split_scan(
    sluice_splitter *splitter,
    const uint8_t *bytes,
    intptr_t count,
    sluice_split_event *events,
    intptr_t capacity,
    intptr_t *event_count
);

#endif
