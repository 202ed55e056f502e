/*
 * Quotes for a customer through the real server, on SQLite and (the second
 * pass) PostgreSQL. The worked figures: V100 16GB × 1 at 8 h/day for 90
 * days billed at its cheapest is 1641.60 for an individual (on demand) and
 * 1080.00 for a student (1.50 × 720 h).
 *
 * - a student price is saved only for a customer whose student
 *   verification is in force: none, or one that has expired, is 403
 *   segment_not_verified naming the segment and the customer, and nothing
 *   is stored; a key with quotes:write alone cannot assert the segment;
 * - a verified student's quote is saved at the student price, with
 *   `customer` and `created_by` in its answer, in GET /quote/{id} and in
 *   its quote.created event;
 * - without a key, a student's unsaved quote is an estimate at the student
 *   price (estimate: true and why), and saving it is 403;
 * - a customer named without a segment gets the cheapest of the segments
 *   they hold, and the quote says so;
 * - GET /quote filters by customer= and created_by=;
 * - an unknown customer is 404 naming customer.id;
 * - a quote stored before all this reads with customer.id and created_by
 *   null.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/suite.h"

#define JSON_TYPE "Content-Type: application/json"
#define UNKNOWN_CUSTOMER "cus_0123456789abcdef0123456789abcdef"
#define ITEM "{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":90,\"billing\":\"cheapest\"}"
#define INDIVIDUAL_TOTAL "1641.60"
#define STUDENT_TOTAL "1080.00"

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

/* A call with `key` (NULL: none at all; ADMIN: the server's admin key). */
static const char ADMIN[] = "admin";

