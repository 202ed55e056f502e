/*
 * POST /recommend through the real server: a 7B model served in fp16 needs
 * 18.1 GB with one 4096-token request, so both 16 GB single cards are
 * rejected with the exact shortfall and the longest context that fits, and a
 * multi-card V100 comes first; in int8 the single V100 16GB wins; concurrent
 * requests are batched on replicas at a per-request floor; a student
 * learning pays the student rate; a full 7B fine-tune fits the 4- and
 * 8-card machines with full checkpointing, only the 8-card one without, at
 * 4096 tokens a sample; the time objective buys more cards than the cost
 * objective; a budget nothing meets gives 200 with no recommendation, the
 * reasons and a hint; bad bodies give 422 with the field to blame.
 *
 * The central property: every recommendation's total is what POST /quote
 * charges for the same SKU, quantity, usage, segment and billing
 * "cheapest" — checked for every recommendation of a table of workloads.
 *
 * All cases only read: they share one server per test case.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/shared.h"
#include "support/suite.h"

#define FINETUNE_7B                                                                                \
    "{\"task\":\"finetune\",\"model_params_b\":7,\"precision\":\"fp16\",\"tokens_b\":2}"

static struct http_response *recommend(const char *body)
{
    struct http_response *response = http_post_json(client, "/recommend", body);
    expect_status(response, 200);
    ck_assert_str_eq(http_header(response, "content-type"), "application/json");
    return response;
}

/* ---- the product's sizing cases -------------------------------------------- */

/* A need a sliver over a card's memory never reads as fitting it: 8B in
 * fp16 with a 2-token request and no reserve needs 16.0012 GB, shown
 * rounded up (16.01, 16.1), not 16.0. */
START_TEST(test_recommend_memory_need_is_rounded_up)
{
    struct http_response *response = recommend(
        "{\"workload\":{\"task\":\"inference\",\"model_params_b\":8,\"precision\":\"fp16\","
        "\"context_tokens\":2},\"assumptions\":{\"memory_reserve\":0}}");
    json_t *r = response->json;
    expect_text(r, "estimate.weights_gb", "16.0");
    expect_text(r, "estimate.memory_gb", "16.01");
    expect_join(r, "rejected", "sku", "t4-16g-x1,v100-16g-x1");
    expect_str(r, "rejected[0].detail",
               "needs 16.1 GB for one request of 2 tokens, has 16 GB: not one token of context "
               "fits");
    expect_text(r, "recommendations[0].memory_gb_needed", "16.01");
    expect_str(r, "recommendations[0].reasons[0]",
               "fits: needs 16.1 GB, has 32 GB across 2 cards: 16.0 GB of weights + 0.1 GB of KV "
               "cache for 1 request");
    http_response_free(response);
}
END_TEST

/* A run of seconds is shown to two significant digits, so that runs of
 * different lengths ranked by time can be told apart: 0.1B on 0.01B tokens
 * is 1.07e16 FLOPs with full recomputation, 3.9 s on 64 cards, whose
 * 0.2 GB of gradients cross 32 Gbit/s in 0.15 s a 4M-token step. */
START_TEST(test_recommend_seconds_long_run_shows_its_hours)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"pretrain\",\"model_params_b\":0.1,"
                  "\"tokens_b\":0.01},\"objective\":\"time\"}");
    json_t *r = response->json;
    expect_text(r, "recommendations[0].estimated_hours", "0.0011");
    expect_text(r, "recommendations[1].estimated_hours", "0.0022");
    expect_text(r, "recommendations[2].estimated_hours", "0.0046");
    expect_str(r, "recommendations[0].reasons[1]",
               "0.0011 h of training: 1.1e+16 FLOPs on 64 × 125 TFLOPS fp16 at 35% MFU × 93.5% "
               "scaling");
    /* Billed in thousandths of an hour: 2 each, not "0.0 h". */
    expect_str(r, "recommendations[0].reasons[3]",
               "cheapest plan: the on-demand rate per instance, ¥0.32 for 8 × 0.002 h");
    http_response_free(response);
}
END_TEST

/* The finetune preset (1.3B) on two 8-card machines: each step all-reduces
 * 2 × 15/16 × 2.6 GB of fp16 gradients over the hosts' 32 Gbit/s (4 GB/s)
 * in 1.219 s + 100 buckets × 30 hops × 50 µs = 1.369 s, against 4.462 s
 * of compute per GPU (16,384 of the 262,144 tokens), 0.418 s of it
 * overlapped: 82.4 %, not a flat 0.85 × 0.60. Over 2.5 Gbit/s instead the
 * same step spends 15.75 s on the network: 22.5 %. */
START_TEST(test_recommend_scaling_from_the_network)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"finetune\"},\"objective\":\"time\","
                  "\"assumptions\":{\"max_instances\":2}}");
    json_t *r = response->json;
    expect_text(r, "estimate.training.global_batch_tokens", "262144");
    expect_str(r, "recommendations[0].sku", "v100-32g-x8");
    expect_text(r, "recommendations[0].quantity", "2");
    expect_text(r, "recommendations[0].scaling.gpus", "16");
    expect_str(r, "recommendations[0].scaling.link", "network");
    expect_str(r, "recommendations[0].scaling.bandwidth_source", "host");
    expect_str(r, "recommendations[0].scaling.efficiency_source", "network_model");
    expect_text(r, "estimate.assumptions.multi_instance_efficiency", "null");
    expect_text(r, "recommendations[0].scaling.bandwidth_gb_per_second", "4.0");
    expect_text(r, "recommendations[0].scaling.gradient_bytes", "2600000000.0");
    expect_text(r, "recommendations[0].scaling.bytes_per_step", "4875000000.0");
    expect_text(r, "recommendations[0].scaling.all_reduce_buckets", "100");
    expect_text(r, "recommendations[0].scaling.tokens_per_gpu_per_step", "16384.0");
    json_t *efficiency = json_at(r, "recommendations[0].scaling.efficiency");
    ck_assert_double_eq_tol(json_number_value(efficiency), 0.824386, 1e-6);
    json_t *seconds = json_at(r, "recommendations[0].scaling.communication_seconds_per_step");
    ck_assert_double_eq_tol(json_number_value(seconds), 1.36875, 1e-9);
    expect_str(r, "recommendations[0].reasons[2]",
               "82.4% scaling over 16 GPUs: each step all-reduces 4.88 GB of gradients per GPU "
               "over network at 4 GB/s in 1.37 s, against 4.46 s of compute per GPU (0.418 s of "
               "it hidden behind the backward pass)");
    http_response_free(response);

    response = recommend("{\"workload\":{\"task\":\"finetune\"},\"objective\":\"time\","
                         "\"assumptions\":{\"max_instances\":2,\"network_bandwidth_gbit_s\":2.5}}");
    r = response->json;
    expect_text(r, "estimate.assumptions.network_bandwidth_gbit_s", "2.5");
    /* 16 cards at 22.5 % are slower than one machine's 8 at 100 %; two
     * two-card machines all-reduce 3.9 GB in 12.5 s against 17.8 s of
     * compute (65,536 tokens a card): 59.6 %. */
    expect_join(r, "recommendations", "sku", "v100-32g-x8,v100-32g-x4,v100-16g-x2");
    expect_join(r, "recommendations", "quantity", "1,1,2");
    expect_str(r, "recommendations[0].scaling.link", "nvlink");
    expect_str(r, "recommendations[2].scaling.bandwidth_source", "assumption");
    efficiency = json_at(r, "recommendations[2].scaling.efficiency");
    ck_assert_double_eq_tol(json_number_value(efficiency), 0.596118, 1e-6);
    http_response_free(response);

    /* A caller still sending the deprecated flat figure gets it between
     * instances: 2 × v100-32g-x8 at 0.5 is one NVLink machine's 1.0 × 0.5,
     * so one machine alone is as fast and comes first. */
    response =
        recommend("{\"workload\":{\"task\":\"finetune\"},\"objective\":\"time\","
                  "\"assumptions\":{\"max_instances\":2,\"multi_instance_efficiency\":0.5}}");
    r = response->json;
    expect_text(r, "estimate.assumptions.multi_instance_efficiency", "0.5");
    expect_str(r, "recommendations[0].sku", "v100-32g-x8");
    expect_text(r, "recommendations[0].quantity", "1");
    expect_str(r, "recommendations[0].scaling.efficiency_source", "network_model");
    http_response_free(response);

    /* LoRA's 42 M int4-frozen adapters on one two-card NVLink instance:
     * 0.17 GB of gradients, hidden behind the backward pass. */
    response = recommend("{\"workload\":{\"task\":\"lora\",\"precision\":\"int4\"},"
                         "\"assumptions\":{\"max_instances\":1}}");
    r = response->json;
    expect_str(r, "recommendations[0].sku", "v100-16g-x2");
    expect_text(r, "recommendations[0].scaling.efficiency", "1.0");
    expect_str(r, "recommendations[0].scaling.link", "nvlink");
    http_response_free(response);
}
END_TEST

