/*
 * POST /quote, GET /quote/{id} and POST /quote/{id}/accept through the real
 * server: the worked figures to the fen (V100 16GB × 1 at 8 h/day
 * for 90 days is 1641.60 on demand against 3693.00 monthly, break-even at
 * 18.0 h/day; a student pays 1080.00; around the clock for 100 days the
 * cheapest plan is a quarter plus 10 days on demand, 3852.20), quantities,
 * totals and bundles; the life of a stored quote (201 with Location, read
 * back unchanged, accepted once, expired, idempotent retries, also twenty
 * at once); a busy database answering 503 and writing nothing; a stored
 * quote keeping its figures after a price change the server picks up by
 * itself; and every
 * refusal: 422 with the exact code and field, 400 malformed JSON, 415,
 * 413 by Content-Length and by chunked transfer — and none of them writes
 * a quote.
 *
 * Cases that only read or add quotes share a server per test case; expiry,
 * locking and re-pricing touch the database and start servers of their own.
 */
#include <check.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/raw.h"
#include "support/server.h"
#include "support/shared.h"
#include "support/suite.h"
#include "support/testdb.h"

/* The worked example's usage: V100 16GB × 1, 8 h a day for 90 days. */
#define V100_8H_90D "\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":90"
#define BODY_LIMIT 65536

static struct http_response *post_quote(const char *body)
{
    return http_post_json(client, "/quote", body);
}

static struct http_response *post_quote_with_key(struct http_client *to, const char *key,
                                                 const char *body)
{
    char header[512];
    snprintf(header, sizeof header, "Idempotency-Key: %s", key);
    const char *const headers[] = {"Content-Type: application/json", header, NULL};
    return http_request(to, "POST", "/quote", headers, body);
}

/* An unsaved quote of one item, asserted to be 200. */
static struct http_response *price_item(const char *segment, const char *item)
{
    char body[1024];
    snprintf(body, sizeof body,
             "{\"customer\":{\"segment\":\"%s\"},\"items\":[{%s}],\"save\":false}", segment, item);
    struct http_response *response = post_quote(body);
    expect_status(response, 200);
    return response;
}

static long long count_quotes(struct server *server)
{
    return server_db_integer(server, "SELECT COUNT(*) FROM quotes", NULL);
}

/* ---- the worked figures ----------------------------------------------------- */

START_TEST(test_quote_on_demand_against_blocks)
{
    struct http_response *response = price_item("individual", V100_8H_90D);
    json_t *q = response->json;
    ck_assert_str_eq(json_keys(q, ""), "status,currency,price_list_version,created_at,language,"
                                       "customer,created_by,client_reference_id,metadata,items,"
                                       "bundles,subtotal,discount_total,total");
    expect_str(q, "status", "unsaved");
    expect_absent(q, "id");
    expect_absent(q, "expires_at");
    expect_str(q, "currency", "CNY");
    expect_text(q, "price_list_version", "1");
    expect_str(q, "customer.segment", "individual");
    long long created = rfc3339_seconds(json_str(q, "created_at"));
    ck_assert_int_ge(created, (long long)time(NULL) - 60);
    ck_assert_int_le(created, (long long)time(NULL) + 60);

    ck_assert_int_eq(json_count(q, "items"), 1);
    expect_str(q, "items[0].sku", "v100-16g-x1");
    expect_text(q, "items[0].quantity", "1");
    expect_str(q, "items[0].billing", "on_demand");
    expect_text(q, "items[0].hours_per_day", "8.0");
    expect_text(q, "items[0].days", "90");
    expect_text(q, "items[0].billable_hours", "720.0");
    expect_str(q, "items[0].amount", "1641.60"); /* 2.28 × 8 × 90 */
    expect_text(q, "items[0].discounts", "[]");
    expect_str(q, "items[0].discount_total", "0.00");
    expect_str(q, "items[0].total", "1641.60");
    expect_str(q, "items[0].plan.summary", "90 days on demand");
    expect_str(q, "items[0].plan.amount_per_instance", "1641.60");
    expect_text(q, "items[0].plan.parts",
                "[{\"billing\":\"on_demand\",\"units\":720.0,\"unit\":\"hour\",\"unit_price\":"
                "\"2.28\",\"days\":90,\"hours\":720.0,\"amount\":\"1641.60\"}]");

    expect_join(q, "items[0].options", "billing", "on_demand,monthly,quarterly");
    expect_join(q, "items[0].options", "amount", "1641.60,3693.00,3305.00");
    expect_join(q, "items[0].options", "total", "1641.60,3693.00,3305.00");
    expect_str(q, "items[0].options[1].plan.summary", "3 months"); /* 3 × 1231 */
    expect_text(q, "items[0].options[1].plan.parts[0].units", "3");
    expect_str(q, "items[0].options[1].plan.parts[0].unit", "month");
    expect_str(q, "items[0].options[1].plan.parts[0].unit_price", "1231.00");
    expect_str(q, "items[0].options[2].plan.summary", "1 quarter");
    expect_str(q, "items[0].options[2].plan.parts[0].unit_price", "3305.00");

    expect_str(q, "items[0].cheapest.billing", "on_demand");
    expect_str(q, "items[0].cheapest.amount", "1641.60");
    expect_str(q, "items[0].cheapest.saving", "0.00");
    ck_assert_str_eq(json_keys(q, "items[0].break_even_hours_per_day"), "monthly,quarterly");
    expect_text(q, "items[0].break_even_hours_per_day.monthly", "18.0");
    expect_text(q, "items[0].break_even_hours_per_day.quarterly", "16.1");
    /* Billed in a mode, an item is compared with no bundle. */
    expect_absent(q, "items[0].bundle_comparisons");

    expect_text(q, "bundles", "[]");
    expect_str(q, "subtotal", "1641.60");
    expect_str(q, "discount_total", "0.00");
    expect_str(q, "total", "1641.60");
    http_response_free(response);
}
END_TEST

/* Billing asked for, and what the cheapest plan would save against it. */
struct billing_case {
    const char *billing;
    const char *amount;
    const char *summary;
    const char *saving;
};

static const struct billing_case billings[] = {
    {"on_demand", "1641.60", "90 days on demand", "0.00"},
    {"monthly", "3693.00", "3 months", "2051.40"},
    {"quarterly", "3305.00", "1 quarter", "1663.40"},
    {"cheapest", "1641.60", "90 days on demand", "0.00"},
};

START_TEST(test_quote_billing_asked_for)
{
    const struct billing_case *c = &billings[_i];
    char item[256];
    snprintf(item, sizeof item, "%s,\"billing\":\"%s\"", V100_8H_90D, c->billing);
    struct http_response *response = price_item("individual", item);
    json_t *q = response->json;
    expect_str(q, "items[0].billing", c->billing);
    expect_str(q, "items[0].amount", c->amount);
    expect_str(q, "items[0].plan.summary", c->summary);
    expect_str(q, "items[0].cheapest.billing", "on_demand");
    expect_str(q, "items[0].cheapest.amount", "1641.60");
    expect_str(q, "items[0].cheapest.saving", c->saving);
    expect_str(q, "total", c->amount);
    http_response_free(response);
}
END_TEST

START_TEST(test_quote_student_rate)
{
    char item[256];
    snprintf(item, sizeof item, "%s,\"billing\":\"student\"", V100_8H_90D);
    struct http_response *response = price_item("student", item);
    json_t *q = response->json;
    expect_str(q, "customer.segment", "student");
    expect_str(q, "items[0].billing", "student");
    expect_str(q, "items[0].amount", "1080.00"); /* 1.50 × 720 h */
    expect_str(q, "items[0].plan.summary", "90 days at the student rate");
    expect_str(q, "items[0].plan.parts[0].unit_price", "1.50");
    expect_join(q, "items[0].options", "billing", "on_demand,monthly,quarterly,student");
    expect_join(q, "items[0].options", "amount", "1641.60,3693.00,3305.00,1080.00");
    expect_str(q, "items[0].cheapest.billing", "student");
    expect_str(q, "items[0].cheapest.amount", "1080.00");
    expect_str(q, "items[0].cheapest.saving", "0.00");
    /* Against the student rate: 1231 / (1.50 × 30) and 3305 / (1.50 × 90). */
    expect_text(q, "items[0].break_even_hours_per_day.monthly", "27.4");
    expect_text(q, "items[0].break_even_hours_per_day.quarterly", "24.5");
    expect_str(q, "total", "1080.00");
    http_response_free(response);
}
END_TEST

