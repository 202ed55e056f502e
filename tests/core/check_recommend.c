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

/* ---- the "must hold" cases ------------------------------------------------ */

START_TEST(test_7b_fp16_inference_needs_multi_card_v100)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 0);
    run_ok(&request);
    /* 14 GB of weights and one 4096-token request's 2.28 GB, a tenth free. */
    ck_assert_double_eq_tol(result->estimate.memory_gb, (14.0 + 2.283798528) / 0.9, 1e-9);
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
    /* 14.4 GB usable − 14 GB of weights leave 717 tokens' cache. */
    assert_rejected("t4-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 18.1 GB for one request of 4096 tokens, has 16 GB: 717 tokens of "
                    "context fit");
    assert_rejected("v100-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 18.1 GB for one request of 4096 tokens, has 16 GB: 717 tokens of "
                    "context fit");
    ck_assert_int_eq(result->n_rejected, 2);
    ck_assert_str_eq(first->reasons[0], "fits: needs 18.1 GB, has 32 GB across 2 cards: 14.0 GB "
                                        "of weights + 2.3 GB of KV cache for 1 request");
    ck_assert_str_eq(first->reasons[1], "serves 1 request at 57.8 tok/s each, 57.8 tok/s in all: "
                                        "1 replica × 1, memory-bound decode step 17.1 ms");
    ck_assert_str_eq(first->reasons[2], "first token in 0.4 s: a 2048-token prompt, 3e+13 FLOPs "
                                        "on 2 × 125 TFLOPS fp16 at 35% MFU");
    ck_assert_str_eq(first->reasons[3], "cheapest plan: 1 month, ¥2311.00 for 720.0 h");
    /* In int8 a single V100 holds it: the cheaper change. */
    ck_assert_str_eq(result->hint, "cheaper with int8 weights: v100-16g-x1 × 1 for ¥1231.00 "
                                   "(this answer: ¥2311.00)");
}
END_TEST

/* A tiny run costs ¥0.00 on one instance or eight: the tie goes to the
 * fewest cards, not to the fastest. */
START_TEST(test_free_tie_takes_fewer_instances)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 0.001, SIZING_PRECISION_FP16, 0.000001);
    run_ok(&request);
    ck_assert_int_ge(result->n_recommendations, 1);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_int_eq(first->total, 0);
    ck_assert_int_eq(first->quantity, 1);
    ck_assert_int_eq(first->cards, 1);
}
END_TEST

START_TEST(test_7b_int8_inference_v100_beats_t4_on_cost)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_INT8, 0);
    request.limit = 5;
    run_ok(&request);
    ck_assert_double_eq_tol(result->estimate.memory_gb, (7.4280625 + 2.283798528) / 0.9, 1e-9);
    ck_assert_int_eq(result->n_recommendations, 5);
    ck_assert_int_eq(result->n_rejected, 0);
    ck_assert_str_eq(result->hint, ""); /* nothing is cheaper than the cheapest SKU */
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-16g-x1");
    ck_assert_int_eq(first->rank, 1);
    ck_assert_int_eq(first->total, 123100);
    const struct recommendation *t4 = find_recommendation("t4-16g-x1");
    ck_assert_ptr_nonnull(t4);
    ck_assert_int_lt(first->sku->price[BILLING_ON_DEMAND], t4->sku->price[BILLING_ON_DEMAND]);
    ck_assert_int_gt(t4->rank, first->rank);
    ck_assert_int_eq(t4->total, 535000);
    /* The T4's 320 GB/s decode one request at 20.7 tok/s, the V100's at 57.9 (GPTQ int8). */
    ck_assert_double_eq_tol(t4->serving.tokens_per_second_per_request, 20.7, 0.05);
    ck_assert_double_eq_tol(first->serving.tokens_per_second_per_request, 57.93519887, 1e-6);
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
    ck_assert_str_eq(first->reasons[0],
                     "fits with ddp: needs 9.5 GB per GPU, has 16 GB: 8.0 GB of weights and "
                     "optimizer state per GPU (split 1 ways) + 0.6 GB of activations (full "
                     "checkpointing, 1 × 2048 tokens)");
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

/* 112 GB of state and 1.6 GB of activations (full checkpointing), per GPU:
 * DDP's 112 GB fit no card; FSDP over the 8 cards of V100 32GB × 8 holds
 * 14.6 GB a card (14 GB sharded + the 0.5 GB gathered layer), faster at the
 * same rate per card than V100 32GB × 4, where only tensor parallelism
 * (28 GB + 0.4 GB a card) fits one instance. The 16 GB cards need 5
 * instances of two to shard it thinly enough; one card never holds it. */
START_TEST(test_7b_full_finetune_fits_the_32gb_machines)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    run_ok(&request);
    ck_assert_double_eq_tol(result->estimate.model_state_gb, 112.0, 1e-9);
    ck_assert_double_eq_tol(result->estimate.memory_gb, (112.0 + 1.55713536) / 0.9, 1e-9);
    ck_assert_int_eq(result->n_recommendations, 3);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-32g-x8");
    ck_assert_int_eq(first->placement.strategy, SIZING_STRATEGY_FSDP);
    ck_assert_str_eq(result->recommendations[1].sku->id, "v100-32g-x4");
    ck_assert_int_eq(result->recommendations[1].placement.strategy,
                     SIZING_STRATEGY_TENSOR_PARALLEL);
    ck_assert_str_eq(result->recommendations[2].sku->id, "v100-16g-x2");
    ck_assert_int_eq(result->recommendations[2].quantity, 5);
    ck_assert_int_eq(first->quantity, 1);
    /* FSDP over 8 instances of one card: (0.52 + 112 ÷ 8 + 1.56) ÷ 0.9. */
    assert_rejected("t4-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY, "needs 17.9 GB, has 16 GB");
    assert_rejected("v100-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 17.9 GB, has 16 GB");
    /* FSDP's 1.5 × the all-reduce of 14 GB of fp16 gradients over NVLink
     * (36.8 GB at 25 GB/s + 535 buckets × 14 hops × 50 µs = 1.84 s) hides
     * behind the last micro-batch's 2.13 s backward pass: 100 % scaling
     * (a flat 85 % said 56.6 h). 6.0568e19 FLOPs ÷ (8 × 125e12 × 0.35) =
     * 48.07 h, on demand. */
    ck_assert_double_eq_tol(first->estimated_hours, 6.0567597056e19 / (8 * 125e12 * 0.35) / 3600,
                            1e-9);
    ck_assert_int_eq(first->usage.days, 3);
    ck_assert_int_eq(first->usage.millihours_per_day, 16024);
    ck_assert_int_eq(first->total, 92683);
    ck_assert_str_eq(first->reasons[0],
                     "fits with fsdp: needs 17.9 GB per GPU, has 32 GB: 14.6 GB of weights and "
                     "optimizer state per GPU (split 8 ways) + 1.6 GB of activations (full "
                     "checkpointing, 1 × 2048 tokens)");
    ck_assert_str_eq(
        first->reasons[1],
        "48.1 h of training: 6.1e+19 FLOPs on 8 × 125 TFLOPS fp16 at 35% MFU × 100% scaling");
    ck_assert_str_eq(first->reasons[2],
                     "100% scaling over 8 GPUs: each step all-reduces 36.8 GB of gradients per GPU "
                     "over nvlink at 25 GB/s in 1.84 s, against 45.4 s of compute per GPU (1.84 s "
                     "of it hidden behind the backward pass)");
    ck_assert_str_eq(first->reasons[3], "cheapest plan: the on-demand rate, ¥926.83 for 48.1 h");
    /* Without recomputation it still fits the 8-card machine (160.6 GB)
     * and takes 6·N + 12·L·h·s a token instead of 8·N + 16·L·h·s. */
    ck_assert_str_eq(result->hint, "cheaper with activation_checkpointing none: v100-32g-x8 × 1 "
                                   "for ¥695.12 in 36.1 h (this answer: ¥926.83 in 48.1 h)");
}
END_TEST

