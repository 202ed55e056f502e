/*
 * A streaming JSON writer for the responses on the hot path.
 *
 * jansson parses every request and builds the bodies rendered once (the
 * catalog); but building a jansson tree for each quote and dumping it was
 * most of a POST /quote's CPU (allocation, tree walking and snprintf: the
 * figures are in bench/ANALYSIS.md). jansson
 * has no streaming writer, so responses computed per request are written
 * here straight into one growing buffer: no tree, one allocation that
 * doubles, numbers formatted without printf.
 *
 * The writer places commas itself: a value written inside an object must
 * follow jsonw_key(). Strings are escaped and any byte that is not part of
 * well-formed UTF-8 becomes U+FFFD, so the output is always valid JSON.
 * Running out of memory (or nesting deeper than JSONW_MAX_DEPTH) sets a
 * sticky failure: later calls do nothing and jsonw_finish() returns NULL.
 */
#ifndef GQ_UTIL_JSON_WRITER_H
#define GQ_UTIL_JSON_WRITER_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define JSONW_MAX_DEPTH 32

struct jsonw {
    char *buffer;
    size_t length;
    size_t capacity;
    int depth;
    bool failed;
    bool after_key;                   /* the next value follows a key */
    bool has_member[JSONW_MAX_DEPTH]; /* a value was written at this depth */
};

/* Starts an empty document with room for `capacity` bytes (grows as
 * needed). */
void jsonw_init(struct jsonw *writer, size_t capacity);

/* Ends the document: returns the malloc'd, NUL-terminated text (the caller
 * frees it) and its length, or NULL when writing failed or the document is
 * not complete. The writer is left empty either way. */
char *jsonw_finish(struct jsonw *writer, size_t *length);

/* Frees what was written without returning it. */
void jsonw_discard(struct jsonw *writer);

void jsonw_object_begin(struct jsonw *writer);
void jsonw_object_end(struct jsonw *writer);
void jsonw_array_begin(struct jsonw *writer);
void jsonw_array_end(struct jsonw *writer);

/* Bytes a JSON string can carry as they are: printable ASCII except the
 * quote and the backslash. */
static inline bool jsonw_plain_byte(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* Writes a member name of `length` bytes but for its own bytes: the comma
 * when one is due, the quotes and the colon. Returns where the name goes,
 * for the caller to copy it there (NULL once writing has failed). Called
 * through jsonw_key_n(). */
char *jsonw_key_room(struct jsonw *writer, size_t length);

/* A member name; the next call writes its value. Keys are the program's
 * own literals (printable ASCII, no quote or backslash) and are copied
 * without escaping; debug builds assert it. Inline, with jsonw_key(), so
 * that a literal key's length is known when compiling and its copy is a
 * few moves instead of a call to memcpy (212 keys in a 3-item quote). */
static inline void jsonw_key_n(struct jsonw *writer, const char *key, size_t length)
{
#ifndef NDEBUG
    for (size_t i = 0; i < length; i++)
        assert(jsonw_plain_byte((unsigned char)key[i]));
#endif
    char *at = jsonw_key_room(writer, length);
    if (at != NULL)
        memcpy(at, key, length);
}

static inline void jsonw_key(struct jsonw *writer, const char *key)
{
    jsonw_key_n(writer, key, strlen(key));
}

void jsonw_string(struct jsonw *writer, const char *text);
void jsonw_integer(struct jsonw *writer, int64_t value);
void jsonw_boolean(struct jsonw *writer, bool value);
void jsonw_null(struct jsonw *writer);

/* A number with exactly `decimals` implied decimal places, trailing zeros
 * dropped but at least one kept: (7500, 3) -> 7.5, (720000, 3) -> 720.0,
 * (180, 1) -> 18.0. Exact: no floating point. */
void jsonw_fixed(struct jsonw *writer, int64_t scaled, int decimals);

/* A real as jansson writes it with JSON_REAL_PRECISION(12): "%.12g", with
 * ".0" added when that looks like an integer; a value below 1e6 with at
 * most six decimals is written exactly as fixed point without printf (the
 * same text for all but tiny values: 1e-06 comes out as 0.000001). NaN and
 * infinity, which JSON cannot carry, become null. Not for money. */
void jsonw_real(struct jsonw *writer, double value);

/* Money in fen as a decimal string with two places: "1641.60". */
void jsonw_money(struct jsonw *writer, int64_t fen);

/* Already-serialised JSON (a stored or pre-rendered value), copied as is. */
void jsonw_raw(struct jsonw *writer, const char *json, size_t length);

/* How many bytes are written so far: where the next value starts when it
 * follows a key. */
size_t jsonw_length(const struct jsonw *writer);

/* Writes again the value written earlier at [start, end) of this document. */
void jsonw_repeat(struct jsonw *writer, size_t start, size_t end);

/* Key and value together, for brevity at call sites. */
static inline void jsonw_key_string(struct jsonw *writer, const char *key, const char *text)
{
    jsonw_key(writer, key);
    jsonw_string(writer, text);
}

static inline void jsonw_key_integer(struct jsonw *writer, const char *key, int64_t value)
{
    jsonw_key(writer, key);
    jsonw_integer(writer, value);
}

static inline void jsonw_key_money(struct jsonw *writer, const char *key, int64_t fen)
{
    jsonw_key(writer, key);
    jsonw_money(writer, fen);
}

static inline void jsonw_key_fixed(struct jsonw *writer, const char *key, int64_t scaled,
                                   int decimals)
{
    jsonw_key(writer, key);
    jsonw_fixed(writer, scaled, decimals);
}

static inline void jsonw_key_real(struct jsonw *writer, const char *key, double value)
{
    jsonw_key(writer, key);
    jsonw_real(writer, value);
}

static inline void jsonw_key_boolean(struct jsonw *writer, const char *key, bool value)
{
    jsonw_key(writer, key);
    jsonw_boolean(writer, value);
}

#endif
