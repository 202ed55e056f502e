/*
 * The three-way comparison of price-list documents: what a list drafted
 * from a base would undo of the list in effect, and its own changes merged
 * onto that list, field by field, with conflicts where both sides changed
 * the same field differently.
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "codec/price_list_merge.h"

/* A document of on-demand prices: "t4=990,v100=300" (fen). */
static json_t *prices(const char *spec)
{
    json_t *rows = json_array();
    char copy[128];
    strncpy(copy, spec, sizeof copy - 1);
    copy[sizeof copy - 1] = '\0';
    for (char *save = NULL, *part = strtok_r(copy, ",", &save); part != NULL;
         part = strtok_r(NULL, ",", &save)) {
        char *equals = strchr(part, '=');
        *equals = '\0';
        json_array_append_new(rows,
                              json_pack("{s:s, s:s, s:I}", "sku_id", part, "mode_id", "on_demand",
                                        "amount_fen", (json_int_t)atoll(equals + 1)));
    }
    return json_pack("{s:o, s:[]}", "sku_prices", rows, "billing_modes");
}

static json_int_t price_of(const json_t *document, const char *sku)
{
    size_t index;
    json_t *row;
    json_array_foreach(json_object_get(document, "sku_prices"), index, row)
    {
        if (strcmp(json_string_value(json_object_get(row, "sku_id")), sku) == 0)
            return json_integer_value(json_object_get(row, "amount_fen"));
    }
    return -1;
}

START_TEST(reverts_what_the_active_list_changed)
{
    json_t *base = prices("t4=990,v100=300"), *list = prices("t4=990,v100=250"),
           *active = prices("t4=880,v100=300");
    json_t *reverts = price_list_merge_reverts(base, list, active);
    ck_assert_uint_eq(json_array_size(reverts), 1);
    json_t *entry = json_array_get(reverts, 0);
    ck_assert_str_eq(json_string_value(json_object_get(entry, "entity")), "price");
    ck_assert_str_eq(json_string_value(json_object_get(entry, "id")), "t4/on_demand");
    ck_assert_str_eq(json_string_value(json_object_get(entry, "field")), "amount_fen");
    ck_assert_int_eq(json_integer_value(json_object_get(entry, "now")), 880);
    ck_assert_int_eq(json_integer_value(json_object_get(entry, "reverted_to")), 990);
    json_decref(reverts);
    /* a list that carries the change reverts nothing */
    json_t *carried = prices("t4=880,v100=250");
    reverts = price_list_merge_reverts(base, carried, active);
    ck_assert_uint_eq(json_array_size(reverts), 0);
    json_decref(reverts);
    json_decref(carried);
    json_decref(base);
    json_decref(list);
    json_decref(active);
}
END_TEST

START_TEST(reverts_a_row_the_active_list_added)
{
    json_t *base = prices("t4=990"), *list = prices("t4=990"), *active = prices("t4=990,a10=500");
    json_t *reverts = price_list_merge_reverts(base, list, active);
    ck_assert_uint_eq(json_array_size(reverts), 1);
    ck_assert(json_is_null(json_object_get(json_array_get(reverts, 0), "field")));
    ck_assert(json_is_null(json_object_get(json_array_get(reverts, 0), "reverted_to")));
    json_decref(reverts);
    json_decref(base);
    json_decref(list);
    json_decref(active);
}
END_TEST

START_TEST(merges_both_sides_changes)
{
    json_t *base = prices("t4=990,v100=300,p40=400"), *list = prices("t4=990,v100=250,a10=500"),
           *active = prices("t4=880,v100=300,p40=400");
    json_t *merged, *conflicts;
    ck_assert(price_list_merge(base, list, active, &merged, &conflicts));
    ck_assert_uint_eq(json_array_size(conflicts), 0);
    ck_assert_ptr_nonnull(merged);
    ck_assert_int_eq(price_of(merged, "t4"), 880);   /* the active list's */
    ck_assert_int_eq(price_of(merged, "v100"), 250); /* the list's own */
    ck_assert_int_eq(price_of(merged, "a10"), 500);  /* added by the list */
    ck_assert_int_eq(price_of(merged, "p40"), -1);   /* removed by the list */
    ck_assert_ptr_nonnull(json_object_get(merged, "billing_modes"));
    json_decref(merged);
    json_decref(conflicts);
    json_decref(base);
    json_decref(list);
    json_decref(active);
}
END_TEST

START_TEST(same_change_on_both_sides_is_no_conflict)
{
    json_t *base = prices("t4=990"), *list = prices("t4=880"), *active = prices("t4=880");
    json_t *merged, *conflicts;
    ck_assert(price_list_merge(base, list, active, &merged, &conflicts));
    ck_assert_uint_eq(json_array_size(conflicts), 0);
    ck_assert_int_eq(price_of(merged, "t4"), 880);
    json_decref(merged);
    json_decref(conflicts);
    json_decref(base);
    json_decref(list);
    json_decref(active);
}
END_TEST

START_TEST(different_changes_conflict_and_merge_nothing)
{
    json_t *base = prices("t4=990,v100=300"), *list = prices("t4=750,v100=250"),
           *active = prices("t4=880,v100=300");
    json_t *merged, *conflicts;
    ck_assert(price_list_merge(base, list, active, &merged, &conflicts));
    ck_assert_ptr_null(merged);
    ck_assert_uint_eq(json_array_size(conflicts), 1);
    json_t *entry = json_array_get(conflicts, 0);
    ck_assert_str_eq(json_string_value(json_object_get(entry, "id")), "t4/on_demand");
    ck_assert_int_eq(json_integer_value(json_object_get(entry, "base")), 990);
    ck_assert_int_eq(json_integer_value(json_object_get(entry, "list")), 750);
    ck_assert_int_eq(json_integer_value(json_object_get(entry, "active")), 880);
    json_decref(conflicts);
    /* deleted on one side, changed on the other */
    json_t *gone = prices("v100=300");
    ck_assert(price_list_merge(base, gone, active, &merged, &conflicts));
    ck_assert_ptr_null(merged);
    ck_assert_uint_eq(json_array_size(conflicts), 1);
    ck_assert(json_is_null(json_object_get(json_array_get(conflicts, 0), "field")));
    json_decref(conflicts);
    json_decref(gone);
    json_decref(base);
    json_decref(list);
    json_decref(active);
}
END_TEST

static Suite *merge_suite(void)
{
    Suite *suite = suite_create("price_list_merge");
    TCase *tc = tcase_create("merge");
    tcase_add_test(tc, reverts_what_the_active_list_changed);
    tcase_add_test(tc, reverts_a_row_the_active_list_added);
    tcase_add_test(tc, merges_both_sides_changes);
    tcase_add_test(tc, same_change_on_both_sides_is_no_conflict);
    tcase_add_test(tc, different_changes_conflict_and_merge_nothing);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(merge_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
