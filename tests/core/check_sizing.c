/*
 * Sizing: memory, FLOPs, hours and replicas against figures worked out by
 * hand (docs/sizing.md shows the arithmetic), table-driven.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "core/sizing.h"
#include "core/fixture_catalog.h"

#define TOLERANCE 1e-9

static struct catalog *catalog;

static void setup(void)
{
    catalog = fixture_catalog_new();
}

static void teardown(void)
{
    catalog_free(catalog);
    catalog = NULL;
}

static const struct sku *sku(const char *id)
{
    const struct sku *found = catalog_find_sku(catalog, id);
    ck_assert_ptr_nonnull(found);
    return found;
}

static struct sizing_estimate estimate_of(enum sizing_task task, double params_b,
                                          enum sizing_precision precision, double tokens_b,
                                          double tokens_per_second)
{
    struct sizing_workload workload = {task, params_b, precision, tokens_b, tokens_per_second};
    struct sizing_estimate estimate;
    struct gq_error err;
    gq_error_clear(&err);
    ck_assert_int_eq(sizing_estimate_workload(&workload, NULL, &estimate, &err), GQ_OK);
    return estimate;
}

/* ---- memory ------------------------------------------------------------ */

struct memory_case {
    enum sizing_task task;
    double params_b; /* 0 = preset */
    enum sizing_precision precision;
    double expect_params_b;
    double weights_gb;
    double model_state_gb;
    double memory_gb;
};

static const struct memory_case memory_cases[] = {
    /* Inference: weights × 1.2. */
    {SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 7, 14.0, 14.0, 16.8},
    {SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_BF16, 7, 14.0, 14.0, 16.8},
    {SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP32, 7, 28.0, 28.0, 33.6},
    {SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_INT8, 7, 7.0, 7.0, 8.4},
    {SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_INT4, 7, 3.5, 3.5, 4.2},
    /* Full training: 16 bytes per parameter whatever the weights' width, + 20 %. */
    {SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 7, 14.0, 112.0, 134.4},
    {SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP32, 7, 28.0, 112.0, 134.4},
    {SIZING_TASK_PRETRAIN, 7, SIZING_PRECISION_BF16, 7, 14.0, 112.0, 134.4},
    {SIZING_TASK_LEARNING, 0.125, SIZING_PRECISION_FP16, 0.125, 0.25, 2.0, 2.4},
    /* LoRA: frozen weights + 1 % × 16 bytes, + 20 %. 7B: 14 + 1.12 = 15.12. */
    {SIZING_TASK_LORA, 7, SIZING_PRECISION_FP16, 7, 14.0, 15.12, 18.144},
    {SIZING_TASK_LORA, 7, SIZING_PRECISION_INT4, 7, 3.5, 4.62, 5.544},
    /* Presets. */
    {SIZING_TASK_LEARNING, 0, SIZING_PRECISION_FP16, 0.5, 1.0, 8.0, 9.6},
    {SIZING_TASK_INFERENCE, 0, SIZING_PRECISION_FP16, 6, 12.0, 12.0, 14.4},
    {SIZING_TASK_LORA, 0, SIZING_PRECISION_FP16, 7, 14.0, 15.12, 18.144},
    {SIZING_TASK_FINETUNE, 0, SIZING_PRECISION_FP16, 1.3, 2.6, 20.8, 24.96},
    {SIZING_TASK_PRETRAIN, 0, SIZING_PRECISION_BF16, 10, 20.0, 160.0, 192.0},
};

START_TEST(test_memory)
{
    const struct memory_case *c = &memory_cases[_i];
    struct sizing_estimate e = estimate_of(c->task, c->params_b, c->precision, 0, 0);
    ck_assert_int_eq(e.preset, c->params_b == 0);
    ck_assert_double_eq_tol(e.params_b, c->expect_params_b, TOLERANCE);
    ck_assert_double_eq_tol(e.weights_gb, c->weights_gb, TOLERANCE);
    ck_assert_double_eq_tol(e.model_state_gb, c->model_state_gb, TOLERANCE);
    ck_assert_double_eq_tol(e.memory_gb, c->memory_gb, TOLERANCE);
    ck_assert_double_eq_tol(e.allowance_gb, c->memory_gb - c->model_state_gb, TOLERANCE);
}
END_TEST

