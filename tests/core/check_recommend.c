/*
 * Recommendation: the "must hold" cases on the seed catalog, exact
 * rejection texts, the no-fit answer, validation, and a randomized check
 * that every recommendation fits, keeps budget and deadline, and costs
 * exactly what quote_compute() says for the same SKU, quantity and usage.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "core/quote.h"
#include "core/recommend.h"
#include "core/fixture_catalog.h"

#define NOW 1767225600 /* 2026-01-01T00:00:00Z */

static struct catalog *catalog;
static struct recommend_result *result;
static struct quote_result *quote;

static void setup(void)
{
    catalog = fixture_catalog_new();
    result = malloc(sizeof *result);
    quote = quote_result_new(1);
    ck_assert_ptr_nonnull(result);
    ck_assert_ptr_nonnull(quote);
}

static void teardown(void)
{
    catalog_free(catalog);
    free(result);
    quote_result_free(quote);
}

static struct recommend_request request_for(enum sizing_task task, double params_b,
                                            enum sizing_precision precision, double tokens_b)
{
    struct recommend_request request;
    recommend_request_init(&request);
    request.workload.task = task;
    request.workload.model_params_b = params_b;
    request.workload.precision = precision;
    request.workload.tokens_b = tokens_b;
    return request;
}

static void run_ok(const struct recommend_request *request)
{
    struct gq_error err;
    gq_error_clear(&err);
    enum gq_code code = recommend_run(catalog, request, NOW, result, &err);
    ck_assert_msg(code == GQ_OK, "recommend_run: %s (%s)", err.message, err.field);
}

static const struct recommend_rejection *find_rejection(const char *sku_id)
{
    for (int i = 0; i < result->n_rejected; i++)
        if (strcmp(result->rejected[i].sku->id, sku_id) == 0)
            return &result->rejected[i];
    return NULL;
}

static const struct recommendation *find_recommendation(const char *sku_id)
{
    for (int i = 0; i < result->n_recommendations; i++)
        if (strcmp(result->recommendations[i].sku->id, sku_id) == 0)
            return &result->recommendations[i];
    return NULL;
}

static void assert_rejected(const char *sku_id, enum recommend_reject_reason reason,
                            const char *detail)
{
    const struct recommend_rejection *r = find_rejection(sku_id);
    ck_assert_msg(r != NULL, "%s is not rejected", sku_id);
    ck_assert_str_eq(recommend_reject_reason_id(r->reason), recommend_reject_reason_id(reason));
    if (detail != NULL)
        ck_assert_str_eq(r->detail, detail);
}

/* ---- billing modes the customer may not use ------------------------------- */

/* Blocks for enterprises only: an individual is recommended by the hour. */
START_TEST(test_recommends_only_modes_the_customer_may_use)
{
    catalog->modes[BILLING_MONTHLY].segment_mask = SEGMENT_BIT(SEGMENT_ENTERPRISE);
    catalog->modes[BILLING_QUARTERLY].segment_mask = SEGMENT_BIT(SEGMENT_ENTERPRISE);
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 0);
    request.millihours_per_day = 24000; /* where a month would be cheapest */
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 3);
    for (int i = 0; i < result->n_recommendations; i++)
        ck_assert_str_eq(result->recommendations[i].billing, "on_demand");
    request.segment = SEGMENT_ENTERPRISE;
    run_ok(&request);
    ck_assert_str_eq(result->recommendations[0].billing, "monthly");
}
END_TEST

/* No mode at all: every SKU that fits is rejected, saying why. */
START_TEST(test_sku_with_no_usable_mode_is_rejected_as_not_priced)
{
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        catalog->modes[m].segment_mask = SEGMENT_BIT(SEGMENT_ENTERPRISE);
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_INT8, 0);
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    assert_rejected("v100-16g-x1", RECOMMEND_REJECT_NOT_PRICED,
                    "cannot be priced: no billing mode of it is available to segment individual");
}
END_TEST

/* ---- the "must hold" ----------------------------------------------- */

START_TEST(test_7b_fp16_inference_needs_multi_card_v100)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 0);
    run_ok(&request);
    ck_assert_double_eq_tol(result->estimate.memory_gb, 16.8, 1e-9);
    ck_assert_int_eq(result->n_recommendations, 3);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-16g-x2");
    ck_assert_str_eq(first->sku->gpu->name, "V100");
    ck_assert_int_gt(first->sku->gpu_count, 1);
    ck_assert_int_eq(first->quantity, 1);
    ck_assert_str_eq(first->billing, "monthly");
    ck_assert_int_eq(first->total, 231100);
    for (int i = 0; i < result->n_recommendations; i++)
        ck_assert_int_gt(result->recommendations[i].sku->gpu_count, 1);
    assert_rejected("t4-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY, "needs 16.8 GB, has 16 GB");
    assert_rejected("v100-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 16.8 GB, has 16 GB");
    ck_assert_int_eq(result->n_rejected, 2);
    ck_assert_str_eq(result->hint, "");
    ck_assert_str_eq(first->reasons[0], "fits: needs 16.8 GB, has 32 GB across 2 cards");
    ck_assert_str_eq(first->reasons[2], "cheapest plan: 1 month, ¥2311.00 for 720.0 h");
}
END_TEST

START_TEST(test_7b_int8_inference_v100_beats_t4_on_cost)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_INT8, 0);
    request.limit = 5;
    run_ok(&request);
    ck_assert_double_eq_tol(result->estimate.memory_gb, 8.4, 1e-9);
    ck_assert_int_eq(result->n_recommendations, 5);
    ck_assert_int_eq(result->n_rejected, 0);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-16g-x1");
    ck_assert_int_eq(first->rank, 1);
    ck_assert_int_eq(first->total, 123100);
    const struct recommendation *t4 = find_recommendation("t4-16g-x1");
    ck_assert_ptr_nonnull(t4);
    ck_assert_int_lt(first->sku->price[BILLING_ON_DEMAND], t4->sku->price[BILLING_ON_DEMAND]);
    ck_assert_int_gt(t4->rank, first->rank);
    ck_assert_int_eq(t4->total, 535000);
}
END_TEST

