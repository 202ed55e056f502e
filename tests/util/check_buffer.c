/*
 * Tests of the byte buffer that grows by doubling and of the SHA-256 in
 * hex: the sizes a buffer takes, what it keeps when it moves, and the
 * digest of FIPS 180-2's "abc" example.
 */
#include "util/buffer.h"
#include "util/digest.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_buffer_grows_by_doubling_from_initial)
{
    char *data = NULL;
    size_t capacity = 0;
    ck_assert(buffer_grow(&data, &capacity, 1, 64));
    ck_assert_uint_eq(capacity, 64);
    memcpy(data, "kept", 5);
    ck_assert(buffer_grow(&data, &capacity, 64, 64)); /* fits: unchanged */
    ck_assert_uint_eq(capacity, 64);
    ck_assert(buffer_grow(&data, &capacity, 65, 64));
    ck_assert_uint_eq(capacity, 128);
    ck_assert(buffer_grow(&data, &capacity, 1000, 64));
    ck_assert_uint_eq(capacity, 1024);
    ck_assert_str_eq(data, "kept");
    free(data);
}
END_TEST

START_TEST(test_digest_sha256_hex)
{
    char hex[DIGEST_SHA256_HEX_SIZE];
    digest_sha256_hex("abc", 3, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

static Suite *buffer_suite(void)
{
    Suite *suite = suite_create("buffer");
    TCase *tc = tcase_create("buffer");
    tcase_add_test(tc, test_buffer_grows_by_doubling_from_initial);
    tcase_add_test(tc, test_digest_sha256_hex);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(buffer_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