START_TEST(test_quote_around_the_clock_for_a_quarter)
{
    struct http_response *response = price_item(
        "individual",
        "\"sku\":\"v100-16g-x1\",\"hours_per_day\":24,\"days\":90,\"billing\":\"cheapest\"");
    json_t *q = response->json;
    expect_str(q, "items[0].billing", "cheapest");
    expect_text(q, "items[0].billable_hours", "2160.0");
    expect_join(q, "items[0].options", "amount", "4924.80,3693.00,3305.00");
    expect_str(q, "items[0].cheapest.billing", "quarterly");
    expect_str(q, "items[0].cheapest.amount", "3305.00");
    expect_str(q, "items[0].cheapest.saving", "1619.80"); /* against 2.28 × 2160 */
    expect_str(q, "items[0].amount", "3305.00");
    expect_str(q, "items[0].plan.summary", "1 quarter");
    /* 2160 h a V100: more than the training card's 720 h, so no bundle
     * covers it, and the enterprise card is not an individual's. */
    expect_text(q, "items[0].bundle_comparisons", "[]");
    expect_str(q, "total", "3305.00");
    http_response_free(response);
}
END_TEST

static const char *const mixed_parts =
    "[{\"billing\":\"quarterly\",\"units\":1,\"unit\":\"quarter\",\"unit_price\":\"3305.00\","
    "\"days\":90,\"hours\":2160.0,\"amount\":\"3305.00\"},"
    "{\"billing\":\"on_demand\",\"units\":240.0,\"unit\":\"hour\",\"unit_price\":\"2.28\","
    "\"days\":10,\"hours\":240.0,\"amount\":\"547.20\"}]";

START_TEST(test_quote_mixed_plan_for_100_days)
{
    struct http_response *response = price_item(
        "individual",
        "\"sku\":\"v100-16g-x1\",\"hours_per_day\":24,\"days\":100,\"billing\":\"cheapest\"");
    json_t *q = response->json;
    expect_join(q, "items[0].options", "billing", "on_demand,monthly,quarterly");
    expect_join(q, "items[0].options", "amount", "5472.00,4924.00,6610.00");
    expect_str(q, "items[0].cheapest.billing", "mixed");
    expect_str(q, "items[0].cheapest.amount", "3852.20");
    expect_str(q, "items[0].cheapest.saving", "1619.80"); /* 5472.00 - 3852.20 */
    expect_str(q, "items[0].cheapest.plan.summary", "1 quarter + 10 days on demand");
    expect_text(q, "items[0].cheapest.plan.parts", mixed_parts);
    expect_str(q, "items[0].amount", "3852.20");
    expect_text(q, "items[0].plan.parts", mixed_parts);
    expect_str(q, "subtotal", "3852.20");
    expect_str(q, "total", "3852.20");
    http_response_free(response);
}
END_TEST

START_TEST(test_quote_quantity_multiplies)
{
    struct http_response *response =
        price_item("individual", "\"sku\":\"v100-16g-x1\",\"hours_per_day\":24,\"days\":100,"
                                 "\"billing\":\"cheapest\",\"quantity\":3");
    json_t *q = response->json;
    expect_text(q, "items[0].quantity", "3");
    expect_text(q, "items[0].billable_hours", "7200.0");
    expect_str(q, "items[0].amount", "11556.60"); /* 3 × 3852.20 */
    expect_str(q, "items[0].plan.amount_per_instance", "3852.20");
    expect_join(q, "items[0].options", "amount", "16416.00,14772.00,19830.00");
    expect_str(q, "items[0].cheapest.amount", "11556.60");
    expect_str(q, "items[0].cheapest.saving", "4859.40");
    expect_str(q, "subtotal", "11556.60");
    expect_str(q, "discount_total", "0.00");
    expect_str(q, "total", "11556.60");
    http_response_free(response);
}
END_TEST

START_TEST(test_quote_several_items_and_a_bundle)
{
    struct http_response *response = post_quote(
        "{\"items\":[{" V100_8H_90D "},{\"sku\":\"t4-16g-x1\",\"hours_per_day\":24,\"days\":30,"
        "\"billing\":\"monthly\",\"quantity\":2}],\"bundles\":[\"training-starter-monthly\"],"
        "\"save\":false}");
    expect_status(response, 200);
    json_t *q = response->json;
    expect_join(q, "items", "sku", "v100-16g-x1,t4-16g-x1");
    expect_join(q, "items", "amount", "1641.60,10700.00");
    expect_str(q, "items[1].plan.summary", "1 month");
    ck_assert_int_eq(json_count(q, "bundles"), 1);
    expect_str(q, "bundles[0].id", "training-starter-monthly");
    expect_str(q, "bundles[0].name", "Training starter monthly card");
    expect_str(q, "bundles[0].list_price", "1642.00");
    expect_str(q, "bundles[0].price", "1231.00");
    expect_str(q, "bundles[0].list_saving", "411.00");
    /* Bought as an item, 720 h of a V100 is one month, 1231.00: no saving. */
    expect_str(q, "bundles[0].cheapest_alternative.amount", "1231.00");
    expect_str(q, "bundles[0].cheapest_alternative.summary", "1 × V100 16GB × 1: 1 month");
    expect_str(q, "bundles[0].saving", "0.00");
    expect_text(q, "bundles[0].reasons", "[]");
    expect_str(q, "subtotal", "13572.60"); /* 1641.60 + 10700.00 + 1231.00 */
    expect_str(q, "discount_total", "0.00");
    expect_str(q, "total", "13572.60");
    http_response_free(response);

    /* The enterprise card is for enterprises only. */
    response = post_quote("{\"customer\":{\"segment\":\"enterprise\"},\"items\":[{" V100_8H_90D
                          "}],\"bundles\":[\"enterprise-inference-quarterly\"],\"save\":false}");
    expect_status(response, 200);
    q = response->json;
    ck_assert_str_eq(json_keys(q, "bundles[0]"), "id,name,list_price,price,list_saving,"
                                                 "cheapest_alternative,saving,reasons");
    expect_str(q, "bundles[0].list_price", "84845.00");
    expect_str(q, "bundles[0].price", "57293.00");
    expect_str(q, "bundles[0].list_saving", "27552.00");
    /* Four T4s for a quarter each: 4 × 14321.00, 9.00 less than the card. */
    expect_str(q, "bundles[0].cheapest_alternative.amount", "57284.00");
    expect_str(q, "bundles[0].cheapest_alternative.summary", "4 × T4 16GB × 1: 1 quarter");
    expect_str(q, "bundles[0].saving", "-9.00");
    expect_text(q, "bundles[0].reasons",
                "[\"Enterprise inference quarterly card costs ¥9.00 more than its contents "
                "bought at their cheapest plans: ¥57293.00 against ¥57284.00\"]");
    expect_str(q, "total", "58934.60");
    http_response_free(response);
    const char *const chinese[] = {"Content-Type: application/json", "Accept-Language: zh-CN",
                                   NULL};
    response = http_request(client, "POST", "/quote", chinese,
                            "{\"customer\":{\"segment\":\"enterprise\"},"
                            "\"bundles\":[\"enterprise-inference-quarterly\"],\"save\":false}");
    expect_status(response, 200);
    expect_str(response->json, "bundles[0].saving", "-9.00");
    expect_str(response->json, "bundles[0].cheapest_alternative.summary",
               "T4 16GB 单卡 × 4 台：1 个季度");
    expect_text(response->json, "bundles[0].reasons",
                "[\"企业推理季卡比按最便宜方案单独购买其内容贵 ¥9.00：套餐价 ¥57293.00，"
                "单独购买 ¥57284.00\"]");
    http_response_free(response);
    response = post_quote("{\"items\":[{" V100_8H_90D
                          "}],\"bundles\":[\"enterprise-inference-quarterly\"],\"save\":false}");
    expect_error(response, 422, "not_eligible", "bundles[0]");
    http_response_free(response);
}
END_TEST

