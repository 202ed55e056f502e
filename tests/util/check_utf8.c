/*
 * Control characters in stored text: which ones utf8_find_control() finds
 * (and where), which look-alikes it leaves, and how utf8_escape_controls()
 * writes them for a terminal, cut to fit at a whole escape.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

static const struct {
    const char *text;
    size_t offset;
    uint32_t code_point;
} controls[] = {
    {"\x01", 0, 0x01},
    {"ab\x1b[31m", 2, 0x1b},
    {"tab\there", 3, 0x09},
    {"line\n", 4, 0x0a},
    {"del\x7f", 3, 0x7f},
    {"\xc3\xa9\xc2\x85", 2, 0x85}, /* é, then NEL (C1) */
    {"csi\xc2\x9b", 3, 0x9b},      /* the 8-bit CSI */
    {"a\xe2\x80\xa8", 1, 0x2028},  /* line separator */
    {"a\xe2\x80\xa9", 1, 0x2029},  /* paragraph separator */
    {"\xe2\x80\xaa", 0, 0x202a},   /* LRE */
    {"abc\xe2\x80\xae"
     "cba",
     3, 0x202e},                             /* RLO */
    {"\xe6\x9c\x88\xe2\x81\xa6", 3, 0x2066}, /* 月, then LRI */
    {"\xe2\x81\xa9", 0, 0x2069},             /* PDI */
};

START_TEST(controls_are_found_where_they_are)
{
    size_t offset = 99;
    uint32_t code_point = 0;
    ck_assert(utf8_find_control(controls[_i].text, &offset, &code_point));
    ck_assert_uint_eq(offset, controls[_i].offset);
    ck_assert_uint_eq(code_point, controls[_i].code_point);
}
END_TEST

START_TEST(printable_text_has_none)
{
    /* Printable ASCII, é, an em dash (U+2014), U+2027 and U+202F around
     * the separators, U+2065 and U+206A around the isolates, 月, U+00A0
     * just past C1, an emoji. */
    static const char *const plain[] = {" ~AZaz09{}",
                                        "\xc3\xa9",
                                        "\xe2\x80\x94",
                                        "\xe2\x80\xa7\xe2\x80\xaf",
                                        "\xe2\x81\xa5\xe2\x81\xaa",
                                        "\xe6\x9c\x88",
                                        "\xc2\xa0",
                                        "\xf0\x9f\x98\x80",
                                        ""};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        size_t offset = 0;
        uint32_t code_point = 0;
        ck_assert_msg(!utf8_find_control(plain[i], &offset, &code_point), "text %zu", i);
    }
}
END_TEST

START_TEST(escapes_show_what_is_stored)
{
    char out[128];
    utf8_escape_controls("evil\x1b[31mRED\r\xe2\x80\xae"
                         "x\xc2\x9b\xff\xc3\xa9",
                         out, sizeof out);
    ck_assert_str_eq(out, "evil\\x1b[31mRED\\x0d\\u202ex\\u009b\\xff\xc3\xa9");
    utf8_escape_controls("plain \xe6\x9c\x88", out, sizeof out);
    ck_assert_str_eq(out, "plain \xe6\x9c\x88");
}
END_TEST

START_TEST(escapes_are_cut_whole)
{
    char out[8];
    utf8_escape_controls("ab\x1b"
                         "cdef",
                         out, sizeof out); /* "ab\x1bc" fills 7 */
    ck_assert_str_eq(out, "ab\\x1bc");
    utf8_escape_controls("abcd\x1b", out, sizeof out); /* the escape does not fit whole */
    ck_assert_str_eq(out, "abcd");
    utf8_escape_controls("abcde\xe6\x9c\x88", out, sizeof out);
    ck_assert_str_eq(out, "abcde");
}
END_TEST

static Suite *utf8_suite(void)
{
    Suite *suite = suite_create("utf8");
    TCase *tc = tcase_create("controls");
    tcase_add_loop_test(tc, controls_are_found_where_they_are, 0,
                        sizeof controls / sizeof controls[0]);
    tcase_add_test(tc, printable_text_has_none);
    tcase_add_test(tc, escapes_show_what_is_stored);
    tcase_add_test(tc, escapes_are_cut_whole);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(utf8_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