/* The same fine-tune in fp32 runs at the V100's FP32 peak, 15.7 TFLOPS,
 * not its FP16 tensor peak: 8 times the hours; bf16, which V100 has no
 * tensor cores for, likewise, and the reason says why, and the hint what
 * fp16 would take and cost. */
START_TEST(test_7b_full_finetune_in_fp32_and_bf16_runs_at_the_fp32_peak)
{
    static const char *const reasons[] = {
        "765.4 h of training: 6.1e+19 FLOPs on 4 × 15.7 TFLOPS fp32 at 35% MFU × 100% scaling",
        "765.4 h of training: 6.1e+19 FLOPs on 4 × 15.7 TFLOPS fp32 (no BF16 tensor cores) at 35% "
        "MFU × 100% scaling",
    };
    static const char *const hints[] = {
        "cheaper with activation_checkpointing none: v100-32g-x8 × 1 for ¥5534.13 in 287.0 h "
        "(this answer: ¥5690.09 in 765.4 h)",
        "cheaper with fp16 instead of bf16 (V100 has no BF16 tensor cores): v100-32g-x8 × 1 for "
        "¥926.83 in 48.1 h (this answer: ¥5690.09 in 765.4 h)",
    };
    const enum sizing_precision precisions[] = {SIZING_PRECISION_FP32, SIZING_PRECISION_BF16};
    struct recommend_request request = request_for(SIZING_TASK_FINETUNE, 7, precisions[_i], 1);
    run_ok(&request);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-32g-x4");
    ck_assert_double_eq_tol(first->estimated_hours, 6.0567597056e19 / (4 * 15.7e12 * 0.35) / 3600,
                            1e-9);
    ck_assert_str_eq(first->reasons[1], reasons[_i]);
    ck_assert_str_eq(result->hint, hints[_i]);
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
    ck_assert_int_eq(result->n_recommendations, 3);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-32g-x8");
    ck_assert_str_eq(first->billing, "student");
    /* (8 × 7e9 + 16 × 33 × 4224 × 2048) × 2e9 = 1.211e20 FLOPs: 113.105 h
     * over 5 days of 22.621 h at ¥12.68. */
    ck_assert_int_eq(first->usage.days, 5);
    ck_assert_int_eq(first->usage.millihours_per_day, 19228);
    ck_assert_int_eq(first->total, 121906);
    ck_assert_int_eq(first->n_reasons, 6);
    ck_assert_str_eq(first->reasons[2],
                     "100% scaling over 8 GPUs: each step all-reduces 36.8 GB of gradients per GPU "
                     "over nvlink at 25 GB/s in 1.84 s, against 45.4 s of compute per GPU (1.84 s "
                     "of it hidden behind the backward pass)");
    ck_assert_str_eq(first->reasons[3], "cheapest plan: the student rate, ¥1219.06 for 96.1 h");
    ck_assert_str_eq(first->reasons[4], "finishes in 4.1 days at 24.0 h/day, deadline 10");
    /* The 4-card machine takes 9.5 of the 10 days. */
    ck_assert_str_eq(result->recommendations[1].sku->id, "v100-32g-x4");
    ck_assert_int_eq(result->recommendations[1].total, 122678);
}
END_TEST

START_TEST(test_pretrain_preset_takes_two_machines)
{
    struct recommend_request request =
        request_for(SIZING_TASK_PRETRAIN, 0, SIZING_PRECISION_FP16, 0);
    run_ok(&request);
    ck_assert(result->estimate.preset);
    /* (8 × 10e9 + 16 × 37 × 4736 × 2048) × 20e9 FLOPs. */
    ck_assert_double_eq_tol(result->estimate.flops, 1.71484004352e21, 1e6);
    /* Two 8-card machines, FSDP (DDP's 160 GB a card fits none): 1.5 × 20 GB
     * of gradients a 4M-token step cross 32 Gbit/s in 15.2 s, against 514 s
     * of compute: 97.7 %, two months. */
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-32g-x8");
    ck_assert_int_eq(first->quantity, 2);
    ck_assert_str_eq(first->billing, "monthly");
    ck_assert_str_eq(first->reasons[2],
                     "97.7% scaling over 16 GPUs: each step all-reduces 56.2 GB of gradients per "
                     "GPU over network at 4 GB/s in 15.2 s, against 514 s of compute per GPU (3.01 "
                     "s of it hidden behind the backward pass)");
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
    ck_assert_str_eq(result->recommendations[0].sku->id, "v100-32g-x8");
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
    /* A V100 16GB holds three 4096-token requests beside 7 GB of weights and
     * decodes them at 127.8 tok/s in all: two replicas for 200. Two cards
     * over NVLink reach it with one, three requests at 70.0 tok/s (GPTQ int8 weights). */
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-16g-x2");
    ck_assert_int_eq(first->quantity, 1);
    ck_assert_int_eq(first->serving.batch, 3);
    ck_assert_int_eq(first->total, 231100);
    ck_assert_str_eq(first->reasons[1], "serves 3 requests at 70.0 tok/s each, 210.1 tok/s in all: "
                                        "1 replica × 3, memory-bound decode step 13.7 ms");
    const struct recommendation *single = find_recommendation("v100-16g-x1");
    ck_assert_ptr_nonnull(single);
    ck_assert_int_eq(single->quantity, 2);
    ck_assert_int_eq(single->serving.max_batch, 3);
    ck_assert_int_eq(single->total, 2 * 123100);
    ck_assert_str_eq(single->reasons[3],
                     "cheapest plan: 1 month per instance, ¥2462.00 for 2 × 720.0 h");
    ck_assert_double_ge(single->serving.tokens_per_second, 200.0);
}
END_TEST

/* ---- serving and training v2 --------------------------------------------- */

/* "Qwen2.5 7B for 50 concurrent chats of 4k tokens": 15.23 GB of weights
 * hold no 16 GB card with a tenth free; two V100 16GB hold the weights and
 * 50 chats of 0.235 GB (4 KV heads), each at 27.2 tok/s. */