/* An item billed "cheapest" that a bundle the customer may buy covers says
 * which is cheaper; the bundle is not added to the quote. */
START_TEST(test_quote_item_compared_with_a_covering_bundle)
{
    /* 4 × T4 around the clock for 90 days: a quarter each, 4 × 14321.00 =
     * 57284.00; the enterprise card (4 × T4, 2160 h each) is 57293.00,
     * 9.00 more. */
    struct http_response *response =
        price_item("enterprise", "\"sku\":\"t4-16g-x1\",\"quantity\":4,\"hours_per_day\":24,"
                                 "\"days\":90,\"billing\":\"cheapest\"");
    json_t *q = response->json;
    ck_assert_str_eq(json_keys(q, "items[0]"),
                     "sku,quantity,billing,hours_per_day,days,billable_hours,amount,discounts,"
                     "discount_total,total,plan,options,cheapest,break_even_hours_per_day,"
                     "bundle_comparisons");
    expect_str(q, "items[0].total", "57284.00");
    expect_text(q, "items[0].bundle_comparisons",
                "[{\"bundle\":\"enterprise-inference-quarterly\",\"price\":\"57293.00\","
                "\"item_total\":\"57284.00\",\"difference\":\"9.00\",\"cheaper\":\"item\"}]");
    expect_text(q, "bundles", "[]");
    expect_str(q, "total", "57284.00");
    http_response_free(response);

    /* A V100 at 8 h a day for 30 days: 240 h on demand, 547.20; the
     * training card (720 h, 1231.00) covers it and is 683.80 dearer. */
    response = price_item("individual", "\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,"
                                        "\"days\":30,\"billing\":\"cheapest\"");
    expect_text(response->json, "items[0].bundle_comparisons",
                "[{\"bundle\":\"training-starter-monthly\",\"price\":\"1231.00\","
                "\"item_total\":\"547.20\",\"difference\":\"683.80\",\"cheaper\":\"item\"}]");
    http_response_free(response);

    /* Two of them: the one-instance card does not cover the item. */
    response = price_item("individual", "\"sku\":\"v100-16g-x1\",\"quantity\":2,"
                                        "\"hours_per_day\":8,\"days\":30,\"billing\":\"cheapest\"");
    expect_text(response->json, "items[0].bundle_comparisons", "[]");
    http_response_free(response);
}
END_TEST

START_TEST(test_quote_hundred_items_is_the_limit)
{
    static char body[16384];
    size_t used = (size_t)snprintf(body, sizeof body, "{\"save\":false,\"items\":[");
    for (int i = 0; i < 101; i++) {
        used += (size_t)snprintf(body + used, sizeof body - used,
                                 "%s{\"sku\":\"v100-16g-x1\",\"hours_per_day\":1,\"days\":1}",
                                 i ? "," : "");
        if (i == 99) {
            static char hundred[sizeof body + 2];
            memcpy(hundred, body, used);
            memcpy(hundred + used, "]}", 3);
            struct http_response *response = post_quote(hundred);
            expect_status(response, 200);
            ck_assert_int_eq(json_count(response->json, "items"), 100);
            expect_str(response->json, "subtotal", "228.00"); /* 100 × 2.28 */
            http_response_free(response);
        }
    }
    snprintf(body + used, sizeof body - used, "]}");
    struct http_response *response = post_quote(body);
    expect_error(response, 422, "out_of_range", "items");
    http_response_free(response);
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

struct invalid_quote {
    const char *body;
    int status;
    const char *code;
    const char *field; /* NULL: no field */
};

static const struct invalid_quote invalid_quotes[] = {
    {"{\"items\":[{\"sku\":\"x9\",\"hours_per_day\":8,\"days\":90}]}", 422, "unknown_sku",
     "items[0].sku"},
    {"{\"items\":[{" V100_8H_90D "},{\"sku\":\"a100\",\"hours_per_day\":8,\"days\":90}]}", 422,
     "unknown_sku", "items[1].sku"},
    {"{\"items\":[{" V100_8H_90D "}],\"bundles\":[\"free-gpus\"]}", 422, "unknown_bundle",
     "bundles[0]"},
    {"{\"items\":[{" V100_8H_90D ",\"billing\":\"student\"}]}", 422, "not_eligible",
     "items[0].billing"},
    {"{\"customer\":{\"segment\":\"startup\"},\"items\":[{" V100_8H_90D
     ",\"billing\":\"student\"}]}",
     422, "not_eligible", "items[0].billing"},
    {"{\"items\":[{" V100_8H_90D ",\"quantity\":0}]}", 422, "out_of_range", "items[0].quantity"},
    {"{\"items\":[{" V100_8H_90D ",\"quantity\":1001}]}", 422, "out_of_range", "items[0].quantity"},
    {"{\"items\":[{" V100_8H_90D ",\"quantity\":-1}]}", 422, "out_of_range", "items[0].quantity"},
    {"{\"items\":[{" V100_8H_90D ",\"quantity\":2.5}]}", 422, "invalid_value", "items[0].quantity"},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":0}]}", 422, "out_of_range",
     "items[0].days"},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":3651}]}", 422,
     "out_of_range", "items[0].days"},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":90.5}]}", 422,
     "invalid_value", "items[0].days"},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":\"90\"}]}", 422,
     "invalid_type", "items[0].days"},
    /* whole numbers, only far too large: out of range, not "not whole" */
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":1e300}]}", 422,
     "out_of_range", "items[0].days"},
    {"{\"items\":[{" V100_8H_90D ",\"quantity\":-1e20}]}", 422, "out_of_range",
     "items[0].quantity"},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":0,\"days\":90}]}", 422, "out_of_range",
     "items[0].hours_per_day"},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":-1,\"days\":90}]}", 422,
     "out_of_range", "items[0].hours_per_day"},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":24.5,\"days\":90}]}", 422,
     "out_of_range", "items[0].hours_per_day"},
    /* billed in thousandths of an hour: a fourth decimal would be rounded away */
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8.0001,\"days\":90}]}", 422,
     "invalid_value", "items[0].hours_per_day"},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":\"8\",\"days\":90}]}", 422,
     "invalid_type", "items[0].hours_per_day"},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"days\":90}]}", 422, "missing_field",
     "items[0].hours_per_day"},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":null,\"days\":90}]}", 422,
     "missing_field", "items[0].hours_per_day"},
    {"{\"items\":[{\"hours_per_day\":8,\"days\":90}]}", 422, "missing_field", "items[0].sku"},
    {"{\"items\":[{\"sku\":5,\"hours_per_day\":8,\"days\":90}]}", 422, "invalid_type",
     "items[0].sku"},
    {"{\"items\":[{" V100_8H_90D ",\"billing\":\"weekly\"}]}", 422, "invalid_value",
     "items[0].billing"},
    {"{\"items\":[{" V100_8H_90D ",\"colour\":\"red\"}]}", 422, "unknown_field", "items[0].colour"},
    {"{\"items\":[{" V100_8H_90D "}],\"colour\":\"red\"}", 422, "unknown_field", "colour"},
    {"{\"items\":[{" V100_8H_90D "}],\"customer\":{\"segment\":\"student\",\"age\":7}}", 422,
     "unknown_field", "customer.age"},
    {"{\"items\":[{" V100_8H_90D "}],\"customer\":{\"segment\":\"student\",\"id\":7}}", 422,
     "invalid_type", "customer.id"},
    {"{\"items\":[{" V100_8H_90D "}],\"customer\":{\"segment\":\"alien\"}}", 422, "invalid_value",
     "customer.segment"},
    {"{\"items\":[{" V100_8H_90D "}],\"customer\":\"student\"}", 422, "invalid_type", "customer"},
    {"{\"items\":[]}", 422, "out_of_range", "items"},
    {"{\"save\":true}", 422, "out_of_range", "items"},
    {"{\"items\":{}}", 422, "invalid_type", "items"},
    {"{\"items\":[1]}", 422, "invalid_type", "items[0]"},
    {"{\"items\":[{" V100_8H_90D "}],\"bundles\":[5]}", 422, "invalid_type", "bundles[0]"},
    {"{\"items\":[{" V100_8H_90D "}],\"save\":\"no\"}", 422, "invalid_type", "save"},
    {"[{\"items\":[]}]", 422, "invalid_type", NULL},
    {"{\"items\":", 400, "malformed_json", NULL},
    {"{\"items\":[{" V100_8H_90D "}],\"items\":[]}", 400, "malformed_json", NULL},
    {"{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":1e999}]}", 422,
     "out_of_range", "items[0].days"},
    {"{\"items\":[{\"sku\":\"v100\xff\xfe\",\"hours_per_day\":8,\"days\":90}]}", 400,
     "malformed_json", NULL},
    {"{'items': []}", 400, "malformed_json", NULL},
    {"", 400, "malformed_json", NULL},
};

