/*
 * The unified social credit code: codes of real companies, as printed on
 * their business licences, pass; every single-character change of one of
 * them is caught by the check character; and each kind of refusal says
 * which rule it broke.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/tax_id.h"

#define LOOP(tc, test, table)                                                                      \
    tcase_add_loop_test(tc, test, 0, (int)(sizeof(table) / sizeof(table)[0]))

static const char *const issued[] = {
    "91350100M000100Y43",
    "91110000802100433B",
    "914403001922038216",
};

START_TEST(accepts_issued_codes)
{
    ck_assert_int_eq(tax_id_check_uscc(issued[_i]), TAX_ID_OK);
}
END_TEST

/* The weights are powers of 3 modulo the prime 31, so one changed
 * character always changes the sum: every substitution is caught. */
START_TEST(catches_every_single_substitution)
{
    static const char alphabet[] = "0123456789ABCDEFGHJKLMNPQRTUWXY";
    char code[19];
    for (int position = 0; position < 18; position++) {
        for (const char *c = alphabet; *c != '\0'; c++) {
            memcpy(code, issued[_i], sizeof code);
            if (code[position] == *c)
                continue;
            code[position] = *c;
            if (position >= 2 && position < 8 && (*c < '0' || *c > '9'))
                ck_assert_int_eq(tax_id_check_uscc(code), TAX_ID_DIVISION);
            else
                ck_assert_msg(tax_id_check_uscc(code) == TAX_ID_CHECK_CHARACTER, "%s passed", code);
        }
    }
}
END_TEST

static const struct {
    const char *code;
    enum tax_id_check result;
} refused[] = {
    {"", TAX_ID_LENGTH},
    {"91350100M000100Y4", TAX_ID_LENGTH},
    {"91350100M000100Y433", TAX_ID_LENGTH},
    {"91350100M000100I43", TAX_ID_CHARACTER}, /* I, O, Z, S, V are never used */
    {"91350100M000100O43", TAX_ID_CHARACTER},
    {"91350100M000100Z43", TAX_ID_CHARACTER},
    {"91350100m000100Y43", TAX_ID_CHARACTER},
    {"9135A100M000100Y43", TAX_ID_DIVISION},
    {"91350100M000100Y44", TAX_ID_CHECK_CHARACTER},
    {"91350100M000100Y34", TAX_ID_CHECK_CHARACTER}, /* two characters swapped */
};

START_TEST(says_which_rule_a_code_breaks)
{
    ck_assert_int_eq(tax_id_check_uscc(refused[_i].code), refused[_i].result);
}
END_TEST

/* A check worth 31 is written 0, and the alphabet's last value, 30, is Y. */
START_TEST(computes_the_check_character)
{
    ck_assert_int_eq(tax_id_uscc_check_character("91350100M000100Y4"), '3');
    ck_assert_int_eq(tax_id_uscc_check_character("91110000802100433"), 'B');
    ck_assert_int_eq(tax_id_uscc_check_character("00000000000000000"), '0');
    ck_assert_int_eq(tax_id_uscc_check_character("10000000000000000"), 'Y');
    ck_assert_int_eq(tax_id_uscc_check_character("9135010OM000100Y4"), 0);
}
END_TEST

static Suite *tax_id_suite(void)
{
    Suite *suite = suite_create("tax_id");
    TCase *tc = tcase_create("tax_id");
    LOOP(tc, accepts_issued_codes, issued);
    LOOP(tc, catches_every_single_substitution, issued);
    LOOP(tc, says_which_rule_a_code_breaks, refused);
    tcase_add_test(tc, computes_the_check_character);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(tax_id_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
