/*
 * Money: exact amounts in minor units (fen, 1/100 CNY) held in an int64_t.
 *
 * A double never holds money. Every arithmetic step is checked: a result that
 * would not fit returns false and leaves *out untouched, it never wraps.
 * There is one rounding rule, half-up (a half fen rounds away from zero), and
 * one function that applies it, money_scale(), once per figure: an hourly
 * charge is rounded once, a percentage discount once per rule.
 */
#ifndef GQ_CORE_MONEY_H
#define GQ_CORE_MONEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int64_t gq_money; /* fen */

/* Largest amount accepted from outside (parse) and produced by pricing:
 * 10^15 fen = 10 trillion yuan, far above any real quote and far below
 * INT64_MAX, so a sum of a few thousand such amounts cannot overflow. */
#define MONEY_MAX ((gq_money)1000000000000000LL)

/* Room for "-" + 16 digits + "." + 2 digits + NUL, with margin. */
#define MONEY_FORMAT_SIZE 32

/* *out = a + b. Returns false on overflow. */
bool money_add(gq_money a, gq_money b, gq_money *out);

/* *out = a - b. Returns false on overflow. */
bool money_sub(gq_money a, gq_money b, gq_money *out);

/* *out = a * factor. Returns false on overflow. */
bool money_mul(gq_money a, int64_t factor, gq_money *out);

/* *out = a * num / den, rounded half-up: the project's one rounding rule.
 * `den` must be positive. Returns false when the result does not fit. */
bool money_scale(gq_money a, int64_t num, int64_t den, gq_money *out);

/* Writes `fen` as a decimal string with exactly two places ("1641.60",
 * "-0.05") into `buf`, which holds MONEY_FORMAT_SIZE bytes. Returns `buf`. */
char *money_format(gq_money fen, char buf[MONEY_FORMAT_SIZE]);

/* The same text without the NUL, written at `out`, which has room for
 * MONEY_FORMAT_SIZE - 1 bytes; returns its length. For writers that format
 * in place and need the length anyway. */
size_t money_write(gq_money fen, char *out);

enum money_parse_result {
    MONEY_PARSE_OK,
    MONEY_PARSE_MALFORMED, /* not an amount in the form below */
    MONEY_PARSE_TOO_LARGE  /* in that form, but above MONEY_MAX */
};

/* Parses a non-negative decimal amount: digits, optionally "." and one or
 * two digits ("3000", "3000.5", "3000.50"). Nothing else is accepted: no
 * sign, exponent, spaces or third decimal. *out is left untouched unless
 * the result is MONEY_PARSE_OK. */
enum money_parse_result money_parse_amount(const char *text, gq_money *out);

/* money_parse_amount() == MONEY_PARSE_OK, for callers that need no reason. */
bool money_parse(const char *text, gq_money *out);

#endif