START_TEST(test_quote_refused)
{
    const struct invalid_quote *c = &invalid_quotes[_i];
    long long before = count_quotes(&shared);
    struct http_response *response = post_quote(c->body);
    ck_assert_msg(response->status == c->status, "%s: %s", c->body, http_describe(response));
    expect_error(response, c->status, c->code, c->field);
    ck_assert_ptr_null(http_header(response, "location"));
    ck_assert_int_eq(count_quotes(&shared), before);
    http_response_free(response);
}
END_TEST

START_TEST(test_quote_refusal_messages)
{
    struct http_response *response =
        post_quote("{\"items\":[{\"sku\":\"x9\",\"hours_per_day\":8,\"days\":90}]}");
    expect_error(response, 422, "unknown_sku", "items[0].sku");
    expect_str(response->json, "error.message", "no SKU 'x9'");
    http_response_free(response);
    response = post_quote("{\"items\":[{" V100_8H_90D ",\"billing\":\"student\"}]}");
    expect_error(response, 422, "not_eligible", "items[0].billing");
    expect_str(response->json, "error.message",
               "student billing is not available to customers of segment individual");
    http_response_free(response);
    response = post_quote("{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":0}]}");
    expect_str(response->json, "error.message", "items[0].days must be 1..3650");
    http_response_free(response);
}
END_TEST

/* A quote of bundles alone needs no items; nothing at all is refused. */
START_TEST(test_quote_bundles_only)
{
    struct http_response *response =
        post_quote("{\"bundles\":[\"training-starter-monthly\"],\"save\":false}");
    expect_status(response, 200);
    expect_text(response->json, "items", "[]");
    expect_str(response->json, "bundles[0].price", "1231.00");
    expect_str(response->json, "total", "1231.00");
    http_response_free(response);
    response = post_quote("{\"items\":[],\"bundles\":[]}");
    expect_error(response, 422, "out_of_range", "items");
    expect_str(response->json, "error.message", "a quote needs at least one item or bundle");
    http_response_free(response);
}
END_TEST

/* Valid JSON that is not an object is one kind of mistake, whatever it is. */
START_TEST(test_quote_body_not_an_object)
{
    const char *const bodies[] = {"[]", "\"x\"", "42", "true", "null"};
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        struct http_response *response = post_quote(bodies[i]);
        expect_error(response, 422, "invalid_type", NULL);
        expect_str(response->json, "error.message", "the body must be a JSON object");
        http_response_free(response);
    }
    /* The media type is checked before emptiness. */
    const char *const text_plain[] = {"Content-Type: text/plain", NULL};
    struct http_response *empty = http_request(client, "POST", "/quote", text_plain, "");
    expect_error(empty, 415, "unsupported_media_type", NULL);
    http_response_free(empty);
}
END_TEST

/* Content-Type: wrong, absent, and JSON with parameters. */
START_TEST(test_quote_content_type)
{
    const char *body = "{\"items\":[{" V100_8H_90D "}],\"save\":false}";
    const char *const text_plain[] = {"Content-Type: text/plain", NULL};
    struct http_response *response = http_request(client, "POST", "/quote", text_plain, body);
    expect_error(response, 415, "unsupported_media_type", NULL);
    http_response_free(response);

    const char *const longer[] = {"Content-Type: application/jsonx", NULL};
    response = http_request(client, "POST", "/quote", longer, body);
    expect_error(response, 415, "unsupported_media_type", NULL);
    http_response_free(response);

    const char *const form[] = {"Content-Type: application/x-www-form-urlencoded", NULL};
    response = http_request(client, "POST", "/quote", form, body);
    expect_error(response, 415, "unsupported_media_type", NULL);
    http_response_free(response);

    const char *const none[] = {"Content-Type:", NULL};
    response = http_request(client, "POST", "/quote", none, body);
    expect_error(response, 415, "unsupported_media_type", NULL);
    http_response_free(response);

    /* UTF-8 (or its subset US-ASCII) under any spelling is read; a quoted
     * parameter may hold what looks like another charset. */
    static const char *const readable[] = {
        "Content-Type: Application/JSON; charset=utf-8",
        "Content-Type: application/json;charset=\"UTF-8\"",
        "Content-Type: application/json; CHARSET=utf8 ; q=1",
        "Content-Type: application/json; charset=us-ascii",
        "Content-Type: application/json; foo=\"a;charset=latin1\"; charset = utf-8",
    };
    for (size_t i = 0; i < sizeof readable / sizeof readable[0]; i++) {
        const char *const headers[] = {readable[i], NULL};
        response = http_request(client, "POST", "/quote", headers, body);
        ck_assert_msg(response->status == 200, "%s: %ld", readable[i], response->status);
        expect_str(response->json, "total", "1641.60");
        http_response_free(response);
    }
    /* Any other charset, however spaced, is refused unread. */
    static const char *const unreadable[] = {
        "Content-Type: application/json; charset=latin1",
        "Content-Type: application/json; charset = latin1",
        "Content-Type: application/json; charset =latin1",
        "Content-Type: application/json; charset=\"utf-8x\"",
        "Content-Type: application/json; charset=",
        "Content-Type: application/json; foo=\"x\"; charset=utf-16",
    };
    for (size_t i = 0; i < sizeof unreadable / sizeof unreadable[0]; i++) {
        const char *const headers[] = {unreadable[i], NULL};
        response = http_request(client, "POST", "/quote", headers, body);
        expect_error(response, 415, "unsupported_media_type", NULL);
        http_response_free(response);
    }

    /* Two media types: which one the body is cannot be told. */
    const char *const twice[] = {"Content-Type: application/json", "Content-Type: text/plain",
                                 NULL};
    response = http_request(client, "POST", "/quote", twice, body);
    expect_error(response, 415, "unsupported_media_type", NULL);
    http_response_free(response);
    const char *const twice_json[] = {"Content-Type: application/json",
                                      "Content-Type: application/json", NULL};
    response = http_request(client, "POST", "/quote", twice_json, body);
    expect_error(response, 415, "unsupported_media_type", NULL);
    expect_str(response->json, "error.message", "Content-Type must be given once");
    http_response_free(response);
}
END_TEST

/* A compressed body is refused as such (with the codings accepted), not
 * parsed as malformed JSON; "identity" is the body as it is. */