START_TEST(test_recommend_7b_inference_fp16)
{
    struct http_response *response = recommend(
        "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"precision\":\"fp16\"}}");
    json_t *r = response->json;
    expect_str(r, "currency", "CNY");
    expect_text(r, "price_list_version", "1");
    expect_str(r, "objective", "cost");
    expect_str(r, "segment", "individual");
    expect_text(r, "hours_per_day", "24.0");
    expect_text(r, "days", "30");
    /* 7 × 10^9 parameters × 2 bytes = 14 GB, and one request of 4096 tokens
     * of the derived shape (33 layers of 4224: 557,568 bytes a token), a
     * tenth of the instance kept free. */
    expect_str(r, "estimate.task", "inference");
    expect_str(r, "estimate.precision", "fp16");
    expect_text(r, "estimate.preset", "false");
    expect_text(r, "estimate.model_params_b", "7.0");
    expect_text(r, "estimate.bytes_per_param", "2.0");
    expect_text(r, "estimate.weights_gb", "14.0");
    expect_text(r, "estimate.working_gb", "2.29");
    expect_text(r, "estimate.allowance_fraction", "0.1");
    expect_text(r, "estimate.allowance_gb", "1.81");
    expect_text(r, "estimate.memory_gb", "18.1");
    expect_text(r, "estimate.model.derived", "true");
    expect_text(r, "estimate.model.id", "null");
    expect_text(r, "estimate.model.layers", "33");
    expect_text(r, "estimate.model.hidden", "4224");
    expect_text(r, "estimate.model.kv_heads", "33");
    expect_text(r, "estimate.serving.concurrent_requests", "1");
    expect_text(r, "estimate.serving.context_tokens", "4096");
    expect_text(r, "estimate.serving.prompt_tokens", "2048");
    expect_text(r, "estimate.serving.kv_bytes_per_token", "557568.0");
    expect_str(r, "estimate.serving.kv_precision", "fp16");
    expect_absent(r, "estimate.training");
    expect_text(r, "estimate.assumptions.memory_reserve", "0.1");

    expect_join(r, "rejected", "sku", "t4-16g-x1,v100-16g-x1");
    expect_join(r, "rejected", "reason", "insufficient_memory,insufficient_memory");
    expect_str(
        r, "rejected[0].detail",
        "needs 18.1 GB for one request of 4096 tokens, has 16 GB: 717 tokens of context fit");
    expect_str(
        r, "rejected[1].detail",
        "needs 18.1 GB for one request of 4096 tokens, has 16 GB: 717 tokens of context fit");
    expect_text(r, "rejected_total", "2");
    expect_str(r, "hint",
               "cheaper with int8 weights: v100-16g-x1 \xc3\x97 1 for \xc2\xa5"
               "1231.00 (this answer: \xc2\xa5"
               "2311.00)");

    /* Cheapest first: the smallest machine that holds it, a month each. */
    expect_join(r, "recommendations", "rank", "1,2,3");
    expect_join(r, "recommendations", "sku", "v100-16g-x2,v100-32g-x4,v100-32g-x8");
    expect_join(r, "recommendations", "total", "2311.00,5227.00,10411.00");
    expect_join(r, "recommendations", "billing", "monthly,monthly,monthly");
    expect_join(r, "recommendations", "quantity", "1,1,1");
    expect_join(r, "recommendations", "memory_gb_available", "32,128,256");
    expect_join(r, "recommendations", "cards", "2,4,8");
    expect_str(r, "recommendations[0].plan.summary", "1 month");
    expect_text(r, "recommendations[0].usage", "{\"hours_per_day\":24.0,\"days\":30}");
    expect_text(r, "recommendations[0].memory_gb_needed", "18.1");
    expect_text(r, "recommendations[0].estimated_hours", "720.0");
    expect_str(r, "recommendations[0].reasons[0]",
               "fits: needs 18.1 GB, has 32 GB across 2 cards: 14.0 GB of weights + 2.3 GB of KV "
               "cache for 1 request");
    expect_text(r, "recommendations[0].serving.replicas", "1");
    expect_text(r, "recommendations[0].serving.requests_per_replica", "1");
    expect_text(r, "recommendations[0].serving.max_requests_per_replica", "6");
    expect_text(r, "recommendations[0].serving.tokens_per_second_per_request", "57.76");
    expect_text(r, "recommendations[0].serving.time_to_first_token_seconds", "0.4");
    expect_str(r, "recommendations[0].serving.decode_bound", "memory");
    http_response_free(response);
}
END_TEST

/* A null assumption keeps its default, as an absent one does. */
START_TEST(test_recommend_null_assumption_is_the_default)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"finetune\",\"model_params_b\":7,\"tokens_b\":2},"
                  "\"assumptions\":{\"mfu\":null,\"max_instances\":null,\"memory_reserve\":0.5}}");
    expect_text(response->json, "estimate.assumptions.mfu", "0.35");
    expect_text(response->json, "estimate.assumptions.max_instances", "8.0");
    expect_text(response->json, "estimate.assumptions.memory_reserve", "0.5");
    /* Half the instance free: (112 + 1.56) GB × 2. */
    expect_text(response->json, "estimate.memory_gb", "227.12");
    http_response_free(response);
}
END_TEST

/* The workload is echoed as given: a tiny training run is not shown as
 * tokens_b 0, which would mean "no training run". */
START_TEST(test_recommend_echoes_tiny_workload_unrounded)
{
    struct http_response *response = recommend(
        "{\"workload\":{\"task\":\"finetune\",\"model_params_b\":0.001,\"tokens_b\":0.000001}}");
    ck_assert_ptr_nonnull(strstr(response->body, "\"model_params_b\":0.001,\"tokens_b\":0.000001,"
                                                 "\"tokens_per_second\":0.0,"));
    ck_assert_ptr_nonnull(strstr(response->body, "\"trainable_params_b\":0.001,"));
    http_response_free(response);
}
END_TEST

/* Qwen2.5-14B as its AWQ checkpoint is published: 9.99 GB of weights, not
 * params × 0.5 = 7.39; the precision follows from the method's bits. */
START_TEST(test_recommend_quantized_checkpoint)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"inference\",\"model\":\"qwen2.5-14b\","
                  "\"quantization\":{\"method\":\"awq\"}}}");
    json_t *r = response->json;
    expect_str(r, "estimate.precision", "int4");
    expect_str(r, "estimate.quantization.method", "awq");
    expect_text(r, "estimate.quantization.method_defaulted", "false");
    expect_text(r, "estimate.quantization.bits", "4");
    expect_text(r, "estimate.weights_gb", "9.98");
    http_response_free(response);
}
END_TEST

/* A Hugging Face id, in any case, is the shipped shape of its config.json. */
START_TEST(test_recommend_hugging_face_id)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"inference\",\"model\":\"META-LLAMA/Llama-2-7b-hf\"}}");
    expect_str(response->json, "estimate.model.id", "llama-2-7b");
    http_response_free(response);
}
END_TEST