START_TEST(test_learning_student_gets_v100_at_student_rate)
{
    struct recommend_request request =
        request_for(SIZING_TASK_LEARNING, 0, SIZING_PRECISION_FP16, 0);
    request.segment = SEGMENT_STUDENT;
    run_ok(&request);
    ck_assert(result->estimate.preset);
    ck_assert_int_eq(result->millihours_per_day, 8000);
    ck_assert_int_eq(result->days, 30);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-16g-x1");
    ck_assert_str_eq(first->billing, "student");
    ck_assert_int_eq(first->plan.n_parts, 1);
    ck_assert_int_eq(first->plan.parts[0].mode, BILLING_STUDENT);
    ck_assert_int_eq(first->total, 240 * 150); /* 8 h × 30 days at ¥1.50 */
    ck_assert_str_eq(first->reasons[2], "cheapest plan: the student rate, ¥360.00 for 240.0 h");
}
END_TEST

START_TEST(test_learning_individual_pays_on_demand)
{
    struct recommend_request request =
        request_for(SIZING_TASK_LEARNING, 0, SIZING_PRECISION_FP16, 0);
    run_ok(&request);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-16g-x1");
    ck_assert_str_eq(first->billing, "on_demand");
    ck_assert_int_eq(first->total, 240 * 228);
}
END_TEST

START_TEST(test_7b_full_finetune_needs_the_8_card_machine)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    run_ok(&request);
    ck_assert_double_eq_tol(result->estimate.model_state_gb, 112.0, 1e-9);
    ck_assert_double_eq_tol(result->estimate.memory_gb, 134.4, 1e-9);
    ck_assert_int_eq(result->n_recommendations, 1);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-32g-x8");
    ck_assert_int_eq(first->quantity, 1);
    assert_rejected("t4-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY, "needs 134.4 GB, has 16 GB");
    assert_rejected("v100-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 134.4 GB, has 16 GB");
    assert_rejected("v100-16g-x2", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 134.4 GB, has 32 GB across 2 cards");
    assert_rejected("v100-32g-x4", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 134.4 GB, has 128 GB across 4 cards");
    /* 4.2e19 FLOPs ÷ (8 × 125e12 × 0.35 × 0.85) = 39.216 h: two days of
     * 19.608 h, priced on demand: 39.216 h × ¥19.28 = ¥756.08. */
    ck_assert_double_eq_tol(first->estimated_hours, 4.2e19 / (8 * 125e12 * 0.35 * 0.85) / 3600,
                            1e-9);
    ck_assert_int_eq(first->usage.days, 2);
    ck_assert_int_eq(first->usage.millihours_per_day, 19608);
    ck_assert_int_eq(first->total, 75608);
    ck_assert_str_eq(first->reasons[1],
                     "39.2 h of training: 4.2e+19 FLOPs on 8 × 125 TFLOPS fp16 at "
                     "35% MFU × 85% scaling");
    ck_assert_str_eq(first->reasons[2], "cheapest plan: the on-demand rate, ¥756.08 for 39.2 h");
    ck_assert_str_eq(first->reasons[3], "finishes in 1.7 days at 24.0 h/day, no deadline");
}
END_TEST

/* The same fine-tune in fp32 runs at the V100's FP32 peak, 15.7 TFLOPS,
 * not its FP16 tensor peak: 8 times the hours; bf16, which V100 has no
 * tensor cores for, likewise, and the reason says why. */
START_TEST(test_7b_full_finetune_in_fp32_and_bf16_runs_at_the_fp32_peak)
{
    static const char *const reasons[] = {
        "312.2 h of training: 4.2e+19 FLOPs on 8 × 15.7 TFLOPS fp32 at 35% MFU × 85% scaling",
        "312.2 h of training: 4.2e+19 FLOPs on 8 × 15.7 TFLOPS fp32 (no BF16 tensor cores) at 35% "
        "MFU × 85% scaling",
    };
    const enum sizing_precision precisions[] = {SIZING_PRECISION_FP32, SIZING_PRECISION_BF16};
    struct recommend_request request = request_for(SIZING_TASK_FINETUNE, 7, precisions[_i], 1);
    run_ok(&request);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-32g-x8");
    ck_assert_double_eq_tol(first->estimated_hours, 4.2e19 / (8 * 15.7e12 * 0.35 * 0.85) / 3600,
                            1e-9);
    ck_assert_str_eq(first->reasons[1], reasons[_i]);
}
END_TEST

START_TEST(test_product_example)
{
    /* PRODUCT.md: "fine-tune a 7B model in fp16 on 2B tokens within 10
     * days, student, ≤ ¥3000". */
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 2);
    request.deadline_days = 10;
    request.segment = SEGMENT_STUDENT;
    request.budget = 300000;
    run_ok(&request);
    ck_assert_int_eq(result->millihours_per_day, 24000);
    ck_assert_int_eq(result->days, 0);
    ck_assert_int_eq(result->n_recommendations, 1);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-32g-x8");
    ck_assert_str_eq(first->billing, "student");
    /* 78.431 h over 4 days of 19.608 h at ¥12.68. */
    ck_assert_int_eq(first->usage.days, 4);
    ck_assert_int_eq(first->usage.millihours_per_day, 19608);
    ck_assert_int_eq(first->total, 99452);
    ck_assert_int_eq(first->n_reasons, 5);
    ck_assert_str_eq(first->reasons[2], "cheapest plan: the student rate, ¥994.52 for 78.4 h");
    ck_assert_str_eq(first->reasons[3], "finishes in 3.3 days at 24.0 h/day, deadline 10");
    ck_assert_str_eq(first->reasons[4], "within budget: ¥994.52 of ¥3000.00");
}
END_TEST

START_TEST(test_pretrain_preset_mixes_plans)
{
    struct recommend_request request =
        request_for(SIZING_TASK_PRETRAIN, 0, SIZING_PRECISION_FP16, 0);
    run_ok(&request);
    ck_assert(result->estimate.preset);
    ck_assert_double_eq_tol(result->estimate.flops, 1.2e21, 1e6);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-32g-x8");
    ck_assert_str_eq(first->billing, "mixed");
    ck_assert_int_eq(first->plan.n_parts, 2);
    ck_assert_int_eq(first->plan.parts[0].mode, BILLING_MONTHLY);
    ck_assert_int_eq(first->plan.parts[1].mode, BILLING_ON_DEMAND);
    ck_assert_str_eq(first->reasons[2], "cheapest plan: 1 month + 405.3 h at the on-demand rate, "
                                        "¥18224.80 for 1120.5 h");
}
END_TEST

START_TEST(test_time_objective_picks_more_cards_when_budget_allows)
{
    struct recommend_request request = request_for(SIZING_TASK_LORA, 7, SIZING_PRECISION_FP16, 1);
    run_ok(&request);
    struct recommendation cheapest = result->recommendations[0];
    request.objective = RECOMMEND_OBJECTIVE_TIME;
    request.budget = 1000000; /* ¥10,000: room for the fastest */
    run_ok(&request);
    struct recommendation fastest = result->recommendations[0];
    ck_assert_int_gt(fastest.cards, cheapest.cards);
    ck_assert_double_lt(fastest.estimated_hours, cheapest.estimated_hours);
    ck_assert_int_gt(fastest.total, cheapest.total);
    ck_assert_int_le(fastest.total, request.budget);
    for (int i = 1; i < result->n_recommendations; i++)
        ck_assert_double_le(result->recommendations[i - 1].estimated_hours,
                            result->recommendations[i].estimated_hours);
}
END_TEST

START_TEST(test_time_objective_respects_budget)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    request.objective = RECOMMEND_OBJECTIVE_TIME;
    run_ok(&request);
    ck_assert_int_eq(result->recommendations[0].quantity, 8);
    ck_assert_int_eq(result->recommendations[0].cards, 64);
    gq_money fastest_total = result->recommendations[0].total;
    request.budget = fastest_total - 1;
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 1);
    ck_assert_int_lt(result->recommendations[0].quantity, 8);
    ck_assert_int_le(result->recommendations[0].total, request.budget);
}
END_TEST

