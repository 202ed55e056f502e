/*
 * The streaming JSON writer: a growing buffer, comma bookkeeping per
 * nesting level, string escaping with UTF-8 repair, and integer, fixed-point
 * and money formatting done by hand (printf is the slowest part of
 * rendering a number).
 */
#include "util/json_writer.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/money.h"
#include "util/decimal.h"
#include "util/utf8.h"

/* Makes room for `extra` more bytes plus a final NUL. */
static bool reserve(struct jsonw *writer, size_t extra)
{
    if (writer->failed)
        return false;
    size_t needed = writer->length + extra + 1;
    if (needed <= writer->capacity)
        return true;
    size_t capacity = writer->capacity > 0 ? writer->capacity : 64; /* 0: finished */
    while (capacity < needed)
        capacity *= 2;
    char *grown = realloc(writer->buffer, capacity);
    if (grown == NULL) {
        writer->failed = true;
        return false;
    }
    writer->buffer = grown;
    writer->capacity = capacity;
    return true;
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

/* Writes the comma that separates this value from the previous one at the
 * same level, unless it follows a key. */
static void begin_value(struct jsonw *writer)
{
    if (writer->after_key) {
        writer->after_key = false;
        return;
    }
    if (writer->depth > 0 && writer->has_member[writer->depth - 1])
        append_char(writer, ',');
    if (writer->depth > 0)
        writer->has_member[writer->depth - 1] = true;
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
    begin_value(writer);
    if (writer->depth >= JSONW_MAX_DEPTH) {
        writer->failed = true;
        return;
    }
    append_char(writer, bracket);
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

/* Bytes a JSON string can carry as they are: printable ASCII except the
 * quote and the backslash. Everything else goes the slow way. */
static bool plain_byte(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
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
    switch (*p) {
    case '"':
        append(writer, "\\\"", 2);
        break;
    case '\\':
        append(writer, "\\\\", 2);
        break;
    case '\n':
        append(writer, "\\n", 2);
        break;
    case '\r':
        append(writer, "\\r", 2);
        break;
    case '\t':
        append(writer, "\\t", 2);
        break;
    default: {
        char escaped[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 0xf]};
        append(writer, escaped, sizeof escaped);
    }
    }
    return 1;
}

/* Writes `text` between quotes, copying runs of plain bytes at once. */
static void append_quoted(struct jsonw *writer, const char *text)
{
    append_char(writer, '"');
    const unsigned char *p = (const unsigned char *)text;
    while (*p != '\0') {
        size_t run = 0;
        while (plain_byte(p[run]))
            run++;
        append(writer, (const char *)p, run);
        p += run;
        if (*p != '\0')
            p += append_escaped(writer, p);
    }
    append_char(writer, '"');
}

void jsonw_key_n(struct jsonw *writer, const char *key, size_t length)
{
    begin_value(writer);
#ifndef NDEBUG
    for (size_t i = 0; i < length; i++)
        assert(plain_byte((unsigned char)key[i]));
#endif
    if (reserve(writer, length + 3)) {
        char *end = writer->buffer + writer->length;
        *end++ = '"';
        memcpy(end, key, length);
        end += length;
        *end++ = '"';
        *end++ = ':';
        writer->length += length + 3;
    }
    writer->after_key = true;
}

void jsonw_string(struct jsonw *writer, const char *text)
{
    begin_value(writer);
    append_quoted(writer, text);
}

static uint64_t magnitude_of(int64_t value)
{
    return value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
}

void jsonw_integer(struct jsonw *writer, int64_t value)
{
    begin_value(writer);
    char digits[DECIMAL_DIGITS_SIZE];
    size_t first = decimal_format(magnitude_of(value), digits);
    if (value < 0)
        append_char(writer, '-');
    append(writer, digits + first, DECIMAL_DIGITS_SIZE - first);
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

/* Writes scaled / 10^decimals with 1..`decimals` places: trailing zeros
 * are dropped, one is kept. */
static void append_scaled(struct jsonw *writer, int64_t scaled, int decimals)
{
    uint64_t divisor = 1;
    for (int i = 0; i < decimals; i++)
        divisor *= 10;
    uint64_t magnitude = magnitude_of(scaled);
    char digits[DECIMAL_DIGITS_SIZE];
    size_t first = decimal_format(magnitude / divisor, digits);
    if (scaled < 0)
        append_char(writer, '-');
    append(writer, digits + first, DECIMAL_DIGITS_SIZE - first);
    char fraction[20] = {0};
    uint64_t rest = magnitude % divisor;
    for (int i = decimals - 1; i >= 0; i--) {
        fraction[i] = (char)('0' + rest % 10);
        rest /= 10;
    }
    int kept = decimals;
    while (kept > 1 && fraction[kept - 1] == '0')
        kept--;
    append_char(writer, '.');
    append(writer, fraction, (size_t)kept);
}

void jsonw_fixed(struct jsonw *writer, int64_t scaled, int decimals)
{
    begin_value(writer);
    if (decimals < 1 || decimals > 18) {
        writer->failed = true;
        return;
    }
    append_scaled(writer, scaled, decimals);
}

void jsonw_money(struct jsonw *writer, int64_t fen)
{
    begin_value(writer);
    if (!reserve(writer, MONEY_FORMAT_SIZE + 2))
        return;
    char *at = writer->buffer + writer->length;
    *at = '"';
    size_t length = money_write(fen, at + 1);
    at[1 + length] = '"';
    writer->length += length + 2;
}

void jsonw_real(struct jsonw *writer, double value)
{
    begin_value(writer);
    if (!isfinite(value)) { /* JSON has no infinity or NaN */
        append(writer, "null", 4);
        return;
    }
    /* Most reals written are short decimals (0.35, 6.0): written exactly as
     * fixed point, which is what "%.12g" gives them too, without printf. */
    double millionths = value * 1e6;
    if (fabs(value) < 1e6 && millionths == rint(millionths)) {
        append_scaled(writer, (int64_t)millionths, 6);
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
