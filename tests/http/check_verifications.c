/*
 * Verified segments of a customer through the real server, on SQLite and
 * (the second pass) PostgreSQL:
 *
 * - a verification makes the customer's segments ["individual",
 *   "student"] and lists it under `verifications`, with its event and
 *   audit line; revoking it takes the segment away again, once;
 * - one that reaches its expires_at stops applying, and the sweeper
 *   writes exactly one customer.verification.expired;
 * - the scope customers:verify, which customers:write does not give;
 * - 404 for an unknown or erased customer and an unknown verification;
 *   422 naming the field for a bad segment, expires_at or evidence, with
 *   nothing stored;
 * - erasing the customer clears the evidence;
 * - webhook endpoints subscribe to the customer.verification.* types.
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
#define UNKNOWN_VERIFICATION "ver_0123456789abcdef0123456789abcdef"
#define EVIDENCE "学信网 report no. A1234"

static struct server server;

static void start(void)
{
    static const char *const env[] = {"GPUQUOTE_QUOTE_SWEEP_INTERVAL_MS=100", NULL};
    const struct server_options options = {.env = env};
    memset(&server, 0, sizeof server);
    server_start(&server, &options);
}

static void finish(void)
{
    server_finish(&server);
}

static struct http_response *call_with(const char *key, const char *method, const char *path,
                                       const char *body)
{
    struct http_client *client =
        key != NULL ? http_client_keyless(server.port) : http_client_new(server.port);
    if (key != NULL)
        http_client_set_key(client, key);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

static struct http_response *call(const char *method, const char *path, const char *body)
{
    return call_with(NULL, method, path, body);
}

/* A new customer's path, "/customers/cus_…", into `path` (64 bytes). */
static void create_customer(char *path)
{
    struct http_response *made = call("POST", "/customers", "{\"name\":\"王芳\"}");
    expect_status(made, 201);
    snprintf(path, 64, "/customers/%s", json_str(made->json, "id"));
    http_response_free(made);
}