START_TEST(test_max_instances_override_caps_the_count)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    request.objective = RECOMMEND_OBJECTIVE_TIME;
    request.assumptions.value[SIZING_MAX_INSTANCES] = 2;
    request.assumptions.set[SIZING_MAX_INSTANCES] = true;
    run_ok(&request);
    ck_assert_int_eq(result->recommendations[0].quantity, 2);
    ck_assert_double_eq(result->estimate.assumptions[SIZING_MAX_INSTANCES], 2.0);
}
END_TEST

START_TEST(test_throughput_target_sets_replicas)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_INT8, 0);
    request.workload.tokens_per_second = 200;
    run_ok(&request);
    const struct recommendation *first = &result->recommendations[0];
    /* 900 GB/s × 0.6 ÷ 7 GB = 77.1 tok/s per V100: 3 replicas for 200. */
    ck_assert_str_eq(first->sku->id, "v100-16g-x1");
    ck_assert_int_eq(first->quantity, 3);
    ck_assert_int_eq(first->total, 3 * 123100);
    ck_assert_str_eq(first->reasons[1],
                     "serves 231.4 tok/s: 3 replicas × 77.1 tok/s (7.0 GB read per token)");
    ck_assert_str_eq(first->reasons[2],
                     "cheapest plan: 1 month per instance, ¥3693.00 for 3 × 720.0 h");
}
END_TEST

/* ---- rejections and the no-fit answer --------------------------------------- */

START_TEST(test_rejection_insufficient_throughput)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_INT8, 0);
    request.workload.tokens_per_second = 2000;
    run_ok(&request);
    assert_rejected("t4-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT,
                    "needs 73 replicas for 2000.0 tok/s at 27.4 tok/s each, max 8 instances");
    ck_assert_int_eq(result->rejected_by_reason[RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT], 3);
    ck_assert_str_eq(result->recommendations[0].sku->id, "v100-32g-x8");
    ck_assert_int_eq(result->recommendations[0].quantity, 4);
}
END_TEST

/* Four and five v100-16g-x2 cost the same 207.80 for the preset
 * fine-tune within a day; the cost ranking takes the faster five, and an
 * over-budget rejection names the same five. */
START_TEST(test_over_budget_names_what_the_ranking_would_take)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 0, SIZING_PRECISION_FP16, 0);
    request.deadline_days = 1;
    request.limit = 5;
    run_ok(&request);
    const struct recommendation *x2 = NULL;
    for (int i = 0; i < result->n_recommendations; i++)
        if (strcmp(result->recommendations[i].sku->id, "v100-16g-x2") == 0)
            x2 = &result->recommendations[i];
    ck_assert_ptr_nonnull(x2);
    ck_assert_int_eq(x2->quantity, 5);
    ck_assert_int_eq(x2->total, 20780);
    request.budget = 13000;
    run_ok(&request);
    assert_rejected("v100-16g-x2", RECOMMEND_REJECT_OVER_BUDGET,
                    "costs ¥207.80 at best (5 instances), budget ¥130.00");
}
END_TEST

START_TEST(test_rejection_over_budget_and_hint)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    request.budget = 50000;
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    ck_assert_int_eq(result->n_rejected, 5);
    ck_assert_int_eq(result->n_rejected_total, 5);
    /* The nearest miss comes first. */
    ck_assert_str_eq(result->rejected[0].sku->id, "v100-32g-x8");
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_OVER_BUDGET,
                    "costs ¥756.08 at best (1 instance), budget ¥500.00");
    ck_assert_str_eq(result->hint, "the cheapest configuration that meets every other limit is "
                                   "v100-32g-x8 × 1 at ¥756.08: raise the budget to at least "
                                   "that");
}
END_TEST