START_TEST(test_qwen_50_chats)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 0, SIZING_PRECISION_FP16, 0);
    request.workload.model = "qwen2.5-7b";
    request.workload.concurrent_requests = 50;
    request.workload.context_tokens = 4096;
    run_ok(&request);
    ck_assert(!result->estimate.shape_derived);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-16g-x2");
    ck_assert_int_eq(first->quantity, 1);
    ck_assert_int_eq(first->serving.batch, 50);
    ck_assert_int_eq(first->total, 231100);
    ck_assert_str_eq(first->reasons[0], "fits: needs 30.0 GB, has 32 GB across 2 cards: 15.3 GB "
                                        "of weights + 11.8 GB of KV cache for 50 requests");
    ck_assert_str_eq(first->reasons[1], "serves 50 requests at 27.2 tok/s each, 1362.3 tok/s in "
                                        "all: 1 replica × 50, memory-bound decode step 26.2 ms");
    ck_assert_str_eq(first->reasons[2], "first token in 0.43 s: a 2048-token prompt, 3.2e+13 "
                                        "FLOPs on 2 × 125 TFLOPS fp16 at 35% MFU");
    assert_rejected("v100-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 17.2 GB for one request of 4096 tokens, has 16 GB: the weights alone "
                    "are 15.3 GB of the 14.4 GB it can use");
    /* int8 weights leave 16 GB cards too little for 50 chats: two of them
     * cost more. Nothing is cheaper. */
    ck_assert_str_eq(result->hint, "");
    /* In bf16, the model's own dtype: vLLM refuses bf16 below compute
     * capability 8.0, so a V100 serves it as fp16, at the FP16 peak and at
     * the fp16 answer's price (not two replicas at the FP32 peak), and says
     * so; fp16 would then buy nothing, so there is no hint. */
    request.workload.precision = SIZING_PRECISION_BF16;
    run_ok(&request);
    first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-16g-x2");
    ck_assert_int_eq(first->quantity, 1);
    ck_assert_int_eq(first->total, 231100);
    ck_assert_str_eq(first->reasons[2], "first token in 0.43 s: a 2048-token prompt, 3.2e+13 "
                                        "FLOPs on 2 × 125 TFLOPS fp16 at 35% MFU");
    ck_assert_str_eq(first->reasons[3], "served as fp16, not bf16: V100 has compute capability "
                                        "7.0 and bf16 needs 8.0");
    ck_assert_str_eq(result->hint, "");
}
END_TEST

/* More requests than max_instances replicas hold: how many fit, and what
 * would serve. */
START_TEST(test_concurrency_beyond_the_instances)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 13, SIZING_PRECISION_FP16, 0);
    request.workload.concurrent_requests = 500;
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT,
                    "needs 9 replicas for 500 requests at 60 per replica (10.0 tok/s each), max 8 "
                    "instances: 480 requests fit on 8");
    assert_rejected("v100-16g-x2", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 32.7 GB for one request of 4096 tokens, has 32 GB across 2 cards: 3417 "
                    "tokens of context fit");
    ck_assert_str_eq(result->hint,
                     "500 requests need at least 9 replicas of v100-32g-x8: lower "
                     "concurrent_requests or context_tokens; quantise the weights to int8 or int4 "
                     "or the KV cache to int8; or raise assumptions.max_instances (now 8, at most "
                     "64); it would serve with an int8 KV cache: v100-32g-x8 × 5 for ¥52055.00");
}
END_TEST

/* A context no instance holds: the longest one that fits, and the change
 * that would serve. */
START_TEST(test_context_no_instance_holds)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 0, SIZING_PRECISION_FP16, 0);
    request.workload.model = "llama-2-70b";
    request.workload.context_tokens = 500000;
    fixture_forget_max_positions(catalog, "llama-2-70b"); /* 4,096 positions */
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    /* (230.4 − 137.95) GB ÷ 327,680 bytes = 282,124 tokens. */
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 335.4 GB for one request of 500000 tokens, has 256 GB across 8 cards: "
                    "282124 tokens of context fit");
    ck_assert_str_eq(result->hint,
                     "no instance holds 335.4 GB (the largest has 256 GB): 282124 tokens of "
                     "context fit on v100-32g-x8; quantise the weights to int8 or int4 or the KV "
                     "cache to int8, a shorter context_tokens, or a smaller model; it would serve "
                     "with an int8 KV cache: v100-32g-x8 × 1 for ¥10411.00");
}
END_TEST

/* LoRA in bf16 on V100s: fp16 would be 8 times faster. The adapters'
 * gradients are 125 MB, so several instances all-reduce them in a
 * fraction of a step and cost no more than one. (Int8 frozen weights were
 * cheaper still while DDP needed a 32 GB card; FSDP on 16 GB cards is
 * cheaper than both.) */
START_TEST(test_bf16_lora_hint_leads_with_fp16)
{
    struct recommend_request request = request_for(SIZING_TASK_LORA, 0, SIZING_PRECISION_BF16, 0.1);
    request.workload.model = "llama-2-13b";
    request.workload.lora_rank = 16;
    run_ok(&request);
    /* 16 × 40 × (9 × 5120 + 2 × 5120 + 3 × 13824) = 62.6 M adapters. */
    ck_assert_double_eq_tol(result->estimate.trainable_params_b, 0.06258688, 1e-12);
    /* FSDP shards the 26 GB of frozen bf16 weights: pairs of 16 GB cards
     * hold them (DDP needed a 32 GB card); fp16 there is the cheapest. */
    ck_assert_str_eq(result->recommendations[0].sku->id, "v100-16g-x2");
    ck_assert_int_eq(result->recommendations[0].placement.strategy, SIZING_STRATEGY_FSDP);
    ck_assert_str_eq(result->hint,
                     "cheaper with fp16 instead of bf16 (V100 has no BF16 tensor cores): "
                     "v100-16g-x2 × 6 for ¥115.74 in 4.5 h (this answer: ¥921.48 in 30.8 h)");
}
END_TEST

/* A 7B fine-tune at 4096 tokens a sample without recomputation keeps
 * 104.2 GB of activations: only the 8-card machine holds it. */