START_TEST(test_memory_fits_one_instance)
{
    struct sizing_estimate fp16 =
        estimate_of(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 0, 0);
    ck_assert(!sizing_fits(&fp16, sku("t4-16g-x1")));
    ck_assert(!sizing_fits(&fp16, sku("v100-16g-x1")));
    ck_assert(sizing_fits(&fp16, sku("v100-16g-x2")));
    struct sizing_estimate full = estimate_of(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1, 0);
    ck_assert(!sizing_fits(&full, sku("v100-32g-x4")));
    ck_assert(sizing_fits(&full, sku("v100-32g-x8")));
    /* Exactly full is a fit: 8B fp16 with no KV allowance is 16.0 GB. */
    struct sizing_workload exact = {SIZING_TASK_INFERENCE, 8, SIZING_PRECISION_FP16, 0, 0};
    struct sizing_assumptions a = {0};
    a.set[SIZING_KV_CACHE_ALLOWANCE] = true;
    struct sizing_estimate e;
    ck_assert_int_eq(sizing_estimate_workload(&exact, &a, &e, NULL), GQ_OK);
    ck_assert_double_eq_tol(e.memory_gb, 16.0, TOLERANCE);
    ck_assert(sizing_fits(&e, sku("v100-16g-x1")));
}
END_TEST

/* ---- compute ----------------------------------------------------------- */

struct flops_case {
    enum sizing_task task;
    double params_b;
    double tokens_b;
    double expect_tokens_b;
    double per_param_token;
    double flops;
};

static const struct flops_case flops_cases[] = {
    {SIZING_TASK_FINETUNE, 7, 1, 1, 6.0, 4.2e19},
    {SIZING_TASK_PRETRAIN, 7, 2, 2, 6.0, 8.4e19},
    /* LoRA: (4 + 6 × 0.01) · N · T. */
    {SIZING_TASK_LORA, 7, 0.1, 0.1, 4.06, 2.842e18},
    /* Presets: pretrain 10B × 20B tokens, finetune 1.3B × 1B, LoRA 7B × 0.1B. */
    {SIZING_TASK_PRETRAIN, 0, 0, 20, 6.0, 1.2e21},
    {SIZING_TASK_FINETUNE, 0, 0, 1, 6.0, 7.8e18},
    {SIZING_TASK_LORA, 0, 0, 0.1, 4.06, 2.842e18},
    /* A model given without tokens is a rental: no compute. */
    {SIZING_TASK_FINETUNE, 7, 0, 0, 0.0, 0.0},
    {SIZING_TASK_LEARNING, 0, 0, 0, 0.0, 0.0},
    {SIZING_TASK_INFERENCE, 7, 0, 0, 0.0, 0.0},
};

START_TEST(test_flops)
{
    const struct flops_case *c = &flops_cases[_i];
    struct sizing_estimate e =
        estimate_of(c->task, c->params_b, SIZING_PRECISION_FP16, c->tokens_b, 0);
    ck_assert_double_eq_tol(e.tokens_b, c->expect_tokens_b, TOLERANCE);
    ck_assert_double_eq_tol(e.flops_per_param_token, c->per_param_token, TOLERANCE);
    ck_assert_double_eq_tol(e.flops / 1e18, c->flops / 1e18, TOLERANCE);
}
END_TEST

struct hours_case {
    const char *sku;
    int32_t instances;
    double efficiency;
    double hours;
};