/* An RFC 3339 time `seconds` from now into `out` (32 bytes). */
static void time_from_now(long seconds, char *out)
{
    time_t at = time(NULL) + seconds;
    struct tm tm;
    gmtime_r(&at, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* POSTs a verification of `segment` for `customer` ending `seconds` from
 * now, by `key` (NULL: the admin's). */
static struct http_response *verify(const char *key, const char *customer, const char *segment,
                                    long seconds)
{
    char expires[32], path[96], body[256];
    time_from_now(seconds, expires);
    snprintf(path, sizeof path, "%s/verifications", customer);
    snprintf(body, sizeof body,
             "{\"segment\":\"%s\",\"expires_at\":\"%s\",\"evidence\":\"" EVIDENCE "\"}", segment,
             expires);
    return call_with(key, "POST", path, body);
}

static long count_events(const char *type)
{
    char path[96];
    snprintf(path, sizeof path, "/events?type=%s", type);
    struct http_response *events = call("GET", path, NULL);
    expect_status(events, 200);
    long count = json_count(events->json, "data");
    http_response_free(events);
    return count;
}

/* The customer's segments as JSON text, and how many verifications apply. */
static void expect_segments(const char *customer, const char *want, long verifications)
{
    struct http_response *read = call("GET", customer, NULL);
    expect_status(read, 200);
    ck_assert_str_eq(json_text(read->json, "segments"), want);
    ck_assert_int_eq(json_count(read->json, "verifications"), verifications);
    http_response_free(read);
}

START_TEST(test_verified_then_revoked)
{
    char customer[64], revoke_path[128];
    create_customer(customer);
    expect_segments(customer, "[\"individual\"]", 0);

    struct http_response *made = verify(NULL, customer, "student", 30L * 86400);
    expect_status(made, 201);
    ck_assert_int_eq(strncmp(json_str(made->json, "id"), "ver_", 4), 0);
    ck_assert_str_eq(json_str(made->json, "customer"), customer + strlen("/customers/"));
    expect_str(made->json, "segment", "student");
    expect_str(made->json, "status", "active");
    expect_str(made->json, "evidence", EVIDENCE);
    snprintf(revoke_path, sizeof revoke_path, "%s/verifications/%s", customer,
             json_str(made->json, "id"));
    char id[64];
    snprintf(id, sizeof id, "%s", json_str(made->json, "id"));
    http_response_free(made);

    expect_segments(customer, "[\"individual\",\"student\"]", 1);
    struct http_response *read = call("GET", customer, NULL);
    expect_str(read->json, "verifications[0].id", id);
    http_response_free(read);
    struct http_response *list = call("GET", "/customers", NULL);
    ck_assert_str_eq(json_text(list->json, "data[0].segments"), "[\"individual\",\"student\"]");
    http_response_free(list);
    ck_assert_int_eq(count_events("customer.verification.created"), 1);
    struct http_response *event = call("GET", "/events?type=customer.verification.created", NULL);
    expect_str(event->json, "data[0].data.object.id", id);
    expect_absent(event->json, "data[0].data.object.evidence");
    http_response_free(event);
    ck_assert_int_eq(server_db_integer(&server,
                                       "SELECT count(*) FROM audit_log WHERE action ="
                                       " 'customer.verification.create' AND target = ?1",
                                       id),
                     1);

    struct http_response *revoked = call("DELETE", revoke_path, NULL);
    expect_status(revoked, 200);
    expect_str(revoked->json, "status", "revoked");
    expect_str(revoked->json, "id", id);
    http_response_free(revoked);
    expect_segments(customer, "[\"individual\"]", 0);
    revoked = call("DELETE", revoke_path, NULL); /* again: as it is, nothing written */
    expect_status(revoked, 200);
    expect_str(revoked->json, "status", "revoked");
    http_response_free(revoked);
    ck_assert_int_eq(count_events("customer.verification.revoked"), 1);
    ck_assert_int_eq(server_db_integer(&server,
                                       "SELECT count(*) FROM audit_log WHERE action ="
                                       " 'customer.verification.revoke' AND target = ?1",
                                       id),
                     1);
}
END_TEST

START_TEST(test_expiry_is_written_once)
{
    char customer[64];
    create_customer(customer);
    struct http_response *made = verify(NULL, customer, "startup", 2);
    expect_status(made, 201);
    http_response_free(made);
    made = verify(NULL, customer, "enterprise", 3600);
    expect_status(made, 201);
    http_response_free(made);
    expect_segments(customer, "[\"individual\",\"startup\",\"enterprise\"]", 2);

    long expired = 0;
    for (int i = 0; i < 100 && expired == 0; i++) {
        usleep(100 * 1000);
        expired = count_events("customer.verification.expired");
    }
    ck_assert_int_eq(expired, 1);
    expect_segments(customer, "[\"individual\",\"enterprise\"]", 1);
    usleep(500 * 1000); /* five more sweeps write nothing more */
    ck_assert_int_eq(count_events("customer.verification.expired"), 1);
    struct http_response *event = call("GET", "/events?type=customer.verification.expired", NULL);
    expect_str(event->json, "data[0].data.object.segment", "startup");
    expect_str(event->json, "data[0].data.object.status", "expired");
    http_response_free(event);
}
END_TEST

static void make_key(const char *scopes_json, char *secret)
{
    char body[256];
    snprintf(body, sizeof body, "{\"name\":\"verifications test\",\"scopes\":%s}", scopes_json);
    struct http_response *made = call("POST", "/admin/keys", body);
    expect_status(made, 201);
    snprintf(secret, 64, "%s", json_str(made->json, "secret"));
    http_response_free(made);
}

START_TEST(test_scope_is_customers_verify)
{
    char shop[64], operator[64], customer[64];
    make_key("[\"customers:write\",\"customers:read\"]", shop);
    make_key("[\"customers:verify\"]", operator);
    create_customer(customer);
    struct http_response *r = verify(shop, customer, "student", 86400);
    expect_error(r, 403, "forbidden", "Authorization");
    ck_assert_ptr_nonnull(strstr(json_str(r->json, "error.message"), "customers:verify"));
    http_response_free(r);
    expect_segments(customer, "[\"individual\"]", 0);
    r = verify(operator, customer, "student", 86400);
    expect_status(r, 201);
    char path[128];
    snprintf(path, sizeof path, "%s/verifications/%s", customer, json_str(r->json, "id"));
    http_response_free(r);
    r = call_with(shop, "DELETE", path, NULL);
    expect_error(r, 403, "forbidden", "Authorization");
    http_response_free(r);
    r = call_with(operator, "DELETE", path, NULL);
    expect_status(r, 200);
    http_response_free(r);
}
END_TEST

START_TEST(test_unknown_and_erased_are_404)
{
    /* The event types are subscribable (none of these is written here). */
    struct http_response *hook =
        call("POST", "/admin/webhook-endpoints",
             "{\"url\":\"https://hooks.example.com/gpuquote\",\"events\":"
             "[\"customer.verification.revoked\",\"customer.verification.expired\"]}");
    expect_status(hook, 201);
    http_response_free(hook);
    struct http_response *r = verify(NULL, "/customers/" UNKNOWN_CUSTOMER, "student", 86400);
    expect_error(r, 404, "not_found", NULL);
    http_response_free(r);
    char customer[64], path[128];
    create_customer(customer);
    snprintf(path, sizeof path, "%s/verifications/" UNKNOWN_VERIFICATION, customer);
    r = call("DELETE", path, NULL);
    expect_error(r, 404, "not_found", NULL);
    http_response_free(r);

    r = verify(NULL, customer, "student", 86400);
    expect_status(r, 201);
    http_response_free(r);
    r = call("DELETE", customer, NULL);
    expect_status(r, 200);
    http_response_free(r);
    ck_assert_int_eq(server_db_integer(&server,
                                       "SELECT count(*) FROM customer_verifications"
                                       " WHERE evidence IS NOT NULL",
                                       NULL),
                     0);
    r = verify(NULL, customer, "student", 86400);
    expect_error(r, 404, "not_found", NULL);
    http_response_free(r);
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT count(*) FROM customer_verifications", NULL), 1);
}
END_TEST

/* A refused body: its field and code. */
struct refusal {
    const char *body;
    const char *field;
    const char *code;
};

static const struct refusal refusals[] = {
    {"{\"segment\":\"vip\",\"expires_at\":\"2030-01-01T00:00:00Z\"}", "segment", "invalid_value"},
    {"{\"segment\":\"individual\",\"expires_at\":\"2030-01-01T00:00:00Z\"}", "segment",
     "invalid_value"},
    {"{\"expires_at\":\"2030-01-01T00:00:00Z\"}", "segment", "missing_field"},
    {"{\"segment\":\"student\"}", "expires_at", "missing_field"},
    {"{\"segment\":\"student\",\"expires_at\":\"2020-01-01T00:00:00Z\"}", "expires_at",
     "invalid_value"},
    {"{\"segment\":\"student\",\"expires_at\":\"2099-01-01T00:00:00Z\"}", "expires_at",
     "invalid_value"},
    {"{\"segment\":\"student\",\"expires_at\":\"next year\"}", "expires_at", "invalid_value"},
    {"{\"segment\":\"student\",\"expires_at\":\"2030-01-01T00:00:00Z\",\"evidence\":\"a\\u0007b\"}",
     "evidence", "invalid_value"},
    {"{\"segment\":\"student\",\"expires_at\":\"2030-01-01T00:00:00Z\",\"level\":1}", "level",
     "unknown_field"},
};

START_TEST(test_refusals_name_the_field)
{
    char customer[64], path[96];
    create_customer(customer);
    snprintf(path, sizeof path, "%s/verifications", customer);
    struct http_response *r = call("POST", path, refusals[_i].body);
    expect_error(r, 422, refusals[_i].code, refusals[_i].field);
    http_response_free(r);
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT count(*) FROM customer_verifications", NULL), 0);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_verifications");
    TCase *life = tcase_create("life");
    tcase_add_checked_fixture(life, start, finish);
    tcase_add_test(life, test_verified_then_revoked);
    tcase_add_test(life, test_expiry_is_written_once);
    tcase_add_test(life, test_scope_is_customers_verify);
    tcase_add_test(life, test_unknown_and_erased_are_404);
    suite_set_timeout(life, 60);
    suite_add_tcase(suite, life);

    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, start, finish);
    tcase_add_loop_test(refused, test_refusals_name_the_field, 0,
                        (int)(sizeof refusals / sizeof refusals[0]));
    suite_set_timeout(refused, 60);
    suite_add_tcase(suite, refused);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
