/*
 * The message tables: every message in every language, with the same
 * numbered places in each, Chinese written in Chinese and English without
 * it; and the formatter that fills the places.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/messages.h"

/* True when `text` holds a character of the CJK Unified Ideographs block
 * (U+4E00..U+9FFF, three bytes in UTF-8 from E4 B8 80 to E9 BF BF). */
static bool has_chinese(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++)
        if (*p >= 0xE4 && *p <= 0xE9 && p[1] >= 0x80 && p[2] >= 0x80)
            return true;
    return false;
}

/* The test that fails when a message lacks a translation. */
START_TEST(every_message_is_in_every_language)
{
    enum gq_msg id = (enum gq_msg)_i;
    for (int lang = 0; lang < GQ_LANG_COUNT; lang++) {
        const char *text = messages_template((enum gq_lang)lang, id);
        ck_assert_msg(text != NULL && text[0] != '\0', "message %s has no %s text",
                      messages_name(id), gq_lang_tag((enum gq_lang)lang));
    }
}
END_TEST

START_TEST(every_language_has_the_same_places)
{
    enum gq_msg id = (enum gq_msg)_i;
    uint32_t english = messages_places(messages_template(GQ_LANG_EN, id));
    for (int lang = 1; lang < GQ_LANG_COUNT; lang++)
        ck_assert_msg(messages_places(messages_template((enum gq_lang)lang, id)) == english,
                      "message %s: %s has other places than English", messages_name(id),
                      gq_lang_tag((enum gq_lang)lang));
}
END_TEST

START_TEST(chinese_is_written_in_chinese)
{
    enum gq_msg id = (enum gq_msg)_i;
    ck_assert_msg(has_chinese(messages_template(GQ_LANG_ZH_CN, id)), "zh-CN %s is not Chinese: %s",
                  messages_name(id), messages_template(GQ_LANG_ZH_CN, id));
    ck_assert_msg(!has_chinese(messages_template(GQ_LANG_EN, id)), "en %s holds Chinese: %s",
                  messages_name(id), messages_template(GQ_LANG_EN, id));
}
END_TEST

START_TEST(every_message_has_a_name)
{
    ck_assert_str_ne(messages_name((enum gq_msg)_i), "?");
}
END_TEST

static const char *format(enum gq_lang lang, enum gq_msg id, const struct msg_arg *args,
                          size_t n_args)
{
    static char buf[256];
    messages_format(lang, id, args, n_args, buf, sizeof buf);
    return buf;
}

START_TEST(fills_places_in_each_languages_order)
{
    struct msg_arg args[] = {MSG_TEXT("q_1"), MSG_TEXT("2026-12-07T18:03:44Z")};
    ck_assert_str_eq(format(GQ_LANG_EN, MSG_QUOTE_EXPIRED, args, 2),
                     "quote 'q_1' expired at 2026-12-07T18:03:44Z");
    ck_assert_str_eq(format(GQ_LANG_ZH_CN, MSG_QUOTE_EXPIRED, args, 2),
                     "报价单 'q_1' 已于 2026-12-07T18:03:44Z 过期");
    /* The segment comes first in Chinese, the mode first in English. */
    struct msg_arg modes[] = {MSG_TEXT("student"), MSG_TEXT("startup")};
    ck_assert_str_eq(format(GQ_LANG_EN, MSG_MODE_NOT_FOR_SEGMENT, modes, 2),
                     "student billing is not available to customers of segment startup");
    ck_assert_str_eq(format(GQ_LANG_ZH_CN, MSG_MODE_NOT_FOR_SEGMENT, modes, 2),
                     "startup 类客户不能使用 student 计费");
}
END_TEST

START_TEST(writes_numbers_one_way)
{
    struct msg_arg args[] = {MSG_INT(3650), MSG_INT(-2)};
    ck_assert_str_eq(format(GQ_LANG_EN, MSG_DAYS_RANGE, args, 2), "days must be 1..3650, got -2");
    ck_assert_str_eq(format(GQ_LANG_ZH_CN, MSG_DAYS_RANGE, args, 2),
                     "days 必须在 1 到 3650 之间，实际为 -2");
    struct msg_arg reals[] = {MSG_TEXT("assumptions.mfu"), MSG_REAL(0.01), MSG_REAL(1)};
    ck_assert_str_eq(format(GQ_LANG_EN, MSG_FIELD_REAL_RANGE, reals, 3),
                     "assumptions.mfu must be between 0.01 and 1");
    struct msg_arg least[] = {MSG_INT(-9223372036854775807LL - 1)};
    ck_assert_str_eq(format(GQ_LANG_EN, MSG_PLAN_MONTHS, least, 1), "-9223372036854775808 months");
}
END_TEST

START_TEST(says_a_message_argument_in_the_same_language)
{
    struct msg_arg args[] = {MSG_TEXT("items[0].days"), MSG_SAY(MSG_TYPE_WHOLE_NUMBER),
                             MSG_SAY(MSG_TYPE_STRING)};
    ck_assert_str_eq(format(GQ_LANG_EN, MSG_FIELD_WRONG_TYPE, args, 3),
                     "items[0].days must be a whole number, not a string");
    ck_assert_str_eq(format(GQ_LANG_ZH_CN, MSG_FIELD_WRONG_TYPE, args, 3),
                     "items[0].days 必须是整数，而不是字符串");
}
END_TEST