/* Amounts in the text are in the catalog's currency: "¥" only for CNY. */
START_TEST(test_texts_name_the_catalog_currency)
{
    free(catalog->currency);
    catalog->currency = strdup("USD");
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    request.budget = 50000;
    run_ok(&request);
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_OVER_BUDGET,
                    "costs 756.08 USD at best (1 instance), budget 500.00 USD");
}
END_TEST

START_TEST(test_rejection_misses_deadline)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    request.millihours_per_day = 1000; /* one hour a day */
    request.deadline_days = 5;
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    /* 8 × 8 cards at 0.85 × 0.6: 8.17 h, i.e. 8.2 days of one hour. */
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_MISSES_DEADLINE,
                    "takes 8.2 days with 8 instances, deadline 5");
    ck_assert_int_eq(result->rejected[0].quantity, 8);
    ck_assert_ptr_nonnull(strstr(result->hint, "v100-32g-x8 × 8, takes 8.2 days"));
}
END_TEST

/* The hint advises more instances only while max_instances is below its
 * limit. */
START_TEST(test_hint_advises_more_instances_below_the_limit)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    request.millihours_per_day = 1000;
    request.deadline_days = 5;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "the fastest configuration, v100-32g-x8 × 8, takes 8.2 days: "
                                   "extend deadline_days, raise assumptions.max_instances (now "
                                   "8, at most 64) or train on fewer tokens");
    request.assumptions.value[SIZING_MAX_INSTANCES] = SIZING_MAX_INSTANCES_LIMIT;
    request.assumptions.set[SIZING_MAX_INSTANCES] = true;
    request.deadline_days = 1;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "the fastest configuration, v100-32g-x8 × 64, takes 1.1 days: "
                                   "extend deadline_days or train on fewer tokens");

    request = request_for(SIZING_TASK_PRETRAIN, 10, SIZING_PRECISION_FP16, 20000);
    run_ok(&request);
    ck_assert_str_eq(result->hint,
                     "the fastest configuration, v100-32g-x8 × 8, takes 9726.2 days, past the "
                     "3650-day maximum rental: raise assumptions.max_instances (now 8, at most "
                     "64) or train on fewer tokens");
    request.assumptions.value[SIZING_MAX_INSTANCES] = SIZING_MAX_INSTANCES_LIMIT;
    request.assumptions.set[SIZING_MAX_INSTANCES] = true;
    request.workload.tokens_b = 200000;
    run_ok(&request);
    ck_assert_str_eq(result->hint,
                     "the fastest configuration, v100-32g-x8 × 64, takes 12157.7 days, past the "
                     "3650-day maximum rental: train on fewer tokens");

    /* More instances help a throughput only up to the limit. */
    request = request_for(SIZING_TASK_INFERENCE, 70, SIZING_PRECISION_INT8, 0);
    request.workload.tokens_per_second = 2000;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "2000.0 tok/s needs at least 39 replicas of v100-32g-x8: lower "
                                   "tokens_per_second, quantise to int4 or raise "
                                   "assumptions.max_instances (now 8, at most 64)");
    request.workload.tokens_per_second = 100000;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "100000.0 tok/s needs at least 1907 replicas of v100-32g-x8: "
                                   "lower tokens_per_second or quantise to int4");
    /* In int4 there is nothing narrower to quantise to. */
    request.workload.precision = SIZING_PRECISION_INT4;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "100000.0 tok/s needs at least 954 replicas of v100-32g-x8: "
                                   "lower tokens_per_second");
    request.workload.tokens_per_second = 2000;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "2000.0 tok/s needs at least 20 replicas of v100-32g-x8: lower "
                                   "tokens_per_second or raise assumptions.max_instances (now 8, "
                                   "at most 64)");
    request.workload.precision = SIZING_PRECISION_FP16;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "2000.0 tok/s needs at least 77 replicas of v100-32g-x8: lower "
                                   "tokens_per_second or quantise to int8 or int4");
}
END_TEST

/* When no instance holds the model, the advice names only what would
 * shrink it: a narrower precision than the one asked for, if any. */
START_TEST(test_memory_hint_suggests_only_narrower_precisions)
{
    static const struct {
        enum sizing_task task;
        enum sizing_precision precision;
        const char *advice;
    } cases[] = {
        {SIZING_TASK_INFERENCE, SIZING_PRECISION_FP16,
         "quantise to int8 or int4, or a smaller model"},
        {SIZING_TASK_INFERENCE, SIZING_PRECISION_INT8, "quantise to int4, or a smaller model"},
        {SIZING_TASK_INFERENCE, SIZING_PRECISION_INT4, "a smaller model"},
        {SIZING_TASK_LORA, SIZING_PRECISION_BF16,
         "quantise the frozen weights to int8 or int4, or a smaller model"},
        {SIZING_TASK_LORA, SIZING_PRECISION_INT4, "a smaller model"},
        {SIZING_TASK_FINETUNE, SIZING_PRECISION_FP16,
         "use lora instead of full training, or a smaller model"},
    };
    struct recommend_request request = request_for(cases[_i].task, 100000, cases[_i].precision, 0);
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    const char *advice = strstr(result->hint, "GB): ");
    ck_assert_msg(advice != NULL, "%s", result->hint);
    ck_assert_str_eq(advice + strlen("GB): "), cases[_i].advice);
}
END_TEST

/* A rental lasts its days on every SKU: a deadline before they are up is a
 * contradiction of the request, not a deadline every SKU misses (whose hint
 * would advise more instances or fewer tokens). */
