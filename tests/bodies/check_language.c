/*
 * Accept-Language: which language a field value chooses, weights and
 * ranges as browsers and clients send them.
 */
#include <check.h>
#include <stdlib.h>

#include "codec/bodies.h"

static const struct {
    const char *header; /* NULL: none sent */
    enum gq_lang want;
} cases[] = {
    {NULL, GQ_LANG_EN},
    {"", GQ_LANG_EN},
    {"zh", GQ_LANG_ZH_CN},
    {"zh-CN", GQ_LANG_ZH_CN},
    {"zh-cn", GQ_LANG_ZH_CN},
    {"ZH-Hans", GQ_LANG_ZH_CN},
    {"zh-Hans-CN", GQ_LANG_ZH_CN},
    {"zh-SG", GQ_LANG_ZH_CN},
    {"en", GQ_LANG_EN},
    {"en-US", GQ_LANG_EN},
    {"fr", GQ_LANG_EN},    /* nothing we speak: the default */
    {"zh-TW", GQ_LANG_EN}, /* Traditional Chinese: not ours */
    {"zh-Hant-HK, en;q=0.1", GQ_LANG_EN},
    {"zhx", GQ_LANG_EN}, /* not the subtag zh */
    /* Chrome with Chinese first, as it sends it */
    {"zh-CN,zh;q=0.9,en;q=0.8", GQ_LANG_ZH_CN},
    {"en-US,en;q=0.9,zh-CN;q=0.8", GQ_LANG_EN},
    /* the weight decides, not the order */
    {"en;q=0.5, zh;q=0.8", GQ_LANG_ZH_CN},
    {"fr, en;q=0.2, zh-CN;q=0.3", GQ_LANG_ZH_CN},
    {"zh;q=0.800, en;q=0.8", GQ_LANG_ZH_CN}, /* equal: the first listed */
    {"en;q=1.0, zh", GQ_LANG_EN},
    /* q=0 is "not this one" */
    {"zh;q=0", GQ_LANG_EN},
    {"zh;q=0, *", GQ_LANG_EN},
    {"en;q=0, *", GQ_LANG_ZH_CN},
    {"en;q=0, zh;q=0.1", GQ_LANG_ZH_CN},
    {"*", GQ_LANG_EN},
    {"*;q=0.5, zh;q=0.4", GQ_LANG_EN},
    {"*;q=0.3, zh;q=0.4", GQ_LANG_ZH_CN},
    /* a language listed twice keeps its first weight */
    {"zh;q=0.1, en;q=0.5, zh", GQ_LANG_EN},
    /* malformed elements are skipped, the rest read */
    {"zh;q=2, en;q=0.1", GQ_LANG_EN},
    {"zh;q=abc, en;q=0.1", GQ_LANG_EN},
    {"zh;q=0.12345, en;q=0.1", GQ_LANG_EN},
    {",,  , zh ;  q=0.7 ,", GQ_LANG_ZH_CN},
    {"en;level=1;q=0.2, zh;q=0.1", GQ_LANG_EN}, /* other parameters ignored */
    {"zh-CN;Q=0.9, en;q=0.5", GQ_LANG_ZH_CN},
};

START_TEST(chooses_the_language)
{
    ck_assert_msg(language_negotiate(cases[_i].header) == cases[_i].want, "'%s' chose %s",
                  cases[_i].header ? cases[_i].header : "(none)",
                  gq_lang_tag(language_negotiate(cases[_i].header)));
}
END_TEST

/* Two Accept-Language lines are one list: "en;q=0.5" then "zh;q=0.9". */
START_TEST(reads_several_lines_as_one_list)
{
    struct language_choice choice;
    language_choice_init(&choice);
    language_choice_add(&choice, "en;q=0.5");
    language_choice_add(&choice, "zh;q=0.9");
    ck_assert_str_eq(gq_lang_tag(language_choice_result(&choice)), "zh-CN");
    language_choice_init(&choice);
    language_choice_add(&choice, "zh;q=0");
    language_choice_add(&choice, NULL);
    language_choice_add(&choice, "zh-CN");
    ck_assert_str_eq(gq_lang_tag(language_choice_result(&choice)), "en"); /* refused first */
}
END_TEST

static Suite *language_suite(void)
{
    Suite *suite = suite_create("language");
    TCase *tc = tcase_create("accept_language");
    tcase_add_loop_test(tc, chooses_the_language, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, reads_several_lines_as_one_list);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(language_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
