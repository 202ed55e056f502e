/*
 * The streaming JSON writer: a growing buffer, comma bookkeeping per
 * nesting level, string escaping with UTF-8 repair, and integer, fixed-point
 * and money formatting done by hand (printf is the slowest part of
 * rendering a number).
 */
#include "util/json_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/money.h"
#include "util/buffer.h"
#include "util/decimal.h"
#include "util/utf8.h"

/* Makes room for `extra` more bytes plus a final NUL. */
static bool reserve(struct jsonw *writer, size_t extra)
{
    size_t needed = writer->length + extra + 1;
    /* From 64 bytes when the writer has none (finished, its buffer taken). */
    if (!writer->failed && !buffer_grow(&writer->buffer, &writer->capacity, needed, 64))
        writer->failed = true;
    return !writer->failed;
}

/* The common case, room already there, stays inline; reserve() grows the
 * buffer (or records failure) otherwise. A failed writer may still append
 * into its old buffer: harmless, jsonw_finish() returns NULL. */
static inline void append(struct jsonw *writer, const char *bytes, size_t count)
{
    if (writer->length + count >= writer->capacity && !reserve(writer, count))
        return;
    memcpy(writer->buffer + writer->length, bytes, count);
    writer->length += count;
}

static inline void append_char(struct jsonw *writer, char c)
{
    if (writer->length + 1 >= writer->capacity && !reserve(writer, 1))
        return;
    writer->buffer[writer->length++] = c;
}

/* Whether the value about to be written needs a comma to separate it from
 * the previous one at its level (none after a key); records that its level
 * now has a member. */
static inline bool needs_comma(struct jsonw *writer)
{
    if (writer->after_key) {
        writer->after_key = false;
        return false;
    }
    if (writer->depth == 0)
        return false;
    bool *has_member = &writer->has_member[writer->depth - 1];
    bool comma = *has_member;
    *has_member = true;
    return comma;
}

/* Starts a value of at most `most` bytes with one reservation for it and
 * its comma, which is written. Returns where the value's bytes go (NULL
 * once the writer has failed); end_value() then records where they end. */
static inline char *start_value(struct jsonw *writer, size_t most)
{
    bool comma = needs_comma(writer);
    size_t extra = most + (comma ? 1 : 0);
    if (writer->length + extra >= writer->capacity && !reserve(writer, extra))
        return NULL;
    char *at = writer->buffer + writer->length;
    if (comma)
        *at++ = ',';
    return at;
}

static inline void end_value(struct jsonw *writer, const char *end)
{
    writer->length = (size_t)(end - writer->buffer);
}

/* Writes the comma that separates this value from the previous one at the
 * same level, unless it follows a key, for values that append their bytes
 * themselves. */
static void begin_value(struct jsonw *writer)
{
    char *at = start_value(writer, 0);
    if (at != NULL)
        end_value(writer, at);
}

void jsonw_init(struct jsonw *writer, size_t capacity)
{
    memset(writer, 0, sizeof *writer);
    writer->capacity = capacity < 64 ? 64 : capacity;
    writer->buffer = malloc(writer->capacity);
    if (writer->buffer == NULL) {
        /* No room at all: every append then goes to reserve(), which
         * refuses, instead of writing through a NULL buffer. */
        writer->capacity = 0;
        writer->failed = true;
    }
}

void jsonw_discard(struct jsonw *writer)
{
    free(writer->buffer);
    memset(writer, 0, sizeof *writer);
}

char *jsonw_finish(struct jsonw *writer, size_t *length)
{
    if (writer->failed || writer->depth != 0 || writer->length == 0) {
        jsonw_discard(writer);
        return NULL;
    }
    char *text = writer->buffer; /* reserve() always keeps room for the NUL */
    text[writer->length] = '\0';
    if (length != NULL)
        *length = writer->length;
    memset(writer, 0, sizeof *writer);
    return text;
}

static void open_container(struct jsonw *writer, char bracket)
{
    char *at = start_value(writer, 1);
    if (writer->depth >= JSONW_MAX_DEPTH) {
        writer->failed = true;
        return;
    }
    if (at != NULL) {
        *at = bracket;
        end_value(writer, at + 1);
    }
    writer->has_member[writer->depth++] = false;
}

static void close_container(struct jsonw *writer, char bracket)
{
    if (writer->depth == 0) {
        writer->failed = true;
        return;
    }
    writer->depth--;
    append_char(writer, bracket);
}

void jsonw_object_begin(struct jsonw *writer)
{
    open_container(writer, '{');
}

void jsonw_object_end(struct jsonw *writer)
{
    close_container(writer, '}');
}

void jsonw_array_begin(struct jsonw *writer)
{
    open_container(writer, '[');
}

void jsonw_array_end(struct jsonw *writer)
{
    close_container(writer, ']');
}

/* Escapes one byte (or UTF-8 sequence) at `p` that is not plain; returns
 * how many bytes it consumed. */
static size_t append_escaped(struct jsonw *writer, const unsigned char *p)
{
    static const char hex[] = "0123456789abcdef";
    if (*p >= 0x80) {
        size_t length = utf8_sequence_length(p);
        if (length == 0) {
            append(writer, "\xef\xbf\xbd", 3); /* U+FFFD */
            return 1;
        }
        append(writer, (const char *)p, length);
        return length;
    }
    /* The bytes with a two-character escape, and the letter after its '\\'. */
    static const char shortened[] = "\"\\\n\r\t", letters[] = "\"\\nrt";
    const char *found = memchr(shortened, *p, sizeof shortened - 1);
    if (found != NULL) {
        char escaped[2] = {'\\', letters[found - shortened]};
        append(writer, escaped, sizeof escaped);
        return 1;
    }
    char escaped[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 0xf]};
    append(writer, escaped, sizeof escaped);
    return 1;
}