/* 1.3B on 1B tokens = 7.8e18 FLOPs; one V100 at 125 TFLOPS × 0.35 MFU does
 * 4.375e13 FLOP/s: 178285.71 s = 49.5238 h. */
#define ONE_V100_HOURS (7.8e18 / 4.375e13 / 3600.0)

static const struct hours_case hours_cases[] = {
    {"v100-16g-x1", 1, 1.0, ONE_V100_HOURS},
    {"v100-32g-x8", 1, 0.85, ONE_V100_HOURS / (8 * 0.85)},
    {"v100-16g-x2", 1, 0.85, ONE_V100_HOURS / (2 * 0.85)},
    {"v100-16g-x1", 8, 0.60, ONE_V100_HOURS / (8 * 0.60)},
    {"v100-32g-x8", 2, 0.85 * 0.60, ONE_V100_HOURS / (16 * 0.85 * 0.60)},
    {"t4-16g-x1", 1, 1.0, ONE_V100_HOURS * 125.0 / 65.0},
};

START_TEST(test_training_hours)
{
    const struct hours_case *c = &hours_cases[_i];
    struct sizing_estimate e = estimate_of(SIZING_TASK_FINETUNE, 1.3, SIZING_PRECISION_FP16, 1, 0);
    ck_assert_double_eq_tol(sizing_scaling_efficiency(&e, sku(c->sku), c->instances), c->efficiency,
                            TOLERANCE);
    ck_assert_double_eq_tol(sizing_training_hours(&e, sku(c->sku), c->instances), c->hours, 1e-6);
}
END_TEST

START_TEST(test_training_hours_one_vs_eight_cards)
{
    struct sizing_estimate e = estimate_of(SIZING_TASK_FINETUNE, 1.3, SIZING_PRECISION_FP16, 1, 0);
    double one = sizing_training_hours(&e, sku("v100-16g-x1"), 1);
    double eight = sizing_training_hours(&e, sku("v100-32g-x8"), 1);
    ck_assert_double_eq_tol(one, 49.5238095, 1e-6);
    ck_assert_double_eq_tol(eight, 7.2829132, 1e-6);
    /* Eight cards at 85 % are 6.8 times one card, not 8. */
    ck_assert_double_eq_tol(one / eight, 6.8, 1e-9);
}
END_TEST

/* The peak follows the precision training computes in: FP32 on the FP32
 * peak (V100 15.7, T4 8.1 TFLOPS), bf16 on a GPU without BF16 tensor cores
 * on it too, LoRA over int4 frozen weights in fp16. */
struct precision_case {
    enum sizing_task task;
    enum sizing_precision precision;
    const char *sku;
    double peak_tflops;
};

static const struct precision_case precision_cases[] = {
    {SIZING_TASK_FINETUNE, SIZING_PRECISION_FP16, "v100-16g-x1", 125.0},
    {SIZING_TASK_FINETUNE, SIZING_PRECISION_FP32, "v100-16g-x1", 15.7},
    {SIZING_TASK_FINETUNE, SIZING_PRECISION_BF16, "v100-16g-x1", 15.7},
    {SIZING_TASK_PRETRAIN, SIZING_PRECISION_FP32, "t4-16g-x1", 8.1},
    {SIZING_TASK_PRETRAIN, SIZING_PRECISION_BF16, "t4-16g-x1", 8.1},
    {SIZING_TASK_LORA, SIZING_PRECISION_INT4, "t4-16g-x1", 65.0},
    {SIZING_TASK_LORA, SIZING_PRECISION_INT8, "v100-16g-x1", 125.0},
    {SIZING_TASK_LORA, SIZING_PRECISION_FP32, "v100-16g-x1", 15.7},
};