START_TEST(test_rental_longer_than_deadline_is_refused)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_INT8, 0);
    request.days = 30;
    request.deadline_days = 10;
    struct gq_error err;
    gq_error_clear(&err);
    ck_assert_int_eq(recommend_run(catalog, &request, NOW, result, &err), GQ_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(err.field, "deadline_days");
    ck_assert_str_eq(err.message, "a 30-day rental cannot end within deadline_days 10: give "
                                  "deadline_days of at least 30, or fewer days");
    request.days = 0; /* the default rental is 30 days too */
    ck_assert_int_eq(recommend_run(catalog, &request, NOW, result, &err), GQ_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(err.field, "deadline_days");
    ck_assert_ptr_nonnull(strstr(err.message, "a 30-day rental (the default days)"));
}
END_TEST

START_TEST(test_rental_within_deadline_is_recommended)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_INT8, 0);
    request.days = 10;
    request.deadline_days = 10;
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 3);
    ck_assert_int_eq(result->rejected_by_reason[RECOMMEND_REJECT_MISSES_DEADLINE], 0);
    ck_assert_str_eq(result->recommendations[0].reasons[3], "runs 10 days, deadline 10");
}
END_TEST

/* Hours to a tenth, a half rounded up, as every figure the product rounds:
 * a rental's hours a day, for one day, read twice in its work reason. The
 * values a tenth apart in binary and in decimal (0.05, 0.25, 2.45) are those
 * half to even would print low; just below a tenth's half, two significant
 * digits. */
static const struct {
    int32_t millihours_per_day;
    const char *reason;
} tenth_cases[] = {
    {50, "0.1 h/day for 1 days: 0.1 h per instance"},
    {250, "0.3 h/day for 1 days: 0.3 h per instance"},
    {150, "0.2 h/day for 1 days: 0.2 h per instance"},
    {450, "0.5 h/day for 1 days: 0.5 h per instance"},
    {2450, "2.5 h/day for 1 days: 2.5 h per instance"},
    {950, "1.0 h/day for 1 days: 1.0 h per instance"},
    {9950, "10.0 h/day for 1 days: 10.0 h per instance"},
    {49, "0.049 h/day for 1 days: 0.049 h per instance"},
    {1, "0.001 h/day for 1 days: 0.001 h per instance"},
};

START_TEST(test_hours_round_half_up_to_a_tenth)
{
    struct recommend_request request =
        request_for(SIZING_TASK_LEARNING, 0, SIZING_PRECISION_FP16, 0);
    request.millihours_per_day = tenth_cases[_i].millihours_per_day;
    request.days = 1;
    run_ok(&request);
    ck_assert_int_ge(result->n_recommendations, 1);
    ck_assert_str_eq(result->recommendations[0].reasons[1], tenth_cases[_i].reason);
}
END_TEST

/* Every share of a peak at its smallest accepted value. */
static void set_peak_shares(struct recommend_request *request, double share)
{
    static const enum sizing_assumption shares[] = {
        SIZING_MFU, SIZING_MULTI_CARD_EFFICIENCY_NVLINK, SIZING_MULTI_CARD_EFFICIENCY_PCIE,
        SIZING_MULTI_INSTANCE_EFFICIENCY, SIZING_DECODE_BANDWIDTH_EFFICIENCY};
    for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++) {
        request->assumptions.value[shares[i]] = share;
        request->assumptions.set[shares[i]] = true;
    }
}

/* A replica count past sizing's INT32_MAX cap is stated as needed, and a
 * slow replica's rate is not rounded to 0.0. */
START_TEST(test_throughput_text_at_smallest_shares)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 100, SIZING_PRECISION_INT8, 0);
    request.workload.tokens_per_second = SIZING_MAX_TOKENS_PER_SECOND;
    set_peak_shares(&request, 0.01);
    run_ok(&request);
    /* 8 × 900 GB/s × 0.01 × 0.01 ÷ 100 GB = 0.0072 tok/s per replica. */
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT,
                    "needs 138888888889 replicas for 1000000000.0 tok/s at 0.0072 tok/s each, "
                    "max 8 instances");
}
END_TEST

/* Days far past what a double holds to a tenth read in three significant
 * digits, not as 17 digits of which the last are noise. */
START_TEST(test_days_far_past_max_rental_in_significant_digits)
{
    struct recommend_request request =
        request_for(SIZING_TASK_PRETRAIN, 13, SIZING_PRECISION_FP16, SIZING_MAX_TOKENS_B);
    request.millihours_per_day = 1;
    set_peak_shares(&request, 0.01);
    run_ok(&request);
    /* 7.8e26 FLOPs ÷ (8 × 125e12 × 0.01 × 0.01) = 2.17e12 h, a millihour a day. */
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL,
                    "takes 2.17e+15 days with 1 instance, longer than the 3650-day maximum");
    ck_assert_ptr_nonnull(strstr(result->hint, "v100-32g-x8 × 1, takes 2.17e+15 days, past"));
}
END_TEST

static void assert_text_sane(const char *text)
{
    ck_assert_msg(strstr(text, "inf") == NULL && strstr(text, "nan") == NULL &&
                      strstr(text, "2147483647") == NULL && strstr(text, " 0.0 tok/s") == NULL &&
                      strstr(text, " 0% ") == NULL,
                  "%s", text);
}

/* At the edges of every accepted range, reasons, details and hints state
 * finite figures: no inf or nan, no capped count, no zero rate. */
START_TEST(test_edges_of_accepted_ranges_keep_text_sane)
{
    static const struct sizing_workload workloads[] = {
        {SIZING_TASK_INFERENCE, 100, SIZING_PRECISION_INT8, 0, SIZING_MAX_TOKENS_PER_SECOND},
        {SIZING_TASK_INFERENCE, 0.001, SIZING_PRECISION_INT4, 0, 0.001},
        {SIZING_TASK_LORA, 400, SIZING_PRECISION_INT4, SIZING_MAX_TOKENS_B, 0},
        {SIZING_TASK_FINETUNE, 0.001, SIZING_PRECISION_FP32, 0.001, 0},
        {SIZING_TASK_PRETRAIN, 13, SIZING_PRECISION_FP16, SIZING_MAX_TOKENS_B, 0},
    };
    static const double shares[] = {0.01, 1.0};
    static const int32_t millihours[] = {1, 24000};
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++)
        for (size_t s = 0; s < 2; s++)
            for (size_t h = 0; h < 2; h++) {
                struct recommend_request request;
                recommend_request_init(&request);
                request.workload = workloads[w];
                request.millihours_per_day = millihours[h];
                set_peak_shares(&request, shares[s]);
                request.assumptions.value[SIZING_ACTIVATION_ALLOWANCE] = 0.0;
                request.assumptions.value[SIZING_MAX_INSTANCES] = SIZING_MAX_INSTANCES_LIMIT;
                request.assumptions.set[SIZING_ACTIVATION_ALLOWANCE] = true;
                request.assumptions.set[SIZING_MAX_INSTANCES] = true;
                run_ok(&request);
                for (int i = 0; i < result->n_recommendations; i++)
                    for (int j = 0; j < result->recommendations[i].n_reasons; j++)
                        assert_text_sane(result->recommendations[i].reasons[j]);
                for (int i = 0; i < result->n_rejected; i++)
                    assert_text_sane(result->rejected[i].detail);
                assert_text_sane(result->hint);
            }
}
END_TEST

