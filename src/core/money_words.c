/*
 * Capital Chinese numerals for an amount (money_words.h has the rules).
 *
 * The amount is read as one string of places, from 仟亿 down to 分; a zero
 * only marks that a 零 is owed, and the 零 is written when the next
 * non-zero digit comes, so that a run of zeros is one 零 and trailing
 * zeros are none.
 */
#include "core/money_words.h"

#include <string.h>

#define INTEGER_PLACES 12 /* 10^11 (仟亿) down to 10^0 (元) */

static const char *const digit_names[10] = {"零", "壹", "贰", "叁", "肆",
                                            "伍", "陆", "柒", "捌", "玖"};
/* The place inside a group of four, by the exponent's remainder. */
static const char *const place_names[4] = {"", "拾", "佰", "仟"};

struct words {
    char *text;
    size_t length;
};

static void append(struct words *words, const char *piece)
{
    size_t n = strlen(piece);
    memcpy(words->text + words->length, piece, n);
    words->length += n;
    words->text[words->length] = '\0';
}

/* The unit written after the group that ends at `exponent` (0, 4 or 8),
 * when the group has a non-zero digit; NULL inside a group. */
static const char *group_name(int exponent)
{
    switch (exponent) {
    case 8:
        return "亿";
    case 4:
        return "万";
    case 0:
        return "元";
    default:
        return NULL;
    }
}

bool money_words_zh(gq_money fen, char out[MONEY_WORDS_SIZE])
{
    if (fen < 0 || fen > MONEY_WORDS_MAX)
        return false;
    struct words words = {out, 0};
    out[0] = '\0';
    gq_money yuan = fen / 100;
    int jiao = (int)(fen / 10 % 10);
    int cents = (int)(fen % 10);
    if (fen == 0) {
        append(&words, "零元整");
        return true;
    }

    bool started = false;   /* a non-zero digit has been written */
    bool zero_owed = false; /* zeros since the last non-zero digit */
    bool group_has_digit = false;
    gq_money divisor = 100000000000LL; /* 10^11 */
    for (int exponent = INTEGER_PLACES - 1; exponent >= 0; exponent--, divisor /= 10) {
        int digit = (int)(yuan / divisor % 10);
        if (digit == 0) {
            zero_owed = started;
        } else {
            if (zero_owed)
                append(&words, "零");
            append(&words, digit_names[digit]);
            append(&words, place_names[exponent % 4]);
            started = true;
            zero_owed = false;
            group_has_digit = true;
        }
        const char *group = group_name(exponent);
        if (group != NULL) {
            /* 元 closes any amount of a yuan or more, whatever its last group */
            if (group_has_digit || (exponent == 0 && yuan > 0))
                append(&words, group);
            group_has_digit = false;
        }
    }

    const int fractions[2] = {jiao, cents};
    const char *const fraction_names[2] = {"角", "分"};
    for (int i = 0; i < 2; i++) {
        if (fractions[i] == 0) {
            zero_owed = started;
            continue;
        }
        if (zero_owed)
            append(&words, "零");
        append(&words, digit_names[fractions[i]]);
        append(&words, fraction_names[i]);
        started = true;
        zero_owed = false;
    }
    if (cents == 0)
        append(&words, "整");
    return true;
}