START_TEST(test_training_peak_by_precision)
{
    const struct precision_case *c = &precision_cases[_i];
    struct sizing_estimate e = estimate_of(c->task, 1.3, c->precision, 1, 0);
    const struct sku *s = sku(c->sku);
    ck_assert_double_eq(sizing_peak_tflops(&e, s->gpu), c->peak_tflops);
    double expected = e.flops / (c->peak_tflops * 1e12 * 0.35) / 3600.0;
    ck_assert_double_eq_tol(sizing_training_hours(&e, s, 1), expected, 1e-6);
}
END_TEST

/* A GPU with BF16 tensor cores trains bf16 at that peak. */
START_TEST(test_bf16_tensor_peak_is_used_where_there_is_one)
{
    struct gpu_model *v100 = &catalog->models[FIXTURE_V100_16G];
    v100->bf16_tflops = 130.0;
    struct sizing_estimate e = estimate_of(SIZING_TASK_FINETUNE, 1.3, SIZING_PRECISION_BF16, 1, 0);
    ck_assert_double_eq(sizing_peak_tflops(&e, v100), 130.0);
    ck_assert_double_eq_tol(sizing_training_hours(&e, sku("v100-16g-x1"), 1),
                            ONE_V100_HOURS * 125.0 / 130.0, 1e-6);
    /* fp32 stays at the FP32 peak. */
    e = estimate_of(SIZING_TASK_FINETUNE, 1.3, SIZING_PRECISION_FP32, 1, 0);
    ck_assert_double_eq_tol(sizing_training_hours(&e, sku("v100-16g-x1"), 1),
                            ONE_V100_HOURS * 125.0 / 15.7, 1e-6);
}
END_TEST

START_TEST(test_no_compute_no_hours)
{
    struct sizing_estimate e = estimate_of(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 0, 0);
    ck_assert_double_eq(sizing_training_hours(&e, sku("v100-32g-x8"), 1), 0.0);
}
END_TEST

/* ---- inference throughput ---------------------------------------------- */

struct replica_case {
    enum sizing_precision precision;
    double params_b;
    double target;
    const char *sku;
    double replica_rate;
    int32_t replicas;
};

static const struct replica_case replica_cases[] = {
    /* int8 7B reads 7 GB a token: V100 900 × 0.6 / 7 = 77.14 tok/s. */
    {SIZING_PRECISION_INT8, 7, 100, "v100-16g-x1", 540.0 / 7.0, 2},
    /* T4 320 × 0.6 / 7 = 27.43 tok/s: 100 needs 4. */
    {SIZING_PRECISION_INT8, 7, 100, "t4-16g-x1", 192.0 / 7.0, 4},
    /* fp16 7B on two NVLink cards: 2 × 900 × 0.6 × 0.85 / 14 = 65.57 tok/s. */
    {SIZING_PRECISION_FP16, 7, 100, "v100-16g-x2", 918.0 / 14.0, 2},
    {SIZING_PRECISION_FP16, 7, 60, "v100-16g-x2", 918.0 / 14.0, 1},
    /* 5B fp16 = 10 GB: 54 tok/s exactly, so 54 needs 1 and 108 needs 2. */
    {SIZING_PRECISION_FP16, 5, 54, "v100-16g-x1", 54.0, 1},
    {SIZING_PRECISION_FP16, 5, 108, "v100-16g-x1", 54.0, 2},
    {SIZING_PRECISION_FP16, 5, 108.5, "v100-16g-x1", 54.0, 3},
    /* No target: one replica. */
    {SIZING_PRECISION_FP16, 5, 0, "v100-16g-x1", 54.0, 1},
};

START_TEST(test_replicas)
{
    const struct replica_case *c = &replica_cases[_i];
    struct sizing_estimate e =
        estimate_of(SIZING_TASK_INFERENCE, c->params_b, c->precision, 0, c->target);
    ck_assert_double_eq_tol(sizing_replica_tokens_per_second(&e, sku(c->sku)), c->replica_rate,
                            1e-9);
    ck_assert_int_eq(sizing_replicas_needed(&e, sku(c->sku)), c->replicas);
}
END_TEST