START_TEST(test_long_sequence_finetune)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 0, SIZING_PRECISION_FP16, 1);
    request.workload.model = "llama-2-7b";
    request.workload.sequence_length = 4096;
    request.workload.checkpointing = SIZING_CHECKPOINTING_NONE;
    run_ok(&request);
    ck_assert_double_eq_tol(result->estimate.activation_gb, 104.152956928, 1e-9);
    ck_assert_int_eq(result->n_recommendations, 1);
    ck_assert_str_eq(result->recommendations[0].sku->id, "v100-32g-x8");
    assert_rejected("v100-32g-x4", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "needs 235.6 GB, has 128 GB across 4 cards");
    gq_money none_total = result->recommendations[0].total;
    double none_hours = result->recommendations[0].estimated_hours;
    /* Full recomputation: 4.3 GB, the 4-card machine too and, with FSDP
     * over several, the 16 GB pairs; a third more FLOPs; dearer on the
     * 8-card machine, and the hint says by how much. */
    request.workload.checkpointing = SIZING_CHECKPOINTING_FULL;
    run_ok(&request);
    ck_assert_double_lt(result->estimate.activation_gb, 4.4);
    ck_assert_int_eq(result->n_recommendations, 3);
    const struct recommendation *x8 = find_recommendation("v100-32g-x8");
    ck_assert_ptr_nonnull(x8);
    ck_assert_double_gt(x8->estimated_hours, none_hours);
    ck_assert_int_gt(x8->total, none_total);
    ck_assert_ptr_nonnull(strstr(result->hint, "cheaper with activation_checkpointing none: "));
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
                    "needs 45 replicas for 2000.0 tok/s at 44.5 tok/s each (3 requests), max 8 "
                    "instances");
    assert_rejected("v100-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT,
                    "needs 17 replicas for 2000.0 tok/s at 123.6 tok/s each (3 requests), max 8 "
                    "instances");
    ck_assert_int_eq(result->rejected_by_reason[RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT], 2);
    ck_assert_str_eq(result->recommendations[0].sku->id, "v100-16g-x2");
    ck_assert_int_eq(result->recommendations[0].quantity, 6);
    /* An int8 KV cache doubles the requests a replica holds. */
    ck_assert_str_eq(result->hint, "cheaper with an int8 KV cache: v100-16g-x2 × 4 for ¥9244.00 "
                                   "(this answer: ¥13866.00)");
}
END_TEST

/* Five and seven v100-16g-x2 cost the same 248.15 for the preset
 * fine-tune with selective recomputation within a day; the cost ranking
 * takes the faster seven, and an over-budget rejection names the same
 * seven. */
START_TEST(test_over_budget_names_what_the_ranking_would_take)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 0, SIZING_PRECISION_FP16, 0);
    request.workload.checkpointing = SIZING_CHECKPOINTING_SELECTIVE;
    request.deadline_days = 1;
    request.limit = 5;
    run_ok(&request);
    const struct recommendation *x2 = find_recommendation("v100-16g-x2");
    ck_assert_ptr_nonnull(x2);
    ck_assert_int_eq(x2->quantity, 2);
    ck_assert_int_eq(x2->total, 18074);
    request.budget = 13000;
    run_ok(&request);
    assert_rejected("v100-16g-x2", RECOMMEND_REJECT_OVER_BUDGET,
                    "costs ¥180.74 at best (2 instances), budget ¥130.00");
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
                    "costs ¥926.83 at best (1 instance), budget ¥500.00");
    assert_rejected("v100-32g-x4", RECOMMEND_REJECT_OVER_BUDGET,
                    "costs ¥930.64 at best (1 instance), budget ¥500.00");
    /* No variant is within ¥500 either: nothing is appended. */
    ck_assert_str_eq(result->hint, "the cheapest configuration that meets every other limit is "
                                   "v100-32g-x8 × 1 at ¥926.83: raise the budget to at least that");
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
                    "costs 926.83 USD at best (1 instance), budget 500.00 USD");
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
    /* 64 cards under FSDP (DDP's 112 GB fit no card), which sends 1.5 × the
     * all-reduce's bytes: 14 GB of gradients, 21 GB over 32 Gbit/s, against
     * 5.67 s of compute a step: 18.3 days of one hour (DDP's bytes said
     * 14.7, a flat 51 % 11.8). */
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_MISSES_DEADLINE,
                    "takes 18.3 days with 8 instances, deadline 5");
    assert_rejected("v100-32g-x4", RECOMMEND_REJECT_MISSES_DEADLINE,
                    "takes 33.1 days with 8 instances, deadline 5");
    ck_assert_int_eq(result->rejected[0].quantity, 8);
    ck_assert_ptr_nonnull(strstr(result->hint, "v100-32g-x8 × 8, takes 18.3 days"));
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
    ck_assert_str_eq(
        result->hint,
        "the fastest configuration, v100-32g-x8 × 8, takes 18.3 days: extend deadline_days, raise "
        "assumptions.max_instances (now 8, at most 64) or train on fewer tokens");
    request.assumptions.value[SIZING_MAX_INSTANCES] = SIZING_MAX_INSTANCES_LIMIT;
    request.assumptions.set[SIZING_MAX_INSTANCES] = true;
    request.deadline_days = 1;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "the fastest configuration, v100-32g-x8 × 64, takes 10.3 days: "
                                   "extend deadline_days or train on fewer tokens");

    request = request_for(SIZING_TASK_PRETRAIN, 10, SIZING_PRECISION_FP16, 20000);
    run_ok(&request);
    ck_assert_str_eq(
        result->hint,
        "the fastest configuration, v100-32g-x8 × 8, takes 8002.6 days, past the 3650-day maximum "
        "rental: raise assumptions.max_instances (now 8, at most 64) or train on fewer tokens");
    request.assumptions.value[SIZING_MAX_INSTANCES] = SIZING_MAX_INSTANCES_LIMIT;
    request.assumptions.set[SIZING_MAX_INSTANCES] = true;
    request.workload.tokens_b = 200000;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "the fastest configuration, v100-32g-x8 × 41, takes 34192.8 "
                                   "days, past the 3650-day maximum rental: train on fewer tokens");

    /* More instances help a throughput only up to the limit; the
     * quantisations offered are the narrower ones, of the weights and of the
     * KV cache; a variant that serves is named. */
    request = request_for(SIZING_TASK_INFERENCE, 70, SIZING_PRECISION_FP16, 0);
    request.workload.tokens_per_second = 2000;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "2000.0 tok/s needs at least 15 replicas of v100-32g-x8: lower "
                                   "tokens_per_second; quantise the weights to int8 or int4 or the "
                                   "KV cache to int8; or raise assumptions.max_instances (now 8, "
                                   "at most 64); it would serve with int4 weights: v100-32g-x8 × "
                                   "7 for ¥72877.00");
    request.workload.precision = SIZING_PRECISION_INT8;
    request.workload.tokens_per_second = 100000;
    run_ok(&request);
    ck_assert_str_eq(result->hint,
                     "100000.0 tok/s needs at least 405 replicas of v100-32g-x8: "
                     "lower tokens_per_second; or quantise the weights to int4 or the "
                     "KV cache to int8");
    request.workload.precision = SIZING_PRECISION_INT4;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "100000.0 tok/s needs at least 321 replicas of v100-32g-x8: "
                                   "lower tokens_per_second or an int8 KV cache");
    /* In int4 with an int8 KV cache there is nothing narrower to offer. */
    request.workload.kv_precision = SIZING_KV_INT8;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "100000.0 tok/s needs at least 185 replicas of v100-32g-x8: "
                                   "lower tokens_per_second");
    request.workload.tokens_per_second = 10000;
    run_ok(&request);
    ck_assert_str_eq(result->hint, "10000.0 tok/s needs at least 19 replicas of v100-32g-x8: lower "
                                   "tokens_per_second or raise assumptions.max_instances (now 8, "
                                   "at most 64)");
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
         "quantise the weights to int8 or int4 or the KV cache to int8, a shorter context_tokens, "
         "or a smaller model"},
        {SIZING_TASK_INFERENCE, SIZING_PRECISION_INT8,
         "quantise the weights to int4 or the KV cache to int8, a shorter context_tokens, or a "
         "smaller model"},
        {SIZING_TASK_INFERENCE, SIZING_PRECISION_INT4,
         "an int8 KV cache, a shorter context_tokens, or a smaller model"},
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
    ck_assert_str_eq(result->recommendations[0].reasons[4], "runs 10 days, deadline 10");
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
    static const enum sizing_assumption shares[] = {SIZING_MFU, SIZING_MULTI_CARD_EFFICIENCY_NVLINK,
                                                    SIZING_MULTI_CARD_EFFICIENCY_PCIE,
                                                    SIZING_DECODE_BANDWIDTH_EFFICIENCY};
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
    /* 8 × 900 GB/s × 0.01 × 0.01 ÷ 100 GB = 0.0072 steps a second, less
     * with the KV cache read and the prefill: below the 10 tok/s floor. */
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT,
                    "decodes 0.0063 tok/s per request at best (one at a time), below the 10.0 "
                    "tok/s asked");
    ck_assert_str_eq(result->hint, "no configuration decodes 10.0 tok/s per request: the "
                                   "fastest, v100-32g-x8, reaches 0.0063: lower "
                                   "min_tokens_per_second_per_request; shorten prompt_tokens; or "
                                   "quantise the weights to int4 or the KV cache to int8");
}
END_TEST