START_TEST(test_recommend_7b_inference_int8)
{
    struct http_response *response = recommend(
        "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"precision\":\"int8\"}}");
    json_t *r = response->json;
    /* GPTQ int8 by default, said so: the fp16 embeddings and output, and a
     * scale and zero per 128 weights, take it past 1 byte a weight. */
    expect_text(r, "estimate.bytes_per_param", "1.06115178571");
    expect_str(r, "estimate.quantization.method", "gptq");
    expect_text(r, "estimate.quantization.method_defaulted", "true");
    expect_text(r, "estimate.quantization.group_size", "128");
    expect_text(r, "estimate.quantization.modules_not_quantized", "[\"embeddings\",\"output\"]");
    expect_text(r, "estimate.memory_gb", "10.8");
    expect_absent(r, "hint");
    expect_text(r, "rejected", "[]");
    expect_text(r, "rejected_total", "0");
    expect_join(r, "recommendations", "sku", "v100-16g-x1,v100-16g-x2,v100-32g-x4");
    expect_join(r, "recommendations", "total", "1231.00,2311.00,5227.00");
    expect_str(r, "recommendations[0].billing", "monthly");
    expect_text(r, "recommendations[0].memory_gb_available", "16");
    http_response_free(response);
}
END_TEST

START_TEST(test_recommend_learning_student)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"learning\"},\"customer\":{\"segment\":\"student\"}}");
    json_t *r = response->json;
    expect_str(r, "segment", "student");
    expect_text(r, "hours_per_day", "8.0"); /* a learner's working day */
    expect_text(r, "days", "30");
    expect_str(r, "recommendations[0].sku", "v100-16g-x1");
    expect_str(r, "recommendations[0].billing", "student");
    expect_str(r, "recommendations[0].total", "360.00"); /* 1.50 × 8 h × 30 days */
    expect_str(r, "recommendations[0].plan.summary", "30 days at the student rate");
    expect_str(r, "recommendations[0].plan.parts[0].unit_price", "1.50");
    expect_join(r, "recommendations", "billing", "student,student,student");
    expect_join(r, "recommendations", "total", "360.00,672.00,1531.20");
    http_response_free(response);

    /* The same without student status: on demand at list price. */
    response = recommend("{\"workload\":{\"task\":\"learning\"}}");
    expect_str(response->json, "recommendations[0].sku", "v100-16g-x1");
    expect_str(response->json, "recommendations[0].billing", "on_demand");
    expect_str(response->json, "recommendations[0].total", "547.20"); /* 2.28 × 240 h */
    http_response_free(response);
}
END_TEST

START_TEST(test_recommend_7b_finetune)
{
    struct http_response *response = recommend("{\"workload\":" FINETUNE_7B "}");
    json_t *r = response->json;
    /* 16 bytes a parameter for weights, gradients and Adam, the activations
     * of full checkpointing at 2048 × 1 tokens, a tenth free. */
    expect_text(r, "estimate.state_bytes_per_trainable_param", "16.0");
    expect_text(r, "estimate.model_state_gb", "112.0");
    expect_text(r, "estimate.working_gb", "1.56");
    expect_text(r, "estimate.memory_gb", "126.18");
    expect_text(r, "estimate.training.sequence_length", "2048");
    expect_text(r, "estimate.training.micro_batch_size", "1");
    expect_str(r, "estimate.training.activation_checkpointing", "full");
    expect_text(r, "estimate.training.lora_rank", "null");
    expect_absent(r, "estimate.serving");
    /* (8 × 7e9 + 16 × 33 × 4224 × 2048) × 2e9: the recomputed forward pass
     * and the attention's FLOPs counted. */
    expect_text(r, "estimate.flops_per_param_token", "8.0");
    expect_text(r, "estimate.attention_flops_per_token", "4567597056.0");
    expect_text(r, "estimate.flops", "1.21135194112e20");
    expect_absent(r, "days");
    /* Per GPU: DDP's 112 GB fit no card. FSDP over the 8 cards (14.6 GB a
     * card with the gathered layer), tensor parallelism over the 4 (28.4 GB),
     * FSDP over 5 pairs of 16 GB cards; one 16 GB card, even 8 of them,
     * cannot hold its share (17.9 GB). */
    expect_join(r, "rejected", "sku", "t4-16g-x1,v100-16g-x1");
    expect_str(r, "rejected[0].detail", "needs 17.9 GB, has 16 GB");
    expect_join(r, "recommendations", "sku", "v100-32g-x8,v100-32g-x4,v100-16g-x2");
    expect_join(r, "recommendations", "quantity", "1,1,5");
    expect_join(r, "recommendations", "strategy", "fsdp,tensor_parallel,fsdp");
    expect_text(r, "recommendations[0].memory_per_gpu_gb", "17.89");
    expect_text(r, "recommendations[1].memory_per_gpu_gb", "31.55");
    expect_text(r, "recommendations[2].memory_per_gpu_gb", "14.78");
    expect_absent(r, "recommendations[0].serving");
    /* 1.211e20 FLOPs ÷ (8 × 125 TFLOPS × 35 % MFU) = 96.14 h: the NVLink
     * all-reduce hides behind the backward pass (a flat 85 % said 113.1). */
    expect_text(r, "recommendations[0].estimated_hours", "96.14");
    expect_join(r, "recommendations", "total", "1853.58,1861.32,4314.25");
    expect_str(r, "hint",
               "cheaper with activation_checkpointing none: v100-32g-x8 \xc3\x97 1 for \xc2\xa5"
               "1390.24 in 72.1 h (this answer: \xc2\xa5"
               "1853.58 in 96.1 h)");
    http_response_free(response);
}
END_TEST

START_TEST(test_recommend_time_buys_more_cards)
{
    struct http_response *cost = recommend("{\"workload\":" FINETUNE_7B ",\"objective\":\"cost\"}");
    struct http_response *time = recommend("{\"workload\":" FINETUNE_7B ",\"objective\":\"time\"}");
    expect_str(time->json, "objective", "time");
    expect_str(cost->json, "recommendations[0].sku", "v100-32g-x8");
    expect_str(time->json, "recommendations[0].sku", "v100-32g-x8");
    expect_text(cost->json, "recommendations[0].cards", "8");
    expect_text(time->json, "recommendations[0].quantity", "8");
    expect_text(time->json, "recommendations[0].cards", "64");
    /* Eight machines whose 64 cards send FSDP's 1.5 × the all-reduce of
     * 14 GB of gradients over the hosts' 32 Gbit/s at 33 %: 36.56 h, not
     * 96.1 (DDP's bytes said 29.26, a flat 60 % 23.56). */
    expect_text(time->json, "recommendations[0].estimated_hours", "36.56");
    expect_str(time->json, "recommendations[0].strategy", "fsdp");
    expect_str(time->json, "recommendations[0].total", "5639.04");
    json_t *fast = json_at(time->json, "recommendations[0].estimated_hours");
    json_t *slow = json_at(cost->json, "recommendations[0].estimated_hours");
    ck_assert(json_number_value(fast) < json_number_value(slow));
    http_response_free(time);
    http_response_free(cost);
}
END_TEST

START_TEST(test_recommend_over_budget)
{
    const char *const budgets[] = {"\"100.00\"", "100", "100.0"};
    for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
        char body[256];
        snprintf(body, sizeof body, "{\"workload\":" FINETUNE_7B ",\"budget\":%s}", budgets[i]);
        struct http_response *response = recommend(body);
        json_t *r = response->json;
        expect_text(r, "recommendations", "[]");
        expect_join(r, "rejected", "sku",
                    "v100-32g-x8,v100-32g-x4,v100-16g-x2,t4-16g-x1,v100-16g-x1");
        expect_join(r, "rejected", "reason",
                    "over_budget,over_budget,over_budget,insufficient_memory,"
                    "insufficient_memory");
        expect_str(r, "rejected[0].detail",
                   "costs \xc2\xa5"
                   "1853.58 at best (1 instance), budget \xc2\xa5"
                   "100.00");
        expect_text(r, "rejected_total", "5");
        expect_str(r, "hint",
                   "the cheapest configuration that meets every other limit is v100-32g-x8 "
                   "\xc3\x97 1 at \xc2\xa5"
                   "1853.58: raise the budget to at least that");
        http_response_free(response);
    }
    /* The budget exactly met is enough. */
    struct http_response *response =
        recommend("{\"workload\":" FINETUNE_7B ",\"budget\":\"1853.58\"}");
    expect_join(response->json, "recommendations", "total", "1853.58");
    http_response_free(response);
}
END_TEST