/* ---- assumptions and validation ---------------------------------------- */

START_TEST(test_assumption_defaults)
{
    double used[SIZING_ASSUMPTION_COUNT];
    ck_assert_int_eq(sizing_assumptions_resolve(NULL, used, NULL), GQ_OK);
    ck_assert_double_eq(used[SIZING_MFU], 0.35);
    ck_assert_double_eq(used[SIZING_MULTI_CARD_EFFICIENCY_NVLINK], 0.85);
    ck_assert_double_eq(used[SIZING_MULTI_CARD_EFFICIENCY_PCIE], 0.70);
    ck_assert_double_eq(used[SIZING_MULTI_INSTANCE_EFFICIENCY], 0.60);
    ck_assert_double_eq(used[SIZING_ACTIVATION_ALLOWANCE], 0.20);
    ck_assert_double_eq(used[SIZING_KV_CACHE_ALLOWANCE], 0.20);
    ck_assert_double_eq(used[SIZING_LORA_TRAINABLE_FRACTION], 0.01);
    ck_assert_double_eq(used[SIZING_DECODE_BANDWIDTH_EFFICIENCY], 0.60);
    ck_assert_double_eq(used[SIZING_MAX_INSTANCES], 8.0);
    for (int i = 0; i < SIZING_ASSUMPTION_COUNT; i++) {
        enum sizing_assumption parsed;
        ck_assert(
            sizing_assumption_parse(sizing_assumption_id((enum sizing_assumption)i), &parsed));
        ck_assert_int_eq(parsed, i);
        ck_assert_double_eq(sizing_assumption_default(parsed), used[i]);
    }
}
END_TEST

START_TEST(test_assumption_overrides_are_used_and_echoed)
{
    struct sizing_workload w = {SIZING_TASK_FINETUNE, 1.3, SIZING_PRECISION_FP16, 1, 0};
    struct sizing_assumptions a = {0};
    a.value[SIZING_MFU] = 0.4;
    a.set[SIZING_MFU] = true;
    a.value[SIZING_ACTIVATION_ALLOWANCE] = 0.5;
    a.set[SIZING_ACTIVATION_ALLOWANCE] = true;
    struct sizing_estimate e;
    ck_assert_int_eq(sizing_estimate_workload(&w, &a, &e, NULL), GQ_OK);
    ck_assert_double_eq(e.assumptions[SIZING_MFU], 0.4);
    ck_assert_double_eq(e.assumptions[SIZING_MULTI_CARD_EFFICIENCY_NVLINK], 0.85);
    ck_assert_double_eq_tol(e.memory_gb, 20.8 * 1.5, TOLERANCE);
    ck_assert_double_eq_tol(sizing_training_hours(&e, sku("v100-16g-x1"), 1),
                            ONE_V100_HOURS * 0.35 / 0.4, 1e-6);
}
END_TEST

struct bad_assumption_case {
    enum sizing_assumption which;
    double value;
    enum gq_code code;
    const char *field;
};

#define OUT_OF_RANGE GQ_ERR_OUT_OF_RANGE

