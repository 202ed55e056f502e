/*
 * The cards' limits: what each GPU model runs by its compute capability
 * (bf16, FlashAttention 2, each quantisation kernel, an FP8 KV cache), and
 * how sizing and the recommendation use it (bf16 served as fp16, a card
 * without the kernel rejected with the reason), and the model's context
 * limit (max_position_embeddings), on the seed's catalog.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "core/recommend.h"
#include "core/sizing.h"
#include "core/fixture_catalog.h"

#define NOW 1767225600 /* 2026-01-01 */

static struct catalog *catalog;
static struct recommend_result *result;

static void setup(void)
{
    catalog = fixture_catalog_new();
    result = malloc(sizeof *result);
    ck_assert_ptr_nonnull(result);
}

static void teardown(void)
{
    catalog_free(catalog);
    free(result);
    catalog = NULL;
    result = NULL;
}

static const struct gpu_model *gpu(int index)
{
    return &catalog->models[index];
}

/* ---- the table ------------------------------------------------------------- */

struct feature_case {
    int model; /* FIXTURE_* */
    enum gpu_feature feature;
    bool supported;
};

/* V100 is 7.0, T4 7.5 (migration 0018); the minima are vLLM's and the
 * attention libraries' (docs/sizing.md, "The cards' limits"). */
static const struct feature_case feature_cases[] = {
    {FIXTURE_V100_16G, GPU_FEATURE_BF16, false},
    {FIXTURE_V100_16G, GPU_FEATURE_FLASH_ATTENTION_2, false},
    {FIXTURE_V100_16G, GPU_FEATURE_MEMORY_EFFICIENT_ATTENTION, true},
    {FIXTURE_V100_16G, GPU_FEATURE_GPTQ, true},
    {FIXTURE_V100_16G, GPU_FEATURE_AWQ, false},
    {FIXTURE_V100_16G, GPU_FEATURE_MARLIN, false},
    {FIXTURE_V100_16G, GPU_FEATURE_BITSANDBYTES, true},
    {FIXTURE_V100_16G, GPU_FEATURE_W8A8_INT8, false},
    {FIXTURE_V100_16G, GPU_FEATURE_W8A8_FP8, false},
    {FIXTURE_V100_16G, GPU_FEATURE_FP8_KV_CACHE, false},
    {FIXTURE_T4_16G, GPU_FEATURE_BF16, false},
    {FIXTURE_T4_16G, GPU_FEATURE_FLASH_ATTENTION_2, false},
    {FIXTURE_T4_16G, GPU_FEATURE_AWQ, true},
    {FIXTURE_T4_16G, GPU_FEATURE_MARLIN, false},
    {FIXTURE_T4_16G, GPU_FEATURE_W8A8_INT8, true},
    {FIXTURE_T4_16G, GPU_FEATURE_W8A8_FP8, false},
    {FIXTURE_T4_16G, GPU_FEATURE_FP8_KV_CACHE, false},
};

START_TEST(test_features_follow_compute_capability)
{
    const struct feature_case *c = &feature_cases[_i];
    ck_assert_msg(gpu_model_supports(gpu(c->model), c->feature) == c->supported, "%s %s",
                  gpu(c->model)->id, gpu_feature_id(c->feature));
}
END_TEST

/* An A100 (8.0) runs bf16, FlashAttention 2 and Marlin, not FP8; an L40S
 * (8.9) an FP8 KV cache too. */
START_TEST(test_newer_cards)
{
    struct gpu_model card = *gpu(FIXTURE_V100_16G);
    card.compute_capability = 80;
    ck_assert(gpu_model_supports(&card, GPU_FEATURE_BF16));
    ck_assert(gpu_model_supports(&card, GPU_FEATURE_FLASH_ATTENTION_2));
    ck_assert(gpu_model_supports(&card, GPU_FEATURE_MARLIN));
    ck_assert(!gpu_model_supports(&card, GPU_FEATURE_FP8_KV_CACHE));
    card.compute_capability = 89;
    ck_assert(gpu_model_supports(&card, GPU_FEATURE_FP8_KV_CACHE));
    ck_assert(gpu_model_supports(&card, GPU_FEATURE_W8A8_FP8));
}
END_TEST

/* A card whose capability is not known: bf16 by its BF16 peak, the
 * kernels taken as present. */
START_TEST(test_unknown_capability)
{
    struct gpu_model card = *gpu(FIXTURE_V100_16G);
    card.compute_capability = 0;
    ck_assert(!gpu_model_supports(&card, GPU_FEATURE_BF16));
    ck_assert(gpu_model_supports(&card, GPU_FEATURE_AWQ));
    card.bf16_tflops = 312.0;
    ck_assert(gpu_model_supports(&card, GPU_FEATURE_BF16));
}
END_TEST

/* ---- sizing ---------------------------------------------------------------- */

static struct sizing_estimate estimate(const struct sizing_workload *workload)
{
    struct sizing_estimate e;
    struct gq_error err;
    gq_error_clear(&err);
    ck_assert_int_eq(sizing_estimate_workload(workload, catalog, NULL, &e, &err), GQ_OK);
    return e;
}

