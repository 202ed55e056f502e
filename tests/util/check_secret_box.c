/*
 * Secrets sealed with a keyring: the keyring's text (ids, base64 keys,
 * comments, refusals that show no key), a round trip, a fresh nonce each
 * time, and every way a sealed secret must not open: another row, a wrong
 * key under the same id, a key the ring lacks, a changed byte.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/secret_box.h"

#define KEY_A "a:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
#define KEY_B "b:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8="
#define KEY_B_WRONG "b:QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8="
#define SECRET "whsec_pb96loaUEE1bJjwF4QQbWOaRHyEniSVTLALYMK45ArY="
#define ROW "we_0123456789abcdef0123456789abcdef"

static struct secret_keyring ring_of(const char *text)
{
    struct secret_keyring ring;
    char why[200];
    ck_assert_msg(secret_keyring_parse(text, &ring, why, sizeof why), "%s", why);
    return ring;
}

START_TEST(test_keyring_text)
{
    struct secret_keyring ring = ring_of("# rotated 2026-12\n" KEY_B "\n\n" KEY_A "\n");
    ck_assert_uint_eq(ring.count, 2);
    ck_assert_str_eq(ring.keys[0].id, "b");
    ck_assert_str_eq(ring.keys[1].id, "a");
    ck_assert_uint_eq(ring.keys[1].key[31], 31);
    ring = ring_of(KEY_A "," KEY_B);
    ck_assert_uint_eq(ring.count, 2);
}
END_TEST

static const char *const refused[][2] = {
    {"", "no key"},
    {"# nothing\n", "no key"},
    {"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "not <id>:"},
    {"a:AAECAwQF", "not the base64 of 32 bytes"},
    {"a:!!!notbase64!!!", "not the base64 of 32 bytes"},
    {KEY_A "\n" KEY_A, "appears twice"},
    {"a b:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "not <id>:"},
};

START_TEST(test_keyring_refusals_show_no_key)
{
    struct secret_keyring ring;
    char why[200];
    ck_assert(!secret_keyring_parse(refused[_i][0], &ring, why, sizeof why));
    ck_assert_msg(strstr(why, refused[_i][1]) != NULL, "%s", why);
    ck_assert_ptr_null(strstr(why, "AAECAwQF"));
    ck_assert_uint_eq(ring.count, 0);
}
END_TEST

START_TEST(test_round_trip_with_a_fresh_nonce)
{
    struct secret_keyring ring = ring_of(KEY_A);
    char one[SECRET_BOX_SEALED_SIZE], two[SECRET_BOX_SEALED_SIZE], plain[128];
    ck_assert(secret_box_seal(&ring, ROW, SECRET, one, sizeof one));
    ck_assert(secret_box_seal(&ring, ROW, SECRET, two, sizeof two));
    ck_assert_int_eq(strncmp(one, "whsec_v1:a:", 11), 0);
    ck_assert_ptr_null(strstr(one, SECRET + 6));
    ck_assert_str_ne(one, two);
    char id[SECRET_BOX_ID_SIZE];
    ck_assert(secret_box_is_sealed(one, id));
    ck_assert_str_eq(id, "a");
    ck_assert_int_eq(secret_box_open(&ring, ROW, one, plain, sizeof plain), SECRET_BOX_OPENED);
    ck_assert_str_eq(plain, SECRET);
    ck_assert_int_eq(secret_box_open(&ring, ROW, two, plain, sizeof plain), SECRET_BOX_OPENED);
    ck_assert_str_eq(plain, SECRET);
    /* An older key of the ring opens what it sealed. */
    struct secret_keyring rotated = ring_of(KEY_B "\n" KEY_A);
    ck_assert_int_eq(secret_box_open(&rotated, ROW, one, plain, sizeof plain), SECRET_BOX_OPENED);
    ck_assert_str_eq(plain, SECRET);
}
END_TEST

START_TEST(test_what_must_not_open)
{
    struct secret_keyring b = ring_of(KEY_B), wrong = ring_of(KEY_B_WRONG), a = ring_of(KEY_A);
    char sealed[SECRET_BOX_SEALED_SIZE], plain[128];
    ck_assert(secret_box_seal(&b, ROW, SECRET, sealed, sizeof sealed));
    ck_assert_int_eq(secret_box_open(&b, "we_other", sealed, plain, sizeof plain), SECRET_BOX_BAD);
    ck_assert_str_eq(plain, "");
    ck_assert_int_eq(secret_box_open(&wrong, ROW, sealed, plain, sizeof plain), SECRET_BOX_BAD);
    ck_assert_int_eq(secret_box_open(&a, ROW, sealed, plain, sizeof plain), SECRET_BOX_UNKNOWN_KEY);
    struct secret_keyring none = {.count = 0};
    ck_assert_int_eq(secret_box_open(&none, ROW, sealed, plain, sizeof plain),
                     SECRET_BOX_UNKNOWN_KEY);
    ck_assert(!secret_box_seal(&none, ROW, SECRET, sealed, sizeof sealed));
    ck_assert(secret_box_seal(&b, ROW, SECRET, sealed, sizeof sealed));
    size_t last = strlen(sealed) - 3; /* a byte of the tag */
    sealed[last] = sealed[last] == 'A' ? 'B' : 'A';
    ck_assert_int_eq(secret_box_open(&b, ROW, sealed, plain, sizeof plain), SECRET_BOX_BAD);
    ck_assert_int_eq(secret_box_open(&b, ROW, "whsec_v1:b:", plain, sizeof plain), SECRET_BOX_BAD);
    /* A secret stored before keys reads as it is. */
    ck_assert_int_eq(secret_box_open(&b, ROW, SECRET, plain, sizeof plain), SECRET_BOX_CLEAR);
    ck_assert_str_eq(plain, SECRET);
}
END_TEST

static Suite *secret_box_suite(void)
{
    Suite *suite = suite_create("secret_box");
    TCase *tc = tcase_create("secret_box");
    tcase_add_test(tc, test_keyring_text);
    tcase_add_loop_test(tc, test_keyring_refusals_show_no_key, 0,
                        sizeof refused / sizeof refused[0]);
    tcase_add_test(tc, test_round_trip_with_a_fresh_nonce);
    tcase_add_test(tc, test_what_must_not_open);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(secret_box_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