static const struct bad_assumption_case bad_assumption_cases[] = {
    {SIZING_MFU, 0.0, OUT_OF_RANGE, "assumptions.mfu"},
    {SIZING_MFU, 1.01, OUT_OF_RANGE, "assumptions.mfu"},
    {SIZING_MFU, NAN, OUT_OF_RANGE, "assumptions.mfu"},
    /* Shares of a peak below 1 %: an "inf days" or 31-digit estimate. */
    {SIZING_MFU, 5e-324, OUT_OF_RANGE, "assumptions.mfu"},
    {SIZING_MFU, 1e-300, OUT_OF_RANGE, "assumptions.mfu"},
    {SIZING_MFU, 0.0099, OUT_OF_RANGE, "assumptions.mfu"},
    {SIZING_MULTI_CARD_EFFICIENCY_NVLINK, -0.5, OUT_OF_RANGE,
     "assumptions.multi_card_efficiency_nvlink"},
    {SIZING_MULTI_CARD_EFFICIENCY_NVLINK, 1e-300, OUT_OF_RANGE,
     "assumptions.multi_card_efficiency_nvlink"},
    {SIZING_MULTI_CARD_EFFICIENCY_PCIE, 2.0, OUT_OF_RANGE,
     "assumptions.multi_card_efficiency_pcie"},
    {SIZING_MULTI_CARD_EFFICIENCY_PCIE, 0.005, OUT_OF_RANGE,
     "assumptions.multi_card_efficiency_pcie"},
    {SIZING_MULTI_INSTANCE_EFFICIENCY, 0.0, OUT_OF_RANGE, "assumptions.multi_instance_efficiency"},
    {SIZING_MULTI_INSTANCE_EFFICIENCY, 1e-300, OUT_OF_RANGE,
     "assumptions.multi_instance_efficiency"},
    {SIZING_ACTIVATION_ALLOWANCE, -0.1, OUT_OF_RANGE, "assumptions.activation_allowance"},
    {SIZING_KV_CACHE_ALLOWANCE, INFINITY, OUT_OF_RANGE, "assumptions.kv_cache_allowance"},
    {SIZING_LORA_TRAINABLE_FRACTION, 0.0, OUT_OF_RANGE, "assumptions.lora_trainable_fraction"},
    {SIZING_DECODE_BANDWIDTH_EFFICIENCY, 1.5, OUT_OF_RANGE,
     "assumptions.decode_bandwidth_efficiency"},
    {SIZING_DECODE_BANDWIDTH_EFFICIENCY, 1e-300, OUT_OF_RANGE,
     "assumptions.decode_bandwidth_efficiency"},
    {SIZING_MAX_INSTANCES, 0.0, OUT_OF_RANGE, "assumptions.max_instances"},
    {SIZING_MAX_INSTANCES, 65.0, OUT_OF_RANGE, "assumptions.max_instances"},
    {SIZING_MAX_INSTANCES, 1e300, OUT_OF_RANGE, "assumptions.max_instances"},
    {SIZING_MAX_INSTANCES, INFINITY, OUT_OF_RANGE, "assumptions.max_instances"},
    /* A fraction where a whole number is required, in range or not. */
    {SIZING_MAX_INSTANCES, 2.5, GQ_ERR_INVALID_VALUE, "assumptions.max_instances"},
    {SIZING_MAX_INSTANCES, 64.5, GQ_ERR_INVALID_VALUE, "assumptions.max_instances"},
};

START_TEST(test_bad_assumption)
{
    const struct bad_assumption_case *c = &bad_assumption_cases[_i];
    struct sizing_workload w = {SIZING_TASK_FINETUNE, 1.3, SIZING_PRECISION_FP16, 1, 0};
    struct sizing_assumptions a = {0};
    a.value[c->which] = c->value;
    a.set[c->which] = true;
    struct sizing_estimate e;
    struct gq_error err;
    gq_error_clear(&err);
    ck_assert_int_eq(sizing_estimate_workload(&w, &a, &e, &err), c->code);
    ck_assert_int_eq(err.code, c->code);
    ck_assert_str_eq(err.field, c->field);
    ck_assert(strlen(err.message) > 0);
}
END_TEST

