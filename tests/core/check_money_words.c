/*
 * Capital Chinese numerals: the People's Bank of China's own examples, and
 * every amount from 0.01 to 999,999,999,999.99 held to the rules by shape:
 * every pattern of zero and non-zero places (2^14 of them, each with
 * random digits), every amount up to 10,000.00, and random amounts over the
 * whole range. Each text is read back by a reader written apart from the
 * writer, and its 零s are counted against the runs of zeros it must mark.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/money_words.h"

#define LOOP(tc, test, table)                                                                      \
    tcase_add_loop_test(tc, test, 0, (int)(sizeof(table) / sizeof(table)[0]))

static const struct {
    gq_money fen;
    const char *words;
} examples[] = {
    {164160, "壹仟陆佰肆拾壹元陆角整"},
    /* The settlement rules' own examples, where they allow one form. */
    {1640902, "壹万陆仟肆佰零玖元零贰分"},
    {32504, "叁佰贰拾伍元零肆分"},
    {100000000000LL, "壹拾亿元整"},
    {10000000000LL, "壹亿元整"},
    {10000000100LL, "壹亿零壹元整"},
    {10001000000LL, "壹亿零壹万元整"},
    {10010000000LL, "壹亿零壹拾万元整"},
    {168032, "壹仟陆佰捌拾元零叁角贰分"},
    {10700053, "壹拾万零柒仟元零伍角叁分"},
    {0, "零元整"},
    {1, "壹分"},
    {5, "伍分"},
    {50, "伍角整"},
    {55, "伍角伍分"},
    {100, "壹元整"},
    {1000, "壹拾元整"},
    {1500, "壹拾伍元整"},
    {10005, "壹佰元零伍分"},
    {10050, "壹佰元零伍角整"},
    {MONEY_WORDS_MAX, "玖仟玖佰玖拾玖亿玖仟玖佰玖拾玖万玖仟玖佰玖拾玖元玖角玖分"},
    {369300, "叁仟陆佰玖拾叁元整"},
    {123000, "壹仟贰佰叁拾元整"},
};

START_TEST(writes_the_examples)
{
    char words[MONEY_WORDS_SIZE];
    ck_assert(money_words_zh(examples[_i].fen, words));
    ck_assert_str_eq(words, examples[_i].words);
}
END_TEST

START_TEST(refuses_what_it_cannot_write)
{
    char words[MONEY_WORDS_SIZE] = "untouched";
    ck_assert(!money_words_zh(-1, words));
    ck_assert(!money_words_zh(MONEY_WORDS_MAX + 1, words));
    ck_assert_str_eq(words, "untouched");
}
END_TEST

/* ---- a reader of capital numerals, written apart from the writer ---- */

/* The next character of `text` (each is 3 bytes of UTF-8 here), or NULL. */
static const char *next_symbol(const char **text, char symbol[4])
{
    if (**text == '\0')
        return NULL;
    memcpy(symbol, *text, 3);
    symbol[3] = '\0';
    *text += 3;
    return symbol;
}

static int digit_of(const char *symbol)
{
    static const char *const digits = "零壹贰叁肆伍陆柒捌玖";
    const char *at = strstr(digits, symbol);
    return at == NULL ? -1 : (int)((at - digits) / 3);
}

/* The amount `text` says, in fen; -1 when a character is not one of the
 * numerals' or the text does not end as it must. */
static int64_t read_words(const char *text)
{
    int64_t total = 0, section = 0, digit = 0, fen = 0;
    char symbol[4];
    bool whole = false;
    while (next_symbol(&text, symbol) != NULL) {
        int value = digit_of(symbol);
        if (whole)
            return -1; /* 整 ends the text */
        if (value >= 0)
            digit = value;
        else if (strcmp(symbol, "拾") == 0 || strcmp(symbol, "佰") == 0 ||
                 strcmp(symbol, "仟") == 0) {
            int64_t place = strcmp(symbol, "拾") == 0 ? 10 : strcmp(symbol, "佰") == 0 ? 100 : 1000;
            section += digit * place;
            digit = 0;
        } else if (strcmp(symbol, "亿") == 0) {
            total = (total + section + digit) * 100000000;
            section = digit = 0;
        } else if (strcmp(symbol, "万") == 0) {
            total += (section + digit) * 10000;
            section = digit = 0;
        } else if (strcmp(symbol, "元") == 0) {
            total += section + digit;
            section = digit = 0;
        } else if (strcmp(symbol, "角") == 0) {
            fen += digit * 10;
            digit = 0;
        } else if (strcmp(symbol, "分") == 0) {
            fen += digit;
            digit = 0;
        } else if (strcmp(symbol, "整") == 0) {
            whole = true;
        } else {
            return -1;
        }
    }
    return total * 100 + fen;
}