static struct http_response *call_with(const char *key, const char *method, const char *path,
                                       const char *body)
{
    struct http_client *client =
        key == ADMIN ? http_client_new(server.port) : http_client_keyless(server.port);
    if (key != NULL && key != ADMIN)
        http_client_set_key(client, key);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

/* A new key of `scopes_json`: its secret and id (64 bytes each). */
static void make_key(const char *scopes_json, char *secret, char *id)
{
    char body[256];
    snprintf(body, sizeof body, "{\"name\":\"customer quotes\",\"scopes\":%s}", scopes_json);
    struct http_response *made = call_with(ADMIN, "POST", "/admin/keys", body);
    expect_status(made, 201);
    snprintf(secret, 64, "%s", json_str(made->json, "secret"));
    snprintf(id, 64, "%s", json_str(made->json, "id"));
    http_response_free(made);
}

/* A new customer's id (64 bytes). */
static void create_customer(char *id)
{
    struct http_response *made = call_with(ADMIN, "POST", "/customers", "{\"name\":\"李雷\"}");
    expect_status(made, 201);
    snprintf(id, 64, "%s", json_str(made->json, "id"));
    http_response_free(made);
}

/* Verifies `customer` as `segment` until `seconds` from now. */
static void verify(const char *customer, const char *segment, long seconds)
{
    char expires[32], path[96], body[256];
    time_t at = time(NULL) + seconds;
    struct tm tm;
    gmtime_r(&at, &tm);
    strftime(expires, sizeof expires, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(path, sizeof path, "/customers/%s/verifications", customer);
    snprintf(body, sizeof body, "{\"segment\":\"%s\",\"expires_at\":\"%s\"}", segment, expires);
    struct http_response *made = call_with(ADMIN, "POST", path, body);
    expect_status(made, 201);
    http_response_free(made);
}

/* POST /quote of ITEM for `customer_json` (the "customer" member), saved
 * or not. */
static struct http_response *quote_for(const char *key, const char *customer_json, bool save)
{
    char body[512];
    snprintf(body, sizeof body, "{\"customer\":%s,\"items\":[" ITEM "],\"save\":%s}", customer_json,
             save ? "true" : "false");
    return call_with(key, "POST", "/quote", body);
}

static long count_quotes(const char *query)
{
    char path[160];
    snprintf(path, sizeof path, "/quote?limit=100%s", query);
    struct http_response *list = call_with(ADMIN, "GET", path, NULL);
    expect_status(list, 200);
    long count = json_count(list->json, "data");
    http_response_free(list);
    return count;
}

/* The error names the segment and the customer (or the way to save). */
static void expect_not_verified(struct http_response *r, const char *customer)
{
    expect_error(r, 403, "segment_not_verified", "customer.segment");
    const char *message = json_str(r->json, "error.message");
    ck_assert_ptr_nonnull(strstr(message, "'student'"));
    if (customer != NULL)
        ck_assert_ptr_nonnull(strstr(message, customer));
}

START_TEST(test_student_without_verification_is_403)
{
    char writer[64], writer_id[64], customer[64], wanted[128];
    make_key("[\"quotes:write\"]", writer, writer_id);
    create_customer(customer);
    snprintf(wanted, sizeof wanted, "{\"id\":\"%s\",\"segment\":\"student\"}", customer);
    struct http_response *r = quote_for(writer, wanted, true);
    expect_not_verified(r, customer);
    http_response_free(r);
    /* Unsaved too: a customer named is priced only as they are. */
    r = quote_for(writer, wanted, false);
    expect_not_verified(r, customer);
    http_response_free(r);
    /* quotes:write no longer vouches for a segment; without a key neither. */
    r = quote_for(writer, "{\"segment\":\"student\"}", true);
    expect_not_verified(r, NULL);
    ck_assert_ptr_nonnull(strstr(json_str(r->json, "error.message"), "customers:verify"));
    http_response_free(r);
    r = quote_for(NULL, "{\"segment\":\"student\"}", true);
    expect_not_verified(r, NULL);
    http_response_free(r);
    ck_assert_int_eq(count_quotes(""), 0);
}
END_TEST

START_TEST(test_expired_verification_is_403)
{
    char writer[64], writer_id[64], customer[64], wanted[128];
    make_key("[\"quotes:write\"]", writer, writer_id);
    create_customer(customer);
    verify(customer, "student", 2);
    snprintf(wanted, sizeof wanted, "{\"id\":\"%s\",\"segment\":\"student\"}", customer);
    struct http_response *r = quote_for(writer, wanted, true);
    expect_status(r, 201);
    expect_str(r->json, "total", STUDENT_TOTAL);
    http_response_free(r);
    sleep(3); /* past expires_at, whatever the sweeper has written */
    r = quote_for(writer, wanted, true);
    expect_not_verified(r, customer);
    http_response_free(r);
    ck_assert_int_eq(count_quotes(""), 1);
}
END_TEST

START_TEST(test_verified_student_is_saved)
{
    char writer[64], writer_id[64], customer[64], wanted[128];
    make_key("[\"quotes:write\"]", writer, writer_id);
    create_customer(customer);
    verify(customer, "student", 86400);
    snprintf(wanted, sizeof wanted, "{\"id\":\"%s\",\"segment\":\"student\"}", customer);
    struct http_response *r = quote_for(writer, wanted, true);
    expect_status(r, 201);
    expect_str(r->json, "total", STUDENT_TOTAL);
    expect_str(r->json, "items[0].billing", "cheapest");
    expect_str(r->json, "items[0].cheapest.billing", "student");
    expect_str(r->json, "customer.id", customer);
    expect_str(r->json, "customer.segment", "student");
    expect_str(r->json, "customer.segment_chosen", "requested");
    expect_str(r->json, "created_by", writer_id);
    expect_absent(r->json, "estimate");
    char path[96];
    snprintf(path, sizeof path, "/quote/%s", json_str(r->json, "id"));
    http_response_free(r);

    r = call_with(ADMIN, "GET", path, NULL);
    expect_status(r, 200);
    expect_str(r->json, "customer.id", customer);
    expect_str(r->json, "created_by", writer_id);
    http_response_free(r);

    r = call_with(ADMIN, "GET", "/events?type=quote.created", NULL);
    expect_status(r, 200);
    ck_assert_int_eq(json_count(r->json, "data"), 1);
    expect_str(r->json, "data[0].data.object.customer.id", customer);
    expect_str(r->json, "data[0].data.object.created_by", writer_id);
    expect_str(r->json, "data[0].data.object.total", STUDENT_TOTAL);
    http_response_free(r);
}
END_TEST

START_TEST(test_keyless_student_estimate)
{
    struct http_response *r = quote_for(NULL, "{\"segment\":\"student\"}", false);
    expect_status(r, 200);
    expect_text(r->json, "estimate", "true");
    ck_assert_ptr_nonnull(strstr(json_str(r->json, "estimate_reason"), "verified"));
    expect_str(r->json, "total", STUDENT_TOTAL);
    expect_str(r->json, "customer.segment", "student");
    expect_str(r->json, "customer.segment_chosen", "estimate");
    expect_text(r->json, "customer.id", "null");
    expect_text(r->json, "created_by", "null");
    http_response_free(r);
    /* An individual's quote is no estimate. */
    r = quote_for(NULL, "{\"segment\":\"individual\"}", false);
    expect_status(r, 200);
    expect_absent(r->json, "estimate");
    expect_str(r->json, "total", INDIVIDUAL_TOTAL);
    http_response_free(r);
}
END_TEST

START_TEST(test_cheapest_segment_held)
{
    char writer[64], writer_id[64], customer[64], plain[64], wanted[128];
    make_key("[\"quotes:write\"]", writer, writer_id);
    create_customer(customer);
    create_customer(plain);
    verify(customer, "startup", 86400);
    verify(customer, "student", 86400);
    snprintf(wanted, sizeof wanted, "{\"id\":\"%s\"}", customer);
    struct http_response *r = quote_for(writer, wanted, false);
    expect_status(r, 200);
    expect_str(r->json, "customer.segment", "student");
    expect_str(r->json, "customer.segment_chosen", "cheapest");
    expect_str(r->json, "total", STUDENT_TOTAL);
    http_response_free(r);
    /* Holding nothing but individual: the individual's price. */
    snprintf(wanted, sizeof wanted, "{\"id\":\"%s\"}", plain);
    r = quote_for(writer, wanted, false);
    expect_status(r, 200);
    expect_str(r->json, "customer.segment", "individual");
    expect_str(r->json, "total", INDIVIDUAL_TOTAL);
    http_response_free(r);
}
END_TEST

START_TEST(test_list_filters)
{
    char writer[64], writer_id[64], customer[64], wanted[128], query[160];
    make_key("[\"quotes:write\"]", writer, writer_id);
    create_customer(customer);
    snprintf(wanted, sizeof wanted, "{\"id\":\"%s\"}", customer);
    struct http_response *r = quote_for(writer, wanted, true);
    expect_status(r, 201);
    http_response_free(r);
    r = quote_for(NULL, "{\"segment\":\"individual\"}", true);
    expect_status(r, 201);
    http_response_free(r);
    snprintf(query, sizeof query, "&customer=%s", customer);
    ck_assert_int_eq(count_quotes(query), 1);
    snprintf(query, sizeof query, "&created_by=%s", writer_id);
    ck_assert_int_eq(count_quotes(query), 1);
    ck_assert_int_eq(count_quotes("&created_by=anonymous"), 1);
    ck_assert_int_eq(count_quotes("&customer=" UNKNOWN_CUSTOMER), 0);
    ck_assert_int_eq(count_quotes(""), 2);
}
END_TEST

START_TEST(test_unknown_customer_is_404)
{
    char writer[64], writer_id[64];
    make_key("[\"quotes:write\"]", writer, writer_id);
    struct http_response *r = quote_for(writer, "{\"id\":\"" UNKNOWN_CUSTOMER "\"}", true);
    expect_error(r, 404, "not_found", "customer.id");
    ck_assert_ptr_nonnull(strstr(json_str(r->json, "error.message"), UNKNOWN_CUSTOMER));
    http_response_free(r);
    r = quote_for(NULL, "{\"id\":\"" UNKNOWN_CUSTOMER "\"}", false);
    expect_error(r, 401, "unauthenticated", "Authorization");
    http_response_free(r);
    ck_assert_int_eq(count_quotes(""), 0);
}
END_TEST

/* A quote stored before quotes recorded customers (its text without
 * customer.id and created_by, as such quotes were stored) reads back with
 * both null, and matches no created_by filter. */
START_TEST(test_older_quote_reads_with_nulls)
{
    struct http_response *r = quote_for(NULL, "{\"segment\":\"individual\"}", true);
    expect_status(r, 201);
    json_t *old = json_deep_copy(r->json);
    http_response_free(r);
    json_object_del(json_object_get(old, "customer"), "id");
    json_object_del(json_object_get(old, "customer"), "segment_chosen");
    json_object_del(old, "created_by");
    json_object_del(old, "status_transitions");
    char *text = json_dumps(old, JSON_COMPACT);
    char path[96];
    snprintf(path, sizeof path, "/quote/%s", json_string_value(json_object_get(old, "id")));
    json_decref(old);
    ck_assert_int_eq(server_db_exec(&server,
                                    "UPDATE quotes SET response_json = ?1, response_lz4 = NULL,"
                                    " response_size = NULL, created_by = NULL",
                                    text),
                     1);
    free(text);
    r = call_with(ADMIN, "GET", path, NULL);
    expect_status(r, 200);
    expect_text(r->json, "customer.id", "null");
    expect_text(r->json, "created_by", "null");
    expect_str(r->json, "total", INDIVIDUAL_TOTAL);
    http_response_free(r);
    ck_assert_int_eq(count_quotes("&created_by=anonymous"), 0);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_customer_quotes");
    TCase *quotes = tcase_create("customer_quotes");
    tcase_add_checked_fixture(quotes, start, finish);
    tcase_add_test(quotes, test_student_without_verification_is_403);
    tcase_add_test(quotes, test_expired_verification_is_403);
    tcase_add_test(quotes, test_verified_student_is_saved);
    tcase_add_test(quotes, test_keyless_student_estimate);
    tcase_add_test(quotes, test_cheapest_segment_held);
    tcase_add_test(quotes, test_list_filters);
    tcase_add_test(quotes, test_unknown_customer_is_404);
    tcase_add_test(quotes, test_older_quote_reads_with_nulls);
    suite_set_timeout(quotes, 60);
    suite_add_tcase(suite, quotes);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