/* ---- serving and training inputs ------------------------------------------- */

/* Concurrent requests of a long context, a per-request floor and an int8
 * KV cache: every figure echoed, each replica's batch, rates and time to
 * first token in the answer. 13B's derived shape keeps 2 × 40 × 5120
 * bytes a token in int8: 3.36 GB for 8192 tokens; a V100 32GB × 4 holds 28
 * of them beside 13 GB of weights and serves all 20 at 20.3 tok/s each. */
START_TEST(test_recommend_concurrent_requests)
{
    struct http_response *response = recommend(
        "{\"workload\":{\"task\":\"inference\",\"model_params_b\":13,\"precision\":\"int8\","
        "\"concurrent_requests\":20,\"context_tokens\":8192,\"prompt_tokens\":6000,"
        "\"min_tokens_per_second_per_request\":15,\"kv_precision\":\"int8\"}}");
    json_t *r = response->json;
    expect_text(r, "estimate.serving.concurrent_requests", "20");
    expect_text(r, "estimate.serving.context_tokens", "8192");
    expect_text(r, "estimate.serving.prompt_tokens", "6000");
    expect_text(r, "estimate.serving.output_tokens", "2192");
    expect_text(r, "estimate.serving.min_tokens_per_second_per_request", "15.0");
    expect_str(r, "estimate.serving.kv_precision", "int8");
    expect_text(r, "estimate.serving.kv_bytes_per_token", "409600.0");
    expect_text(r, "estimate.serving.kv_gb_per_request", "3.36");
    expect_text(r, "estimate.serving.kv_gb", "67.11");
    expect_text(r, "estimate.memory_gb", "18.97");
    expect_join(r, "recommendations", "sku", "v100-32g-x4,v100-32g-x8,v100-16g-x2");
    expect_join(r, "recommendations", "quantity", "1,1,5");
    expect_join(r, "recommendations", "total", "5227.00,10411.00,11555.00");
    expect_text(r, "recommendations[0].serving",
                "{\"replicas\":1,\"requests_per_replica\":20,\"max_requests_per_replica\":28,"
                "\"tokens_per_second_per_request\":20.16,\"tokens_per_second\":403.2,"
                "\"time_to_first_token_seconds\":1.15,\"decode_step_ms\":39.13,"
                "\"decode_bound\":\"memory\",\"kv_cache_gb\":67.11}");
    expect_text(r, "recommendations[0].memory_gb_needed", "89.81");
    expect_str(r, "recommendations[0].reasons[1]",
               "serves 20 requests at 20.2 tok/s each, 403.2 tok/s in all: 1 replica \xc3\x97 20, "
               "memory-bound decode step 39.1 ms");
    /* Two V100 16GB hold four requests: five replicas for twenty. */
    expect_text(r, "recommendations[2].serving.requests_per_replica", "4");
    expect_str(r, "recommendations[2].reasons[1]",
               "serves 20 requests at 31.5 tok/s each, 629.1 tok/s in all: 5 replicas \xc3\x97 4, "
               "memory-bound decode step 27.6 ms");
    expect_str(r, "rejected[0].detail",
               "needs 19.0 GB for one request of 8192 tokens, has 16 GB: 1679 tokens of context "
               "fit");
    expect_absent(r, "hint");
    http_response_free(response);
}
END_TEST

/* A sizing case: 13B int4 at 2,000 tok/s in all for a quarter. Batched,
 * two V100 32GB × 8 reach it (1246 tok/s at most each, 9 requests each at
 * 111.3 tok/s), where one request at a time took four; an int8 KV cache
 * halves it again. */
START_TEST(test_recommend_aggregate_target_is_batched)
{
    struct http_response *response = recommend(
        "{\"workload\":{\"task\":\"inference\",\"model_params_b\":13,\"precision\":\"int4\","
        "\"tokens_per_second\":2000},\"days\":90}");
    json_t *r = response->json;
    expect_text(r, "estimate.serving.concurrent_requests", "0");
    expect_join(r, "recommendations", "sku", "v100-32g-x8,v100-32g-x4");
    expect_join(r, "recommendations", "quantity", "2,4");
    expect_join(r, "recommendations", "total", "55814.00,56072.00");
    expect_text(r, "recommendations[0].serving.requests_per_replica", "9");
    expect_text(r, "recommendations[0].serving.max_requests_per_replica", "66");
    expect_text(r, "recommendations[0].serving.tokens_per_second", "2002.77");
    expect_str(r, "rejected[0].detail",
               "needs 9 replicas for 2000.0 tok/s at 225.2 tok/s each (6 requests), max 8 "
               "instances");
    expect_str(r, "hint",
               "cheaper with an int8 KV cache: v100-32g-x8 \xc3\x97 1 for \xc2\xa5"
               "27907.00 (this answer: \xc2\xa5"
               "55814.00)");
    http_response_free(response);
}
END_TEST

/* A fine-tune at 4096 tokens a sample, two a step: without recomputation
 * 221.5 GB of activations, more than any instance; with full
 * recomputation 9.0 GB, on the 8-card machine, and selective would be
 * cheaper still. */
START_TEST(test_recommend_long_sequences)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"finetune\",\"model_params_b\":7,\"tokens_b\":1,"
                  "\"sequence_length\":4096,\"micro_batch_size\":2,"
                  "\"activation_checkpointing\":\"none\"}}");
    json_t *r = response->json;
    expect_text(r, "estimate.training.activation_gb", "221.53");
    expect_text(r, "estimate.memory_gb", "370.59");
    expect_text(r, "recommendations", "[]");
    expect_str(r, "rejected[0].detail", "needs 370.6 GB, has 256 GB across 8 cards");
    expect_str(r, "hint",
               "no instance holds 370.6 GB (the largest has 256 GB): use lora instead "
               "of full training, or a smaller model");
    http_response_free(response);
    response = recommend("{\"workload\":{\"task\":\"finetune\",\"model_params_b\":7,\"tokens_b\":1,"
                         "\"sequence_length\":4096,\"micro_batch_size\":2}}");
    r = response->json;
    expect_str(r, "estimate.training.activation_checkpointing", "full");
    expect_text(r, "estimate.training.activation_gb", "9.0");
    /* Each card keeps the whole micro-batch's 9.0 GB of activations: FSDP
     * over 8 cards holds it, over 4 only with two instances; the 16 GB pairs
     * never do (18.4 GB a card). */
    expect_join(r, "recommendations", "sku", "v100-32g-x8,v100-32g-x4");
    expect_join(r, "recommendations", "quantity", "1,2");
    expect_str(r, "recommendations[0].total", "996.70");
    expect_str(r, "recommendations[0].reasons[0]",
               "fits with fsdp: needs 26.2 GB per GPU, has 32 GB: 14.6 GB of weights and "
               "optimizer state per GPU (split 8 ways) + 9.0 GB of activations (full "
               "checkpointing, 2 \xc3\x97 4096 tokens)");
    expect_str(r, "rejected[0].detail", "needs 36.8 GB, has 32 GB across 2 cards");
    expect_str(
        r, "hint",
        "cheaper with activation_checkpointing selective: v100-32g-x8 \xc3\x97 1 for \xc2\xa5"
        "782.46 in 40.6 h (this answer: \xc2\xa5"
        "996.70 in 51.7 h)");
    http_response_free(response);
}
END_TEST