START_TEST(cuts_texts_and_the_buffer)
{
    char long_text[300];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    struct msg_arg arg = MSG_TEXT(long_text);
    const char *said = format(GQ_LANG_EN, MSG_NO_RESOURCE, &arg, 1);
    ck_assert_uint_eq(strlen(said), strlen("no resource at ") + MSG_ARG_TEXT_MAX);
    struct msg_arg cut = MSG_TEXT_CUT("abcdefgh", 3);
    ck_assert_str_eq(format(GQ_LANG_EN, MSG_NO_SKU, &cut, 1), "no SKU 'abc'");
    char small[8];
    memset(small, '#', sizeof small);
    ck_assert_uint_eq(messages_format(GQ_LANG_EN, MSG_NO_SKU, &cut, 1, small, 6), 5);
    ck_assert_str_eq(small, "no SK");
    ck_assert_int_eq(small[6], '#');
}
END_TEST

/* A clause the service wrote (a plan in words, a list of changes) is not
 * cut at MSG_ARG_TEXT_MAX, only by the buffer. */
START_TEST(keeps_a_clause_whole)
{
    char long_text[300], buf[512];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    struct msg_arg arg = MSG_CLAUSE(long_text);
    ck_assert_uint_eq(messages_format(GQ_LANG_EN, MSG_NO_RESOURCE, &arg, 1, buf, sizeof buf),
                      strlen("no resource at ") + sizeof long_text - 1);
    ck_assert_uint_eq(messages_format(GQ_LANG_EN, MSG_NO_RESOURCE, &arg, 1, buf, 20), 19);
}
END_TEST

START_TEST(leaves_a_place_without_argument_as_it_stands)
{
    ck_assert_str_eq(format(GQ_LANG_EN, MSG_NO_SKU, NULL, 0), "no SKU '{1}'");
    ck_assert_uint_eq(messages_places("{1} and {3}, not {x} or {10}"), (1u << 1) | (1u << 3));
}
END_TEST

START_TEST(errors_carry_both_languages)
{
    struct gq_error err;
    ck_assert_int_eq(
        gq_fail_msg(&err, GQ_ERR_UNKNOWN_SKU, "items[0].sku", MSG_NO_SKU, MSG_TEXT("x9")),
        GQ_ERR_UNKNOWN_SKU);
    ck_assert_str_eq(err.field, "items[0].sku");
    ck_assert_str_eq(err.message, "no SKU 'x9'");
    ck_assert_str_eq(gq_error_text(&err, GQ_LANG_EN), "no SKU 'x9'");
    ck_assert_str_eq(gq_error_text(&err, GQ_LANG_ZH_CN), "没有配置 'x9'");
    gq_fail(&err, GQ_ERR_INTERNAL, NULL, "disk %s", "full");
    ck_assert_str_eq(gq_error_text(&err, GQ_LANG_ZH_CN), "disk full"); /* no translation */
    gq_fail_msg(&err, GQ_ERR_OUT_OF_RANGE, "items", MSG_QUOTE_EMPTY);
    ck_assert_str_eq(gq_error_text(&err, GQ_LANG_ZH_CN), "报价至少需要一个项目或一个套餐");
}
END_TEST

START_TEST(tags_name_the_languages)
{
    ck_assert_str_eq(gq_lang_tag(GQ_LANG_EN), "en");
    ck_assert_str_eq(gq_lang_tag(GQ_LANG_ZH_CN), "zh-CN");
    ck_assert_str_eq(gq_lang_tag(GQ_LANG_COUNT), "en");
}
END_TEST

static Suite *messages_suite(void)
{
    Suite *suite = suite_create("messages");
    TCase *tables = tcase_create("tables");
    tcase_add_loop_test(tables, every_message_is_in_every_language, 1, MSG_COUNT);
    tcase_add_loop_test(tables, every_language_has_the_same_places, 1, MSG_COUNT);
    tcase_add_loop_test(tables, chinese_is_written_in_chinese, 1, MSG_COUNT);
    tcase_add_loop_test(tables, every_message_has_a_name, 0, MSG_COUNT);
    suite_add_tcase(suite, tables);
    TCase *formatter = tcase_create("formatter");
    tcase_add_test(formatter, fills_places_in_each_languages_order);
    tcase_add_test(formatter, writes_numbers_one_way);
    tcase_add_test(formatter, says_a_message_argument_in_the_same_language);
    tcase_add_test(formatter, cuts_texts_and_the_buffer);
    tcase_add_test(formatter, keeps_a_clause_whole);
    tcase_add_test(formatter, leaves_a_place_without_argument_as_it_stands);
    tcase_add_test(formatter, errors_carry_both_languages);
    tcase_add_test(formatter, tags_name_the_languages);
    suite_add_tcase(suite, formatter);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(messages_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