/* Days far past what a double holds to a tenth read in three significant
 * digits, not as 17 digits of which the last are noise. */
START_TEST(test_days_far_past_max_rental_in_significant_digits)
{
    struct recommend_request request =
        request_for(SIZING_TASK_PRETRAIN, 13, SIZING_PRECISION_FP32, SIZING_MAX_TOKENS_B);
    request.millihours_per_day = 1;
    request.assumptions.value[SIZING_MAX_INSTANCES] = 1;
    request.assumptions.set[SIZING_MAX_INSTANCES] = true;
    set_peak_shares(&request, 0.01);
    run_ok(&request);
    /* 1.11e27 FLOPs ÷ (8 × 15.7e12 × 0.01) = 2.45e11 h, a millihour a day;
     * one instance, whose NVLink all-reduce hides behind the backward pass. */
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL,
                    "takes 2.45e+14 days with 1 instance, longer than the 3650-day maximum");
    ck_assert_ptr_nonnull(strstr(result->hint, "v100-32g-x8 × 1, takes 2.45e+14 days, past"));
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
        {.task = SIZING_TASK_INFERENCE,
         .model_params_b = 100,
         .precision = SIZING_PRECISION_INT8,
         .tokens_per_second = SIZING_MAX_TOKENS_PER_SECOND},
        {.task = SIZING_TASK_INFERENCE,
         .model_params_b = 0.001,
         .precision = SIZING_PRECISION_INT4,
         .tokens_per_second = 0.001},
        {.task = SIZING_TASK_INFERENCE,
         .model_params_b = 0.001,
         .precision = SIZING_PRECISION_INT4,
         .concurrent_requests = SIZING_MAX_CONCURRENT_REQUESTS,
         .context_tokens = 2},
        {.task = SIZING_TASK_INFERENCE,
         .model = "llama-2-70b",
         .precision = SIZING_PRECISION_FP16,
         .context_tokens = SIZING_MAX_CONTEXT_TOKENS,
         .min_tokens_per_second_per_request = SIZING_MAX_TOKENS_PER_SECOND_PER_REQUEST},
        {.task = SIZING_TASK_LORA,
         .model_params_b = 400,
         .precision = SIZING_PRECISION_INT4,
         .tokens_b = SIZING_MAX_TOKENS_B},
        {.task = SIZING_TASK_FINETUNE,
         .model_params_b = 0.001,
         .precision = SIZING_PRECISION_FP32,
         .tokens_b = 0.001},
        {.task = SIZING_TASK_PRETRAIN,
         .model_params_b = 13,
         .precision = SIZING_PRECISION_FP16,
         .tokens_b = SIZING_MAX_TOKENS_B,
         .sequence_length = SIZING_MAX_CONTEXT_TOKENS,
         .micro_batch_size = SIZING_MAX_MICRO_BATCH_SIZE,
         .checkpointing = SIZING_CHECKPOINTING_NONE},
    };
    static const double shares[] = {0.01, 1.0};
    static const int32_t millihours[] = {1, 24000};
    fixture_forget_max_positions(catalog, "llama-2-70b");
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++)
        for (size_t s = 0; s < 2; s++)
            for (size_t h = 0; h < 2; h++) {
                struct recommend_request request;
                recommend_request_init(&request);
                request.workload = workloads[w];
                request.millihours_per_day = millihours[h];
                set_peak_shares(&request, shares[s]);
                request.assumptions.value[SIZING_MEMORY_RESERVE] = 0.0;
                request.assumptions.value[SIZING_MAX_INSTANCES] = SIZING_MAX_INSTANCES_LIMIT;
                request.assumptions.set[SIZING_MEMORY_RESERVE] = true;
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
    /* (8 × 10e9 + 16 × 37 × 4736 × 2048) × 2e13 = 1.71e24 FLOPs ÷ (64 ×
     * 125e12 × 0.35 × scaling: FSDP's 1.5 × 20 GB of gradients over 32
     * Gbit/s against 4M-token steps) = 8002.6 days. */
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL,
                    "takes 8002.6 days with 8 instances, longer than the 3650-day maximum");
    ck_assert_ptr_nonnull(strstr(result->hint, "past the 3650-day maximum rental"));
}
END_TEST