/* LoRA by rank: 16 × 33 × (9 × 4224 + 2 × 4224 + 3 × 11264) = 42.4 M
 * adapters of the derived 7B, echoed with the share they are. */
START_TEST(test_recommend_lora_rank)
{
    struct http_response *response = recommend("{\"workload\":{\"task\":\"lora\",\"model_params_"
                                               "b\":7,\"tokens_b\":0.1,\"lora_rank\":16}}");
    json_t *r = response->json;
    expect_text(r, "estimate.trainable_params_b", "0.042375168");
    expect_text(r, "estimate.training.lora_rank", "16");
    expect_text(r, "estimate.assumptions.lora_trainable_fraction", "0.00605359542857");
    expect_text(r, "estimate.model_state_gb", "14.68");
    expect_str(r, "recommendations[0].sku", "v100-16g-x2");
    expect_str(r, "recommendations[0].total", "63.60");
    http_response_free(response);
}
END_TEST

/* ---- named models (migration 0006's shapes) ---------------------------------- */

/* "Qwen2.5 7B for 50 concurrent chats of 4k tokens": its config's 28
 * layers of 4 KV heads keep 57,344 bytes a token; two V100 16GB hold its
 * 15.23 GB of weights and all 50 chats, each at 27.2 tok/s. */
START_TEST(test_recommend_named_model_chats)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"inference\",\"model\":\"qwen2.5-7b\","
                  "\"concurrent_requests\":50,\"context_tokens\":4096}}");
    json_t *r = response->json;
    expect_text(r, "estimate.model_params_b", "7.615616512");
    expect_text(r, "estimate.model",
                "{\"id\":\"qwen2.5-7b\",\"name\":\"Qwen2.5 7B\",\"derived\":false,"
                "\"source\":\"https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json\","
                "\"layers\":28,\"hidden\":3584,\"heads\":28,\"kv_heads\":4,\"head_dim\":128,"
                "\"intermediate\":18944,\"vocab\":152064,\"sliding_window\":0}");
    expect_text(r, "estimate.serving.kv_bytes_per_token", "57344.0");
    expect_text(r, "estimate.serving.kv_gb", "11.75");
    expect_join(r, "recommendations", "sku", "v100-16g-x2,v100-32g-x4,v100-32g-x8");
    expect_join(r, "recommendations", "total", "2311.00,5227.00,10411.00");
    expect_text(r, "recommendations[0].serving.requests_per_replica", "50");
    expect_text(r, "recommendations[0].serving.max_requests_per_replica", "57");
    expect_text(r, "recommendations[0].serving.tokens_per_second_per_request", "27.25");
    expect_text(r, "recommendations[0].serving.time_to_first_token_seconds", "0.43");
    expect_str(r, "rejected[0].detail",
               "needs 17.2 GB for one request of 4096 tokens, has 16 GB: the weights alone are "
               "15.3 GB of the 14.4 GB it can use");
    expect_absent(r, "hint");
    http_response_free(response);
}
END_TEST

/* Qwen2.5 72B's 8 KV heads keep 0.3125 MiB a token: a request of its whole
 * 131,072 positions fits V100 32GB × 8 beside 145 GB of weights, and takes
 * 51 s to read its prompt. (Llama-2 70B has the same KV cache a token but
 * only 4,096 positions.) */
START_TEST(test_recommend_named_model_long_context)
{
    struct http_response *response = recommend("{\"workload\":{\"task\":\"inference\",\"model\":"
                                               "\"qwen2.5-72b\",\"context_tokens\":131072}}");
    json_t *r = response->json;
    expect_text(r, "estimate.serving.kv_bytes_per_token", "327680.0");
    expect_join(r, "recommendations", "sku", "v100-32g-x8");
    expect_text(r, "recommendations[0].serving.time_to_first_token_seconds", "50.96");
    /* (145.4 GB of weights + 131,072 × 327,680 bytes) ÷ 0.9. */
    expect_text(r, "recommendations[0].memory_gb_needed", "209.3");
    expect_str(r, "hint",
               "cheaper with int4 weights: v100-32g-x4 \xc3\x97 1 for \xc2\xa5"
               "5227.00 (this answer: \xc2\xa5"
               "10411.00)");
    http_response_free(response);
}
END_TEST

/* A named model's fine-tune at 4096 tokens a sample: Llama-2 7B's own
 * count (6.74B, 107.8 GB of state) and 32 layers of 4096. */
/* Memory per GPU by strategy. Llama-2 7B fully fine-tuned at 4096 tokens
 * under ZeRO-3 on one V100 32GB × 4: DeepSpeed's estimator gives 30.85 GB
 * of model state a GPU, with 4.33 GB of activations and a tenth free 39.1
 * GB, over the 32 GB card (156.4 GB over its 4): only the 8-card machine
 * holds it. Once, 128 GB in all said it fitted. */
START_TEST(test_recommend_zero3_is_per_gpu)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"finetune\",\"model\":\"llama-2-7b\",\"tokens_b\":0.1,"
                  "\"sequence_length\":4096,\"strategy\":\"zero3\"},"
                  "\"assumptions\":{\"max_instances\":1}}");
    json_t *r = response->json;
    expect_str(r, "estimate.training.strategy", "zero3");
    expect_str(r, "estimate.training.offload", "none");
    expect_text(r, "estimate.training.largest_layer_params", "131072000.0");
    expect_join(r, "recommendations", "sku", "v100-32g-x8");
    expect_str(r, "recommendations[0].strategy", "zero3");
    expect_text(r, "recommendations[0].memory_per_gpu_gb", "22.24");
    expect_join(r, "rejected", "sku", "v100-32g-x4,v100-16g-x2,t4-16g-x1,v100-16g-x1");
    expect_str(r, "rejected[0].detail", "needs 156.4 GB, has 128 GB across 4 cards");
    http_response_free(response);
}
END_TEST

/* LoRA on 7B over V100 16GB × 2 fits only because FSDP shards the frozen
 * fp16 weights over the two cards, and the answer says so. */
START_TEST(test_recommend_lora_names_fsdp)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"lora\",\"model\":\"llama-2-7b\",\"tokens_b\":0.1},"
                  "\"assumptions\":{\"max_instances\":1}}");
    json_t *r = response->json;
    expect_str(r, "estimate.training.strategy", "auto");
    expect_str(r, "recommendations[0].sku", "v100-16g-x2");
    expect_str(r, "recommendations[0].strategy", "fsdp");
    expect_text(r, "recommendations[0].memory_per_gpu_gb", "10.33");
    expect_join(r, "recommendations", "strategy", "fsdp,ddp,ddp");
    http_response_free(response);
    response = recommend("{\"workload\":{\"task\":\"lora\",\"model\":\"llama-2-7b\","
                         "\"tokens_b\":0.1,\"strategy\":\"ddp\"},"
                         "\"assumptions\":{\"max_instances\":1}}");
    r = response->json;
    expect_join(r, "recommendations", "sku", "v100-32g-x8,v100-32g-x4");
    /* DDP keeps the whole 13.5 GB base on each card: 17.9 GB a card. */
    expect_join(r, "rejected", "sku", "t4-16g-x1,v100-16g-x1,v100-16g-x2");
    expect_str(r, "rejected[2].detail", "needs 35.7 GB, has 32 GB across 2 cards");
    http_response_free(response);
}
END_TEST

/* A strategy or offload the server does not know, an offload the strategy
 * cannot do, or a strategy for serving: 422 naming the field. */
/* ZeRO-3 with the parameters offloaded keeps 4 × the largest layer and a
 * micro-batch on the card (3.0 GB), and DeepSpeed's estimate on the host:
 * 13B × 18 × 1.5 ÷ instances. One V100 16GB's host (32 GiB) cannot hold
 * its share even over 8 instances (43.9 GB), and the detail says so. */
