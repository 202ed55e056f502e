/*
 * POST /recommend and the cards' limits, through the real server on the
 * shipped catalog (migration 0018: V100 compute capability 7.0, T4 7.5):
 * Qwen2.5-14B in AWQ is never put on a V100, whose rejection names the 7.5
 * AWQ kernels need; bf16 serving on these cards is served as fp16 at the
 * FP16 peak and says so; an FP8 KV cache (8.9) leaves no card, and the hint
 * says why; a context past the model's max_position_embeddings is a 422
 * naming the field and the limit.
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

static struct http_response *recommend(const char *body)
{
    struct http_response *response = http_post_json(client, "/recommend", body);
    expect_status(response, 200);
    return response;
}

/* The rejection of `sku` in the response, or NULL. */
static json_t *rejection_of(json_t *root, const char *sku)
{
    json_t *rejected = json_object_get(root, "rejected"), *item;
    size_t i;
    json_array_foreach(rejected, i, item)
    {
        if (strcmp(json_string_value(json_object_get(item, "sku")), sku) == 0)
            return item;
    }
    return NULL;
}

/* How many rejections give `reason`. */
static int rejections_for(json_t *root, const char *reason)
{
    json_t *rejected = json_object_get(root, "rejected"), *item;
    size_t i;
    int count = 0;
    json_array_foreach(rejected, i, item)
    {
        count += strcmp(json_string_value(json_object_get(item, "reason")), reason) == 0;
    }
    return count;
}

START_TEST(test_awq_is_not_served_on_v100)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"inference\",\"model\":\"qwen2.5-14b\","
                  "\"concurrent_requests\":4,\"quantization\":{\"method\":\"awq\"}},\"limit\":20}");
    json_t *r = response->json;
    expect_join(r, "recommendations", "sku", "t4-16g-x1");
    json_t *v100 = rejection_of(r, "v100-16g-x1");
    ck_assert_ptr_nonnull(v100);
    expect_str(v100, "reason", "unsupported_feature");
    expect_str(v100, "detail", "AWQ kernels need compute capability 7.5; V100 has 7.0");
    ck_assert_int_eq(rejections_for(r, "unsupported_feature"), 4);
    http_response_free(response);
}
END_TEST

/* bf16 serving on a V100: one replica at the FP16 peak, as fp16 would be,
 * where bf16 at the FP32 peak took two. */
START_TEST(test_bf16_serving_is_fp16)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"inference\",\"model\":\"qwen2.5-7b\","
                  "\"precision\":\"bf16\",\"concurrent_requests\":50,\"context_tokens\":4096}}");
    json_t *r = response->json;
    expect_str(r, "recommendations[0].sku", "v100-16g-x2");
    expect_text(r, "recommendations[0].quantity", "1");
    expect_str(r, "recommendations[0].total", "2311.00");
    expect_str(r, "recommendations[0].reasons[2]",
               "first token in 0.43 s: a 2048-token prompt, 3.2e+13 FLOPs on 2 \xc3\x97 125 "
               "TFLOPS fp16 at 35% MFU");
    expect_str(r, "recommendations[0].reasons[3]",
               "served as fp16, not bf16: V100 has compute capability 7.0 and bf16 needs 8.0");
    expect_absent(r, "hint");
    http_response_free(response);
}
END_TEST

START_TEST(test_fp8_kv_cache_leaves_no_card)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"inference\",\"model\":\"qwen2.5-7b\","
                  "\"kv_precision\":\"fp8\"}}");
    json_t *r = response->json;
    expect_text(r, "recommendations", "[]");
    ck_assert_int_eq(rejections_for(r, "unsupported_feature"), 5);
    json_t *t4 = rejection_of(r, "t4-16g-x1");
    ck_assert_ptr_nonnull(t4);
    expect_str(t4, "detail", "FP8 KV cache kernels need compute capability 8.9; T4 has 7.5");
    const char *hint = json_string_value(json_object_get(r, "hint"));
    ck_assert_ptr_nonnull(hint);
    const char *start = "FP8 KV cache kernels need compute capability 8.9 or newer";
    ck_assert_msg(strncmp(hint, start, strlen(start)) == 0, "hint: %s", hint);
    http_response_free(response);
}
END_TEST

struct past_limit {
    const char *body;
    const char *field;
    const char *message;
};

static const struct past_limit past_limits[] = {
    {"{\"workload\":{\"task\":\"inference\",\"model\":\"llama-2-7b\","
     "\"context_tokens\":1048576}}",
     "workload.context_tokens",
     "context_tokens 1048576 is past Llama-2 7B's max_position_embeddings, 4096 tokens"},
    {"{\"workload\":{\"task\":\"inference\",\"model\":\"meta-llama/Meta-Llama-3-8B\","
     "\"context_tokens\":8193}}",
     "workload.context_tokens",
     "context_tokens 8193 is past Llama-3 8B's max_position_embeddings, 8192 tokens"},
    {"{\"workload\":{\"task\":\"lora\",\"model\":\"llama-2-13b\",\"tokens_b\":0.1,"
     "\"sequence_length\":16384}}",
     "workload.sequence_length",
     "sequence_length 16384 is past Llama-2 13B's max_position_embeddings, 4096 tokens"},
};

START_TEST(test_context_past_the_model_is_refused)
{
    const struct past_limit *c = &past_limits[_i];
    struct http_response *response = http_post_json(client, "/recommend", c->body);
    expect_error(response, 422, "out_of_range", c->field);
    expect_str(response->json, "error.message", c->message);
    http_response_free(response);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_recommend_cards");
    TCase *cases = tcase_create("cards");
    tcase_add_unchecked_fixture(cases, start_shared, stop_shared);
    tcase_add_checked_fixture(cases, open_client, close_client);
    suite_set_timeout(cases, 10);
    tcase_add_test(cases, test_awq_is_not_served_on_v100);
    tcase_add_test(cases, test_bf16_serving_is_fp16);
    tcase_add_test(cases, test_fp8_kv_cache_leaves_no_card);
    tcase_add_loop_test(cases, test_context_past_the_model_is_refused, 0,
                        (int)(sizeof past_limits / sizeof past_limits[0]));
    suite_add_tcase(suite, cases);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