/* bf16 serving on a T4 runs at its FP16 peak, 65 TFLOPS, not the FP32
 * 8.1 the training fallback takes. */
START_TEST(test_bf16_serving_runs_as_fp16)
{
    struct sizing_workload w = {
        .task = SIZING_TASK_INFERENCE, .model = "qwen2.5-7b", .precision = SIZING_PRECISION_BF16};
    struct sizing_estimate e = estimate(&w);
    ck_assert(sizing_bf16_served_as_fp16(&e, gpu(FIXTURE_T4_16G)));
    ck_assert(!sizing_bf16_without_tensor_cores(&e, gpu(FIXTURE_T4_16G)));
    ck_assert_int_eq(sizing_precision_on(&e, gpu(FIXTURE_T4_16G)), SIZING_PRECISION_FP16);
    ck_assert_double_eq(sizing_peak_tflops(&e, gpu(FIXTURE_T4_16G)), 65.0);
    w.task = SIZING_TASK_FINETUNE;
    w.tokens_b = 1;
    e = estimate(&w);
    ck_assert_double_eq(sizing_peak_tflops(&e, gpu(FIXTURE_T4_16G)), 8.1);
}
END_TEST

struct kernel_case {
    enum sizing_quant_method method;
    enum sizing_precision precision;
    enum sizing_kv_precision kv;
    int model; /* FIXTURE_* */
    bool lacks;
    enum gpu_feature missing;
};

static const struct kernel_case kernel_cases[] = {
    {SIZING_QUANT_AWQ, SIZING_PRECISION_INT4, SIZING_KV_DEFAULT, FIXTURE_V100_16G, true,
     GPU_FEATURE_AWQ},
    {SIZING_QUANT_AWQ, SIZING_PRECISION_INT4, SIZING_KV_DEFAULT, FIXTURE_T4_16G, false, 0},
    {SIZING_QUANT_GPTQ, SIZING_PRECISION_INT4, SIZING_KV_DEFAULT, FIXTURE_V100_16G, false, 0},
    {SIZING_QUANT_W8A8, SIZING_PRECISION_INT8, SIZING_KV_DEFAULT, FIXTURE_V100_16G, true,
     GPU_FEATURE_W8A8_INT8},
    {SIZING_QUANT_W8A8, SIZING_PRECISION_INT8, SIZING_KV_DEFAULT, FIXTURE_T4_16G, false, 0},
    {SIZING_QUANT_BITSANDBYTES_NF4, SIZING_PRECISION_INT4, SIZING_KV_DEFAULT, FIXTURE_V100_16G,
     false, 0},
    {SIZING_QUANT_DEFAULT, SIZING_PRECISION_FP16, SIZING_KV_FP8, FIXTURE_T4_16G, true,
     GPU_FEATURE_FP8_KV_CACHE},
    {SIZING_QUANT_DEFAULT, SIZING_PRECISION_FP16, SIZING_KV_INT8, FIXTURE_T4_16G, false, 0},
    {SIZING_QUANT_DEFAULT, SIZING_PRECISION_INT4, SIZING_KV_DEFAULT, FIXTURE_V100_16G, false, 0},
};

START_TEST(test_kernels_a_card_lacks)
{
    const struct kernel_case *c = &kernel_cases[_i];
    struct sizing_workload w = {.task = SIZING_TASK_INFERENCE,
                                .model = "qwen2.5-14b",
                                .precision = c->precision,
                                .kv_precision = c->kv};
    w.quantization.method = c->method;
    struct sizing_estimate e = estimate(&w);
    enum gpu_feature missing = GPU_FEATURE_COUNT;
    ck_assert_int_eq(sizing_gpu_lacks_feature(&e, gpu(c->model), &missing), c->lacks);
    if (c->lacks)
        ck_assert_str_eq(gpu_feature_id(missing), gpu_feature_id(c->missing));
}
END_TEST

/* Llama-2 has 4,096 positions: a context or a training sequence past them
 * is refused, naming the field and the limit; at the limit it is not. */