START_TEST(test_quote_content_encoding)
{
    const char *body = "{\"items\":[{" V100_8H_90D "}],\"save\":false}";
    const char *const gzip[] = {"Content-Type: application/json", "Content-Encoding: gzip", NULL};
    struct http_response *response = http_request(client, "POST", "/quote", gzip, body);
    expect_error(response, 415, "unsupported_media_type", NULL);
    expect_str(response->json, "error.message",
               "Content-Encoding 'gzip' is not supported: send the body as it is");
    ck_assert_str_eq(http_header(response, "accept-encoding"), "identity");
    http_response_free(response);

    /* Every Content-Encoding counts, not only the last. */
    const char *const both[] = {"Content-Type: application/json", "Content-Encoding: gzip",
                                "Content-Encoding: identity", NULL};
    response = http_request(client, "POST", "/quote", both, body);
    expect_error(response, 415, "unsupported_media_type", NULL);
    http_response_free(response);

    const char *const identity[] = {"Content-Type: application/json", "Content-Encoding: Identity ",
                                    NULL};
    response = http_request(client, "POST", "/quote", identity, body);
    expect_status(response, 200);
    expect_str(response->json, "total", "1641.60");
    http_response_free(response);
}
END_TEST

/* A valid body padded with spaces to exactly `size` bytes. */
static char *pad_body(size_t size)
{
    const char *start = "{\"items\":[{" V100_8H_90D "}],\"save\":false";
    char *body = malloc(size + 1);
    ck_assert_ptr_nonnull(body);
    size_t length = strlen(start);
    memcpy(body, start, length);
    memset(body + length, ' ', size - length - 1);
    body[size - 1] = '}';
    body[size] = '\0';
    return body;
}

START_TEST(test_quote_body_limit_by_content_length)
{
    /* Exactly at the limit is fine. */
    char *body = pad_body(BODY_LIMIT);
    struct http_response *response = post_quote(body);
    expect_status(response, 200);
    expect_str(response->json, "total", "1641.60");
    http_response_free(response);
    free(body);

    /* One byte more is refused from the header, before the body is sent:
     * a client that waits for 100 Continue never sends it. */
    body = pad_body(BODY_LIMIT + 1);
    const char *const expect[] = {"Content-Type: application/json", "Expect: 100-continue", NULL};
    response = http_request(client, "POST", "/quote", expect, body);
    expect_error(response, 413, "body_too_large", NULL);
    expect_str(response->json, "error.message", "the body is over 65536 bytes");
    ck_assert_msg(http_closes(response), "the unread body leaves the connection unusable");
    http_response_free(response);
    free(body);

    /* The same over a raw socket: the answer comes with no body sent. */
    int fd = raw_connect(shared.port);
    ck_assert_int_ge(fd, 0);
    const char *headers = "POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                          "Content-Length: 70000\r\n\r\n";
    ck_assert(raw_send(fd, headers, strlen(headers)));
    char *raw = raw_read_response(fd, suite_wait_ms(5), true, NULL);
    ck_assert_ptr_nonnull(raw);
    ck_assert_int_eq(raw_status(raw), 413);
    ck_assert_ptr_nonnull(strstr(raw_body(raw), "\"code\":\"body_too_large\""));
    free(raw);
    close(fd);
}
END_TEST

START_TEST(test_quote_body_limit_chunked)
{
    long long before = count_quotes(&shared);
    char *body = pad_body(BODY_LIMIT);
    const char *const json[] = {"Content-Type: application/json", NULL};
    struct http_response *response = http_request_chunked(client, "POST", "/quote", json, body);
    expect_status(response, 200);
    ck_assert_ptr_null(http_header(response, "location"));
    expect_str(response->json, "total", "1641.60");
    http_response_free(response);
    free(body);

    /* Over the limit by one byte, and by a lot: 413 once it has all come. */
    const size_t sizes[] = {BODY_LIMIT + 1, 4 * BODY_LIMIT};
    for (size_t i = 0; i < 2; i++) {
        body = pad_body(sizes[i]);
        /* a saved quote, were it accepted */
        memcpy(strstr(body, "false"), "true ", 5);
        response = http_request_chunked(client, "POST", "/quote", json, body);
        expect_error(response, 413, "body_too_large", NULL);
        http_response_free(response);
        free(body);
    }
    ck_assert_int_eq(count_quotes(&shared), before);

    /* The body was read to its end: the connection goes on. */
    response = http_get(client, "/healthz");
    expect_status(response, 200);
    ck_assert(response->reused_connection);
    http_response_free(response);
}
END_TEST

/* ---- stored quotes ------------------------------------------------------------- */

static bool is_quote_id(const char *id)
{
    return strlen(id) == 34 && strncmp(id, "q_", 2) == 0 &&
           strspn(id + 2, "0123456789abcdef") == 32;
}

/* Saves the worked example; returns the 201 response. */
static struct http_response *save_example(struct http_client *to)
{
    struct http_response *response =
        http_post_json(to, "/quote", "{\"items\":[{" V100_8H_90D "}]}");
    expect_status(response, 201);
    return response;
}

START_TEST(test_quote_saved_and_read_back)
{
    struct http_response *created = save_example(client);
    json_t *q = created->json;
    const char *id = json_str(q, "id");
    ck_assert_msg(is_quote_id(id), "id %s", id);
    char location[64];
    snprintf(location, sizeof location, "/quote/%s", id);
    ck_assert_str_eq(http_header(created, "location"), location);
    ck_assert_ptr_null(http_header(created, "idempotent-replayed"));
    expect_str(q, "status", "open");
    expect_str(q, "items[0].amount", "1641.60");
    expect_str(q, "total", "1641.60");
    long long created_at = rfc3339_seconds(json_str(q, "created_at"));
    long long expires_at = rfc3339_seconds(json_str(q, "expires_at"));
    ck_assert_int_gt(created_at, 0);
    ck_assert_int_eq(expires_at - created_at, 604800); /* the default: 7 days */
    expect_absent(q, "accepted_at");

    struct http_response *read = http_get(client, location);
    expect_status(read, 200);
    ck_assert_msg(json_equal(read->json, q), "read back %s, created %s", read->body, created->body);
    ck_assert_ptr_null(http_header(read, "location"));
    /* Its status changes (accepted, expired): no cache may keep it. */
    ck_assert_str_eq(http_header(created, "cache-control"), "no-store");
    ck_assert_str_eq(http_header(read, "cache-control"), "no-store");
    http_response_free(read);
    http_response_free(created);
}
END_TEST

START_TEST(test_quote_accepted_once)
{
    struct http_response *created = save_example(client);
    char path[96];
    snprintf(path, sizeof path, "/quote/%s/accept", json_str(created->json, "id"));

    struct http_response *accepted = http_request(client, "POST", path, NULL, NULL);
    expect_status(accepted, 200);
    expect_str(accepted->json, "status", "accepted");
    expect_str(accepted->json, "id", json_str(created->json, "id"));
    expect_str(accepted->json, "total", "1641.60");
    long long accepted_at = rfc3339_seconds(json_str(accepted->json, "accepted_at"));
    long long created_at = rfc3339_seconds(json_str(created->json, "created_at"));
    ck_assert_int_ge(accepted_at, created_at);
    ck_assert_int_le(accepted_at, created_at + 60);
    /* Nothing else changes. */
    json_t *copy = json_deep_copy(accepted->json);
    expect_str(accepted->json, "status_transitions.accepted_at",
               json_str(accepted->json, "accepted_at"));
    ck_assert(json_is_null(json_at(accepted->json, "acceptance"))); /* none was sent */
    json_object_del(copy, "accepted_at");
    json_object_del(copy, "acceptance");
    json_object_set_new(copy, "status", json_string("open"));
    json_object_set_new(json_object_get(copy, "status_transitions"), "accepted_at", json_null());
    ck_assert_msg(json_equal(copy, created->json), "accepting changed the quote: %s",
                  accepted->body);
    json_decref(copy);

    /* Again: refused, as any accept of a quote that is not open (of two
     * order systems, or replicas, accepting at once, one wins); the quote
     * stays accepted at the first time. */
    struct http_response *again = http_request(client, "POST", path, NULL, NULL);
    char message[160];
    snprintf(message, sizeof message, "quote '%s' is accepted already (at %s)",
             json_str(created->json, "id"), json_str(accepted->json, "accepted_at"));
    expect_error(again, 409, "quote_not_open", NULL);
    expect_str(again->json, "error.message", message);
    http_response_free(again);

    snprintf(path, sizeof path, "/quote/%s", json_str(created->json, "id"));
    struct http_response *read = http_get(client, path);
    expect_status(read, 200);
    ck_assert_msg(json_equal(read->json, accepted->json), "read %s", read->body);
    http_response_free(read);
    http_response_free(accepted);
    http_response_free(created);
}
END_TEST

