/*
 * POST /recommend through the real server: a 7B model served in fp16 needs
 * 16.8 GB, so both 16 GB single cards are rejected with the exact shortfall
 * and a multi-card V100 comes first; in int8 the single V100 16GB wins; a
 * student learning pays the student rate; a full 7B fine-tune fits only
 * the 8-card machine; the time objective buys more cards than the cost
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

/* ---- the DIGEST's sizing cases ----------------------------------------------- */

/* A need a sliver over a card's memory never reads as fitting it: 6.667B
 * in fp16 needs 16.0008 GB, shown rounded up (16.01, 16.1), not 16.0. */
START_TEST(test_recommend_memory_need_is_rounded_up)
{
    struct http_response *response = recommend(
        "{\"workload\":{\"task\":\"inference\",\"model_params_b\":6.667,\"precision\":\"fp16\"}}");
    json_t *r = response->json;
    expect_text(r, "estimate.weights_gb", "13.33");
    expect_text(r, "estimate.memory_gb", "16.01");
    expect_join(r, "rejected", "sku", "t4-16g-x1,v100-16g-x1");
    expect_str(r, "rejected[0].detail", "needs 16.1 GB, has 16 GB");
    expect_text(r, "recommendations[0].memory_gb_needed", "16.01");
    expect_str(r, "recommendations[0].reasons[0]", "fits: needs 16.1 GB, has 32 GB across 2 cards");
    http_response_free(response);
}
END_TEST

/* A run of seconds is shown to two significant digits, so that runs of
 * different lengths ranked by time can be told apart: 0.1B on 0.01B tokens
 * is 6e15 FLOPs, 4.3 s on 64 cards. */
START_TEST(test_recommend_seconds_long_run_shows_its_hours)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"pretrain\",\"model_params_b\":0.1,"
                  "\"tokens_b\":0.01},\"objective\":\"time\"}");
    json_t *r = response->json;
    expect_text(r, "recommendations[0].estimated_hours", "0.0012");
    expect_text(r, "recommendations[1].estimated_hours", "0.0023");
    expect_text(r, "recommendations[2].estimated_hours", "0.0047");
    expect_str(r, "recommendations[0].reasons[1]",
               "0.0012 h of training: 6e+15 FLOPs on 64 × 125 TFLOPS fp16 at 35% MFU × 51% "
               "scaling");
    /* Billed in thousandths of an hour: 2 each, not "0.0 h". */
    expect_str(r, "recommendations[0].reasons[2]",
               "cheapest plan: the on-demand rate per instance, ¥0.32 for 8 × 0.002 h");
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
    /* 7 × 10^9 parameters × 2 bytes = 14 GB, + 20 % for the KV cache. */
    expect_str(r, "estimate.task", "inference");
    expect_str(r, "estimate.precision", "fp16");
    expect_text(r, "estimate.preset", "false");
    expect_text(r, "estimate.model_params_b", "7.0");
    expect_text(r, "estimate.bytes_per_param", "2.0");
    expect_text(r, "estimate.weights_gb", "14.0");
    expect_text(r, "estimate.allowance_fraction", "0.2");
    expect_text(r, "estimate.allowance_gb", "2.8");
    expect_text(r, "estimate.memory_gb", "16.8");

    expect_join(r, "rejected", "sku", "t4-16g-x1,v100-16g-x1");
    expect_join(r, "rejected", "reason", "insufficient_memory,insufficient_memory");
    expect_str(r, "rejected[0].detail", "needs 16.8 GB, has 16 GB");
    expect_str(r, "rejected[1].detail", "needs 16.8 GB, has 16 GB");
    expect_text(r, "rejected_total", "2");
    expect_absent(r, "hint");

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
    expect_text(r, "recommendations[0].memory_gb_needed", "16.8");
    expect_text(r, "recommendations[0].estimated_hours", "720.0");
    expect_str(r, "recommendations[0].reasons[0]", "fits: needs 16.8 GB, has 32 GB across 2 cards");
    http_response_free(response);
}
END_TEST