START_TEST(test_run_past_max_rental)
{
    struct recommend_request request =
        request_for(SIZING_TASK_PRETRAIN, 10, SIZING_PRECISION_FP16, 20000);
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    /* 1.2e24 FLOPs ÷ (64 × 125e12 × 0.35 × 0.85 × 0.6) = 9726.1 days. */
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL,
                    "takes 9726.2 days with 8 instances, longer than the 3650-day maximum");
    ck_assert_ptr_nonnull(strstr(result->hint, "past the 3650-day maximum rental"));
}
END_TEST

START_TEST(test_no_fit_answers_with_hint)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 70, SIZING_PRECISION_FP16, 1);
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    ck_assert_int_eq(result->n_rejected, 5);
    ck_assert_int_eq(result->rejected_by_reason[RECOMMEND_REJECT_INSUFFICIENT_MEMORY], 5);
    ck_assert_str_eq(result->hint, "no instance holds 1344.0 GB (the largest has 256 GB): use "
                                   "lora instead of full training, or a smaller model");
}
END_TEST

START_TEST(test_rejections_are_bounded_and_nearest_first)
{
    enum { N = 200 };
    static struct fixture_sku specs[N];
    static char ids[N][16];
    for (int i = 0; i < N; i++) {
        snprintf(ids[i], sizeof ids[i], "sku-%04d", i);
        specs[i] = (struct fixture_sku){ids[i],  ids[i], FIXTURE_V100_16G, 1 + i % 4,
                                        100 + i, 50000,  150000,           0};
    }
    catalog_free(catalog);
    catalog = fixture_catalog_from(specs, N);
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    ck_assert_int_eq(result->n_rejected, RECOMMEND_MAX_REJECTED);
    ck_assert_uint_eq(result->n_rejected_total, N);
    ck_assert_uint_eq(result->rejected_by_reason[RECOMMEND_REJECT_INSUFFICIENT_MEMORY], N);
    /* The 50 four-card SKUs (64 GB) are the nearest misses: 32 of them listed. */
    for (int i = 0; i < result->n_rejected; i++) {
        ck_assert_int_eq(result->rejected[i].sku->gpu_count, 4);
        ck_assert_str_eq(result->rejected[i].detail, "needs 134.4 GB, has 64 GB across 4 cards");
        if (i > 0)
            ck_assert_int_lt(strcmp(result->rejected[i - 1].sku->id, result->rejected[i].sku->id),
                             0);
    }
}
END_TEST

/* ---- validation --------------------------------------------------------------- */

struct invalid_case {
    const char *name;
    void (*spoil)(struct recommend_request *request);
    enum gq_code code;
    const char *field;
};

static void spoil_mfu(struct recommend_request *r)
{
    r->assumptions.value[SIZING_MFU] = 0.0;
    r->assumptions.set[SIZING_MFU] = true;
}

static void spoil_efficiency(struct recommend_request *r)
{
    r->assumptions.value[SIZING_MULTI_CARD_EFFICIENCY_NVLINK] = 1.5;
    r->assumptions.set[SIZING_MULTI_CARD_EFFICIENCY_NVLINK] = true;
}

static void spoil_max_instances(struct recommend_request *r)
{
    r->assumptions.value[SIZING_MAX_INSTANCES] = 100;
    r->assumptions.set[SIZING_MAX_INSTANCES] = true;
}

static void spoil_limit(struct recommend_request *r)
{
    r->limit = RECOMMEND_MAX_LIMIT + 1;
}

static void spoil_hours(struct recommend_request *r)
{
    r->millihours_per_day = 24001;
}

static void spoil_days_on_training(struct recommend_request *r)
{
    r->days = 30;
}

static void spoil_deadline(struct recommend_request *r)
{
    r->deadline_days = -1;
}

static void spoil_budget(struct recommend_request *r)
{
    r->budget = -1;
}

static void spoil_segment(struct recommend_request *r)
{
    r->segment = SEGMENT_COUNT;
}

static void spoil_objective(struct recommend_request *r)
{
    r->objective = RECOMMEND_OBJECTIVE_COUNT;
}

static void spoil_precision(struct recommend_request *r)
{
    r->workload.precision = SIZING_PRECISION_INT4;
}

static const struct invalid_case invalid_cases[] = {
    {"mfu", spoil_mfu, GQ_ERR_OUT_OF_RANGE, "assumptions.mfu"},
    {"nvlink", spoil_efficiency, GQ_ERR_OUT_OF_RANGE, "assumptions.multi_card_efficiency_nvlink"},
    {"max_instances", spoil_max_instances, GQ_ERR_OUT_OF_RANGE, "assumptions.max_instances"},
    {"limit", spoil_limit, GQ_ERR_OUT_OF_RANGE, "limit"},
    {"hours", spoil_hours, GQ_ERR_OUT_OF_RANGE, "hours_per_day"},
    {"days", spoil_days_on_training, GQ_ERR_INVALID_VALUE, "days"},
    {"deadline", spoil_deadline, GQ_ERR_OUT_OF_RANGE, "deadline_days"},
    {"budget", spoil_budget, GQ_ERR_OUT_OF_RANGE, "budget"},
    {"segment", spoil_segment, GQ_ERR_INVALID_VALUE, "customer.segment"},
    {"objective", spoil_objective, GQ_ERR_INVALID_VALUE, "objective"},
    {"precision", spoil_precision, GQ_ERR_INVALID_VALUE, "workload.precision"},
};