START_TEST(test_recommend_offload_checks_host)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"finetune\",\"model_params_b\":13,\"tokens_b\":0.1,"
                  "\"strategy\":\"zero3\",\"offload\":\"parameters\"}}");
    json_t *r = response->json;
    expect_str(r, "estimate.training.offload", "parameters");
    expect_str(r, "recommendations[0].strategy", "zero3");
    expect_text(r, "recommendations[0].memory_per_gpu_gb", "2.99");
    expect_join(r, "rejected", "sku", "t4-16g-x1,v100-16g-x1");
    expect_str(r, "rejected[1].detail",
               "the offload needs 43.9 GB of host memory, the host has 32 GiB");
    http_response_free(response);
}
END_TEST

START_TEST(test_recommend_strategy_refused)
{
    static const struct {
        const char *workload;
        const char *field;
    } cases[] = {
        {"{\"task\":\"finetune\",\"model_params_b\":1,\"tokens_b\":0.1,\"strategy\":\"zero4\"}",
         "workload.strategy"},
        {"{\"task\":\"finetune\",\"model_params_b\":1,\"tokens_b\":0.1,\"strategy\":3}",
         "workload.strategy"},
        {"{\"task\":\"finetune\",\"model_params_b\":1,\"tokens_b\":0.1,\"offload\":\"gpu\"}",
         "workload.offload"},
        {"{\"task\":\"finetune\",\"model_params_b\":1,\"tokens_b\":0.1,\"strategy\":\"ddp\","
         "\"offload\":\"optimizer\"}",
         "workload.offload"},
        {"{\"task\":\"finetune\",\"model_params_b\":1,\"tokens_b\":0.1,\"strategy\":\"zero2\","
         "\"offload\":\"parameters\"}",
         "workload.offload"},
        {"{\"task\":\"inference\",\"model_params_b\":1,\"strategy\":\"zero3\"}",
         "workload.strategy"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[512];
        snprintf(body, sizeof body, "{\"workload\":%s}", cases[i].workload);
        struct http_response *response = http_post_json(client, "/recommend", body);
        ck_assert_msg(response->status == 422, "%s: %ld", body, (long)response->status);
        expect_str(response->json, "error.field", cases[i].field);
        http_response_free(response);
    }
}
END_TEST

START_TEST(test_recommend_named_model_finetune)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"finetune\",\"model\":\"llama-2-7b\",\"tokens_b\":1,"
                  "\"sequence_length\":4096}}");
    json_t *r = response->json;
    expect_text(r, "estimate.model_state_gb", "107.81");
    expect_text(r, "estimate.training.activation_gb", "4.33");
    expect_join(r, "recommendations", "sku", "v100-32g-x8,v100-32g-x4,v100-16g-x2");
    expect_join(r, "recommendations", "strategy", "fsdp,tensor_parallel,fsdp");
    expect_join(r, "recommendations", "total", "956.33,960.30,2358.84");
    expect_str(r, "hint",
               "cheaper with activation_checkpointing none: v100-32g-x8 \xc3\x97 1 for \xc2\xa5"
               "717.25 in 37.2 h (this answer: \xc2\xa5"
               "956.33 in 49.6 h)");
    http_response_free(response);
}
END_TEST

/* An unknown model names those the catalog has. */
START_TEST(test_recommend_unknown_model_lists_the_catalog)
{
    struct http_response *response = http_post_json(
        client, "/recommend", "{\"workload\":{\"task\":\"inference\",\"model\":\"llama-9\"}}");
    expect_error(response, 422, "invalid_value", "workload.model");
    expect_str(response->json, "error.message",
               "unknown model 'llama-9'; the catalog has deepseek-llm-7b, llama-2-13b, "
               "llama-2-70b, llama-2-7b, llama-3-70b, llama-3-8b, mistral-7b, qwen2.5-14b, "
               "qwen2.5-32b, qwen2.5-72b, qwen2.5-7b");
    http_response_free(response);
    response = http_post_json(client, "/recommend",
                              "{\"workload\":{\"task\":\"inference\",\"model\":\"llama-2-7b\","
                              "\"model_params_b\":7}}");
    expect_error(response, 422, "invalid_value", "workload.model_params_b");
    http_response_free(response);
}
END_TEST

/* ---- a recommendation is a quote ------------------------------------------------ */

static const char *const workloads[] = {
    "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"precision\":\"fp16\"}}",
    "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"precision\":\"int8\"},"
    "\"hours_per_day\":8,\"days\":90}",
    "{\"workload\":{\"task\":\"learning\"},\"customer\":{\"segment\":\"student\"}}",
    "{\"workload\":{\"task\":\"learning\"},\"customer\":{\"segment\":\"student\"},"
    "\"hours_per_day\":24,\"days\":100,\"limit\":5}",
    "{\"workload\":" FINETUNE_7B "}",
    "{\"workload\":" FINETUNE_7B ",\"objective\":\"time\",\"limit\":5}",
    "{\"workload\":{\"task\":\"lora\",\"model_params_b\":13,\"precision\":\"bf16\",\"tokens_b\":1},"
    "\"hours_per_day\":10,\"limit\":5}",
    "{\"workload\":{\"task\":\"inference\",\"model_params_b\":13,\"precision\":\"int4\","
    "\"tokens_per_second\":500},\"days\":120,\"customer\":{\"segment\":\"enterprise\"},"
    "\"limit\":5}",
    "{\"workload\":{\"task\":\"pretrain\",\"model_params_b\":1,\"precision\":\"bf16\","
    "\"tokens_b\":20},\"deadline_days\":30,\"customer\":{\"segment\":\"startup\"},\"limit\":5}",
    "{\"workload\":{\"task\":\"inference\",\"model_params_b\":70,\"precision\":\"int4\"},"
    "\"hours_per_day\":12.5,\"days\":45,\"limit\":20}",
    "{\"workload\":{\"task\":\"inference\",\"model_params_b\":13,\"precision\":\"int8\","
    "\"concurrent_requests\":20,\"context_tokens\":8192,\"kv_precision\":\"int8\"},"
    "\"customer\":{\"segment\":\"startup\"},\"limit\":5}",
    "{\"workload\":{\"task\":\"finetune\",\"model_params_b\":7,\"tokens_b\":1,"
    "\"sequence_length\":4096,\"activation_checkpointing\":\"selective\"},\"limit\":5}",
    "{\"workload\":{\"task\":\"lora\",\"model_params_b\":13,\"tokens_b\":0.5,\"lora_rank\":64},"
    "\"customer\":{\"segment\":\"student\"},\"limit\":5}",
    "{\"workload\":{\"task\":\"inference\",\"model\":\"qwen2.5-7b\",\"concurrent_requests\":50,"
    "\"context_tokens\":4096},\"customer\":{\"segment\":\"enterprise\"},\"days\":100,\"limit\":5}",
    "{\"workload\":{\"task\":\"inference\",\"model\":\"mistral-7b\",\"tokens_per_second\":800,"
    "\"context_tokens\":16384,\"kv_precision\":\"int8\"},\"hours_per_day\":12,\"limit\":5}",
};

/* How many recommendations each workload gets (all that fit, up to limit):
 * sharding the training state per GPU (FSDP) lets the 16 GB cards train
 * 7B and 13B models over several instances. */
static const int workload_counts[] = {3, 3, 3, 5, 3, 3, 5, 4, 3, 2, 3, 2, 5, 3, 3};

/* POST /quote for one recommendation, billed at the cheapest plan. */
static struct http_response *quote_recommendation(json_t *recommendation, const char *segment)
{
    json_t *body =
        json_pack("{s:{s:s}, s:[{s:O, s:O, s:O, s:O, s:s}], s:b}", "customer", "segment", segment,
                  "items", "sku", json_object_get(recommendation, "sku"), "quantity",
                  json_object_get(recommendation, "quantity"), "hours_per_day",
                  json_at(recommendation, "usage.hours_per_day"), "days",
                  json_at(recommendation, "usage.days"), "billing", "cheapest", "save", 0);
    ck_assert_ptr_nonnull(body);
    char *text = json_dumps(body, JSON_COMPACT | JSON_REAL_PRECISION(12));
    json_decref(body);
    struct http_response *response = http_post_json(client, "/quote", text);
    ck_assert_msg(response->status == 200, "%s: %s", text, http_describe(response));
    free(text);
    return response;
}