START_TEST(test_assumption_messages)
{
    struct sizing_assumptions a = {0};
    double used[SIZING_ASSUMPTION_COUNT];
    struct gq_error err;
    a.value[SIZING_MFU] = 1e-300;
    a.set[SIZING_MFU] = true;
    ck_assert_int_eq(sizing_assumptions_resolve(&a, used, &err), GQ_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(err.message, "assumptions.mfu must be at least 0.01 and at most 1");
    a.set[SIZING_MFU] = false;
    a.value[SIZING_MAX_INSTANCES] = 2.5;
    a.set[SIZING_MAX_INSTANCES] = true;
    ck_assert_int_eq(sizing_assumptions_resolve(&a, used, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_str_eq(err.message, "assumptions.max_instances must be a whole number");
}
END_TEST

START_TEST(test_boundary_assumptions_accepted)
{
    struct sizing_workload w = {SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 0, 0};
    struct sizing_assumptions a = {0};
    a.value[SIZING_MFU] = 1.0;
    a.value[SIZING_KV_CACHE_ALLOWANCE] = 0.0;
    a.value[SIZING_MAX_INSTANCES] = 64.0;
    a.value[SIZING_DECODE_BANDWIDTH_EFFICIENCY] = 0.01; /* the smallest share of a peak */
    a.set[SIZING_MFU] = a.set[SIZING_KV_CACHE_ALLOWANCE] = a.set[SIZING_MAX_INSTANCES] = true;
    a.set[SIZING_DECODE_BANDWIDTH_EFFICIENCY] = true;
    struct sizing_estimate e;
    ck_assert_int_eq(sizing_estimate_workload(&w, &a, &e, NULL), GQ_OK);
    ck_assert_double_eq_tol(e.memory_gb, 14.0, TOLERANCE);
    ck_assert_double_eq(e.assumptions[SIZING_MAX_INSTANCES], 64.0);
    ck_assert_double_eq(e.assumptions[SIZING_DECODE_BANDWIDTH_EFFICIENCY], 0.01);
}
END_TEST

struct bad_workload_case {
    struct sizing_workload workload;
    enum gq_code code;
    const char *field;
};

static const struct bad_workload_case bad_workload_cases[] = {
    {{SIZING_TASK_INFERENCE, -1, SIZING_PRECISION_FP16, 0, 0},
     GQ_ERR_OUT_OF_RANGE,
     "workload.model_params_b"},
    {{SIZING_TASK_INFERENCE, NAN, SIZING_PRECISION_FP16, 0, 0},
     GQ_ERR_OUT_OF_RANGE,
     "workload.model_params_b"},
    {{SIZING_TASK_INFERENCE, 1e6, SIZING_PRECISION_FP16, 0, 0},
     GQ_ERR_OUT_OF_RANGE,
     "workload.model_params_b"},
    {{SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, -2, 0},
     GQ_ERR_OUT_OF_RANGE,
     "workload.tokens_b"},
    {{SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 0, -1},
     GQ_ERR_OUT_OF_RANGE,
     "workload.tokens_per_second"},
    {{SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 1, 0},
     GQ_ERR_INVALID_VALUE,
     "workload.tokens_b"},
    {{SIZING_TASK_LEARNING, 0, SIZING_PRECISION_FP16, 1, 0},
     GQ_ERR_INVALID_VALUE,
     "workload.tokens_b"},
    {{SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1, 50},
     GQ_ERR_INVALID_VALUE,
     "workload.tokens_per_second"},
    {{SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_INT8, 1, 0},
     GQ_ERR_INVALID_VALUE,
     "workload.precision"},
    {{SIZING_TASK_PRETRAIN, 7, SIZING_PRECISION_INT4, 1, 0},
     GQ_ERR_INVALID_VALUE,
     "workload.precision"},
    {{SIZING_TASK_LEARNING, 0, SIZING_PRECISION_INT8, 0, 0},
     GQ_ERR_INVALID_VALUE,
     "workload.precision"},
    {{SIZING_TASK_COUNT, 7, SIZING_PRECISION_FP16, 0, 0}, GQ_ERR_INVALID_VALUE, "workload.task"},
    {{SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_COUNT, 0, 0},
     GQ_ERR_INVALID_VALUE,
     "workload.precision"},
};

START_TEST(test_bad_workload)
{
    const struct bad_workload_case *c = &bad_workload_cases[_i];
    struct sizing_estimate e;
    struct gq_error err;
    gq_error_clear(&err);
    ck_assert_int_eq(sizing_estimate_workload(&c->workload, NULL, &e, &err), c->code);
    ck_assert_str_eq(err.field, c->field);
}
END_TEST

START_TEST(test_lora_int8_is_allowed)
{
    /* QLoRA-style: int8 frozen weights train adapters. */
    struct sizing_estimate e = estimate_of(SIZING_TASK_LORA, 7, SIZING_PRECISION_INT8, 0.1, 0);
    ck_assert_double_eq_tol(e.memory_gb, (7.0 + 1.12) * 1.2, TOLERANCE);
    ck_assert_double_eq_tol(e.trainable_params_b, 0.07, TOLERANCE);
}
END_TEST

START_TEST(test_names_round_trip)
{
    for (int i = 0; i < SIZING_TASK_COUNT; i++) {
        enum sizing_task task;
        ck_assert(sizing_task_parse(sizing_task_id((enum sizing_task)i), &task));
        ck_assert_int_eq(task, i);
    }
    for (int i = 0; i < SIZING_PRECISION_COUNT; i++) {
        enum sizing_precision precision;
        ck_assert(
            sizing_precision_parse(sizing_precision_id((enum sizing_precision)i), &precision));
        ck_assert_int_eq(precision, i);
    }
    enum sizing_task task;
    ck_assert(!sizing_task_parse("training", &task));
    ck_assert(!sizing_task_parse(NULL, &task));
    ck_assert_str_eq(sizing_task_id(SIZING_TASK_COUNT), "unknown");
    ck_assert_double_eq(sizing_bytes_per_param(SIZING_PRECISION_INT4), 0.5);
    ck_assert_double_eq(sizing_bytes_per_param(SIZING_PRECISION_COUNT), 0.0);
}
END_TEST

#define TABLE_SIZE(table) ((int)(sizeof(table) / sizeof((table)[0])))

static Suite *sizing_suite(void)
{
    Suite *suite = suite_create("sizing");
    TCase *memory = tcase_create("memory");
    tcase_add_checked_fixture(memory, setup, teardown);
    tcase_add_loop_test(memory, test_memory, 0, TABLE_SIZE(memory_cases));
    tcase_add_test(memory, test_memory_fits_one_instance);
    tcase_add_test(memory, test_lora_int8_is_allowed);
    suite_add_tcase(suite, memory);

    TCase *compute = tcase_create("compute");
    tcase_add_checked_fixture(compute, setup, teardown);
    tcase_add_loop_test(compute, test_flops, 0, TABLE_SIZE(flops_cases));
    tcase_add_loop_test(compute, test_training_hours, 0, TABLE_SIZE(hours_cases));
    tcase_add_test(compute, test_training_hours_one_vs_eight_cards);
    tcase_add_loop_test(compute, test_training_peak_by_precision, 0, TABLE_SIZE(precision_cases));
    tcase_add_test(compute, test_bf16_tensor_peak_is_used_where_there_is_one);
    tcase_add_test(compute, test_no_compute_no_hours);
    tcase_add_loop_test(compute, test_replicas, 0, TABLE_SIZE(replica_cases));
    suite_add_tcase(suite, compute);

    TCase *input = tcase_create("input");
    tcase_add_checked_fixture(input, setup, teardown);
    tcase_add_test(input, test_assumption_defaults);
    tcase_add_test(input, test_assumption_overrides_are_used_and_echoed);
    tcase_add_loop_test(input, test_bad_assumption, 0, TABLE_SIZE(bad_assumption_cases));
    tcase_add_test(input, test_assumption_messages);
    tcase_add_test(input, test_boundary_assumptions_accepted);
    tcase_add_loop_test(input, test_bad_workload, 0, TABLE_SIZE(bad_workload_cases));
    tcase_add_test(input, test_names_round_trip);
    suite_add_tcase(suite, input);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(sizing_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