START_TEST(test_no_fit_answers_with_hint)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 70, SIZING_PRECISION_FP16, 1);
    /* FSDP over 7 × 8 cards holds it (28.9 GB a card): one instance each. */
    request.assumptions.value[SIZING_MAX_INSTANCES] = 1;
    request.assumptions.set[SIZING_MAX_INSTANCES] = true;
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    ck_assert_int_eq(result->n_rejected, 5);
    ck_assert_int_eq(result->rejected_by_reason[RECOMMEND_REJECT_INSUFFICIENT_MEMORY], 5);
    /* Tensor parallelism over 8 cards, the least a card needs: (70 × 16 ÷ 8
     * + 4.8 ÷ 8) ÷ 0.9 = 156.2 GB a card, 1249.8 across the 8. */
    ck_assert_str_eq(result->hint, "no instance holds 1249.8 GB (the largest has 256 GB): use "
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
        specs[i] = (struct fixture_sku){
            ids[i], ids[i], FIXTURE_V100_16G, 1 + i % 4, 100 + i, 50000, 150000, 0, 0.0};
    }
    catalog_free(catalog);
    catalog = fixture_catalog_from(specs, N);
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    /* One instance each: FSDP over several would hold it. */
    request.assumptions.value[SIZING_MAX_INSTANCES] = 1;
    request.assumptions.set[SIZING_MAX_INSTANCES] = true;
    run_ok(&request);
    ck_assert_int_eq(result->n_recommendations, 0);
    ck_assert_int_eq(result->n_rejected, RECOMMEND_MAX_REJECTED);
    ck_assert_uint_eq(result->n_rejected_total, N);
    ck_assert_uint_eq(result->rejected_by_reason[RECOMMEND_REJECT_INSUFFICIENT_MEMORY], N);
    /* The 50 four-card SKUs (64 GB) are the nearest misses: 32 of them listed. */
    for (int i = 0; i < result->n_rejected; i++) {
        ck_assert_int_eq(result->rejected[i].sku->gpu_count, 4);
        ck_assert_str_eq(result->rejected[i].detail, "needs 126.2 GB, has 64 GB across 4 cards");
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
    int objective;
    ck_assert(names_parse(&recommend_objective_names, "time", &objective));
    ck_assert_int_eq(objective, RECOMMEND_OBJECTIVE_TIME);
    ck_assert(!names_parse(&recommend_objective_names, "speed", &objective));
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

/* `tokens`, or the model's positions when it has fewer: a context past
 * them is a 422 (check_card_limits.c). */
static int32_t within_positions(const struct sizing_workload *w, int32_t tokens)
{
    const struct model_shape *shape = catalog_find_shape(catalog, w->model);
    int32_t limit = shape != NULL ? shape->max_position_embeddings : 0;
    return limit > 0 && tokens > limit ? limit : tokens;
}

/* A named model now and then, and the serving or training figures. */
static void random_shape_and_sizes(struct sizing_workload *w)
{
    static const char *const models[] = {"llama-2-7b", "llama-2-70b", "mistral-7b", "qwen2.5-7b",
                                         "qwen2.5-72b"};
    static const int32_t contexts[] = {0, 512, 4096, 32768};
    if (rng_below(4) == 0) {
        w->model = models[rng_below(5)];
        w->model_params_b = 0;
    }
    if (w->task == SIZING_TASK_INFERENCE) {
        w->concurrent_requests = rng_below(2) ? 0 : 1 + rng_below(200);
        w->context_tokens = within_positions(w, contexts[rng_below(4)]);
        w->kv_precision = rng_below(3) == 0 ? SIZING_KV_INT8 : SIZING_KV_DEFAULT;
        w->min_tokens_per_second_per_request = rng_below(3) == 0 ? 1.0 + rng_below(40) : 0;
        return;
    }
    w->sequence_length = within_positions(w, contexts[rng_below(4)]);
    w->micro_batch_size = rng_below(3) == 0 ? 1 + rng_below(8) : 0;
    w->checkpointing = (enum sizing_checkpointing)rng_below(SIZING_CHECKPOINTING_COUNT);
    if (w->task == SIZING_TASK_LORA && rng_below(2))
        w->lora_rank = 1 << rng_below(8);
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
    random_shape_and_sizes(&r.workload);
    r.millihours_per_day = rng_below(3) ? 500 * (1 + rng_below(48)) : 0;
    bool training_run =
        sizing_task_trains(r.workload.task) &&
        (r.workload.tokens_b > 0 || (r.workload.model_params_b == 0 && r.workload.model == NULL));
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
    if (result->estimate.task != SIZING_TASK_INFERENCE)
        return;
    /* Every request at the floor or faster, the concurrency held, the
     * target reached, within the replica's memory. */
    const struct sizing_serving *v = &r->serving;
    const struct sizing_estimate *e = &result->estimate;
    ck_assert_int_eq(v->limit, SIZING_SERVES);
    ck_assert_double_eq(v->replicas, r->quantity);
    ck_assert_int_le(v->batch, v->max_batch);
    ck_assert_double_ge(v->tokens_per_second_per_request, e->per_request_floor * (1 - 1e-9));
    if (e->concurrent_requests > 0)
        ck_assert_int_ge((int64_t)r->quantity * v->batch, e->concurrent_requests);
    if (e->tokens_per_second > 0)
        ck_assert_double_ge(v->tokens_per_second, e->tokens_per_second * (1 - 1e-9));
    ck_assert_double_eq_tol(v->memory_gb,
                            (e->weights_gb + v->batch * e->kv_gb_per_request) /
                                (1 - e->assumptions[SIZING_MEMORY_RESERVE]),
                            1e-9);
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
    int recommended = 0, with_discount = 0, with_hint = 0;
    for (int n = 0; n < 400; n++) {
        struct recommend_request request = random_request();
        struct gq_error err;
        gq_error_clear(&err);
        enum gq_code code = recommend_run(catalog, &request, NOW, result, &err);
        ck_assert_msg(code == GQ_OK, "case %d: %s (%s)", n, err.message, err.field);
        ck_assert_int_le(result->n_recommendations, result->limit);
        ck_assert_uint_le(result->n_rejected_total, catalog->n_skus);
        ck_assert(result->n_recommendations > 0 || result->hint[0] != '\0');
        with_hint += result->n_recommendations > 0 && result->hint[0] != '\0';
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
    ck_assert_int_gt(with_hint, 10); /* cheaper changes were found and checked */
}
END_TEST

#define TABLE_SIZE(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* ---- Chinese ---------------------------------------------------------------- */

static void run_in(enum gq_lang lang, struct recommend_request *request)
{
    request->lang = lang;
    run_ok(request);
}

/* The README's 7B fp16 inference, said in Chinese: the same SKUs, figures
 * and amounts as in English, units in Chinese. */
START_TEST(test_chinese_7b_fp16_inference)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 0);
    run_in(GQ_LANG_ZH_CN, &request);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-16g-x2");
    ck_assert_int_eq(first->n_reasons, 4);
    ck_assert_str_eq(first->reasons[0], "装得下：需要 18.1 GB，共有 32 GB（分布在 2 张卡上）：14.0 "
                                        "GB 权重 + 2.3 GB KV 缓存（1 个请求）");
    ck_assert_str_eq(first->reasons[1], "可同时服务 1 个请求，每个请求 57.8 token/秒，合计 57.8 "
                                        "token/秒：1 个副本，每个副本 1 个请求，每步解码 17.1 "
                                        "毫秒（受显存带宽限制）");
    ck_assert_str_eq(first->reasons[2], "首个 token 用时 0.4 秒：2048 token 的提示词，3e+13 "
                                        "FLOPs，在 2 × 125 TFLOPS fp16 上，MFU 35%");
    ck_assert_str_eq(first->reasons[3], "最便宜的方案：1 个月，720.0 小时共 ¥2311.00");
    assert_rejected("t4-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "一个 4096 token 的请求需要 18.1 GB，只有 16 GB：可容纳 717 token 的上下文");
    ck_assert_str_eq(result->hint, "更便宜的做法：改用 int8 权重：v100-16g-x1 × 1，费用 "
                                   "¥1231.00（当前答案：¥2311.00）");
}
END_TEST

/* The product's fine-tune (7B fp16, 2B tokens, 10 days, student, ¥3000),
 * then with too small a budget and too short a deadline. */
START_TEST(test_chinese_7b_finetune)
{
    struct recommend_request request =
        request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 2);
    request.deadline_days = 10;
    request.segment = SEGMENT_STUDENT;
    request.budget = 300000;
    run_in(GQ_LANG_ZH_CN, &request);
    const struct recommendation *first = &result->recommendations[0];
    ck_assert_str_eq(first->sku->id, "v100-32g-x8");
    ck_assert_int_eq(first->n_reasons, 6);
    ck_assert_str_eq(first->reasons[0],
                     "用 fsdp 装得下：每张卡需要 17.9 GB，每张卡有 32 GB：每张卡 14.6 GB "
                     "权重和优化器状态（分成 8 份）+ 1.6 GB 激活值（激活检查点 full，1 × 2048 个 "
                     "token）");
    ck_assert_str_eq(
        first->reasons[1],
        "训练 96.1 小时：1.2e+20 FLOPs，在 8 × 125 TFLOPS fp16 上，MFU 35% × 扩展效率 100%");
    ck_assert_str_eq(first->reasons[2],
                     "扩展效率 100%（8 块 GPU）：每步每卡经 nvlink（25 GB/s）all-reduce 36.8 GB "
                     "梯度 1.84 秒，计算 45.4 秒（1.84 秒与反向传播重叠）");
    ck_assert_str_eq(first->reasons[3], "最便宜的方案：全部学生优惠价，96.1 小时共 ¥1219.06");
    ck_assert_str_eq(first->reasons[4], "按每天 24.0 小时计，4.1 天完成，期限 10 天");
    assert_rejected("v100-16g-x1", RECOMMEND_REJECT_INSUFFICIENT_MEMORY,
                    "需要 17.9 GB，只有 16 GB");
    ck_assert_str_eq(result->hint,
                     "更便宜的做法：把 activation_checkpointing 设为 none：v100-32g-x8 × 1，费用 "
                     "¥914.33，用时 72.1 小时（当前答案：¥1219.06，用时 96.1 小时）");

    request.budget = 100000;
    run_in(GQ_LANG_ZH_CN, &request);
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_OVER_BUDGET,
                    "最低也要 ¥1219.06（1 台实例），预算 ¥1000.00");
    ck_assert_str_eq(
        result->hint,
        "满足其他所有条件的最便宜配置是 v100-32g-x8 × 1，需 "
        "¥1219.06：请把预算至少提高到这个数；改为以下做法即可满足：把 activation_checkpointing "
        "设为 none：v100-32g-x8 × 1，费用 ¥914.33，用时 72.1 小时");

    request = request_for(SIZING_TASK_FINETUNE, 7, SIZING_PRECISION_FP16, 1);
    request.millihours_per_day = 1000;
    request.deadline_days = 5;
    run_in(GQ_LANG_ZH_CN, &request);
    assert_rejected("v100-32g-x8", RECOMMEND_REJECT_MISSES_DEADLINE,
                    "用 8 台实例需要 18.3 天，期限 5 天");
    ck_assert_str_eq(result->hint,
                     "最快的配置 v100-32g-x8 × 8 也需要 18.3 天：延长 deadline_days、调高 "
                     "assumptions.max_instances（当前 8，最多 64），或减少训练的 token 数");
}
END_TEST

