/*
 * The unified social credit code (统一社会信用代码, GB 32100-2015): the
 * 18-character id of a Chinese company or organisation, which a VAT
 * invoice (普票, 专票) names as the buyer's tax id.
 *
 * Its characters are the digits and the capital letters but I, O, Z, S
 * and V (31 in all, valued 0..30 in the order 0-9A-HJ-NP-RT-UW-Y); the
 * 3rd to 8th are the administrative division's six digits; the 18th is a
 * check character: 31 - (the sum of the first 17 values weighted by
 * 3^(i-1) mod 31) mod 31, 31 written as 0.
 */
#ifndef GQ_CORE_TAX_ID_H
#define GQ_CORE_TAX_ID_H

enum tax_id_check {
    TAX_ID_OK,
    TAX_ID_LENGTH,         /* not 18 characters */
    TAX_ID_CHARACTER,      /* a character outside the code's 31 */
    TAX_ID_DIVISION,       /* the 3rd to 8th are not six digits */
    TAX_ID_CHECK_CHARACTER /* the 18th is not the one the rest computes */
};

/* Checks `code` as a unified social credit code, upper case as issued. */
enum tax_id_check tax_id_check_uscc(const char *code);

/* The check character the first 17 characters of `code` call for, or 0
 * when one of them is not of the code's alphabet. */
char tax_id_uscc_check_character(const char *code);

#endif