START_TEST(test_context_past_max_position_embeddings)
{
    struct sizing_workload w = {.task = SIZING_TASK_INFERENCE,
                                .model = "llama-2-7b",
                                .precision = SIZING_PRECISION_FP16,
                                .context_tokens = 1048576};
    struct sizing_estimate e;
    struct gq_error err;
    gq_error_clear(&err);
    ck_assert_int_eq(sizing_estimate_workload(&w, catalog, NULL, &e, &err), GQ_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(err.field, "workload.context_tokens");
    ck_assert_str_eq(err.message, "context_tokens 1048576 is past Llama-2 7B's "
                                  "max_position_embeddings, 4096 tokens");
    w.context_tokens = 4096;
    ck_assert_int_eq(sizing_estimate_workload(&w, catalog, NULL, &e, &err), GQ_OK);
    struct sizing_workload lora = {.task = SIZING_TASK_LORA,
                                   .model = "llama-2-7b",
                                   .precision = SIZING_PRECISION_FP16,
                                   .sequence_length = 8192};
    gq_error_clear(&err);
    ck_assert_int_eq(sizing_estimate_workload(&lora, catalog, NULL, &e, &err), GQ_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(err.field, "workload.sequence_length");
    /* Llama-3 8B has 8,192. */
    lora.model = "llama-3-8b";
    ck_assert_int_eq(sizing_estimate_workload(&lora, catalog, NULL, &e, &err), GQ_OK);
}
END_TEST

/* ---- the recommendation ---------------------------------------------------- */

static void run(const struct sizing_workload *workload, int32_t concurrent)
{
    struct recommend_request request;
    recommend_request_init(&request);
    request.workload = *workload;
    request.workload.concurrent_requests = concurrent;
    request.limit = RECOMMEND_MAX_LIMIT;
    struct gq_error err;
    gq_error_clear(&err);
    ck_assert_int_eq(recommend_run(catalog, &request, NOW, result, &err), GQ_OK);
}

static const struct recommend_rejection *rejection_of(const char *sku_id)
{
    for (int i = 0; i < result->n_rejected; i++)
        if (strcmp(result->rejected[i].sku->id, sku_id) == 0)
            return &result->rejected[i];
    return NULL;
}

/* Qwen2.5-14B in AWQ int4: vLLM's AWQ kernel needs 7.5, so no V100 serves
 * it, each V100 SKU is rejected saying so, and a T4 does. */
START_TEST(test_awq_serving_skips_v100)
{
    struct sizing_workload w = {
        .task = SIZING_TASK_INFERENCE, .model = "qwen2.5-14b", .precision = SIZING_PRECISION_INT4};
    w.quantization.method = SIZING_QUANT_AWQ;
    run(&w, 4);
    ck_assert_int_gt(result->n_recommendations, 0);
    for (int i = 0; i < result->n_recommendations; i++)
        ck_assert_str_eq(result->recommendations[i].sku->gpu->id, "t4-16g");
    const struct recommend_rejection *r = rejection_of("v100-16g-x1");
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(recommend_reject_reason_id(r->reason), "unsupported_feature");
    ck_assert_str_eq(r->detail, "AWQ kernels need compute capability 7.5; V100 has 7.0");
    ck_assert_uint_eq(result->rejected_by_reason[RECOMMEND_REJECT_UNSUPPORTED_FEATURE], 4);
    /* GPTQ has a kernel on V100: the same workload may use one. */
    w.quantization.method = SIZING_QUANT_GPTQ;
    run(&w, 4);
    ck_assert_uint_eq(result->rejected_by_reason[RECOMMEND_REJECT_UNSUPPORTED_FEATURE], 0);
    ck_assert_str_eq(result->recommendations[0].sku->gpu->name, "V100");
}
END_TEST

/* An FP8 KV cache needs 8.9: no card of the seed has it, so nothing is
 * recommended and the hint names the limit. */
START_TEST(test_fp8_kv_cache_nothing_fits)
{
    struct sizing_workload w = {.task = SIZING_TASK_INFERENCE,
                                .model = "qwen2.5-7b",
                                .precision = SIZING_PRECISION_FP16,
                                .kv_precision = SIZING_KV_FP8};
    run(&w, 4);
    ck_assert_int_eq(result->n_recommendations, 0);
    ck_assert_uint_eq(result->rejected_by_reason[RECOMMEND_REJECT_UNSUPPORTED_FEATURE],
                      FIXTURE_SEED_SKU_COUNT);
    ck_assert_str_eq(rejection_of("t4-16g-x1")->detail,
                     "FP8 KV cache kernels need compute capability 8.9; T4 has 7.5");
    ck_assert_msg(strncmp(result->hint,
                          "FP8 KV cache kernels need compute capability 8.9 or newer, which no "
                          "card that holds the workload has",
                          strlen("FP8 KV cache kernels need compute capability 8.9 or newer")) == 0,
                  "hint: %s", result->hint);
}
END_TEST

Suite *card_limits_suite(void);
Suite *card_limits_suite(void)
{
    Suite *suite = suite_create("card_limits");
    TCase *table = tcase_create("table");
    tcase_add_checked_fixture(table, setup, teardown);
    tcase_add_loop_test(table, test_features_follow_compute_capability, 0,
                        sizeof feature_cases / sizeof feature_cases[0]);
    tcase_add_test(table, test_newer_cards);
    tcase_add_test(table, test_unknown_capability);
    suite_add_tcase(suite, table);

    TCase *sizing = tcase_create("sizing");
    tcase_add_checked_fixture(sizing, setup, teardown);
    tcase_add_test(sizing, test_bf16_serving_runs_as_fp16);
    tcase_add_loop_test(sizing, test_kernels_a_card_lacks, 0,
                        sizeof kernel_cases / sizeof kernel_cases[0]);
    tcase_add_test(sizing, test_context_past_max_position_embeddings);
    suite_add_tcase(suite, sizing);

    TCase *recommend = tcase_create("recommend");
    tcase_add_checked_fixture(recommend, setup, teardown);
    tcase_add_test(recommend, test_awq_serving_skips_v100);
    tcase_add_test(recommend, test_fp8_kv_cache_nothing_fits);
    suite_add_tcase(suite, recommend);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(card_limits_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
