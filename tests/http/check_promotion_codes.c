/*
 * Promotion codes against the real server, on SQLite and PostgreSQL:
 * - created (the code upper-cased), listed with their redemption counts,
 *   read one by one and deactivated, each write audited; a name taken
 *   twice and any change but deactivating refused;
 * - each reason POST /quote refuses a code for (unknown, expired,
 *   inactive, exhausted, needing a customer, applying to nothing), 422
 *   promotion_code_invalid naming it;
 * - a quote with a code discounted exactly to the fen, the rule named with
 *   its source;
 * - an accept counting a redemption with its event; an accept once the
 *   code ran out refused 409 promotion_code_exhausted with nothing written.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/suite.h"

#define JSON_TYPE "Content-Type: application/json"
/* 8 h a day for 90 days of a V100 at 2.28 an hour: 1,641.60. */
#define ITEM "{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,\"days\":90}"
#define PERCENT "{\"name\":\"Launch 12.34%\",\"basis_points\":1234}"

static struct server server;

static void start(void)
{
    memset(&server, 0, sizeof server);
    struct server_options options = {0};
    server_start(&server, &options);
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

/* Creates a code from the body's members after "code" and "discount". */
static void create(const char *code, const char *discount, const char *more)
{
    char body[1024];
    snprintf(body, sizeof body, "{\"code\":\"%s\",\"discount\":%s%s}", code, discount, more);
    struct http_response *made = call("POST", "/admin/promotion-codes", body);
    expect_status(made, 201);
    http_response_free(made);
}

static struct http_response *quote_with(const char *code)
{
    char body[512];
    snprintf(body, sizeof body, "{\"items\":[" ITEM "],\"promotion_code\":\"%s\"}", code);
    return call("POST", "/quote", body);
}

static void save_quote(const char *code, char id[40])
{
    struct http_response *made = quote_with(code);
    expect_status(made, 201);
    snprintf(id, 40, "%s", json_str(made->json, "id"));
    http_response_free(made);
}

static struct http_response *accept_quote(const char *id)
{
    char path[96];
    snprintf(path, sizeof path, "/quote/%s/accept", id);
    return call("POST", path, NULL);
}

static long long db_count(const char *sql, const char *param)
{
    return server_db_integer(&server, sql, param);
}

static void expect_refused(const char *code, const char *state)
{
    struct http_response *refused = quote_with(code);
    expect_error(refused, 422, "promotion_code_invalid", "promotion_code");
    expect_str(refused->json, "error.state", state);
    http_response_free(refused);
}

START_TEST(test_create_list_get_deactivate)
{
    create("launch-10", PERCENT, ",\"max_redemptions\":5,\"expires_at\":\"2099-01-01T00:00:00Z\"");
    struct http_response *twice =
        call("POST", "/admin/promotion-codes", "{\"code\":\"LAUNCH-10\",\"discount\":" PERCENT "}");
    expect_error(twice, 409, "promotion_code_exists", "code");
    http_response_free(twice);
    struct http_response *bad =
        call("POST", "/admin/promotion-codes", "{\"code\":\"no spaces\",\"discount\":" PERCENT "}");
    expect_error(bad, 422, "invalid_value", "code");
    http_response_free(bad);

    struct http_response *list = call("GET", "/admin/promotion-codes", NULL);
    expect_status(list, 200);
    ck_assert_int_eq(json_count(list->json, "data"), 1);
    expect_str(list->json, "data[0].code", "LAUNCH-10");
    ck_assert_int_eq(json_integer_value(json_at(list->json, "data[0].redemptions")), 0);
    ck_assert_int_eq(json_integer_value(json_at(list->json, "data[0].max_redemptions")), 5);
    expect_str(list->json, "data[0].expires_at", "2099-01-01T00:00:00Z");
    http_response_free(list);

    struct http_response *change =
        call("PATCH", "/admin/promotion-codes/launch-10", "{\"max_redemptions\":9}");
    expect_error(change, 422, "unknown_field", "max_redemptions");
    http_response_free(change);
    struct http_response *off =
        call("PATCH", "/admin/promotion-codes/launch-10", "{\"active\":false}");
    expect_status(off, 200);
    ck_assert(json_is_false(json_at(off->json, "active")));
    http_response_free(off);
    struct http_response *one = call("GET", "/admin/promotion-codes/LAUNCH-10", NULL);
    expect_status(one, 200);
    ck_assert(json_is_false(json_at(one->json, "active")));
    ck_assert_int_eq(json_integer_value(json_at(one->json, "max_redemptions")), 5);
    http_response_free(one);
    struct http_response *none = call("GET", "/admin/promotion-codes/NOPE", NULL);
    expect_error(none, 404, "not_found", NULL);
    http_response_free(none);

    ck_assert_int_eq(
        db_count("SELECT COUNT(*) FROM audit_log WHERE action = ?1", "promotion_code.create"), 1);
    ck_assert_int_eq(
        db_count("SELECT COUNT(*) FROM audit_log WHERE action = ?1", "promotion_code.deactivate"),
        1);
}
END_TEST

START_TEST(test_each_refusal)
{
    expect_refused("NOSUCH", "unknown");
    create("PAST", PERCENT, ",\"expires_at\":\"2020-01-01T00:00:00Z\"");
    expect_refused("past", "expired");
    create("OFF", PERCENT, ",\"active\":false");
    expect_refused("OFF", "inactive");
    create("PERCUST", PERCENT, ",\"per_customer_limit\":1");
    expect_refused("PERCUST", "needs_customer");
    create("FIRST", PERCENT, ",\"first_time_only\":true");
    expect_refused("FIRST", "needs_customer");
    create("OTHERSKU", "{\"name\":\"T4 only\",\"sku\":\"t4-16g-x1\",\"basis_points\":500}", "");
    expect_refused("OTHERSKU", "not_applicable");
    create("ONCE", PERCENT, ",\"max_redemptions\":1");
    char id[40];
    save_quote("ONCE", id);
    struct http_response *accepted = accept_quote(id);
    expect_status(accepted, 200);
    http_response_free(accepted);
    expect_refused("once", "exhausted");
    ck_assert_int_eq(db_count("SELECT COUNT(*) FROM quotes", NULL), 1);
}
END_TEST

START_TEST(test_quote_exact_to_the_fen)
{
    create("LAUNCH", PERCENT, "");
    struct http_response *quote = quote_with("launch");
    expect_status(quote, 201);
    /* 164,160 fen × 1,234 / 10,000 = 20,257.344: 20,257 fen off. */
    expect_str(quote->json, "items[0].amount", "1641.60");
    ck_assert_int_eq(json_count(quote->json, "items[0].discounts"), 1);
    expect_str(quote->json, "items[0].discounts[0].rule", "LAUNCH");
    expect_str(quote->json, "items[0].discounts[0].source", "promotion_code");
    expect_str(quote->json, "items[0].discounts[0].amount", "202.57");
    expect_str(quote->json, "items[0].total", "1439.03");
    http_response_free(quote);

    create("FIXED", "{\"name\":\"100 off\",\"amount_off\":\"100.00\"}", "");
    struct http_response *fixed = quote_with("FIXED");
    expect_status(fixed, 201);
    expect_str(fixed->json, "items[0].discounts[0].amount", "100.00");
    expect_str(fixed->json, "items[0].total", "1541.60");
    http_response_free(fixed);
}
END_TEST

START_TEST(test_accept_counts_then_exhausted_writes_nothing)
{
    create("TWICE", PERCENT, ",\"max_redemptions\":2");
    char first[40], second[40], third[40];
    save_quote("TWICE", first);
    save_quote("TWICE", second);
    save_quote("TWICE", third);
    for (int i = 0; i < 2; i++) {
        struct http_response *accepted = accept_quote(i == 0 ? first : second);
        expect_status(accepted, 200);
        http_response_free(accepted);
    }
    struct http_response *late = accept_quote(third);
    expect_error(late, 409, "promotion_code_exhausted", NULL);
    expect_str(late->json, "error.state", "exhausted");
    http_response_free(late);

    ck_assert_int_eq(db_count("SELECT redemptions FROM promotion_codes WHERE code = ?1", "TWICE"),
                     2);
    ck_assert_int_eq(db_count("SELECT COUNT(*) FROM quotes WHERE id = ?1 AND status = 'open'"
                              " AND accepted_at IS NULL",
                              third),
                     1);
    ck_assert_int_eq(db_count("SELECT COUNT(*) FROM events WHERE type = ?1", "quote.accepted"), 2);
    ck_assert_int_eq(
        db_count("SELECT COUNT(*) FROM events WHERE type = ?1", "promotion_code.redeemed"), 2);
    struct http_response *list = call("GET", "/admin/promotion-codes/TWICE", NULL);
    ck_assert_int_eq(json_integer_value(json_at(list->json, "redemptions")), 2);
    http_response_free(list);
}
END_TEST

/* A bad discount is 422 naming the field under "discount", and writes
 * nothing; a promotion code's discount has no validity window. */
START_TEST(test_bad_discount_names_its_field)
{
    static const struct {
        const char *discount, *code, *field;
    } bad[] = {
        {"{\"name\":\"\",\"basis_points\":100}", "out_of_range", "discount.name"},
        {"{\"name\":\"D\",\"basis_points\":100,\"segment\":\"vip\"}", "invalid_value",
         "discount.segment"},
        {"{\"name\":\"D\",\"basis_points\":100,\"billing\":\"weekly\"}", "invalid_value",
         "discount.billing"},
        {"{\"name\":\"D\"}", "invalid_value", "discount.basis_points"},
        {"{\"name\":\"D\",\"basis_points\":10000}", "out_of_range", "discount.basis_points"},
        {"{\"name\":\"D\",\"amount_off\":\"0.00\"}", "price_not_positive", "discount.amount_off"},
        {"{\"name\":\"D\",\"basis_points\":100,\"priority\":2000000}", "out_of_range",
         "discount.priority"},
        {"{\"name\":\"D\",\"basis_points\":100,\"valid_from\":0}", "unknown_field",
         "discount.valid_from"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char body[512];
        snprintf(body, sizeof body, "{\"code\":\"BAD\",\"discount\":%s}", bad[i].discount);
        struct http_response *r = call("POST", "/admin/promotion-codes", body);
        expect_error(r, 422, bad[i].code, bad[i].field);
        if (strcmp(bad[i].field, "discount.billing") == 0)
            expect_str(r->json, "error.message",
                       "discount.billing must be one of on_demand, monthly, quarterly, student, "
                       "mixed");
        http_response_free(r);
    }
    ck_assert_int_eq(db_count("SELECT COUNT(*) FROM promotion_codes", NULL), 0);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_promotion_codes");
    TCase *codes = tcase_create("promotion_codes");
    tcase_add_checked_fixture(codes, start, finish);
    tcase_add_test(codes, test_create_list_get_deactivate);
    tcase_add_test(codes, test_each_refusal);
    tcase_add_test(codes, test_bad_discount_names_its_field);
    tcase_add_test(codes, test_quote_exact_to_the_fen);
    tcase_add_test(codes, test_accept_counts_then_exhausted_writes_nothing);
    tcase_set_timeout(codes, 60);
    suite_add_tcase(suite, codes);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