START_TEST(test_quote_unknown_or_malformed_id)
{
    const char *const ids[] = {
        "q_0123456789abcdef0123456789abcdef", /* well-formed, never issued */
        "q_0123456789ABCDEF0123456789ABCDEF", /* upper case */
        "q_0123456789abcdef0123456789abcde",  /* 31 digits */
        "x_0123456789abcdef0123456789abcdef", /* another prefix */
        "q_0123456789abcdef0123456789abcdef0", "nope", "q_", "%27%3B--",
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "/quote/%s", ids[i]);
        struct http_response *response = http_get(client, path);
        ck_assert_msg(response->status == 404, "GET %s: %s", path, http_describe(response));
        expect_error(response, 404, "not_found", NULL);
        http_response_free(response);
        snprintf(path, sizeof path, "/quote/%s/accept", ids[i]);
        response = http_request(client, "POST", path, NULL, NULL);
        ck_assert_msg(response->status == 404, "POST %s: %s", path, http_describe(response));
        expect_error(response, 404, "not_found", NULL);
        http_response_free(response);
    }
}
END_TEST

START_TEST(test_quote_idempotency_key)
{
    char key[64];
    snprintf(key, sizeof key, "order-%ld-%d", (long)getpid(), rand());
    const char *body = "{\"items\":[{" V100_8H_90D "}],\"customer\":{\"segment\":\"startup\"}}";
    long long before = count_quotes(&shared);
    struct http_response *first = post_quote_with_key(client, key, body);
    expect_status(first, 201);
    ck_assert_ptr_null(http_header(first, "idempotent-replayed"));
    const char *id = json_str(first->json, "id");

    /* The same body again, with its keys in another order, and with its
     * whole numbers written as reals (as some JSON libraries do). */
    const char *const retries[] = {
        body,
        "{\"customer\":{\"segment\":\"startup\"},\"items\":[{\"days\":90,\"hours_per_day\":8,"
        "\"sku\":\"v100-16g-x1\"}]}",
        "{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8.0,\"days\":9e1}],"
        "\"customer\":{\"segment\":\"startup\"}}"};
    for (size_t i = 0; i < sizeof retries / sizeof retries[0]; i++) {
        struct http_response *retry = post_quote_with_key(client, key, retries[i]);
        expect_status(retry, 201);
        ck_assert_str_eq(http_header(retry, "idempotent-replayed"), "true");
        ck_assert_str_eq(http_header(retry, "location"), http_header(first, "location"));
        expect_str(retry->json, "id", id);
        ck_assert_msg(json_equal(retry->json, first->json), "replayed %s", retry->body);
        http_response_free(retry);
    }
    /* Whitespace after a field value is not part of it (RFC 9110, 5.5):
     * the key sent with a trailing space and tab is the same key. */
    char padded[80];
    snprintf(padded, sizeof padded, "%s \t", key);
    struct http_response *spaced = post_quote_with_key(client, padded, body);
    expect_status(spaced, 201);
    ck_assert_str_eq(http_header(spaced, "idempotent-replayed"), "true");
    expect_str(spaced->json, "id", id);
    http_response_free(spaced);
    ck_assert_int_eq(count_quotes(&shared), before + 1);

    /* Another body with the same key. */
    struct http_response *conflict = post_quote_with_key(
        client, key, "{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":91}]}");
    expect_error(conflict, 409, "idempotency_conflict", "Idempotency-Key");
    http_response_free(conflict);
    ck_assert_int_eq(count_quotes(&shared), before + 1);

    /* Another key is another quote. */
    strcat(key, "-b");
    struct http_response *other = post_quote_with_key(client, key, body);
    expect_status(other, 201);
    ck_assert_str_ne(json_str(other->json, "id"), id);
    http_response_free(other);
    http_response_free(first);
}
END_TEST

/* The body a quote was priced from is stored as it was sent, byte for
 * byte. A quote stored by an earlier build holds the body's canonical text
 * instead, and a retry of it is still a replay; a stored request that does
 * not load is a 500, never taken for another body (409). */
START_TEST(test_quote_stores_the_body_as_sent)
{
    char key[64];
    snprintf(key, sizeof key, "as-sent-%ld-%d", (long)getpid(), rand());
    const char *body =
        "{ \"items\": [ {" V100_8H_90D "} ],\n \"customer\": {\"segment\": \"startup\"} }";
    struct http_response *first = post_quote_with_key(client, key, body);
    expect_status(first, 201);
    char *stored =
        server_db_text(&shared, "SELECT request_json FROM quotes WHERE idempotency_key = ?1", key);
    ck_assert_str_eq(stored, body);
    free(stored);

    ck_assert_int_eq(server_db_exec(&shared,
                                    "UPDATE quotes SET request_json = '{\"customer\":{\"segment\":"
                                    "\"startup\"},\"items\":[{\"days\":90,\"hours_per_day\":8,"
                                    "\"sku\":\"v100-16g-x1\"}]}' WHERE idempotency_key = ?1",
                                    key),
                     1);
    struct http_response *retry = post_quote_with_key(client, key, body);
    expect_status(retry, 201);
    ck_assert_str_eq(http_header(retry, "idempotent-replayed"), "true");
    expect_str(retry->json, "id", json_str(first->json, "id"));
    http_response_free(retry);

    ck_assert_int_eq(server_db_exec(&shared,
                                    "UPDATE quotes SET request_json = '{\"items\":' "
                                    "WHERE idempotency_key = ?1",
                                    key),
                     1);
    retry = post_quote_with_key(client, key, body);
    expect_error(retry, 500, "internal_error", NULL);
    http_response_free(retry);
    http_response_free(first);
}
END_TEST

/* A quote stored before whole numbers were canonical kept 8.0 as written;
 * a retry of that very body is still a replay, not a conflict. */
START_TEST(test_quote_idempotency_key_of_a_quote_stored_with_reals)
{
    char key[64];
    snprintf(key, sizeof key, "legacy-%ld-%d", (long)getpid(), rand());
    const char *body = "{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8.0,\"days\":90}]}";
    struct http_response *first = post_quote_with_key(client, key, body);
    expect_status(first, 201);
    ck_assert_int_eq(server_db_exec(&shared,
                                    "UPDATE quotes SET request_json = replace(request_json, "
                                    "'\"hours_per_day\":8,', '\"hours_per_day\":8.0,') "
                                    "WHERE idempotency_key = ?1",
                                    key),
                     1);
    char *stored =
        server_db_text(&shared, "SELECT request_json FROM quotes WHERE idempotency_key = ?1", key);
    ck_assert_ptr_nonnull(strstr(stored, "\"hours_per_day\":8.0,"));
    free(stored);

    struct http_response *retry = post_quote_with_key(client, key, body);
    expect_status(retry, 201);
    ck_assert_str_eq(http_header(retry, "idempotent-replayed"), "true");
    expect_str(retry->json, "id", json_str(first->json, "id"));
    http_response_free(retry);
    retry = post_quote_with_key(
        client, key, "{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":91}]}");
    expect_error(retry, 409, "idempotency_conflict", "Idempotency-Key");
    http_response_free(retry);
    http_response_free(first);
}
END_TEST

