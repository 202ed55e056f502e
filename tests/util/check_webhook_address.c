/*
 * Which addresses a webhook may reach: every block of the IANA IPv4 and
 * IPv6 special-purpose address registries that is not globally reachable
 * is refused, tested at its first and last address, with the addresses just
 * outside it (global ones) allowed; the globally reachable blocks inside
 * refused ones are allowed; IPv4 embedded in IPv4-mapped, NAT64 and 6to4
 * addresses decides for them; Teredo and IPv4-compatible addresses are
 * refused whole. The same addresses as URL literals, at an endpoint's
 * creation.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/webhook.h"

struct case_ {
    const char *address;
    bool refused;
};

static const struct case_ cases[] = {
    /* IPv4 */
    {"0.0.0.0", true},
    {"0.255.255.255", true},
    {"1.0.0.0", false},
    {"9.255.255.255", false},
    {"10.0.0.0", true},
    {"10.255.255.255", true},
    {"11.0.0.0", false},
    {"100.63.255.255", false},
    {"100.64.0.0", true},
    {"100.127.255.255", true},
    {"100.128.0.0", false},
    {"126.255.255.255", false},
    {"127.0.0.0", true},
    {"127.255.255.255", true},
    {"128.0.0.0", false},
    {"169.253.255.255", false},
    {"169.254.0.0", true},
    {"169.254.255.255", true},
    {"169.255.0.0", false},
    {"172.15.255.255", false},
    {"172.16.0.0", true},
    {"172.31.255.255", true},
    {"172.32.0.0", false},
    {"191.255.255.255", false},
    {"192.0.0.0", true},
    {"192.0.0.1", true},
    {"192.0.0.8", true},
    {"192.0.0.9", false},
    {"192.0.0.10", false},
    {"192.0.0.11", true},
    {"192.0.0.170", true},
    {"192.0.0.255", true},
    {"192.0.1.0", false},
    {"192.0.1.255", false},
    {"192.0.2.0", true},
    {"192.0.2.255", true},
    {"192.0.3.0", false},
    {"192.31.196.1", false}, /* AS112-v4: globally reachable */
    {"192.52.193.1", false}, /* AMT: globally reachable */
    {"192.88.98.255", false},
    {"192.88.99.0", true},
    {"192.88.99.255", true},
    {"192.88.100.0", false},
    {"192.167.255.255", false},
    {"192.168.0.0", true},
    {"192.168.255.255", true},
    {"192.169.0.0", false},
    {"192.175.48.1", false}, /* AS112 direct delegation: globally reachable */
    {"198.17.255.255", false},
    {"198.18.0.0", true},
    {"198.18.0.1", true},
    {"198.19.255.255", true},
    {"198.20.0.0", false},
    {"198.51.99.255", false},
    {"198.51.100.0", true},
    {"198.51.100.255", true},
    {"198.51.101.0", false},
    {"203.0.112.255", false},
    {"203.0.113.0", true},
    {"203.0.113.5", true},
    {"203.0.113.255", true},
    {"203.0.114.0", false},
    {"223.255.255.255", false},
    {"224.0.0.0", true},
    {"239.255.255.255", true},
    {"240.0.0.0", true},
    {"255.255.255.254", true},
    {"255.255.255.255", true},
    {"8.8.8.8", false},

    /* IPv6 */
    {"::", true},
    {"::1", true},
    {"::2", true},
    {"::7f00:1", true}, /* IPv4-compatible, deprecated: refused whatever it holds */
    {"::a9fe:a9fe", true},
    {"::808:808", true},
    {"::ffff:0.0.0.0", true},
    {"::ffff:127.0.0.1", true},
    {"::ffff:169.254.169.254", true},
    {"::ffff:192.0.2.1", true},
    {"::ffff:8.8.8.8", false},
    {"::ffff:255.255.255.255", true},
    {"64:ff9b::", true}, /* NAT64 of 0.0.0.0 */
    {"64:ff9b::7f00:1", true},
    {"64:ff9b::a9fe:a9fe", true},
    {"64:ff9b::c633:6405", true}, /* 198.51.100.5 */
    {"64:ff9b::808:808", false},
    {"64:ff9b::ffff:ffff", true},
    {"64:ff9b:1::", true},
    {"64:ff9b:1:ffff:ffff:ffff:ffff:ffff", true},
    {"100::", true},
    {"100::ffff:ffff:ffff:ffff", true},
    {"100:0:0:1::", true},
    {"100:0:0:1:ffff:ffff:ffff:ffff", true},
    {"2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"2001::", true}, /* Teredo */
    {"2001:0:4136:e378:8000:63bf:3fff:fdd2", true},
    {"2001:0:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"2001:1::", true},
    {"2001:1::1", false},
    {"2001:1::2", false},
    {"2001:1::3", false},
    {"2001:1::4", true},
    {"2001:2::", true},
    {"2001:2:0:ffff:ffff:ffff:ffff:ffff", true},
    {"2001:2:1::", true}, /* still in 2001::/23 */
    {"2001:3::", false},
    {"2001:3:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"2001:4:112::", false},
    {"2001:4:112:ffff:ffff:ffff:ffff:ffff", false},
    {"2001:4:113::", true},
    {"2001:10::", true},
    {"2001:1f:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"2001:20::", false},
    {"2001:2f:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"2001:30::", false},
    {"2001:3f:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"2001:40::", true},
    {"2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"2001:200::", false},
    {"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"2001:db8::", true},
    {"2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"2001:db9::", false},
    {"2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"2002::", true},            /* 6to4 of 0.0.0.0 */
    {"2002:7f00:1::", true},     /* 127.0.0.1 */
    {"2002:a9fe:a9fe::1", true}, /* 169.254.169.254 */
    {"2002:c000:201::", true},   /* 192.0.2.1 */
    {"2002:808:808::", false},   /* 8.8.8.8 */
    {"2002:808:808:ffff::1", false},
    {"2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"2003::", false},
    {"2620:4f:8000::", false},
    {"3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"3fff::", true},
    {"3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"3fff:1000::", false},
    {"4000::", true}, /* outside global unicast */
    {"5f00::", true},
    {"5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"fc00::", true},
    {"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"fe80::", true},
    {"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"fec0::1", true},
    {"ff00::", true},
    {"ff02::1", true},
    {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"2a00:1450:4001::1", false},
};

static bool refused(const char *text)
{
    struct sockaddr_in in = {.sin_family = AF_INET};
    struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
    if (inet_pton(AF_INET, text, &in.sin_addr) == 1)
        return webhook_address_is_private((const struct sockaddr *)&in);
    ck_assert_msg(inet_pton(AF_INET6, text, &in6.sin6_addr) == 1, "%s is no address", text);
    return webhook_address_is_private((const struct sockaddr *)&in6);
}

START_TEST(each_registry_block_at_its_edges)
{
    const struct case_ *c = &cases[_i];
    ck_assert_msg(refused(c->address) == c->refused, "%s: %s expected", c->address,
                  c->refused ? "refused" : "allowed");
}
END_TEST

START_TEST(each_literal_url_checked_at_creation)
{
    const struct case_ *c = &cases[_i];
    char url[128];
    bool v6 = strchr(c->address, ':') != NULL;
    snprintf(url, sizeof url, v6 ? "https://[%s]:8443/hook" : "https://%s/hook", c->address);
    enum webhook_url_verdict expected = c->refused ? WEBHOOK_URL_PRIVATE : WEBHOOK_URL_OK;
    ck_assert_msg(webhook_url_check(url, false, false) == expected, "%s", url);
    ck_assert_int_eq(webhook_url_check(url, false, true), WEBHOOK_URL_OK);
}
END_TEST

START_TEST(other_families_are_refused)
{
    struct sockaddr unix_like = {.sa_family = AF_UNIX};
    ck_assert(webhook_address_is_private(&unix_like));
}
END_TEST

static Suite *address_suite(void)
{
    Suite *suite = suite_create("webhook_address");
    TCase *tc = tcase_create("registries");
    int count = (int)(sizeof cases / sizeof cases[0]);
    tcase_add_loop_test(tc, each_registry_block_at_its_edges, 0, count);
    tcase_add_loop_test(tc, each_literal_url_checked_at_creation, 0, count);
    tcase_add_test(tc, other_families_are_refused);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(address_suite());
    srunner_set_fork_status(runner, CK_NOFORK);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