/* The 零s the rules ask for: one for each run of zero places that lies
 * between two non-zero places, over 仟亿 .. 分. */
static int zeros_owed(gq_money fen)
{
    int owed = 0;
    bool seen_digit = false, in_zeros = false;
    for (gq_money divisor = 10000000000000LL; divisor >= 1; divisor /= 10) {
        int digit = (int)(fen / divisor % 10);
        if (digit == 0) {
            in_zeros = seen_digit;
            continue;
        }
        owed += in_zeros;
        in_zeros = false;
        seen_digit = true;
    }
    return owed;
}

static int count_of(const char *text, const char *piece)
{
    int count = 0;
    for (const char *at = strstr(text, piece); at != NULL; at = strstr(at + 1, piece))
        count++;
    return count;
}

static bool ends_with(const char *text, const char *piece)
{
    size_t n = strlen(text), m = strlen(piece);
    return n >= m && strcmp(text + n - m, piece) == 0;
}

/* Every rule an amount's text must keep; the first broken one fails the
 * test with the amount and its text. */
static void check_rules(gq_money fen)
{
    char words[MONEY_WORDS_SIZE];
    ck_assert_msg(money_words_zh(fen, words), "%lld refused", (long long)fen);
    ck_assert_msg(read_words(words) == fen, "%lld written %s, read back %lld", (long long)fen,
                  words, (long long)read_words(words));
    if (fen == 0)
        return;
    ck_assert_msg(count_of(words, "零") == zeros_owed(fen), "%lld: %s has %d 零, owes %d",
                  (long long)fen, words, count_of(words, "零"), zeros_owed(fen));
    ck_assert_msg(strncmp(words, "零", 3) != 0, "%lld: %s starts with 零", (long long)fen, words);
    ck_assert_msg(count_of(words, "零元") + count_of(words, "零万") + count_of(words, "零亿") +
                          count_of(words, "零整") ==
                      0,
                  "%lld: %s has 零 before a unit", (long long)fen, words);
    ck_assert_msg(ends_with(words, "整") == (fen % 10 == 0), "%lld: %s and 整", (long long)fen,
                  words);
    ck_assert_msg((count_of(words, "元") == 1) == (fen >= 100), "%lld: %s and 元", (long long)fen,
                  words);
}

/* Every amount whose places are zero or not in each of the 2^14 patterns,
 * the non-zero places with digits drawn at random. */
START_TEST(every_pattern_of_zeros_keeps_the_rules)
{
    srand(20261206);
    for (unsigned mask = 0; mask < (1u << 14); mask++) {
        for (int draw = 0; draw < 4; draw++) {
            gq_money fen = 0;
            for (int place = 13; place >= 0; place--)
                fen = fen * 10 + ((mask >> place) & 1u ? 1 + rand() % 9 : 0);
            check_rules(fen);
        }
    }
}
END_TEST

START_TEST(every_small_amount_keeps_the_rules)
{
    for (gq_money fen = 0; fen <= 1000000; fen++)
        check_rules(fen);
}
END_TEST

START_TEST(random_amounts_keep_the_rules)
{
    srand(6122026);
    for (int i = 0; i < 300000; i++) {
        gq_money fen = (((gq_money)rand() << 31) ^ rand()) % (MONEY_WORDS_MAX + 1);
        check_rules(fen);
    }
    check_rules(MONEY_WORDS_MAX);
    check_rules(1);
}
END_TEST

static Suite *money_words_suite(void)
{
    Suite *suite = suite_create("money_words");
    TCase *tc = tcase_create("money_words");
    tcase_set_timeout(tc, 120);
    LOOP(tc, writes_the_examples, examples);
    tcase_add_test(tc, refuses_what_it_cannot_write);
    tcase_add_test(tc, every_pattern_of_zeros_keeps_the_rules);
    tcase_add_test(tc, every_small_amount_keeps_the_rules);
    tcase_add_test(tc, random_amounts_keep_the_rules);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(money_words_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
