/*
 * The JSON paths that name a field at fault: exact text, and truncated
 * to the buffer as snprintf would.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "codec/bodies.h"

static const struct {
    const char *parent;
    size_t index;
    size_t size;
    const char *text;
} index_cases[] = {
    {"items", 0, 32, "items[0]"},
    {"items", 2, 32, "items[2]"},
    {"bundles", 99, 32, "bundles[99]"},
    {"a.b[3].c", 18446744073709551615u, 40, "a.b[3].c[18446744073709551615]"},
    {"", 7, 8, "[7]"},
    {"items", 12, 9, "items[12"}, /* truncated: 8 bytes and the NUL */
    {"items", 12, 4, "ite"},
    {"items", 12, 1, ""},
};

START_TEST(formats_index_paths)
{
    char buf[64];
    memset(buf, '#', sizeof buf);
    fields_index_path(buf, index_cases[_i].size, index_cases[_i].parent, index_cases[_i].index);
    ck_assert_str_eq(buf, index_cases[_i].text);
    ck_assert_int_eq(buf[index_cases[_i].size], '#'); /* nothing past the buffer */
}
END_TEST

START_TEST(formats_member_paths)
{
    char buf[32];
    fields_path(buf, sizeof buf, "items[1]", "days");
    ck_assert_str_eq(buf, "items[1].days");
    fields_path(buf, sizeof buf, "", "save");
    ck_assert_str_eq(buf, "save");
}
END_TEST

static Suite *fields_path_suite(void)
{
    Suite *suite = suite_create("fields_path");
    TCase *tc = tcase_create("fields_path");
    tcase_add_loop_test(tc, formats_index_paths, 0,
                        (int)(sizeof index_cases / sizeof index_cases[0]));
    tcase_add_test(tc, formats_member_paths);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(fields_path_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