/* Twenty connections send the same keyed request at once: one quote is
 * written, every answer names it, all but one say they are replays. */
START_TEST(test_quote_idempotency_key_concurrent)
{
    enum { CONNECTIONS = 20 };
    const char *body = "{\"items\":[{\"sku\":\"v100-32g-x4\",\"hours_per_day\":12,\"days\":60}]}";
    char request[512];
    snprintf(request, sizeof request,
             "POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
             "Idempotency-Key: concurrent-%ld\r\nContent-Length: %zu\r\n\r\n%s",
             (long)getpid(), strlen(body), body);
    long long before = count_quotes(&shared);
    int fds[CONNECTIONS];
    for (int i = 0; i < CONNECTIONS; i++) {
        fds[i] = raw_connect(shared.port);
        ck_assert_int_ge(fds[i], 0);
    }
    for (int i = 0; i < CONNECTIONS; i++)
        ck_assert(raw_send(fds[i], request, strlen(request)));
    char first_id[64] = "";
    int replayed = 0;
    for (int i = 0; i < CONNECTIONS; i++) {
        char *response = raw_read_response(fds[i], suite_wait_ms(10), true, NULL);
        ck_assert_ptr_nonnull(response);
        ck_assert_msg(raw_status(response) == 201, "%.300s", response);
        char value[16];
        replayed += raw_header(response, "Idempotent-Replayed", value, sizeof value) &&
                    strcmp(value, "true") == 0;
        json_t *quote = json_loads(raw_body(response), 0, NULL);
        ck_assert_ptr_nonnull(quote);
        expect_str(quote, "total", "6969.60"); /* 9.68 × 12 h × 60 days */
        if (first_id[0] == '\0')
            snprintf(first_id, sizeof first_id, "%s", json_str(quote, "id"));
        expect_str(quote, "id", first_id);
        json_decref(quote);
        free(response);
        close(fds[i]);
    }
    ck_assert_int_eq(replayed, CONNECTIONS - 1);
    ck_assert_int_eq(count_quotes(&shared), before + 1);
}
END_TEST

START_TEST(test_quote_bad_idempotency_key)
{
    char long_key[300];
    memset(long_key, 'k', 256);
    long_key[256] = '\0';
    const char *const keys[] = {"two words", long_key};
    for (size_t i = 0; i < 2; i++) {
        struct http_response *response =
            post_quote_with_key(client, keys[i], "{\"items\":[{" V100_8H_90D "}]}");
        expect_error(response, 400, "invalid_parameter", "Idempotency-Key");
        http_response_free(response);
    }
    long_key[255] = '\0'; /* 255 characters is the longest allowed */
    struct http_response *response =
        post_quote_with_key(client, long_key, "{\"items\":[{" V100_8H_90D "}],\"save\":false}");
    expect_status(response, 200);
    http_response_free(response);
}
END_TEST

/* ---- expiry: a server whose quotes live 60 s ---------------------------------- */