/* Serving hints in Chinese: the changes joined with 、 and 或, with ； when
 * a change offers a choice of its own. */
START_TEST(test_chinese_serving_hints)
{
    struct recommend_request request =
        request_for(SIZING_TASK_INFERENCE, 70, SIZING_PRECISION_FP16, 0);
    request.workload.tokens_per_second = 2000;
    run_in(GQ_LANG_ZH_CN, &request);
    ck_assert_str_eq(result->hint,
                     "2000.0 token/秒至少需要 15 个 v100-32g-x8 副本：降低 "
                     "tokens_per_second；把权重量化为 int8 或 int4 或把 KV 缓存量化为 "
                     "int8；或调高 assumptions.max_instances（当前 8，最多 "
                     "64）；改为以下做法即可满足：改用 int4 权重：v100-32g-x8 × "
                     "7，费用 ¥72877.00");
    request = request_for(SIZING_TASK_INFERENCE, 7, SIZING_PRECISION_FP16, 0);
    request.workload.min_tokens_per_second_per_request = 1000;
    run_in(GQ_LANG_ZH_CN, &request);
    ck_assert_str_eq(result->rejected[0].detail, "每个请求最多解码 231.0 token/秒（一次只处理一个"
                                                 "请求），低于要求的 1000.0 token/秒");
    ck_assert_str_eq(result->hint, "没有配置能让每个请求达到 1000.0 token/秒：最快的 v100-32g-x8 "
                                   "也只有 231.0 token/秒：降低 min_tokens_per_second_per_request；"
                                   "缩短 prompt_tokens；或把权重量化为 int8 或 int4 或把 KV "
                                   "缓存量化为 int8");
}
END_TEST

/* The figures of a text in order of appearance, sorted: the runs of
 * digits and points, e.g. "18.1", "2048", "2311.00". */
static size_t numbers_of(const char *text, char out[][32], size_t max)
{
    size_t n = 0;
    for (const char *p = text; *p != '\0' && n < max;) {
        if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
            size_t length = strspn(p, "0123456789.");
            snprintf(out[n++], 32, "%.*s", (int)(length < 31 ? length : 31), p);
            p += length;
        } else
            p++;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort: a handful of figures */
        for (size_t j = i; j > 0 && strcmp(out[j - 1], out[j]) > 0; j--) {
            char swap[32];
            memcpy(swap, out[j], 32);
            memcpy(out[j], out[j - 1], 32);
            memcpy(out[j - 1], swap, 32);
        }
    return n;
}

/* A Chinese text against its English one: whole (not cut by its buffer),
 * valid UTF-8, in Chinese, with no place left unfilled, and the same
 * figures. */
static void assert_same_figures(const char *english, const char *chinese, size_t size)
{
    char a[24][32], b[24][32];
    ck_assert_msg(strlen(chinese) + 1 < size, "cut: %s", chinese);
    ck_assert_msg(strstr(chinese, "{") == NULL, "a place unfilled: %s", chinese);
    if (english[0] == '\0') {
        ck_assert_str_eq(chinese, "");
        return;
    }
    ck_assert_msg((unsigned char)chinese[0] != 0 && strpbrk(chinese, "\xe4\xe5\xe6\xe7\xe8\xe9"),
                  "not Chinese: %s", chinese);
    size_t n = numbers_of(english, a, 24), m = numbers_of(chinese, b, 24);
    ck_assert_msg(n == m, "%zu figures in \"%s\", %zu in \"%s\"", n, english, m, chinese);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(strcmp(a[i], b[i]) == 0, "\"%s\" and \"%s\" differ in %s / %s", english,
                      chinese, a[i], b[i]);
}