START_TEST(test_invalid_request)
{
    const struct invalid_case *c = &invalid_cases[_i];
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    c->spoil(&request);
    struct gq_error err;
    gq_error_clear(&err);
    ck_assert_int_eq(recommend_run(catalog, &request, NOW, result, &err), c->code);
    ck_assert_str_eq(err.field, c->field);
    ck_assert_msg(strlen(err.message) > 0, "%s: no message", c->name);
}
END_TEST

START_TEST(test_limit_and_names)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 1, SIZING_PRECISION_FP16, 0);
    run_ok(&request);
    ck_assert_int_eq(result->limit, RECOMMEND_DEFAULT_LIMIT);
    ck_assert_int_eq(result->n_recommendations, 3);
    request.limit = 1;
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 1);
    enum recommend_objective objective;
    ck_assert(recommend_objective_parse("time", &objective));
    ck_assert_int_eq(objective, RECOMMEND_OBJECTIVE_TIME);
    ck_assert(!recommend_objective_parse("speed", &objective));
    ck_assert_str_eq(recommend_objective_id(RECOMMEND_OBJECTIVE_COST), "cost");
    ck_assert_str_eq(recommend_reject_reason_id(RECOMMEND_REJECT_INSUFFICIENT_MEMORY),
                     "insufficient_memory");
}
END_TEST

START_TEST(test_empty_catalog)
{
    catalog_free(catalog);
    catalog = fixture_catalog_from(fixture_seed_skus, 0);
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 0);
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    ck_assert_int_eq(result->n_rejected, 0);
    ck_assert_str_eq(result->hint, "the catalog has no SKUs");
}
END_TEST

/* ---- randomized: recommendations keep every promise ------------------------ */

static uint64_t rng_state;

static uint32_t rng_next(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}

static int32_t rng_below(int32_t n)
{
    return (int32_t)(rng_next() % (uint32_t)n);
}

static struct recommend_request random_request(void)
{
    static const double params[] = {0, 0.35, 1.3, 3, 7, 13, 30};
    static const double tokens[] = {0, 0.01, 0.1, 1, 5};
    static const int32_t budgets[] = {0, 0, 20000, 100000, 500000, 3000000};
    struct recommend_request r;
    recommend_request_init(&r);
    r.workload.task = (enum sizing_task)rng_below(SIZING_TASK_COUNT);
    r.workload.model_params_b = params[rng_below(7)];
    bool full = r.workload.task == SIZING_TASK_LEARNING ||
                r.workload.task == SIZING_TASK_FINETUNE || r.workload.task == SIZING_TASK_PRETRAIN;
    r.workload.precision = (enum sizing_precision)rng_below(full ? 3 : SIZING_PRECISION_COUNT);
    if (sizing_task_trains(r.workload.task))
        r.workload.tokens_b = tokens[rng_below(5)];
    if (r.workload.task == SIZING_TASK_INFERENCE && rng_below(2))
        r.workload.tokens_per_second = 10.0 * (1 + rng_below(100));
    r.millihours_per_day = rng_below(3) ? 500 * (1 + rng_below(48)) : 0;
    bool training_run = sizing_task_trains(r.workload.task) &&
                        (r.workload.tokens_b > 0 || r.workload.model_params_b == 0);
    if (!training_run && rng_below(2))
        r.days = 1 + rng_below(200);
    r.deadline_days = rng_below(3) ? 0 : 1 + rng_below(120);
    int32_t rental_days = r.days > 0 ? r.days : RECOMMEND_DEFAULT_DAYS;
    if (!training_run && r.deadline_days > 0 && r.deadline_days < rental_days)
        r.deadline_days = rental_days; /* an earlier one is refused (test above) */
    r.segment = (enum customer_segment)rng_below(SEGMENT_COUNT);
    r.budget = budgets[rng_below(6)];
    r.objective = (enum recommend_objective)rng_below(RECOMMEND_OBJECTIVE_COUNT);
    r.limit = rng_below(6);
    if (rng_below(3) == 0) {
        r.assumptions.value[SIZING_MFU] = 0.2 + 0.05 * rng_below(6);
        r.assumptions.set[SIZING_MFU] = true;
    }
    return r;
}

/* Prices the recommendation afresh, as POST /quote would. */
static void assert_matches_quote(const struct recommend_request *request,
                                 const struct recommendation *r)
{
    struct quote_item_request item = {
        .sku = r->sku, .quantity = r->quantity, .cheapest = true, .usage = r->usage};
    struct quote_request q = {
        .segment = request->segment, .items = &item, .n_items = 1, .now = NOW};
    struct gq_error err;
    ck_assert_int_eq(quote_compute(catalog, &q, quote, &err), GQ_OK);
    ck_assert_int_eq(quote->total, r->total);
    ck_assert_int_eq(quote->subtotal, r->amount);
    ck_assert_int_eq(quote->discount_total, r->discount);
    ck_assert_int_eq(quote->items[0].billed->plan.amount, r->plan.amount);
}

static void assert_keeps_promises(const struct recommend_request *request,
                                  const struct recommendation *r)
{
    ck_assert_double_le(r->memory_gb_needed, (double)r->memory_gb_available + 1e-9);
    ck_assert_int_eq(r->memory_gb_available, sku_total_memory_gb(r->sku));
    if (request->budget > 0)
        ck_assert_int_le(r->total, request->budget);
    if (request->deadline_days > 0)
        ck_assert_int_le(r->usage.days, request->deadline_days);
    ck_assert(usage_is_valid(&r->usage));
    ck_assert_int_le(r->usage.millihours_per_day, result->millihours_per_day);
    /* The usage covers the work, and no whole day more. */
    double millihours = r->estimated_hours * 1000.0;
    ck_assert_double_ge((double)usage_millihours(&r->usage), millihours - 1e-6);
    if (result->estimate.flops > 0)
        ck_assert_double_lt((double)(r->usage.days - 1) * result->millihours_per_day, millihours);
    ck_assert_int_ge(r->n_reasons, 3);
    ck_assert(find_rejection(r->sku->id) == NULL);
}

