/*
 * The catalog's bodies (src/codec/catalog_render.c) when memory runs out:
 * jansson's allocator is made to fail at the n-th allocation, for every n
 * up to the number a whole body needs, and each render must then be NULL
 * or the whole body, never one with a member missing (the snapshot would
 * publish it until the next reload).
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "codec/bodies.h"
#include "fuzz/fuzz.h"

static struct catalog *catalog;

/* The first SKU gets a host and Chinese texts, so that every member a
 * body can have is rendered. */
static void setup(void)
{
    catalog = fuzz_catalog_new();
    struct sku *sku = &catalog->skus[0];
    sku->text[GQ_LANG_ZH_CN].name = strdup("V100 16GB 单卡");
    sku->text[GQ_LANG_ZH_CN].description = strdup("单张 NVIDIA V100");
    if (sku->host == NULL) /* the fixture gives it one with its network's bandwidth */
        sku->host = calloc(1, sizeof *sku->host);
    ck_assert_ptr_nonnull(sku->host);
    sku->host->instance_type = strdup("ecs.gn6v-c8g1.2xlarge");
    sku->host->region_id = strdup("cn-hangzhou");
    sku->host->region_name[GQ_LANG_ZH_CN] = strdup("华东1（杭州）");
    sku->host->software = strdup("CUDA,PyTorch");
    sku->host->vcpus = 8;
    sku->host->memory_gib = 32;
    catalog->bundles_text[GQ_LANG_ZH_CN].name = strdup("套餐礼包");
}

static void teardown(void)
{
    catalog_free(catalog);
}

/* ---- an allocator that fails on demand ------------------------------- */

static long allocation_to_fail; /* counted from 0; -1: none */
static long allocations_made;

static void *failing_malloc(size_t size)
{
    return allocations_made++ == allocation_to_fail ? NULL : malloc(size);
}

/* Makes jansson's n-th allocation from now (counted from 0) fail, and only
 * that one, as when memory is short for a moment; -1: none fails. */
static void fail_allocation(long n)
{
    allocation_to_fail = n;
    allocations_made = 0;
    json_set_alloc_funcs(failing_malloc, free);
}

/* ---- the renders ------------------------------------------------------ */

enum body { BODY_SKU, BODY_BILLING_MODES, BODY_BUNDLES, BODY_COUNT };

static enum gq_lang lang;

static json_t *render(enum body body)
{
    switch (body) {
    case BODY_SKU:
        return catalog_render_sku(catalog, &catalog->skus[0], lang);
    case BODY_BILLING_MODES:
        return catalog_render_billing_modes(catalog, lang);
    case BODY_BUNDLES:
    case BODY_COUNT:
        break;
    }
    return catalog_render_bundles(catalog, lang);
}

/* _i: every body in every language. */
START_TEST(render_is_whole_or_null_when_memory_runs_out)
{
    enum body body = (enum body)(_i % BODY_COUNT);
    lang = (enum gq_lang)(_i / BODY_COUNT);
    fail_allocation(-1);
    json_t *whole = render(body);
    long needed = allocations_made;
    ck_assert_ptr_nonnull(whole);
    ck_assert_int_gt(needed, 10);

    for (long n = 0; n < needed; n++) {
        fail_allocation(n);
        json_t *rendered = render(body);
        fail_allocation(-1);
        if (rendered != NULL) {
            char *text = json_dumps(rendered, JSON_COMPACT);
            ck_assert_msg(json_equal(rendered, whole), "allocation %ld failed: %s", n, text);
            free(text);
        }
        json_decref(rendered);
    }
    json_decref(whole);
}
END_TEST

static Suite *catalog_render_suite(void)
{
    Suite *suite = suite_create("catalog_render");
    TCase *tc = tcase_create("out_of_memory");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, render_is_whole_or_null_when_memory_runs_out, 0,
                        BODY_COUNT * GQ_LANG_COUNT);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(catalog_render_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