/* Every kind of text, in both languages: the same figures, none cut. */
START_TEST(test_chinese_has_the_english_figures)
{
    static const struct {
        enum sizing_task task;
        double params_b, tokens_b, tokens_per_second, per_request;
        enum sizing_precision precision;
        int32_t concurrent, deadline, millihours;
        gq_money budget;
    } cases[] = {
        {SIZING_TASK_INFERENCE, 7, 0, 0, 0, SIZING_PRECISION_FP16, 0, 0, 0, 0},
        {SIZING_TASK_INFERENCE, 7, 0, 2000, 0, SIZING_PRECISION_FP16, 0, 0, 0, 0},
        {SIZING_TASK_INFERENCE, 7, 0, 0, 0, SIZING_PRECISION_BF16, 50, 0, 0, 0},
        {SIZING_TASK_INFERENCE, 7, 0, 0, 0, SIZING_PRECISION_FP16, 100000, 0, 0, 0},
        {SIZING_TASK_INFERENCE, 7, 0, 0, 1000, SIZING_PRECISION_FP16, 0, 0, 0, 0},
        {SIZING_TASK_INFERENCE, 700, 0, 0, 0, SIZING_PRECISION_FP16, 0, 0, 0, 0},
        {SIZING_TASK_INFERENCE, 70, 0, 100000, 0, SIZING_PRECISION_INT4, 0, 0, 0, 0},
        {SIZING_TASK_FINETUNE, 7, 2, 0, 0, SIZING_PRECISION_FP16, 0, 10, 0, 300000},
        {SIZING_TASK_FINETUNE, 7, 2, 0, 0, SIZING_PRECISION_BF16, 0, 0, 0, 100000},
        {SIZING_TASK_FINETUNE, 7, 1, 0, 0, SIZING_PRECISION_FP16, 0, 5, 1000, 0},
        {SIZING_TASK_LORA, 13, 1, 0, 0, SIZING_PRECISION_BF16, 0, 0, 0, 0},
        {SIZING_TASK_LORA, 700, 1, 0, 0, SIZING_PRECISION_FP16, 0, 0, 0, 0},
        {SIZING_TASK_PRETRAIN, 10, 20000, 0, 0, SIZING_PRECISION_FP16, 0, 0, 0, 0},
        {SIZING_TASK_PRETRAIN, 1, 20, 0, 0, SIZING_PRECISION_FP16, 0, 0, 0, 0},
        {SIZING_TASK_LEARNING, 0, 0, 0, 0, SIZING_PRECISION_FP16, 0, 40, 0, 0},
    };
    static struct recommend_result english;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct recommend_request request =
            request_for(cases[k].task, cases[k].params_b, cases[k].precision, cases[k].tokens_b);
        request.workload.tokens_per_second = cases[k].tokens_per_second;
        request.workload.min_tokens_per_second_per_request = cases[k].per_request;
        request.workload.concurrent_requests = cases[k].concurrent;
        request.deadline_days = cases[k].deadline;
        request.millihours_per_day = cases[k].millihours;
        request.budget = cases[k].budget;
        request.segment = k % 2 ? SEGMENT_STUDENT : SEGMENT_ENTERPRISE;
        run_in(GQ_LANG_EN, &request);
        english = *result;
        run_in(GQ_LANG_ZH_CN, &request);
        ck_assert_int_eq(result->n_recommendations, english.n_recommendations);
        ck_assert_int_eq(result->n_rejected, english.n_rejected);
        for (int i = 0; i < result->n_recommendations; i++) {
            ck_assert_int_eq(result->recommendations[i].n_reasons,
                             english.recommendations[i].n_reasons);
            for (int j = 0; j < result->recommendations[i].n_reasons; j++)
                assert_same_figures(english.recommendations[i].reasons[j],
                                    result->recommendations[i].reasons[j], RECOMMEND_TEXT_SIZE);
        }
        for (int i = 0; i < result->n_rejected; i++)
            assert_same_figures(english.rejected[i].detail, result->rejected[i].detail,
                                RECOMMEND_TEXT_SIZE);
        assert_same_figures(english.hint, result->hint, sizeof result->hint);
    }
}
END_TEST

static Suite *recommend_suite(void)
{
    Suite *suite = suite_create("recommend");
    TCase *must = tcase_create("must_hold");
    tcase_add_checked_fixture(must, setup, teardown);
    tcase_add_test(must, test_7b_fp16_inference_needs_multi_card_v100);
    tcase_add_test(must, test_7b_int8_inference_v100_beats_t4_on_cost);
    tcase_add_test(must, test_free_tie_takes_fewer_instances);
    tcase_add_test(must, test_learning_student_gets_v100_at_student_rate);
    tcase_add_test(must, test_learning_individual_pays_on_demand);
    tcase_add_test(must, test_7b_full_finetune_fits_the_32gb_machines);
    tcase_add_test(must, test_over_budget_names_what_the_ranking_would_take);
    tcase_add_loop_test(must, test_memory_hint_suggests_only_narrower_precisions, 0, 6);
    tcase_add_loop_test(must, test_7b_full_finetune_in_fp32_and_bf16_runs_at_the_fp32_peak, 0, 2);
    tcase_add_test(must, test_product_example);
    tcase_add_test(must, test_pretrain_preset_takes_two_machines);
    tcase_add_test(must, test_time_objective_picks_more_cards_when_budget_allows);
    tcase_add_test(must, test_time_objective_respects_budget);
    tcase_add_test(must, test_max_instances_override_caps_the_count);
    tcase_add_test(must, test_throughput_target_sets_replicas);
    suite_add_tcase(suite, must);

    TCase *v2 = tcase_create("v2");
    tcase_add_checked_fixture(v2, setup, teardown);
    tcase_add_test(v2, test_qwen_50_chats);
    tcase_add_test(v2, test_concurrency_beyond_the_instances);
    tcase_add_test(v2, test_context_no_instance_holds);
    tcase_add_test(v2, test_bf16_lora_hint_leads_with_fp16);
    tcase_add_test(v2, test_long_sequence_finetune);
    suite_add_tcase(suite, v2);

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

    TCase *chinese = tcase_create("chinese");
    tcase_add_checked_fixture(chinese, setup, teardown);
    tcase_add_test(chinese, test_chinese_7b_fp16_inference);
    tcase_add_test(chinese, test_chinese_7b_finetune);
    tcase_add_test(chinese, test_chinese_serving_hints);
    tcase_add_test(chinese, test_chinese_has_the_english_figures);
    suite_add_tcase(suite, chinese);
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