static void assert_ranked(const struct recommend_request *request)
{
    for (int i = 0; i < result->n_recommendations; i++) {
        const struct recommendation *r = &result->recommendations[i];
        ck_assert_int_eq(r->rank, i + 1);
        if (i == 0)
            continue;
        const struct recommendation *p = &result->recommendations[i - 1];
        if (request->objective == RECOMMEND_OBJECTIVE_COST)
            ck_assert_int_le(p->total, r->total);
        else
            ck_assert_double_le(p->estimated_hours, r->estimated_hours);
    }
}

START_TEST(test_random_workloads_keep_promises)
{
    /* A quantity discount makes the discount path count too. */
    fixture_add_percent_rule(catalog, "volume-5", SEGMENT_MASK_ALL, DISCOUNT_BILLING_ALL, NULL, 2,
                             500);
    rng_state = 20260101;
    int recommended = 0, with_discount = 0;
    for (int n = 0; n < 400; n++) {
        struct recommend_request request = random_request();
        struct gq_error err;
        gq_error_clear(&err);
        enum gq_code code = recommend_run(catalog, &request, NOW, result, &err);
        ck_assert_msg(code == GQ_OK, "case %d: %s (%s)", n, err.message, err.field);
        ck_assert_int_le(result->n_recommendations, result->limit);
        ck_assert_uint_le(result->n_rejected_total, catalog->n_skus);
        ck_assert_int_eq(result->n_recommendations == 0, result->hint[0] != '\0');
        assert_ranked(&request);
        for (int i = 0; i < result->n_recommendations; i++) {
            const struct recommendation *r = &result->recommendations[i];
            assert_keeps_promises(&request, r);
            assert_matches_quote(&request, r);
            recommended++;
            with_discount += r->discount > 0;
        }
    }
    /* The random workloads did exercise the interesting paths. */
    ck_assert_int_gt(recommended, 200);
    ck_assert_int_gt(with_discount, 10);
}
END_TEST

#define TABLE_SIZE(table) ((int)(sizeof(table) / sizeof((table)[0])))

static Suite *recommend_suite(void)
{
    Suite *suite = suite_create("recommend");
    TCase *must = tcase_create("must_hold");
    tcase_add_checked_fixture(must, setup, teardown);
    tcase_add_test(must, test_7b_fp16_inference_needs_multi_card_v100);
    tcase_add_test(must, test_7b_int8_inference_v100_beats_t4_on_cost);
    tcase_add_test(must, test_learning_student_gets_v100_at_student_rate);
    tcase_add_test(must, test_learning_individual_pays_on_demand);
    tcase_add_test(must, test_7b_full_finetune_needs_the_8_card_machine);
    tcase_add_test(must, test_over_budget_names_what_the_ranking_would_take);
    tcase_add_loop_test(must, test_memory_hint_suggests_only_narrower_precisions, 0, 6);
    tcase_add_loop_test(must, test_7b_full_finetune_in_fp32_and_bf16_runs_at_the_fp32_peak, 0, 2);
    tcase_add_test(must, test_product_example);
    tcase_add_test(must, test_pretrain_preset_mixes_plans);
    tcase_add_test(must, test_time_objective_picks_more_cards_when_budget_allows);
    tcase_add_test(must, test_time_objective_respects_budget);
    tcase_add_test(must, test_max_instances_override_caps_the_count);
    tcase_add_test(must, test_throughput_target_sets_replicas);
    suite_add_tcase(suite, must);

    TCase *rejected = tcase_create("rejected");
    tcase_add_checked_fixture(rejected, setup, teardown);
    tcase_add_test(rejected, test_rejection_insufficient_throughput);
    tcase_add_test(rejected, test_rejection_over_budget_and_hint);
    tcase_add_test(rejected, test_texts_name_the_catalog_currency);
    tcase_add_test(rejected, test_rejection_misses_deadline);
    tcase_add_test(rejected, test_rental_longer_than_deadline_is_refused);
    tcase_add_test(rejected, test_rental_within_deadline_is_recommended);
    tcase_add_test(rejected, test_throughput_text_at_smallest_shares);
    tcase_add_loop_test(rejected, test_hours_round_half_up_to_a_tenth, 0, TABLE_SIZE(tenth_cases));
    tcase_add_test(rejected, test_edges_of_accepted_ranges_keep_text_sane);
    tcase_add_test(rejected, test_days_far_past_max_rental_in_significant_digits);
    tcase_add_test(rejected, test_run_past_max_rental);
    tcase_add_test(rejected, test_no_fit_answers_with_hint);
    tcase_add_test(rejected, test_hint_advises_more_instances_below_the_limit);
    tcase_add_test(rejected, test_recommends_only_modes_the_customer_may_use);
    tcase_add_test(rejected, test_sku_with_no_usable_mode_is_rejected_as_not_priced);
    tcase_add_test(rejected, test_rejections_are_bounded_and_nearest_first);
    suite_add_tcase(suite, rejected);

    TCase *input = tcase_create("input");
    tcase_add_checked_fixture(input, setup, teardown);
    tcase_add_loop_test(input, test_invalid_request, 0, TABLE_SIZE(invalid_cases));
    tcase_add_test(input, test_limit_and_names);
    tcase_add_test(input, test_empty_catalog);
    suite_add_tcase(suite, input);

    TCase *random = tcase_create("random");
    tcase_add_checked_fixture(random, setup, teardown);
    tcase_set_timeout(random, 60);
    tcase_add_test(random, test_random_workloads_keep_promises);
    suite_add_tcase(suite, random);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(recommend_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