/* How many bytes at the start of `text` are plain. */
static size_t plain_run(const unsigned char *text)
{
    size_t run = 0;
    while (jsonw_plain_byte(text[run]))
        run++;
    return run;
}

/* Writes `text` between quotes, copying runs of plain bytes at once. */
static void append_quoted(struct jsonw *writer, const char *text)
{
    append_char(writer, '"');
    const unsigned char *p = (const unsigned char *)text;
    while (*p != '\0') {
        size_t run = plain_run(p);
        append(writer, (const char *)p, run);
        p += run;
        if (*p != '\0')
            p += append_escaped(writer, p);
    }
    append_char(writer, '"');
}

char *jsonw_key_room(struct jsonw *writer, size_t length)
{
    char *at = start_value(writer, length + 3);
    writer->after_key = true;
    if (at == NULL)
        return NULL;
    at[0] = '"';
    at[1 + length] = '"';
    at[2 + length] = ':';
    end_value(writer, at + length + 3);
    return at + 1;
}

void jsonw_string(struct jsonw *writer, const char *text)
{
    size_t run = plain_run((const unsigned char *)text);
    if (text[run] != '\0') { /* something to escape or repair */
        begin_value(writer);
        append_quoted(writer, text);
        return;
    }
    char *at = start_value(writer, run + 2);
    if (at == NULL)
        return;
    *at++ = '"';
    memcpy(at, text, run);
    at += run;
    *at++ = '"';
    end_value(writer, at);
}

static uint64_t magnitude_of(int64_t value)
{
    return value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
}

void jsonw_integer(struct jsonw *writer, int64_t value)
{
    char digits[DECIMAL_DIGITS_SIZE];
    size_t first = decimal_format(magnitude_of(value), digits);
    size_t count = DECIMAL_DIGITS_SIZE - first;
    char *at = start_value(writer, count + 1);
    if (at == NULL)
        return;
    if (value < 0)
        *at++ = '-';
    memcpy(at, digits + first, count);
    end_value(writer, at + count);
}

void jsonw_boolean(struct jsonw *writer, bool value)
{
    begin_value(writer);
    append(writer, value ? "true" : "false", value ? 4 : 5);
}

void jsonw_null(struct jsonw *writer)
{
    begin_value(writer);
    append(writer, "null", 4);
}

/* Writes the value scaled / 10^decimals (1..18) with 1..`decimals`
 * places: trailing zeros are dropped, one is kept. */
static void write_scaled(struct jsonw *writer, int64_t scaled, int decimals)
{
    uint64_t divisor = 1;
    for (int i = 0; i < decimals; i++)
        divisor *= 10;
    uint64_t magnitude = magnitude_of(scaled);
    uint64_t fraction = magnitude % divisor;
    size_t kept = (size_t)decimals;
    while (kept > 1 && fraction % 10 == 0) {
        fraction /= 10;
        kept--;
    }
    char digits[DECIMAL_DIGITS_SIZE];
    size_t first = decimal_format(magnitude / divisor, digits);
    size_t whole = DECIMAL_DIGITS_SIZE - first;
    char *at = start_value(writer, 1 + whole + 1 + kept);
    if (at == NULL)
        return;
    if (scaled < 0)
        *at++ = '-';
    memcpy(at, digits + first, whole);
    at += whole;
    *at++ = '.';
    for (size_t i = kept; i > 0; i--) { /* right to left, zero-padded */
        at[i - 1] = (char)('0' + fraction % 10);
        fraction /= 10;
    }
    end_value(writer, at + kept);
}

void jsonw_fixed(struct jsonw *writer, int64_t scaled, int decimals)
{
    if (decimals < 1 || decimals > 18) {
        begin_value(writer);
        writer->failed = true;
        return;
    }
    write_scaled(writer, scaled, decimals);
}

void jsonw_money(struct jsonw *writer, int64_t fen)
{
    char *at = start_value(writer, MONEY_FORMAT_SIZE + 2);
    if (at == NULL)
        return;
    *at++ = '"';
    at += money_write(fen, at);
    *at++ = '"';
    end_value(writer, at);
}

void jsonw_real(struct jsonw *writer, double value)
{
    /* Most reals written are short decimals (0.35, 6.0): written exactly as
     * fixed point, which is what "%.12g" gives them too, without printf. */
    double millionths = value * 1e6;
    if (fabs(value) < 1e6 && millionths == rint(millionths)) {
        write_scaled(writer, (int64_t)millionths, 6);
        return;
    }
    begin_value(writer);
    if (!isfinite(value)) { /* JSON has no infinity or NaN */
        append(writer, "null", 4);
        return;
    }
    char text[40];
    int length = snprintf(text, sizeof text, "%.12g", value);
    append(writer, text, (size_t)length);
    if (strpbrk(text, ".eE") == NULL)
        append(writer, ".0", 2);
}

void jsonw_raw(struct jsonw *writer, const char *json, size_t length)
{
    begin_value(writer);
    append(writer, json, length);
}

size_t jsonw_length(const struct jsonw *writer)
{
    return writer->length;
}

void jsonw_repeat(struct jsonw *writer, size_t start, size_t end)
{
    begin_value(writer);
    if (start > end || end > writer->length) {
        writer->failed = true;
        return;
    }
    size_t count = end - start;
    if (!reserve(writer, count)) /* may move the buffer: copy after it */
        return;
    memcpy(writer->buffer + writer->length, writer->buffer + start, count);
    writer->length += count;
}