START_TEST(test_quote_expired)
{
    struct server server = {0};
    const char *const env[] = {"GPUQUOTE_QUOTE_EXPIRY_SECONDS=60", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    struct http_client *to = http_client_new(server.port);

    struct http_response *created = save_example(to);
    const char *id = json_str(created->json, "id");
    ck_assert_int_eq(rfc3339_seconds(json_str(created->json, "expires_at")) -
                         rfc3339_seconds(json_str(created->json, "created_at")),
                     60);
    struct http_response *kept = save_example(to);

    /* Let the first run out: expires_at back to its creation time. */
    ck_assert_int_eq(server_db_exec(&server,
                                    "UPDATE quotes SET expires_at = created_at "
                                    "WHERE id = ?1",
                                    id),
                     1);
    char path[96];
    snprintf(path, sizeof path, "/quote/%s", id);
    struct http_response *read = http_get(to, path);
    expect_status(read, 200);
    expect_str(read->json, "status", "expired");
    expect_str(read->json, "total", "1641.60");
    expect_absent(read->json, "accepted_at");
    http_response_free(read);

    snprintf(path, sizeof path, "/quote/%s/accept", id);
    struct http_response *refused = http_request(to, "POST", path, NULL, NULL);
    expect_error(refused, 409, "quote_expired", NULL);
    http_response_free(refused);
    ck_assert_int_eq(server_db_integer(&server,
                                       "SELECT COUNT(*) FROM quotes WHERE id = ?1 AND "
                                       "status = 'open' AND accepted_at IS NULL",
                                       id),
                     1);
    snprintf(path, sizeof path, "/quote/%s", id);
    read = http_get(to, path);
    expect_str(read->json, "status", "expired");
    http_response_free(read);

    /* The other one is still open; once accepted, it stays accepted past
     * its expiry. */
    const char *kept_id = json_str(kept->json, "id");
    snprintf(path, sizeof path, "/quote/%s/accept", kept_id);
    struct http_response *accepted = http_request(to, "POST", path, NULL, NULL);
    expect_status(accepted, 200);
    expect_str(accepted->json, "status", "accepted");
    http_response_free(accepted);
    ck_assert_int_eq(server_db_exec(&server,
                                    "UPDATE quotes SET expires_at = created_at "
                                    "WHERE id = ?1",
                                    kept_id),
                     1);
    snprintf(path, sizeof path, "/quote/%s", kept_id);
    read = http_get(to, path);
    expect_str(read->json, "status", "accepted");
    http_response_free(read);

    http_response_free(kept);
    http_response_free(created);
    http_client_free(to);
    server_finish(&server);
}
END_TEST

/* ---- a busy database: 503, nothing written, then fine ------------------------- */

START_TEST(test_quote_database_busy)
{
    struct server server = {0};
    const char *const env[] = {"GPUQUOTE_DB_BUSY_TIMEOUT_MS=100", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    struct http_client *to = http_client_new(server.port);
    struct http_response *saved = save_example(to);

    /* Another writer holds the database. */
    sqlite3 *db = testdb_sqlite_hold(server.db_path);
    struct http_response *busy = http_post_json(to, "/quote", "{\"items\":[{" V100_8H_90D "}]}");
    expect_error(busy, 503, "retry_later", NULL);
    ck_assert_str_eq(http_header(busy, "retry-after"), "1");
    ck_assert_ptr_null(http_header(busy, "location"));
    http_response_free(busy);
    /* Reading and unsaved pricing do not need the write lock. */
    char path[96];
    snprintf(path, sizeof path, "/quote/%s", json_str(saved->json, "id"));
    struct http_response *read = http_get(to, path);
    expect_status(read, 200);
    http_response_free(read);
    struct http_response *unsaved =
        http_post_json(to, "/quote", "{\"items\":[{" V100_8H_90D "}],\"save\":false}");
    expect_status(unsaved, 200);
    http_response_free(unsaved);
    testdb_sqlite_release(db);

    ck_assert_int_eq(count_quotes(&server), 1);
    struct http_response *later = save_example(to);
    ck_assert_str_ne(json_str(later->json, "id"), json_str(saved->json, "id"));
    ck_assert_int_eq(count_quotes(&server), 2);
    http_response_free(later);
    http_response_free(saved);
    http_client_free(to);
    server_finish(&server);
}
END_TEST

/* ---- a database that fails a write: 500, logged, nothing written ------------- */

/* The client is told the server failed and given the request id; the
 * cause, SQLite's own words, goes to the error log under that id. */
START_TEST(test_quote_database_write_fails)
{
    struct server server = {0};
    server_start(&server, NULL);
    ck_assert_int_eq(server_db_exec(&server,
                                    "CREATE TRIGGER quotes_fail BEFORE INSERT ON quotes "
                                    "BEGIN SELECT RAISE(ABORT, 'no space left (test)'); END",
                                    NULL),
                     0);
    const char *const id[] = {"X-Request-Id: write-fails", "Content-Type: application/json", NULL};
    struct http_response *failed =
        http_once(server.port, "POST", "/quote", id, "{\"items\":[{" V100_8H_90D "}]}");
    expect_error(failed, 500, "internal_error", NULL);
    expect_str(failed->json, "error.message",
               "the server failed; its log has the cause under this X-Request-Id");
    ck_assert_str_eq(http_header(failed, "x-request-id"), "write-fails");
    http_response_free(failed);
    ck_assert(server_wait_for_text(
        &server, "stderr.log",
        "gpuquote: error: request write-fails: POST /quote: ", suite_wait_ms(3)));
    char *err = server_read(&server, "stderr.log");
    ck_assert_msg(strstr(err, "no space left (test)") != NULL, "stderr: %s", err);
    free(err);

    /* The client's bytes reach the log line printable: a target in absolute
     * form routes to /quote whatever its authority holds. */
    const char *body = "{\"items\":[{" V100_8H_90D "}]}";
    char request[512];
    snprintf(request, sizeof request,
             "POST http://h\x1b[31mx/quote HTTP/1.1\r\nHost: test\r\nX-Request-Id: escapes\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
             strlen(body), body);
    char *answer = raw_exchange(server.port, request, suite_wait_ms(5));
    ck_assert_ptr_nonnull(answer);
    ck_assert_int_eq(raw_status(answer), 500);
    free(answer);
    ck_assert(server_wait_for_text(
        &server, "stderr.log",
        "gpuquote: error: request escapes: POST http://h?[31mx/quote: ", suite_wait_ms(3)));
    ck_assert_int_eq(count_quotes(&server), 0);
    server_finish(&server);
}
END_TEST

/* ---- a price change does not touch stored quotes ------------------------------- */

START_TEST(test_quote_survives_price_change)
{
    struct server server = {0};
    server_start(&server, NULL);
    struct http_client *to = http_client_new(server.port);
    struct http_response *old = save_example(to);
    expect_text(old->json, "price_list_version", "1");
    struct http_response *catalog_before = http_get(to, "/catalog");

    /* 2.28 -> 2.50 an hour; the trigger bumps the price list to version 2. */
    ck_assert_int_eq(server_db_exec(&server,
                                    "UPDATE sku_prices SET amount_fen = 250 WHERE "
                                    "sku_id = ?1 AND mode_id = 'on_demand'",
                                    "v100-16g-x1"),
                     1);
    ck_assert_int_eq(server_db_integer(&server, "SELECT version FROM price_list", NULL), 2);
    /* No signal: the catalog watch sees the new version within its poll
     * interval (1 s; at once on PostgreSQL, through NOTIFY). */
    ck_assert_msg(
        server_wait_for_text(&server, "stderr.log", "price list version 2", suite_wait_ms(2)),
        "the price change was not served within 2 s");
    struct http_response *catalog = http_get(to, "/catalog");
    expect_status(catalog, 200);
    expect_text(catalog->json, "price_list_version", "2");
    expect_str(catalog->json, "skus[1].id", "v100-16g-x1");
    expect_str(catalog->json, "skus[1].prices.on_demand.amount", "2.50");
    expect_str(catalog->json, "skus[0].prices.on_demand.amount", "9.90");
    ck_assert_str_ne(http_header(catalog, "etag"), http_header(catalog_before, "etag"));
    http_response_free(catalog);

    struct http_response *fresh =
        http_post_json(to, "/quote", "{\"items\":[{" V100_8H_90D "}],\"save\":false}");
    expect_status(fresh, 200);
    expect_text(fresh->json, "price_list_version", "2");
    expect_str(fresh->json, "items[0].amount", "1800.00"); /* 2.50 × 720 h */
    expect_text(fresh->json, "items[0].break_even_hours_per_day.monthly", "16.4");
    http_response_free(fresh);

    char path[96];
    snprintf(path, sizeof path, "/quote/%s", json_str(old->json, "id"));
    struct http_response *read = http_get(to, path);
    expect_status(read, 200);
    expect_text(read->json, "price_list_version", "1");
    expect_str(read->json, "items[0].amount", "1641.60");
    expect_str(read->json, "items[0].plan.parts[0].unit_price", "2.28");
    ck_assert_msg(json_equal(read->json, old->json), "the stored quote changed: %s", read->body);
    http_response_free(read);

    snprintf(path, sizeof path, "/quote/%s/accept", json_str(old->json, "id"));
    struct http_response *accepted = http_request(to, "POST", path, NULL, NULL);
    expect_status(accepted, 200);
    expect_str(accepted->json, "total", "1641.60");
    http_response_free(accepted);

    http_response_free(catalog_before);
    http_response_free(old);
    http_client_free(to);
    server_finish(&server);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_quote");

    TCase *figures = tcase_create("figures");
    tcase_add_unchecked_fixture(figures, start_shared, stop_shared);
    tcase_add_checked_fixture(figures, open_client, close_client);
    suite_set_timeout(figures, 10);
    tcase_add_test(figures, test_quote_on_demand_against_blocks);
    tcase_add_loop_test(figures, test_quote_billing_asked_for, 0,
                        (int)(sizeof billings / sizeof billings[0]));
    tcase_add_test(figures, test_quote_student_rate);
    tcase_add_test(figures, test_quote_around_the_clock_for_a_quarter);
    tcase_add_test(figures, test_quote_mixed_plan_for_100_days);
    tcase_add_test(figures, test_quote_quantity_multiplies);
    tcase_add_test(figures, test_quote_several_items_and_a_bundle);
    tcase_add_test(figures, test_quote_item_compared_with_a_covering_bundle);
    tcase_add_test(figures, test_quote_hundred_items_is_the_limit);
    suite_add_tcase(suite, figures);

    TCase *refusals = tcase_create("refusals");
    tcase_add_unchecked_fixture(refusals, start_shared, stop_shared);
    tcase_add_checked_fixture(refusals, open_client, close_client);
    suite_set_timeout(refusals, 10);
    tcase_add_loop_test(refusals, test_quote_refused, 0,
                        (int)(sizeof invalid_quotes / sizeof invalid_quotes[0]));
    tcase_add_test(refusals, test_quote_refusal_messages);
    tcase_add_test(refusals, test_quote_content_type);
    tcase_add_test(refusals, test_quote_content_encoding);
    tcase_add_test(refusals, test_quote_bundles_only);
    tcase_add_test(refusals, test_quote_body_not_an_object);
    tcase_add_test(refusals, test_quote_body_limit_by_content_length);
    tcase_add_test(refusals, test_quote_body_limit_chunked);
    suite_add_tcase(suite, refusals);

    TCase *stored = tcase_create("stored");
    tcase_add_unchecked_fixture(stored, start_shared, stop_shared);
    tcase_add_checked_fixture(stored, open_client, close_client);
    suite_set_timeout(stored, 10);
    tcase_add_test(stored, test_quote_saved_and_read_back);
    tcase_add_test(stored, test_quote_accepted_once);
    tcase_add_test(stored, test_quote_unknown_or_malformed_id);
    tcase_add_test(stored, test_quote_idempotency_key);
    tcase_add_test(stored, test_quote_idempotency_key_of_a_quote_stored_with_reals);
    tcase_add_test(stored, test_quote_stores_the_body_as_sent);
    tcase_add_test(stored, test_quote_idempotency_key_concurrent);
    tcase_add_test(stored, test_quote_bad_idempotency_key);
    suite_add_tcase(suite, stored);

    TCase *own = tcase_create("own_server");
    suite_set_timeout(own, 20);
    tcase_add_test(own, test_quote_expired);
    suite_add_sqlite_test(own, test_quote_database_busy);
    suite_add_sqlite_test(own, test_quote_database_write_fails);
    tcase_add_test(own, test_quote_survives_price_change);
    suite_add_tcase(suite, own);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
