/*
 * Decimal digits of an unsigned integer, written by hand: on the paths that
 * format numbers per request (responses, the access log) printf was the
 * dearest part of the work.
 */
#ifndef GQ_UTIL_DECIMAL_H
#define GQ_UTIL_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

#define DECIMAL_DIGITS_SIZE 24 /* a uint64 has at most 20 decimal digits */

/* Writes the digits of `value` into the end of `digits` (no NUL); returns
 * the index of the first one, so they are digits[first .. SIZE). */
static inline size_t decimal_format(uint64_t value, char digits[DECIMAL_DIGITS_SIZE])
{
    size_t first = DECIMAL_DIGITS_SIZE;
    do {
        digits[--first] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    return first;
}

#endif
