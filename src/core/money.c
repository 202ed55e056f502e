/*
 * Checked integer arithmetic on fen, the one rounding function, and the
 * decimal-string form money takes in JSON.
 */
#include "core/money.h"

#include <assert.h>
#include <string.h>

bool money_add(gq_money a, gq_money b, gq_money *out)
{
    gq_money sum;
    if (__builtin_add_overflow(a, b, &sum))
        return false;
    *out = sum;
    return true;
}

bool money_sub(gq_money a, gq_money b, gq_money *out)
{
    gq_money difference;
    if (__builtin_sub_overflow(a, b, &difference))
        return false;
    *out = difference;
    return true;
}

bool money_mul(gq_money a, int64_t factor, gq_money *out)
{
    gq_money product;
    if (__builtin_mul_overflow(a, factor, &product))
        return false;
    *out = product;
    return true;
}

bool money_scale(gq_money a, int64_t num, int64_t den, gq_money *out)
{
    assert(den > 0);
    /* The product of two int64 values always fits in 128 bits, so the only
     * overflow left to check is the final narrowing. */
    __extension__ __int128 product = (__int128)a * num;
    __extension__ __int128 quotient = product / den;
    __extension__ __int128 remainder = product % den;
    /* Half-up: a remainder of at least half the divisor moves the result one
     * fen away from zero. Comparing 2*|r| with den avoids a fractional half. */
    __extension__ __int128 twice_remainder = remainder < 0 ? -2 * remainder : 2 * remainder;
    if (twice_remainder >= den)
        quotient += product < 0 ? -1 : 1;
    if (quotient > INT64_MAX || quotient < INT64_MIN)
        return false;
    *out = (gq_money)quotient;
    return true;
}

/* How many decimal digits `value` has (at least one). */
static size_t digit_count(uint64_t value)
{
    size_t count = 1;
    while (value >= 10) {
        value /= 10;
        count++;
    }
    return count;
}

/* "00", "01", ... "99": the digits of a number two at a time, which halves
 * the divisions of formatting one. */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

/* Writes the two digits of `value` (below 100) just before `*at`. */
static void put_pair_before(char **at, uint64_t value)
{
    *at -= 2;
    memcpy(*at, &digit_pairs[2 * value], 2);
}

/* Digits written by hand, right to left, straight into place: formatting
 * money is on every response's path and snprintf was the dearest part of
 * it. */
size_t money_write(gq_money fen, char *out)
{
    /* Work on the magnitude as unsigned so INT64_MIN formats correctly. */
    uint64_t magnitude = fen < 0 ? (uint64_t)0 - (uint64_t)fen : (uint64_t)fen;
    uint64_t yuan = magnitude / 100;
    size_t length = (fen < 0 ? 1 : 0) + digit_count(yuan) + 3; /* ".05" */
    char *at = out + length;
    put_pair_before(&at, magnitude % 100);
    *--at = '.';
    for (; yuan >= 100; yuan /= 100)
        put_pair_before(&at, yuan % 100);
    if (yuan >= 10)
        put_pair_before(&at, yuan);
    else
        *--at = (char)('0' + yuan);
    if (fen < 0)
        *--at = '-';
    return length;
}

char *money_format(gq_money fen, char buf[MONEY_FORMAT_SIZE])
{
    buf[money_write(fen, buf)] = '\0';
    return buf;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

enum money_parse_result money_parse_amount(const char *text, gq_money *out)
{
    if (text == NULL || !is_digit(*text))
        return MONEY_PARSE_MALFORMED;
    /* The digits are read to the end even once the amount is too large, so
     * that malformed text is called malformed whatever its size. */
    gq_money yuan = 0;
    bool too_large = false;
    const char *p = text;
    for (; is_digit(*p); p++) {
        if (!too_large)
            yuan = yuan * 10 + (*p - '0'); /* at most 10 × MONEY_MAX / 100 + 9 */
        too_large = too_large || yuan > MONEY_MAX / 100;
    }
    gq_money fen = 0;
    if (*p == '.') {
        p++;
        if (!is_digit(p[0]))
            return MONEY_PARSE_MALFORMED;
        fen = (p[0] - '0') * 10;
        p++;
        if (is_digit(p[0])) {
            fen += p[0] - '0';
            p++;
        }
    }
    if (*p != '\0')
        return MONEY_PARSE_MALFORMED;
    if (too_large || yuan * 100 + fen > MONEY_MAX)
        return MONEY_PARSE_TOO_LARGE;
    *out = yuan * 100 + fen;
    return MONEY_PARSE_OK;
}

bool money_parse(const char *text, gq_money *out)
{
    return money_parse_amount(text, out) == MONEY_PARSE_OK;
}
