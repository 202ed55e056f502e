/*
 * The client's address in a forwarding header: hops walked from the
 * right over every line, trusted proxies skipped, the first other address
 * believed; X-Forwarded-For lists and RFC 7239 Forwarded elements (quoted
 * IPv6 with a port, obfuscated and unknown nodes), and the prefixes they
 * are checked against.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "util/address.h"

#define TRUSTED "10.0.0.0/8, 127.0.0.1, fd00::/8"

struct walk_case {
    enum address_header_form form;
    const char *header; /* every line, joined with ',' */
    const char *client; /* NULL: none named (the peer stays the client) */
};

static const struct walk_case walks[] = {
    /* The proxy's own line comes last: a client's line before it is not
     * believed, whatever it claims. */
    {ADDRESS_LIST, "198.51.100.7,203.0.113.9", "203.0.113.9"},
    {ADDRESS_LIST, "1.1.1.1, 198.51.100.7,203.0.113.9", "203.0.113.9"},
    /* Several trusted hops: the rightmost untrusted one is the client. */
    {ADDRESS_LIST, "198.51.100.7, 203.0.113.9, 10.1.2.3, 127.0.0.1", "203.0.113.9"},
    {ADDRESS_LIST, " 203.0.113.9 ,\t10.0.0.1 ", "203.0.113.9"},
    /* Every hop trusted: the leftmost. */
    {ADDRESS_LIST, "10.0.0.2, 10.0.0.1", "10.0.0.2"},
    {ADDRESS_LIST, "2001:db8::1, fd00::5", "2001:db8::1"},
    {ADDRESS_LIST, "::ffff:10.0.0.3, 2001:db8::2", "2001:db8::2"},
    /* A hop that is no address ends the walk at the last trusted one. */
    {ADDRESS_LIST, "203.0.113.9, unknown, 10.0.0.1", "10.0.0.1"},
    {ADDRESS_LIST, "203.0.113.9, garbage", NULL},
    {ADDRESS_LIST, "", NULL},
    {ADDRESS_LIST, "203.0.113.9,", NULL},
    {ADDRESS_LIST, "[2001:db8::3]:443, 192.0.2.1:80", "192.0.2.1"},
    /* Forwarded: two lines, quoted IPv6 with a port, other parameters. */
    {ADDRESS_FORWARDED, "for=198.51.100.7,for=203.0.113.9;proto=https", "203.0.113.9"},
    {ADDRESS_FORWARDED, "For=\"[2001:db8:cafe::17]:4711\", for=10.0.0.1;by=10.0.0.2",
     "2001:db8:cafe::17"},
    {ADDRESS_FORWARDED, "for=192.0.2.60;proto=http;by=203.0.113.43", "192.0.2.60"},
    {ADDRESS_FORWARDED, "proto=https; for = \"192.0.2.61:8080\" ", "192.0.2.61"},
    {ADDRESS_FORWARDED, "for=198.51.100.7, for=\"_hidden\", for=127.0.0.1", "127.0.0.1"},
    {ADDRESS_FORWARDED, "for=198.51.100.7, for=unknown", NULL},
    {ADDRESS_FORWARDED, "for=198.51.100.7, proto=https", NULL},
    /* A comma inside a quoted value does not split the element. */
    {ADDRESS_FORWARDED, "for=198.51.100.7;note=\"a, for=9.9.9.9\", for=10.0.0.9", "198.51.100.7"},
    {ADDRESS_FORWARDED, "for=\"[2001:db8::1\", for=10.0.0.9", "10.0.0.9"},
};

START_TEST(test_forwarded_client)
{
    const struct walk_case *walk = &walks[_i];
    struct address_prefix trusted[ADDRESS_PREFIXES_MAX];
    size_t count;
    char bad[64];
    ck_assert(address_prefixes_parse(TRUSTED, trusted, &count, bad, sizeof bad));
    char client[48] = "unchanged";
    bool named =
        address_forwarded_client(walk->header, walk->form, trusted, count, client, sizeof client);
    if (walk->client == NULL) {
        ck_assert_msg(!named, "'%s' named %s", walk->header, client);
        ck_assert_str_eq(client, "unchanged");
    } else {
        ck_assert_msg(named, "'%s' named none", walk->header);
        ck_assert_str_eq(client, walk->client);
    }
}
END_TEST

/* More hops than are kept: the right end still decides. */
START_TEST(test_long_header_keeps_its_right_end)
{
    struct address_prefix trusted[ADDRESS_PREFIXES_MAX];
    size_t count;
    char bad[64];
    ck_assert(address_prefixes_parse(TRUSTED, trusted, &count, bad, sizeof bad));
    char header[4096] = "";
    for (int i = 0; i < 200; i++)
        strcat(header, "198.51.100.1,");
    strcat(header, "203.0.113.5, 10.0.0.1");
    char client[48];
    ck_assert(
        address_forwarded_client(header, ADDRESS_LIST, trusted, count, client, sizeof client));
    ck_assert_str_eq(client, "203.0.113.5");
}
END_TEST

START_TEST(test_prefixes)
{
    struct address_prefix trusted[ADDRESS_PREFIXES_MAX];
    size_t count;
    char bad[64];
    ck_assert(address_prefixes_parse(TRUSTED, trusted, &count, bad, sizeof bad));
    ck_assert_uint_eq(count, 3);
    ck_assert(address_in_prefixes("10.255.0.1", trusted, count));
    ck_assert(address_in_prefixes("::ffff:127.0.0.1", trusted, count));
    ck_assert(address_in_prefixes("fd12::1", trusted, count));
    ck_assert(!address_in_prefixes("11.0.0.1", trusted, count));
    ck_assert(!address_in_prefixes("127.0.0.2", trusted, count));
    ck_assert(!address_prefixes_parse("10.0.0.0/33", trusted, &count, bad, sizeof bad));
    ck_assert_str_eq(bad, "10.0.0.0/33");
}
END_TEST

static Suite *address_suite(void)
{
    Suite *suite = suite_create("address");
    TCase *tc = tcase_create("forwarded");
    tcase_add_loop_test(tc, test_forwarded_client, 0, (int)(sizeof walks / sizeof walks[0]));
    tcase_add_test(tc, test_long_header_keeps_its_right_end);
    tcase_add_test(tc, test_prefixes);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(address_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