START_TEST(test_recommend_totals_are_quotes)
{
    struct http_response *response = recommend(workloads[_i]);
    json_t *r = response->json;
    json_t *list = json_at(r, "recommendations");
    ck_assert_int_eq(json_count(r, "recommendations"), workload_counts[_i]);
    size_t index;
    json_t *recommendation;
    json_array_foreach(list, index, recommendation)
    {
        struct http_response *quote = quote_recommendation(recommendation, json_str(r, "segment"));
        json_t *item = json_at(quote->json, "items[0]");
        const char *sku = json_str(recommendation, "sku");
        ck_assert_msg(strcmp(json_str(item, "total"), json_str(recommendation, "total")) == 0,
                      "%s × %s: quote %s, recommendation %s", sku,
                      json_text(recommendation, "quantity"), json_str(item, "total"),
                      json_str(recommendation, "total"));
        ck_assert_str_eq(json_str(item, "amount"), json_str(recommendation, "amount"));
        ck_assert_str_eq(json_str(item, "discount_total"),
                         json_str(recommendation, "discount_total"));
        ck_assert_str_eq(json_str(item, "cheapest.billing"), json_str(recommendation, "billing"));
        ck_assert_str_eq(json_str(quote->json, "total"), json_str(recommendation, "total"));
        ck_assert_msg(
            json_equal(json_object_get(item, "plan"), json_object_get(recommendation, "plan")),
            "%s: plan %s against %s", sku, json_text(item, "plan"),
            json_text(recommendation, "plan"));
        ck_assert_int_eq(json_integer_value(json_object_get(recommendation, "rank")),
                         (json_int_t)index + 1);
        http_response_free(quote);
    }
    http_response_free(response);
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

struct invalid_recommend {
    const char *body;
    int status;
    const char *code;
    const char *field;
};

#define INFERENCE "{\"task\":\"inference\"}"

static const struct invalid_recommend invalid_requests[] = {
    {"{}", 422, "missing_field", "workload"},
    {"{\"workload\":\"inference\"}", 422, "invalid_type", "workload"},
    {"{\"workload\":{}}", 422, "missing_field", "workload.task"},
    {"{\"workload\":{\"task\":\"dance\"}}", 422, "invalid_value", "workload.task"},
    {"{\"workload\":{\"task\":\"inference\",\"precision\":\"fp8\"}}", 422, "invalid_value",
     "workload.precision"},
    {"{\"workload\":{\"task\":\"inference\",\"model_params_b\":-1}}", 422, "out_of_range",
     "workload.model_params_b"},
    {"{\"workload\":{\"task\":\"inference\",\"model_params_b\":\"7\"}}", 422, "invalid_type",
     "workload.model_params_b"},
    {"{\"workload\":{\"task\":\"inference\",\"tokens_b\":3}}", 422, "invalid_value",
     "workload.tokens_b"},
    {"{\"workload\":{\"task\":\"finetune\",\"tokens_per_second\":3}}", 422, "invalid_value",
     "workload.tokens_per_second"},
    {"{\"workload\":{\"task\":\"finetune\",\"precision\":\"int4\"}}", 422, "invalid_value",
     "workload.precision"},
    {"{\"workload\":{\"task\":\"inference\",\"colour\":1}}", 422, "unknown_field",
     "workload.colour"},
    {"{\"workload\":" INFERENCE ",\"colour\":1}", 422, "unknown_field", "colour"},
    {"{\"workload\":" INFERENCE ",\"objective\":\"speed\"}", 422, "invalid_value", "objective"},
    {"{\"workload\":" INFERENCE ",\"limit\":0}", 422, "out_of_range", "limit"},
    {"{\"workload\":" INFERENCE ",\"limit\":21}", 422, "out_of_range", "limit"},
    {"{\"workload\":" INFERENCE ",\"limit\":1e300}", 422, "out_of_range", "limit"},
    {"{\"workload\":" INFERENCE ",\"limit\":2.5}", 422, "invalid_value", "limit"},
    {"{\"workload\":" INFERENCE ",\"budget\":\"abc\"}", 422, "invalid_value", "budget"},
    {"{\"workload\":" INFERENCE ",\"budget\":\"10.001\"}", 422, "invalid_value", "budget"},
    {"{\"workload\":" INFERENCE ",\"budget\":-5}", 422, "out_of_range", "budget"},
    {"{\"workload\":" INFERENCE ",\"budget\":\"10000000000000.01\"}", 422, "out_of_range",
     "budget"},
    {"{\"workload\":" INFERENCE ",\"budget\":10000000000001}", 422, "out_of_range", "budget"},
    {"{\"workload\":" INFERENCE ",\"budget\":1.5}", 422, "invalid_value", "budget"},
    {"{\"workload\":" INFERENCE ",\"hours_per_day\":25}", 422, "out_of_range", "hours_per_day"},
    {"{\"workload\":" INFERENCE ",\"hours_per_day\":8.0001}", 422, "invalid_value",
     "hours_per_day"},
    {"{\"workload\":" INFERENCE ",\"days\":0}", 422, "out_of_range", "days"},
    {"{\"workload\":" FINETUNE_7B ",\"days\":30}", 422, "invalid_value", "days"},
    {"{\"workload\":" INFERENCE ",\"deadline_days\":3651}", 422, "out_of_range", "deadline_days"},
    {"{\"workload\":" INFERENCE ",\"customer\":{\"segment\":\"alien\"}}", 422, "invalid_value",
     "customer.segment"},
    {"{\"workload\":" INFERENCE ",\"assumptions\":{\"mfu\":2}}", 422, "out_of_range",
     "assumptions.mfu"},
    {"{\"workload\":" INFERENCE ",\"assumptions\":{\"nope\":1}}", 422, "unknown_field",
     "assumptions.nope"},
    {"{\"workload\":" INFERENCE ",\"assumptions\":{\"mfu\":\"x\"}}", 422, "invalid_type",
     "assumptions.mfu"},
    /* The assumptions v2 replaced are unknown, not silently ignored. */
    {"{\"workload\":" INFERENCE ",\"assumptions\":{\"kv_cache_allowance\":0.2}}", 422,
     "unknown_field", "assumptions.kv_cache_allowance"},
    {"{\"workload\":" INFERENCE ",\"assumptions\":{\"memory_reserve\":0.6}}", 422, "out_of_range",
     "assumptions.memory_reserve"},
    /* Named models. */
    {"{\"workload\":{\"task\":\"inference\",\"model\":\"gpt-9\"}}", 422, "invalid_value",
     "workload.model"},
    {"{\"workload\":{\"task\":\"inference\",\"model\":7}}", 422, "invalid_type", "workload.model"},
    /* Serving fields. */
    {"{\"workload\":{\"task\":\"inference\",\"concurrent_requests\":0}}", 422, "out_of_range",
     "workload.concurrent_requests"},
    {"{\"workload\":{\"task\":\"inference\",\"concurrent_requests\":2.5}}", 422, "invalid_value",
     "workload.concurrent_requests"},
    {"{\"workload\":{\"task\":\"inference\",\"concurrent_requests\":1000001}}", 422, "out_of_range",
     "workload.concurrent_requests"},
    {"{\"workload\":{\"task\":\"inference\",\"context_tokens\":1}}", 422, "out_of_range",
     "workload.context_tokens"},
    {"{\"workload\":{\"task\":\"inference\",\"context_tokens\":1048577}}", 422, "out_of_range",
     "workload.context_tokens"},
    {"{\"workload\":{\"task\":\"inference\",\"context_tokens\":512,\"prompt_tokens\":512}}", 422,
     "out_of_range", "workload.prompt_tokens"},
    {"{\"workload\":{\"task\":\"inference\",\"prompt_tokens\":0}}", 422, "out_of_range",
     "workload.prompt_tokens"},
    {"{\"workload\":{\"task\":\"inference\",\"min_tokens_per_second_per_request\":0}}", 422,
     "out_of_range", "workload.min_tokens_per_second_per_request"},
    {"{\"workload\":{\"task\":\"inference\",\"min_tokens_per_second_per_request\":\"fast\"}}", 422,
     "invalid_type", "workload.min_tokens_per_second_per_request"},
    {"{\"workload\":{\"task\":\"inference\",\"kv_precision\":\"int4\"}}", 422, "invalid_value",
     "workload.kv_precision"},
    {"{\"workload\":{\"task\":\"finetune\",\"concurrent_requests\":4}}", 422, "invalid_value",
     "workload.concurrent_requests"},
    {"{\"workload\":{\"task\":\"lora\",\"kv_precision\":\"int8\"}}", 422, "invalid_value",
     "workload.kv_precision"},
    /* Training fields. */
    {"{\"workload\":{\"task\":\"finetune\",\"sequence_length\":0}}", 422, "out_of_range",
     "workload.sequence_length"},
    {"{\"workload\":{\"task\":\"finetune\",\"micro_batch_size\":4097}}", 422, "out_of_range",
     "workload.micro_batch_size"},
    {"{\"workload\":{\"task\":\"finetune\",\"activation_checkpointing\":\"some\"}}", 422,
     "invalid_value", "workload.activation_checkpointing"},
    {"{\"workload\":{\"task\":\"inference\",\"sequence_length\":4096}}", 422, "invalid_value",
     "workload.sequence_length"},
    {"{\"workload\":{\"task\":\"inference\",\"activation_checkpointing\":\"full\"}}", 422,
     "invalid_value", "workload.activation_checkpointing"},
    {"{\"workload\":{\"task\":\"finetune\",\"lora_rank\":8}}", 422, "invalid_value",
     "workload.lora_rank"},
    {"{\"workload\":{\"task\":\"lora\",\"lora_rank\":0}}", 422, "out_of_range",
     "workload.lora_rank"},
    {"{\"workload\":{\"task\":\"lora\",\"lora_rank\":8},\"assumptions\":{"
     "\"lora_trainable_fraction\":0.02}}",
     422, "invalid_value", "workload.lora_rank"},
    /* Quantisation the precision contradicts. */
    {"{\"workload\":{\"task\":\"inference\",\"precision\":\"fp16\",\"quantization\":{"
     "\"method\":\"gptq\"}}}",
     422, "invalid_value", "workload.quantization"},
    {"{\"workload\":{\"task\":\"inference\",\"precision\":\"int8\",\"quantization\":{"
     "\"method\":\"awq\"}}}",
     422, "invalid_value", "workload.precision"},
    {"{\"workload\":{\"task\":\"inference\",\"quantization\":{\"method\":\"gptq\",\"bits\":3}}}",
     422, "out_of_range", "workload.quantization.bits"},
    {"{\"workload\":{\"task\":\"inference\",\"quantization\":{\"method\":\"gptq\",\"bits\":6}}}",
     422, "invalid_value", "workload.quantization.bits"},
    {"{\"workload\":{\"task\":\"inference\",\"quantization\":{\"method\":\"hqq\"}}}", 422,
     "invalid_value", "workload.quantization.method"},
    {"{\"workload\":{\"task\":\"inference\",\"quantization\":{\"method\":\"w8a8\","
     "\"group_size\":64}}}",
     422, "invalid_value", "workload.quantization.group_size"},
    {"{\"workload\":{\"task\":\"inference\",\"quantization\":{\"modules_not_quantized\":["
     "\"lm_head\"]}}}",
     422, "invalid_value", "workload.quantization.modules_not_quantized[0]"},
    {"{\"workload\":{\"task\":\"inference\",\"quantization\":{\"scheme\":1}}}", 422,
     "unknown_field", "workload.quantization.scheme"},
    {"[]", 422, "invalid_type", NULL},
    {"{\"workload\":", 400, "malformed_json", NULL},
    {"", 400, "malformed_json", NULL},
};

START_TEST(test_recommend_refused)
{
    const struct invalid_recommend *c = &invalid_requests[_i];
    struct http_response *response = http_post_json(client, "/recommend", c->body);
    ck_assert_msg(response->status == c->status, "%s: %s", c->body, http_describe(response));
    expect_error(response, c->status, c->code, c->field);
    http_response_free(response);
}
END_TEST

START_TEST(test_recommend_wrong_method_and_type)
{
    struct http_response *response = http_get(client, "/recommend");
    expect_error(response, 405, "method_not_allowed", NULL);
    ck_assert_str_eq(http_header(response, "allow"), "POST, OPTIONS");
    http_response_free(response);
    const char *const text[] = {"Content-Type: text/plain", NULL};
    response =
        http_request(client, "POST", "/recommend", text, "{\"workload\":{\"task\":\"learning\"}}");
    expect_error(response, 415, "unsupported_media_type", NULL);
    http_response_free(response);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_recommend");

    TCase *cases = tcase_create("sizing");
    tcase_add_unchecked_fixture(cases, start_shared, stop_shared);
    tcase_add_checked_fixture(cases, open_client, close_client);
    suite_set_timeout(cases, 10);
    tcase_add_test(cases, test_recommend_7b_inference_fp16);
    tcase_add_test(cases, test_recommend_memory_need_is_rounded_up);
    tcase_add_test(cases, test_recommend_seconds_long_run_shows_its_hours);
    tcase_add_test(cases, test_recommend_scaling_from_the_network);
    tcase_add_test(cases, test_recommend_7b_inference_int8);
    tcase_add_test(cases, test_recommend_quantized_checkpoint);
    tcase_add_test(cases, test_recommend_hugging_face_id);
    tcase_add_test(cases, test_recommend_echoes_tiny_workload_unrounded);
    tcase_add_test(cases, test_recommend_null_assumption_is_the_default);
    tcase_add_test(cases, test_recommend_learning_student);
    tcase_add_test(cases, test_recommend_7b_finetune);
    tcase_add_test(cases, test_recommend_time_buys_more_cards);
    tcase_add_test(cases, test_recommend_over_budget);
    tcase_add_test(cases, test_recommend_concurrent_requests);
    tcase_add_test(cases, test_recommend_aggregate_target_is_batched);
    tcase_add_test(cases, test_recommend_long_sequences);
    tcase_add_test(cases, test_recommend_lora_rank);
    tcase_add_test(cases, test_recommend_named_model_chats);
    tcase_add_test(cases, test_recommend_named_model_long_context);
    tcase_add_test(cases, test_recommend_named_model_finetune);
    tcase_add_test(cases, test_recommend_zero3_is_per_gpu);
    tcase_add_test(cases, test_recommend_lora_names_fsdp);
    tcase_add_test(cases, test_recommend_strategy_refused);
    tcase_add_test(cases, test_recommend_offload_checks_host);
    tcase_add_test(cases, test_recommend_unknown_model_lists_the_catalog);
    suite_add_tcase(suite, cases);

    TCase *agreement = tcase_create("agreement");
    tcase_add_unchecked_fixture(agreement, start_shared, stop_shared);
    tcase_add_checked_fixture(agreement, open_client, close_client);
    suite_set_timeout(agreement, 20);
    tcase_add_loop_test(agreement, test_recommend_totals_are_quotes, 0,
                        (int)(sizeof workloads / sizeof workloads[0]));
    suite_add_tcase(suite, agreement);

    TCase *refusals = tcase_create("refusals");
    tcase_add_unchecked_fixture(refusals, start_shared, stop_shared);
    tcase_add_checked_fixture(refusals, open_client, close_client);
    suite_set_timeout(refusals, 10);
    tcase_add_loop_test(refusals, test_recommend_refused, 0,
                        (int)(sizeof invalid_requests / sizeof invalid_requests[0]));
    tcase_add_test(refusals, test_recommend_wrong_method_and_type);
    suite_add_tcase(suite, refusals);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
