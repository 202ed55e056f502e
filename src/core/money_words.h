/*
 * An amount in capital Chinese numerals (大写金额), as a quotation, an
 * invoice or a cheque writes it: 1641.60 is 壹仟陆佰肆拾壹元陆角整.
 *
 * The rules are those of the People's Bank of China for filling in
 * settlement documents:
 * - digits 零壹贰叁肆伍陆柒捌玖, places 拾佰仟 inside a group of four,
 *   groups 万 and 亿, then 元, 角 and 分 ("壹拾" is written in full);
 * - a run of zeros between two non-zero digits is read as one 零, written
 *   before the next non-zero digit (16409.02 is 壹万陆仟肆佰零玖元零贰分:
 *   a zero 角 before a non-zero 分 always gets its 零);
 * - an amount with no 分 ends in 整 (壹佰元整, 伍角整);
 * - an amount below one yuan starts at its first non-zero digit (伍分),
 *   and zero is 零元整.
 * Where the rules allow a 零 to be left out (a zero 元 place before a
 * non-zero 角), this writes it, so that every run of zeros is read the
 * same way.
 */
#ifndef GQ_CORE_MONEY_WORDS_H
#define GQ_CORE_MONEY_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/money.h"

/* The largest amount written: 999,999,999,999.99 (12 integer digits, up to
 * 仟亿). */
#define MONEY_WORDS_MAX ((gq_money)99999999999999LL)

/* Room for the longest text: 12 integer digits, each a digit and a place
 * (3 bytes each in UTF-8), 零s, 亿, 万, 元, 角, 分 and 整, with margin. */
#define MONEY_WORDS_SIZE 160

/* Writes `fen` in capital numerals, NUL-terminated UTF-8, into `out`.
 * Returns false, writing nothing, for a negative amount or one above
 * MONEY_WORDS_MAX. */
bool money_words_zh(gq_money fen, char out[MONEY_WORDS_SIZE]);

#endif
