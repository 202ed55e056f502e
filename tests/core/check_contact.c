/*
 * The shapes of an email address and a telephone number: what people
 * really type passes (spaces and dashes in a number, a +86 prefix or
 * none), and each near miss is refused.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/contact.h"

#define LOOP(tc, test, table)                                                                      \
    tcase_add_loop_test(tc, test, 0, (int)(sizeof(table) / sizeof(table)[0]))

static const struct {
    const char *email;
    bool valid;
} emails[] = {
    {"li.wei@example.cn", true},
    {"ops+gpu@mail.example.com.cn", true},
    {"a@b.co", true},
    {"", false},
    {"li.wei", false},                /* no @ */
    {"@example.cn", false},           /* nothing before the @ */
    {"li@wei@example.cn", false},     /* two @ */
    {"li.wei@localhost", false},      /* no dot in the domain */
    {"li.wei@example.", false},       /* empty last label */
    {"li.wei@.example.cn", false},    /* empty first label */
    {"li.wei@example..cn", false},    /* empty label between dots */
    {"li wei@example.cn", false},     /* a space */
    {"li.wei@exa\tmple.cn", false},   /* a tab */
    {"li.wei@example.cn\x7f", false}, /* DEL */
};

START_TEST(email_shapes)
{
    ck_assert_msg(contact_email_is_valid(emails[_i].email) == emails[_i].valid, "'%s': %s",
                  emails[_i].email, emails[_i].valid ? "refused" : "accepted");
}
END_TEST

START_TEST(email_length_limit)
{
    char email[CONTACT_EMAIL_MAX + 2];
    memset(email, 'a', sizeof email);
    memcpy(email + CONTACT_EMAIL_MAX - 6, "@ex.cn", 7); /* exactly 254 bytes */
    ck_assert_uint_eq(strlen(email), CONTACT_EMAIL_MAX);
    ck_assert(contact_email_is_valid(email));
    memset(email, 'a', sizeof email);
    memcpy(email + CONTACT_EMAIL_MAX - 5, "@ex.cn", 7); /* 255 */
    ck_assert(!contact_email_is_valid(email));
}
END_TEST

static const struct {
    const char *phone;
    bool valid;
} phones[] = {
    {"+86 138 0013 8000", true},
    {"+86-138-0013-8000", true},
    {"13800138000", true},
    {"+8613800138000", true},
    {"+86 10 6552 9988", true}, /* a Beijing landline, E.164 */
    {"+44 20 7946 0958", true}, /* E.164 elsewhere */
    {"+1 415 555 0132", true},
    {"+12345678", true},           /* 8 digits: the shortest */
    {"+123456789012345", true},    /* 15 digits: the longest */
    {"+1234567", false},           /* 7 digits */
    {"+1234567890123456", false},  /* 16 digits */
    {"+86 138 0013 80001", false}, /* a mobile prefix, a digit too many */
    {"+86 138 0013 800", false},   /* a digit short */
    {"12800138000", false},
    {"1380013800", false},
    {"010 6552 9988", false},      /* national form without a country code */
    {"+0 123 4567 890", false},    /* no country code begins with 0 */
    {"+86  138 0013 8000", false}, /* two spaces */
    {"+86 138 0013 8000 ", false}, /* trailing space */
    {"-86 138 0013 8000", false},
    {"+86 (10) 6552 9988", false},
    {"+86 138 0013 800O", false}, /* a letter O */
    {"", false},
    {"+", false},
};

START_TEST(phone_shapes)
{
    ck_assert_msg(contact_phone_is_valid(phones[_i].phone) == phones[_i].valid, "'%s': %s",
                  phones[_i].phone, phones[_i].valid ? "refused" : "accepted");
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("contact");
    TCase *tc = tcase_create("shapes");
    LOOP(tc, email_shapes, emails);
    tcase_add_test(tc, email_length_limit);
    LOOP(tc, phone_shapes, phones);
    suite_add_tcase(suite, tc);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
