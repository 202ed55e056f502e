/*
 * A customer's own discount rules through the real server, on SQLite and
 * (the second pass) PostgreSQL. The worked figures: V100 16GB × 1 at
 * 8 h/day for 90 days on demand is 720 h × 2.28 = 1641.60; T4 16GB × 1 the
 * same is 720 h × 9.90 = 7128.00.
 *
 * - a negotiated rule is applied to the fen and named as the customer's;
 * - on a line it covers, a customer's rule replaces the price list's; a
 *   line it does not cover keeps the list's rule;
 * - a rule not yet valid, or no longer valid, does not apply;
 * - an unknown customer is 404; a bad rule is 422 naming the field; a
 *   deleted rule stops applying; each write is audited.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/suite.h"

#define JSON_TYPE "Content-Type: application/json"
#define UNKNOWN_CUSTOMER "cus_0123456789abcdef0123456789abcdef"
#define V100 "{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":90,\"billing\":\"on_demand\"}"
#define T4 "{\"sku\":\"t4-16g-x1\",\"hours_per_day\":8,\"days\":90,\"billing\":\"on_demand\"}"

static struct server server;

static void start(void)
{
    memset(&server, 0, sizeof server);
    server_start(&server, NULL);
}

static void finish(void)
{
    server_finish(&server);
}

static struct http_response *call(const char *method, const char *path, const char *body)
{
    struct http_client *client = http_client_new(server.port);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

static void expect_call(const char *method, const char *path, const char *body, int status)
{
    struct http_response *response = call(method, path, body);
    expect_status(response, status);
    http_response_free(response);
}

/* A new customer's id (64 bytes). */
static void create_customer(char *id)
{
    struct http_response *made = call("POST", "/customers", "{\"name\":\"ACME AI\"}");
    expect_status(made, 201);
    snprintf(id, 64, "%s", json_str(made->json, "id"));
    http_response_free(made);
}

static struct http_response *put_rule(const char *customer, const char *rule, const char *body)
{
    char path[160];
    snprintf(path, sizeof path, "/customers/%s/discount-rules/%s", customer, rule);
    return call("PUT", path, body);
}

static void expect_put(const char *customer, const char *rule, const char *body)
{
    struct http_response *put = put_rule(customer, rule, body);
    expect_status(put, 200);
    http_response_free(put);
}

/* An unsaved quote of `items_json` for `customer`. */
static struct http_response *quote(const char *customer, const char *items_json)
{
    char body[512];
    snprintf(body, sizeof body, "{\"customer\":{\"id\":\"%s\"},\"items\":%s,\"save\":false}",
             customer, items_json);
    struct http_response *q = call("POST", "/quote", body);
    expect_status(q, 200);
    return q;
}

START_TEST(test_negotiated_rule_to_the_fen)
{
    char customer[64];
    create_customer(customer);
    struct http_response *put =
        put_rule(customer, "contract-2027",
                 "{\"name\":\"Contract 2027\",\"basis_points\":1234,\"valid_from\":null}");
    expect_status(put, 200);
    expect_str(put->json, "object", "customer_discount_rule");
    expect_str(put->json, "id", "contract-2027");
    expect_str(put->json, "customer", customer);
    expect_text(put->json, "valid_until", "null");
    http_response_free(put);

    /* 1641.60 × 12.34 % = 202.57344, half-up to 202.57; 1641.60 - 202.57. */
    struct http_response *q = quote(customer, "[" V100 "]");
    expect_str(q->json, "items[0].discounts[0].rule", "contract-2027");
    expect_str(q->json, "items[0].discounts[0].source", "customer");
    expect_str(q->json, "items[0].discounts[0].amount", "202.57");
    expect_str(q->json, "total", "1439.03");
    http_response_free(q);

    char path[160];
    snprintf(path, sizeof path, "/customers/%s/discount-rules", customer);
    struct http_response *list = call("GET", path, NULL);
    expect_status(list, 200);
    expect_str(list->json, "data[0].id", "contract-2027");
    ck_assert_int_eq(json_integer_value(json_at(list->json, "data[0].basis_points")), 1234);
    http_response_free(list);

    /* Deleted: the list price again, and a second delete is 404. */
    snprintf(path, sizeof path, "/customers/%s/discount-rules/contract-2027", customer);
    struct http_response *deleted = call("DELETE", path, NULL);
    expect_status(deleted, 200);
    expect_text(deleted->json, "deleted", "true");
    http_response_free(deleted);
    expect_call("DELETE", path, NULL, 404);
    q = quote(customer, "[" V100 "]");
    expect_str(q->json, "total", "1641.60");
    http_response_free(q);

    /* Each write audited: the put and the delete, the failed delete not. */
    struct http_response *audit = call("GET", "/admin/audit", NULL);
    expect_status(audit, 200);
    ck_assert_str_eq(json_join(audit->json, "data", "action"),
                     "key.create,customer.create,customer.discount_rule.put,"
                     "customer.discount_rule.delete");
    http_response_free(audit);
}
END_TEST