/* A null assumption keeps its default, as an absent one does. */
START_TEST(test_recommend_null_assumption_is_the_default)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"finetune\",\"model_params_b\":7,\"tokens_b\":2},"
                  "\"assumptions\":{\"mfu\":null,\"max_instances\":null,\"activation_allowance\":0.5}}");
    expect_text(response->json, "estimate.assumptions.mfu", "0.35");
    expect_text(response->json, "estimate.assumptions.max_instances", "8.0");
    expect_text(response->json, "estimate.assumptions.activation_allowance", "0.5");
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

START_TEST(test_recommend_7b_inference_int8)
{
    struct http_response *response = recommend(
        "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"precision\":\"int8\"}}");
    json_t *r = response->json;
    expect_text(r, "estimate.bytes_per_param", "1.0");
    expect_text(r, "estimate.memory_gb", "8.4");
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
    /* 16 bytes a parameter for weights, gradients and Adam, + 20 %. */
    expect_text(r, "estimate.state_bytes_per_trainable_param", "16.0");
    expect_text(r, "estimate.model_state_gb", "112.0");
    expect_text(r, "estimate.memory_gb", "134.4");
    expect_text(r, "estimate.flops", "8.4e19"); /* 6 × 7e9 × 2e9 */
    expect_absent(r, "days");
    expect_join(r, "rejected", "sku", "v100-32g-x4,v100-16g-x2,t4-16g-x1,v100-16g-x1");
    expect_join(r, "rejected", "reason",
                "insufficient_memory,insufficient_memory,insufficient_memory,"
                "insufficient_memory");
    expect_str(r, "rejected[0].detail", "needs 134.4 GB, has 128 GB across 4 cards");
    expect_str(r, "rejected[2].detail", "needs 134.4 GB, has 16 GB");
    ck_assert_int_eq(json_count(r, "recommendations"), 1);
    expect_str(r, "recommendations[0].sku", "v100-32g-x8");
    expect_text(r, "recommendations[0].quantity", "1");
    /* 8.4e19 FLOPs ÷ (8 × 125 TFLOPS × 35 % MFU × 85 % NVLink) = 78.43 h */
    expect_text(r, "recommendations[0].estimated_hours", "78.43");
    expect_str(r, "recommendations[0].total", "1512.17");
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
    /* Eight machines at 60 % cross-instance scaling: 16.34 h, not 78.43. */
    expect_text(time->json, "recommendations[0].estimated_hours", "16.34");
    expect_str(time->json, "recommendations[0].total", "2520.32");
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
        expect_str(r, "rejected[0].reason", "over_budget");
        expect_str(r, "rejected[0].detail",
                   "costs \xc2\xa5"
                   "1512.17 at best (1 instance), budget \xc2\xa5"
                   "100.00");
        expect_str(r, "rejected[1].reason", "insufficient_memory");
        expect_text(r, "rejected_total", "5");
        expect_str(r, "hint",
                   "the cheapest configuration that meets every other limit is v100-32g-x8 "
                   "\xc3\x97 1 at \xc2\xa5"
                   "1512.17: raise the budget to at least that");
        http_response_free(response);
    }
    /* The budget exactly met is enough. */
    struct http_response *response =
        recommend("{\"workload\":" FINETUNE_7B ",\"budget\":\"1512.17\"}");
    expect_join(response->json, "recommendations", "total", "1512.17");
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
};

/* How many recommendations each workload gets (all that fit, up to limit). */
static const int workload_counts[] = {3, 3, 3, 5, 1, 1, 2, 4, 2, 2};

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
    tcase_add_test(cases, test_recommend_7b_inference_int8);
    tcase_add_test(cases, test_recommend_echoes_tiny_workload_unrounded);
    tcase_add_test(cases, test_recommend_null_assumption_is_the_default);
    tcase_add_test(cases, test_recommend_learning_student);
    tcase_add_test(cases, test_recommend_7b_finetune);
    tcase_add_test(cases, test_recommend_time_buys_more_cards);
    tcase_add_test(cases, test_recommend_over_budget);
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