/* A list rule of 10 % for everyone, published now; and a customer rule of
 * 100.00 off the V100. On the V100 the customer's rule replaces the list's:
 * 1641.60 - 100.00 = 1541.60, where stacking on the list's discounted
 * amount would give 1641.60 - 164.16 - 100.00 = 1377.44 and the best of
 * the two 1641.60 - 164.16 = 1477.44. The T4, which the customer's rule
 * does not cover, keeps the list's: 7128.00 - 712.80 = 6415.20. */
START_TEST(test_customer_rule_replaces_list_rule)
{
    expect_call("POST", "/admin/price-lists", NULL, 201);
    expect_call("PUT", "/admin/price-lists/2/discount-rules/list-ten",
                "{\"name\":\"List ten\",\"basis_points\":1000}", 200);
    expect_call("POST", "/admin/price-lists/2/publish", "{}", 200);
    char customer[64];
    create_customer(customer);
    expect_put(customer, "v100-deal",
               "{\"name\":\"V100 deal\",\"sku\":\"v100-16g-x1\",\"amount_off\":\"100.00\"}");

    struct http_response *q = quote(customer, "[" V100 "," T4 "]");
    ck_assert_int_eq(json_array_size(json_at(q->json, "items[0].discounts")), 1);
    expect_str(q->json, "items[0].discounts[0].rule", "v100-deal");
    expect_str(q->json, "items[0].discounts[0].source", "customer");
    expect_str(q->json, "items[0].total", "1541.60");
    expect_str(q->json, "items[1].discounts[0].rule", "list-ten");
    expect_str(q->json, "items[1].discounts[0].source", "price_list");
    expect_str(q->json, "items[1].total", "6415.20");
    http_response_free(q);
}
END_TEST

START_TEST(test_validity_window)
{
    char customer[64];
    create_customer(customer);
    expect_put(customer, "later",
               "{\"name\":\"Later\",\"basis_points\":5000,"
               "\"valid_from\":\"2099-01-01T00:00:00Z\"}");
    expect_put(customer, "over",
               "{\"name\":\"Over\",\"basis_points\":5000,\"valid_from\":\"2020-01-01T00:00:00Z\","
               "\"valid_until\":\"2021-01-01T00:00:00Z\"}");
    struct http_response *q = quote(customer, "[" V100 "]");
    expect_text(q->json, "items[0].discounts", "[]");
    expect_str(q->json, "total", "1641.60");
    http_response_free(q);
}
END_TEST

START_TEST(test_unknown_customer_and_bad_rules)
{
    struct http_response *r =
        put_rule(UNKNOWN_CUSTOMER, "deal", "{\"name\":\"Deal\",\"basis_points\":100}");
    expect_error(r, 404, "not_found", NULL);
    http_response_free(r);
    r = call("GET", "/customers/" UNKNOWN_CUSTOMER "/discount-rules", NULL);
    expect_error(r, 404, "not_found", NULL);
    http_response_free(r);

    char customer[64];
    create_customer(customer);
    static const struct {
        const char *body, *code, *field;
    } bad[] = {
        {"{\"name\":\"Deal\",\"basis_points\":10000}", "out_of_range", "basis_points"},
        {"{\"name\":\"Deal\",\"basis_points\":100,\"segment\":\"vip\"}", "invalid_value",
         "segment"},
        {"{\"name\":\"Deal\",\"basis_points\":100,\"amount_off\":\"1.00\"}", "invalid_value",
         "basis_points"},
        {"{\"basis_points\":100}", "missing_field", "name"},
        {"{\"name\":\"Deal\",\"basis_points\":100,\"valid_from\":\"2027-02-01T00:00:00Z\","
         "\"valid_until\":\"2027-01-01T00:00:00Z\"}",
         "invalid_validity", "valid_until"},
        {"{\"name\":\"Deal\",\"basis_points\":100,\"colour\":\"red\"}", "unknown_field", "colour"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = put_rule(customer, "deal", bad[i].body);
        expect_error(r, 422, bad[i].code, bad[i].field);
        http_response_free(r);
    }
    /* Nothing was stored. */
    struct http_response *q = quote(customer, "[" V100 "]");
    expect_str(q->json, "total", "1641.60");
    http_response_free(q);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_customer_rules");
    TCase *rules = tcase_create("customer_rules");
    tcase_add_checked_fixture(rules, start, finish);
    tcase_add_test(rules, test_negotiated_rule_to_the_fen);
    tcase_add_test(rules, test_customer_rule_replaces_list_rule);
    tcase_add_test(rules, test_validity_window);
    tcase_add_test(rules, test_unknown_customer_and_bad_rules);
    suite_set_timeout(rules, 60);
    suite_add_tcase(suite, rules);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
