/*
 * API keys, scopes, the audit log and rate limits through the real server,
 * on SQLite and (the second pass) PostgreSQL:
 *
 * - every route without a key, with a key that is no key, with a revoked
 *   key, and with a key that lacks the route's scope: public routes answer
 *   without one, a key that is not one is 401 invalid_token everywhere,
 *   a scoped route is 401 without a key and 403 naming the scope with the
 *   wrong one;
 * - a segment claim without a customer: an estimate when unsaved (200),
 *   saved only by a key with customers:verify (else 403
 *   segment_not_verified);
 * - keys made, listed (no secret, no hash), fetched, revoked (once: a
 *   second revocation changes nothing), through the API and the command
 *   line; the first start's key file (0600); when a key was last used;
 * - a key made or revoked on one process is in or out of force on another
 *   on the same database within the poll interval;
 * - the audit line of every action: who, from where, which request, what,
 *   old -> new; its pages and its query's refusals;
 * - rate limits: 429 with Retry-After, then allowed again; keyless saves
 *   limited apart; the client's address from a trusted proxy's header only.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/suite.h"
#include "support/testdb.h"

#define JSON_TYPE "Content-Type: application/json"
#define STUDENT_QUOTE                                                                              \
    "{\"customer\":{\"segment\":\"student\"},\"items\":[{\"sku\":\"v100-16g-x1\","                 \
    "\"billing\":\"student\",\"hours_per_day\":8,\"days\":90}],\"save\":false}"
#define STUDENT_QUOTE_SAVED                                                                        \
    "{\"customer\":{\"segment\":\"student\"},\"items\":[{\"sku\":\"v100-16g-x1\","                 \
    "\"billing\":\"student\",\"hours_per_day\":8,\"days\":90}]}"
#define INDIVIDUAL_QUOTE                                                                           \
    "{\"items\":[{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,"          \
    "\"days\":90}]}"
#define UNKNOWN_QUOTE "q_0123456789abcdef0123456789abcdef"
#define UNKNOWN_KEY "key_0123456789abcdef0123456789abcdef"
#define UNKNOWN_EVENT "evt_0123456789abcdef0123456789abcdef"
#define UNKNOWN_ENDPOINT "we_0123456789abcdef0123456789abcdef"
#define UNKNOWN_DELIVERY "whd_0123456789abcdef0123456789abcdef"
#define UNKNOWN_CUSTOMER "cus_0123456789abcdef0123456789abcdef"
#define NOT_A_KEY "gq_sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

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

/* A key made through the API with the admin key: its secret into `secret`
 * (64 bytes), its id into `id` (40). */
static void make_key(uint16_t port, const char *name, const char *scopes_json, char *secret,
                     char *id)
{
    struct http_client *admin = http_client_new(port);
    char body[256];
    snprintf(body, sizeof body, "{\"name\":\"%s\",\"scopes\":%s}", name, scopes_json);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *made = http_request(admin, "POST", "/admin/keys", headers, body);
    expect_status(made, 201);
    snprintf(secret, 64, "%s", json_str(made->json, "secret"));
    snprintf(id, 40, "%s", json_str(made->json, "id"));
    http_response_free(made);
    http_client_free(admin);
}

static struct http_response *call_with(uint16_t port, const char *key, const char *method,
                                       const char *path, const char *body)
{
    struct http_client *client = http_client_keyless(port);
    http_client_set_key(client, key);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

/* ---- Every route and its policy. ---- */

struct route_case {
    const char *method, *path, *body;
    const char *scope; /* NULL: public */
};

static const struct route_case routes[] = {
    {"GET", "/catalog", NULL, NULL},
    {"GET", "/catalog/billing-modes", NULL, NULL},
    {"GET", "/catalog/bundles", NULL, NULL},
    {"GET", "/catalog/v100-16g-x1", NULL, NULL},
    {"POST", "/quote", INDIVIDUAL_QUOTE, NULL},
    {"GET", "/quote/" UNKNOWN_QUOTE, NULL, NULL},
    {"POST", "/quote/" UNKNOWN_QUOTE "/accept", NULL, "quotes:accept"},
    {"POST", "/quote/" UNKNOWN_QUOTE "/cancel", NULL, "quotes:accept"},
    {"GET", "/quote", NULL, "quotes:read"},
    {"POST", "/recommend", "{\"workload\":{\"task\":\"learning\",\"model_params_b\":1}}", NULL},
    {"POST", "/admin/keys", "{\"name\":\"x\",\"scopes\":[\"quotes:read\"]}", "keys:write"},
    {"GET", "/admin/keys", NULL, "keys:write"},
    {"GET", "/admin/keys/" UNKNOWN_KEY, NULL, "keys:write"},
    {"DELETE", "/admin/keys/" UNKNOWN_KEY, NULL, "keys:write"},
    {"GET", "/admin/audit", NULL, "catalog:write"},
    {"GET", "/events", NULL, "quotes:read"},
    {"GET", "/events/" UNKNOWN_EVENT, NULL, "quotes:read"},
    {"POST", "/admin/webhook-endpoints",
     "{\"url\":\"https://example.com/hook\",\"events\":[\"*\"]}", "webhooks:write"},
    {"GET", "/admin/webhook-endpoints", NULL, "webhooks:write"},
    {"GET", "/admin/webhook-endpoints/" UNKNOWN_ENDPOINT, NULL, "webhooks:write"},
    {"PATCH", "/admin/webhook-endpoints/" UNKNOWN_ENDPOINT, "{\"enabled\":false}",
     "webhooks:write"},
    {"DELETE", "/admin/webhook-endpoints/" UNKNOWN_ENDPOINT, NULL, "webhooks:write"},
    {"GET", "/admin/webhook-endpoints/" UNKNOWN_ENDPOINT "/deliveries", NULL, "webhooks:write"},
    {"POST", "/admin/webhook-endpoints/" UNKNOWN_ENDPOINT "/deliveries/" UNKNOWN_DELIVERY "/retry",
     NULL, "webhooks:write"},
    {"POST", "/customers", "{}", "customers:write"},
    {"GET", "/customers", NULL, "customers:read"},
    {"GET", "/customers/" UNKNOWN_CUSTOMER, NULL, "customers:read"},
    {"PATCH", "/customers/" UNKNOWN_CUSTOMER, "{}", "customers:write"},
    {"DELETE", "/customers/" UNKNOWN_CUSTOMER, NULL, "customers:write"},
    {"POST", "/admin/price-lists", NULL, "catalog:write"},
    {"GET", "/admin/price-lists", NULL, "catalog:write"},
    {"GET", "/admin/price-lists/1", NULL, "catalog:write"},
    {"GET", "/admin/price-lists/1/diff", NULL, "catalog:write"},
    {"POST", "/admin/price-lists/1/publish", "{}", "catalog:write"},
    {"PUT", "/admin/price-lists/1/prices/v100-16g-x1/on_demand", "{\"amount\":\"2.50\"}",
     "catalog:write"},
    {"DELETE", "/admin/price-lists/1/prices/v100-16g-x1/on_demand", NULL, "catalog:write"},
    {"POST", "/admin/price-lists/1/preview", "{\"recent_quotes\":1}", "catalog:write"},
    {"PUT", "/admin/price-lists/1/gpu-models/t4-16g", "{}", "catalog:write"},
    {"DELETE", "/admin/price-lists/1/gpu-models/t4-16g", NULL, "catalog:write"},
    {"PUT", "/admin/price-lists/1/skus/t4-16g-x1", "{}", "catalog:write"},
    {"DELETE", "/admin/price-lists/1/skus/t4-16g-x1", NULL, "catalog:write"},
    {"PUT", "/admin/price-lists/1/discount-rules/r1", "{}", "catalog:write"},
    {"DELETE", "/admin/price-lists/1/discount-rules/r1", NULL, "catalog:write"},
    {"PUT", "/admin/price-lists/1/bundles/b1", "{}", "catalog:write"},
    {"DELETE", "/admin/price-lists/1/bundles/b1", NULL, "catalog:write"},
    {"GET", "/metrics", NULL, "metrics:read"},
    {"GET", "/healthz", NULL, NULL},
    {"GET", "/readyz", NULL, NULL},
    {"GET", "/openapi.yaml", NULL, NULL},
    {"GET", "/", NULL, NULL},
};

#define ROUTES (sizeof routes / sizeof routes[0])

START_TEST(test_route_without_a_key)
{
    const struct route_case *route = &routes[_i];
    struct http_response *response =
        call_with(server.port, NULL, route->method, route->path, route->body);
    if (route->scope == NULL) {
        ck_assert_msg(response->status != 401 && response->status != 403, "%s %s: %ld",
                      route->method, route->path, response->status);
    } else {
        expect_error(response, 401, "unauthenticated", "Authorization");
        char message[160];
        snprintf(message, sizeof message,
                 "this call needs an API key with the scope %s: send Authorization: Bearer and "
                 "the key",
                 route->scope);
        expect_str(response->json, "error.message", message);
        ck_assert_str_eq(http_header(response, "www-authenticate"), "Bearer realm=\"gpuquote\"");
    }
    http_response_free(response);
}
END_TEST

START_TEST(test_route_with_a_key_that_is_no_key)
{
    const struct route_case *route = &routes[_i];
    struct http_response *response =
        call_with(server.port, NOT_A_KEY, route->method, route->path, route->body);
    expect_error(response, 401, "unauthenticated", "Authorization");
    expect_str(response->json, "error.message", "the API key is unknown, revoked or malformed");
    ck_assert_str_eq(http_header(response, "www-authenticate"),
                     "Bearer realm=\"gpuquote\", error=\"invalid_token\"");
    http_response_free(response);
}
END_TEST

START_TEST(test_route_with_a_revoked_key)
{
    const struct route_case *route = &routes[_i];
    char secret[64], id[40];
    make_key(server.port, "soon revoked",
             "[\"quotes:write\",\"quotes:read\",\"quotes:accept\","
             "\"catalog:write\",\"keys:write\"]",
             secret, id);
    char path[64];
    snprintf(path, sizeof path, "/admin/keys/%s", id);
    struct http_response *revoked = call_with(server.port, server.admin_key, "DELETE", path, NULL);
    expect_status(revoked, 200);
    ck_assert_str_ne(json_text(revoked->json, "revoked_at"), "null");
    http_response_free(revoked);
    struct http_response *response =
        call_with(server.port, secret, route->method, route->path, route->body);
    expect_error(response, 401, "unauthenticated", "Authorization");
    http_response_free(response);
}
END_TEST

START_TEST(test_route_with_a_key_lacking_its_scope)
{
    const struct route_case *route = &routes[_i];
    if (route->scope == NULL)
        return; /* public: any key in force will do; tested above */
    char secret[64], id[40];
    /* A key of another scope: metrics:read, or for /metrics itself quotes:read. */
    bool metrics = strcmp(route->scope, "metrics:read") == 0;
    make_key(server.port, "another scope", metrics ? "[\"quotes:read\"]" : "[\"metrics:read\"]",
             secret, id);
    struct http_response *response =
        call_with(server.port, secret, route->method, route->path, route->body);
    expect_error(response, 403, "forbidden", "Authorization");
    char message[96];
    snprintf(message, sizeof message, "this API key lacks the scope %s", route->scope);
    expect_str(response->json, "error.message", message);
    http_response_free(response);
}
END_TEST

START_TEST(test_segment_claim_needs_customers_verify)
{
    /* Unsaved, a student's price is an estimate for anyone. */
    struct http_response *keyless = call_with(server.port, NULL, "POST", "/quote", STUDENT_QUOTE);
    expect_status(keyless, 200);
    expect_text(keyless->json, "estimate", "true");
    expect_str(keyless->json, "total", "1080.00"); /* 1.50 × 720 h */
    http_response_free(keyless);
    /* Saved without a verified customer, only a key that verifies
     * customers itself may assert it: quotes:write does not. */
    char writer[64], writer_id[40], verifier[64], verifier_id[40];
    make_key(server.port, "writer", "[\"quotes:write\"]", writer, writer_id);
    make_key(server.port, "verifier", "[\"customers:verify\"]", verifier, verifier_id);
    struct http_response *lacking =
        call_with(server.port, writer, "POST", "/quote", STUDENT_QUOTE_SAVED);
    expect_error(lacking, 403, "segment_not_verified", "customer.segment");
    expect_str(lacking->json, "error.message",
               "a quote saved for the segment 'student' needs a customer verified as 'student' "
               "(customer.id), or an API key with the scope customers:verify");
    http_response_free(lacking);
    struct http_response *saved =
        call_with(server.port, verifier, "POST", "/quote", STUDENT_QUOTE_SAVED);
    expect_status(saved, 201);
    expect_str(saved->json, "total", "1080.00");
    expect_str(saved->json, "customer.segment_chosen", "asserted");
    expect_str(saved->json, "created_by", verifier_id);
    http_response_free(saved);
    /* The individual segment, and no segment at all, need none. */
    struct http_response *individual =
        call_with(server.port, NULL, "POST", "/quote",
                  "{\"customer\":{\"segment\":\"individual\"},\"items\":[{\"sku\":\"v100-16g-x1\","
                  "\"hours_per_day\":8,\"days\":90}],\"save\":false}");
    expect_status(individual, 200);
    expect_str(individual->json, "total", "1641.60");
    http_response_free(individual);
}
END_TEST

START_TEST(test_authorization_forms)
{
    const char *const forms[] = {"Basic Zm9vOmJhcg==", "Bearer",
                                 "Bearer  ",           "gq_sk_only",
                                 "Bearer gq_sk_short", "Bearer " NOT_A_KEY "x"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char header[160];
        snprintf(header, sizeof header, "Authorization: %s", forms[i]);
        const char *const headers[] = {header, NULL};
        struct http_client *client = http_client_keyless(server.port);
        struct http_response *response = http_request(client, "GET", "/catalog", headers, NULL);
        expect_error(response, 401, "unauthenticated", "Authorization");
        http_response_free(response);
        http_client_free(client);
    }
    /* The scheme in any case, spaces around the token. */
    char header[160];
    snprintf(header, sizeof header, "Authorization: bEaReR   %s  ", server.admin_key);
    const char *const headers[] = {header, NULL};
    struct http_client *client = http_client_keyless(server.port);
    struct http_response *response = http_request(client, "GET", "/admin/keys", headers, NULL);
    expect_status(response, 200);
    http_response_free(response);
    http_client_free(client);
}
END_TEST

/* ---- Keys: made, shown, revoked, audited. ---- */

START_TEST(test_key_life_and_its_audit)
{
    struct http_client *admin = http_client_new(server.port);
    const char *const headers[] = {JSON_TYPE, "X-Request-Id: make-the-shop-key", NULL};
    struct http_response *made =
        http_request(admin, "POST", "/admin/keys", headers,
                     "{\"name\":\"shop backend\",\"scopes\":[\"quotes:write\",\"quotes:accept\","
                     "\"quotes:write\"]}");
    expect_status(made, 201);
    const char *secret = json_str(made->json, "secret");
    ck_assert_int_eq((int)strlen(secret), 49);
    ck_assert_int_eq(strncmp(secret, "gq_sk_", 6), 0);
    char id[40], key[64];
    snprintf(id, sizeof id, "%s", json_str(made->json, "id"));
    snprintf(key, sizeof key, "%s", secret);
    ck_assert_int_eq(strncmp(json_str(made->json, "prefix"), secret, 12), 0);
    ck_assert_str_eq(json_text(made->json, "scopes"), "[\"quotes:write\",\"quotes:accept\"]");
    char location[64];
    snprintf(location, sizeof location, "/admin/keys/%s", id);
    ck_assert_str_eq(http_header(made, "location"), location);
    http_response_free(made);

    /* In force at once: it accepts (an unknown quote is 404, not 401). */
    struct http_response *used =
        call_with(server.port, key, "POST", "/quote/" UNKNOWN_QUOTE "/accept", NULL);
    expect_error(used, 404, "not_found", NULL);
    http_response_free(used);

    /* Listed and fetched without its secret or hash. */
    struct http_response *listed = http_get(admin, "/admin/keys");
    expect_status(listed, 200);
    ck_assert_int_eq(json_count(listed->json, "data"), 2);
    ck_assert_ptr_null(strstr(listed->body, key));
    ck_assert_ptr_null(strstr(listed->body, "hash"));
    expect_str(listed->json, "data[1].name", "shop backend");
    http_response_free(listed);
    struct http_response *fetched = http_get(admin, location);
    expect_status(fetched, 200);
    expect_str(fetched->json, "name", "shop backend");
    expect_text(fetched->json, "revoked_at", "null");
    expect_absent(fetched->json, "secret");
    http_response_free(fetched);

    /* Revoked, twice: the second changes nothing. */
    const char *const revoke_headers[] = {"X-Request-Id: revoke-the-shop-key", NULL};
    struct http_response *revoked = http_request(admin, "DELETE", location, revoke_headers, NULL);
    expect_status(revoked, 200);
    char revoked_at[40];
    snprintf(revoked_at, sizeof revoked_at, "%s", json_str(revoked->json, "revoked_at"));
    http_response_free(revoked);
    suite_sleep_ms(1100);
    struct http_response *again = http_request(admin, "DELETE", location, NULL, NULL);
    expect_status(again, 200);
    expect_str(again->json, "revoked_at", revoked_at);
    http_response_free(again);
    used = call_with(server.port, key, "POST", "/quote/" UNKNOWN_QUOTE "/accept", NULL);
    expect_error(used, 401, "unauthenticated", "Authorization");
    http_response_free(used);

    /* The audit: the first start's key, then this one made and revoked once. */
    struct http_response *audit = http_get(admin, "/admin/audit");
    expect_status(audit, 200);
    ck_assert_int_eq(json_count(audit->json, "data"), 3);
    expect_str(audit->json, "data[0].action", "key.create");
    expect_str(audit->json, "data[0].client", "first start");
    expect_text(audit->json, "data[0].key", "null");
    expect_str(audit->json, "data[1].action", "key.create");
    expect_str(audit->json, "data[1].target", id);
    expect_str(audit->json, "data[1].request_id", "make-the-shop-key");
    expect_str(audit->json, "data[1].client", "127.0.0.1");
    expect_str(audit->json, "data[1].key.name", "local administrator (first start)");
    expect_text(audit->json, "data[1].change.old", "null");
    expect_str(audit->json, "data[1].change.new.name", "shop backend");
    expect_absent(audit->json, "data[1].change.new.secret");
    ck_assert_ptr_null(strstr(audit->body, key));
    expect_str(audit->json, "data[2].action", "key.revoke");
    expect_str(audit->json, "data[2].request_id", "revoke-the-shop-key");
    expect_text(audit->json, "data[2].change.old.revoked_at", "null");
    expect_str(audit->json, "data[2].change.new.revoked_at", revoked_at);
    ck_assert_str_eq(json_text(audit->json, "has_more"), "false");
    http_response_free(audit);
    http_client_free(admin);
}
END_TEST

START_TEST(test_key_body_refusals)
{
    struct {
        const char *body, *code, *field;
    } cases[] = {
        {"{\"scopes\":[\"quotes:read\"]}", "missing_field", "name"},
        {"{\"name\":\"\",\"scopes\":[\"quotes:read\"]}", "out_of_range", "name"},
        {"{\"name\":\"x\"}", "missing_field", "scopes"},
        {"{\"name\":\"x\",\"scopes\":[]}", "invalid_value", "scopes"},
        {"{\"name\":\"x\",\"scopes\":[\"quotes:delete\"]}", "invalid_value", "scopes[0]"},
        {"{\"name\":\"x\",\"scopes\":[7]}", "invalid_type", "scopes[0]"},
        {"{\"name\":\"x\",\"scopes\":[\"quotes:read\"],\"secret\":\"mine\"}", "unknown_field",
         "secret"},
    };
    struct http_client *admin = http_client_new(server.port);
    const char *const headers[] = {JSON_TYPE, NULL};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct http_response *refused =
            http_request(admin, "POST", "/admin/keys", headers, cases[i].body);
        expect_error(refused, 422, cases[i].code, cases[i].field);
        http_response_free(refused);
    }
    struct http_response *listed = http_get(admin, "/admin/keys");
    ck_assert_int_eq(json_count(listed->json, "data"), 1); /* none was made */
    http_response_free(listed);
    http_client_free(admin);
}
END_TEST

START_TEST(test_audit_pages_and_query)
{
    char secret[64], id[40];
    for (int i = 0; i < 3; i++)
        make_key(server.port, "page", "[\"quotes:read\"]", secret, id);
    struct http_client *admin = http_client_new(server.port);
    struct http_response *first = http_get(admin, "/admin/audit?limit=2");
    expect_status(first, 200);
    ck_assert_int_eq(json_count(first->json, "data"), 2);
    ck_assert_str_eq(json_text(first->json, "has_more"), "true");
    char path[128];
    snprintf(path, sizeof path, "/admin/audit?limit=2&starting_after=%s",
             json_str(first->json, "data[1].id"));
    struct http_response *second = http_get(admin, path);
    ck_assert_int_eq(json_count(second->json, "data"), 2); /* 4 lines in all */
    ck_assert_str_eq(json_text(second->json, "has_more"), "false");
    ck_assert_str_gt(json_str(second->json, "data[0].id"), json_str(first->json, "data[1].id"));
    expect_str(second->json, "data[1].target", id);
    http_response_free(first);
    http_response_free(second);
    struct http_response *later = http_get(admin, "/admin/audit?since=2999-01-01T00:00:00Z");
    ck_assert_int_eq(json_count(later->json, "data"), 0);
    http_response_free(later);
    struct {
        const char *query, *field;
    } bad[] = {{"/admin/audit?limit=0", "limit"},
               {"/admin/audit?limit=101", "limit"},
               {"/admin/audit?since=yesterday", "since"},
               {"/admin/audit?starting_after=q_1", "starting_after"},
               {"/admin/audit?limit=1&limit=2", "limit"},
               {"/admin/audit?sort=at", "sort"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct http_response *refused = http_get(admin, bad[i].query);
        expect_error(refused, 400, "invalid_parameter", bad[i].field);
        http_response_free(refused);
    }
    http_client_free(admin);
}
END_TEST

/* When a key was last used reaches the store within keys_last_used_seconds. */
START_TEST(test_last_use_is_recorded)
{
    struct server fast = {0};
    const char *const env[] = {"GPUQUOTE_KEYS_LAST_USED_SECONDS=1", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&fast, &options);
    char secret[64], id[40];
    make_key(fast.port, "used", "[\"quotes:read\"]", secret, id);
    char path[64];
    snprintf(path, sizeof path, "/admin/keys/%s", id);
    struct http_response *before = call_with(fast.port, fast.admin_key, "GET", path, NULL);
    expect_text(before->json, "last_used_at", "null");
    http_response_free(before);
    struct http_response *used = call_with(fast.port, secret, "GET", "/catalog", NULL);
    expect_status(used, 200);
    http_response_free(used);
    bool recorded = false;
    for (int i = 0; i < 40 && !recorded; i++) {
        suite_sleep_ms(100);
        struct http_response *after = call_with(fast.port, fast.admin_key, "GET", path, NULL);
        recorded = strcmp(json_text(after->json, "last_used_at"), "null") != 0;
        http_response_free(after);
    }
    ck_assert_msg(recorded, "last_used_at still null after 4 s");
    server_finish(&fast);
}
END_TEST

/* Two processes on one database: a key made or revoked on one is in or
 * out of force on the other within the poll interval (1 s). */
START_TEST(test_keys_reach_another_process)
{
    struct server other = {0};
    server_prepare(&other);
    snprintf(other.db_path, sizeof other.db_path, "%s", server.db_path);
    server_start(&other, NULL);
    char secret[64], id[40];
    make_key(server.port, "elsewhere", "[\"keys:write\"]", secret, id);
    long long made = suite_now_ms();
    long status = 0;
    while (status != 200 && suite_now_ms() - made < 2500) {
        struct http_response *seen = call_with(other.port, secret, "GET", "/admin/keys", NULL);
        status = seen->status;
        http_response_free(seen);
        suite_sleep_ms(50);
    }
    ck_assert_msg(status == 200, "the other process still refuses the key after 2.5 s");
    char path[64];
    snprintf(path, sizeof path, "/admin/keys/%s", id);
    http_response_free(call_with(server.port, server.admin_key, "DELETE", path, NULL));
    long long revoked = suite_now_ms();
    while (status != 401 && suite_now_ms() - revoked < 2500) {
        struct http_response *seen = call_with(other.port, secret, "GET", "/admin/keys", NULL);
        status = seen->status;
        http_response_free(seen);
        suite_sleep_ms(50);
    }
    ck_assert_msg(status == 401, "the other process still takes the revoked key after 2.5 s");
    other.db_name[0] = '\0'; /* the database is the first server's to drop */
    server_finish(&other);
}
END_TEST

/* ---- The command line and the first start. ---- */

static int run_keys(const char *const *args)
{
    static char database[SERVER_PATH_SIZE + 32], migrations[SERVER_PATH_SIZE + 32];
    snprintf(database, sizeof database, "GPUQUOTE_DATABASE=%s", server.db_path);
    snprintf(migrations, sizeof migrations, "GPUQUOTE_MIGRATIONS_DIR=%s/migrations",
             getenv("GPUQUOTE_SOURCE_DIR"));
    const char *const env[] = {database, migrations, NULL};
    struct server_options options = {args, env, true};
    struct server runner = {0};
    server_prepare(&runner);
    int status = server_run(&runner, &options);
    char *out = server_read(&runner, "stdout.log");
    FILE *kept = fopen(server_path(&server, "keys.out"), "w");
    fputs(out, kept);
    fclose(kept);
    free(out);
    char *err = server_read(&runner, "stderr.log");
    kept = fopen(server_path(&server, "keys.err"), "w");
    fputs(err, kept);
    fclose(kept);
    free(err);
    server_cleanup(&runner);
    return status;
}

START_TEST(test_keys_from_the_command_line)
{
    const char *const create[] = {"keys",        "create",  "--name",        "batch job", "--scope",
                                  "quotes:read", "--scope", "quotes:accept", NULL};
    ck_assert_int_eq(run_keys(create), 0);
    char *secret = server_read(&server, "keys.out");
    secret[strcspn(secret, "\n")] = '\0';
    ck_assert_int_eq((int)strlen(secret), 49);
    /* The key works on the running server within the poll interval. */
    long status = 0;
    for (int i = 0; i < 30 && status != 404; i++) {
        struct http_response *used =
            call_with(server.port, secret, "POST", "/quote/" UNKNOWN_QUOTE "/accept", NULL);
        status = used->status;
        http_response_free(used);
        suite_sleep_ms(100);
    }
    ck_assert_int_eq(status, 404);
    const char *const list[] = {"keys", "list", NULL};
    ck_assert_int_eq(run_keys(list), 0);
    char *listing = server_read(&server, "keys.out");
    ck_assert_ptr_nonnull(strstr(listing, "batch job / quotes:read quotes:accept"));
    ck_assert_ptr_null(strstr(listing, secret));
    char id[40] = "";
    const char *line = strstr(listing, "key_");
    line = line != NULL ? strstr(line + 1, "\nkey_") : NULL; /* the second key */
    ck_assert_ptr_nonnull(line);
    snprintf(id, sizeof id, "%.36s", line + 1);
    free(listing);
    const char *const revoke[] = {"keys", "revoke", id, NULL};
    ck_assert_int_eq(run_keys(revoke), 0);
    char *said = server_read(&server, "keys.err");
    ck_assert_ptr_nonnull(strstr(said, " revoked at "));
    free(said);
    const char *const wrong[] = {"keys", "create", "--name", "x", "--scope", "quotes:drop", NULL};
    ck_assert_int_eq(run_keys(wrong), 2);
    const char *const unknown[] = {"keys", "revoke", UNKNOWN_KEY, NULL};
    ck_assert_int_eq(run_keys(unknown), 1);
    free(secret);
    /* The command line's actions are audited, with no key as their author. */
    struct http_client *admin = http_client_new(server.port);
    struct http_response *audit = http_get(admin, "/admin/audit");
    ck_assert_int_eq(json_count(audit->json, "data"), 3);
    expect_str(audit->json, "data[1].client", "command line");
    expect_text(audit->json, "data[1].key", "null");
    expect_str(audit->json, "data[2].action", "key.revoke");
    http_response_free(audit);
    http_client_free(admin);
}
END_TEST

/* A name stored before names were checked, with a terminal's escape
 * sequences, a carriage return and a bidirectional override in it, is
 * listed escaped: the terminal shows it and obeys none of it. Such a name
 * is refused from the command line as from the API. */
START_TEST(test_keys_list_escapes_stored_names)
{
    const char *raw = "evil\x1b[31mRED\x1b[0m\rkey_fake \xe2\x80\xae"
                      "cba\xc2\x9b";
    ck_assert_int_eq(server_db_exec(&server, "UPDATE api_keys SET name = ?1", raw), 1);
    const char *const list[] = {"keys", "list", NULL};
    ck_assert_int_eq(run_keys(list), 0);
    char *listing = server_read(&server, "keys.out");
    ck_assert_ptr_null(strchr(listing, '\x1b'));
    ck_assert_ptr_null(strchr(listing, '\r'));
    ck_assert_ptr_null(strstr(listing, "\xe2\x80\xae"));
    ck_assert_ptr_null(strstr(listing, "\xc2\x9b"));
    ck_assert_msg(strstr(listing, "evil\\x1b[31mRED\\x1b[0m\\x0dkey_fake \\u202ecba\\u009b / ") !=
                      NULL,
                  "listing: %s", listing);
    free(listing);
    const char *const create[] = {"keys",    "create",      "--name", "job\x1b]0;owned\x07",
                                  "--scope", "quotes:read", NULL};
    ck_assert_int_eq(run_keys(create), 2);
    ck_assert_int_eq(server_db_integer(&server, "SELECT COUNT(*) FROM api_keys", NULL), 1);
}
END_TEST

/* Runs `gpuquote ARGS` with only `env` in a directory of its own; its
 * standard output and error in *out and *err (freed by the caller). */
static int run_cli(const char *const *args, const char *const *env, char **out, char **err)
{
    struct server_options options = {args, env, true};
    struct server runner = {0};
    server_prepare(&runner);
    int status = server_run(&runner, &options);
    *out = server_read(&runner, "stdout.log");
    *err = server_read(&runner, "stderr.log");
    server_cleanup(&runner);
    return status;
}

/* The usage, and a command line that is wrong, need no database: none is
 * created or migrated for them. */
START_TEST(test_keys_usage_before_the_database)
{
    char database[SERVER_PATH_SIZE + 32];
    snprintf(database, sizeof database, "GPUQUOTE_DATABASE=%s",
             server_path(&server, "untouched.db"));
    const char *const env[] = {database, "GPUQUOTE_MIGRATIONS_DIR=/nonexistent", NULL};
    char *out, *err;
    const char *const bare[] = {"keys", NULL};
    ck_assert_int_eq(run_cli(bare, env, &out, &err), 2);
    ck_assert_msg(strncmp(err, "usage: gpuquote keys create", 27) == 0, "stderr: %s", err);
    free(out);
    free(err);
    const char *const help[] = {"keys", "--help", NULL};
    ck_assert_int_eq(run_cli(help, env, &out, &err), 0);
    ck_assert_msg(strncmp(out, "usage: gpuquote keys create", 27) == 0, "stdout: %s", out);
    ck_assert_str_eq(err, "");
    free(out);
    free(err);
    const char *const typo[] = {"keys", "create", "--name", "x", "--scope", "quotes:wirte", NULL};
    ck_assert_int_eq(run_cli(typo, env, &out, &err), 2);
    ck_assert_msg(strncmp(err, "gpuquote: error: --scope: 'quotes:wirte' is not a scope\n", 56) ==
                      0,
                  "stderr: %s", err);
    free(out);
    free(err);
    ck_assert_int_ne(access(server_path(&server, "untouched.db"), F_OK), 0);
}
END_TEST

/* The server's flags work after the keys command as before it. */
START_TEST(test_keys_create_takes_the_server_flags)
{
    char migrations[SERVER_PATH_SIZE + 32];
    snprintf(migrations, sizeof migrations, "%s/migrations", getenv("GPUQUOTE_SOURCE_DIR"));
    const char *const create[] = {"keys",         "create",       "--name",  "flagged",
                                  "--db",         server.db_path, "--scope", "quotes:read",
                                  "--migrations", migrations,     NULL};
    char *out, *err;
    ck_assert_int_eq(run_cli(create, NULL, &out, &err), 0);
    ck_assert_msg(strncmp(out, "gq_sk_", 6) == 0, "stdout: %s, stderr: %s", out, err);
    free(out);
    free(err);
    char db[SERVER_PATH_SIZE + 8];
    snprintf(db, sizeof db, "--db=%s", server.db_path);
    const char *const list[] = {"keys", "list", db, "--migrations", migrations, NULL};
    ck_assert_int_eq(run_cli(list, NULL, &out, &err), 0);
    ck_assert_msg(strstr(out, "flagged / quotes:read") != NULL, "stdout: %s", out);
    free(out);
    free(err);
}
END_TEST

START_TEST(test_first_start_key_file)
{
    struct stat info;
    ck_assert_int_eq(stat(server_path(&server, "admin.key"), &info), 0);
    ck_assert_int_eq(info.st_mode & 0777, 0600);
    ck_assert_int_eq((int)strlen(server.admin_key), 49);
    char *log = server_read(&server, "stderr.log");
    bool announced = strstr(log, "the database had no API key: key_") != NULL;
    free(log);
    ck_assert(announced);
    /* A second start on the same database makes none: keys exist. */
    int status = server_stop(&server);
    ck_assert_int_eq(status, 0);
    ck_assert_int_eq(unlink(server_path(&server, "admin.key")), 0);
    server_start(&server, NULL);
    ck_assert_int_ne(access(server_path(&server, "admin.key"), F_OK), 0);
    http_register_key(server.port, "");
}
END_TEST

/* ---- Rate limits. ---- */

START_TEST(test_rate_limits)
{
    struct server limited = {0};
    const char *const env[] = {"GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND=2",
                               "GPUQUOTE_RATE_LIMIT_KEYLESS_BURST=3",
                               "GPUQUOTE_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE=60",
                               "GPUQUOTE_RATE_LIMIT_KEY_PER_SECOND=1000", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&limited, &options);
    struct http_client *keyless = http_client_keyless(limited.port);
    long statuses[5];
    for (int i = 0; i < 5; i++) {
        struct http_response *response = http_get(keyless, "/catalog");
        statuses[i] = response->status;
        if (response->status == 429) {
            expect_error(response, 429, "rate_limited", NULL);
            ck_assert_str_eq(http_header(response, "retry-after"), "1");
        }
        http_response_free(response);
    }
    /* A burst of 3, then refused (a few ms cannot refill a whole token). */
    ck_assert_int_eq(statuses[0], 200);
    ck_assert_int_eq(statuses[2], 200);
    ck_assert_int_eq(statuses[3], 429);
    ck_assert_int_eq(statuses[4], 429);
    /* Health is not limited; a key has a bucket of its own. */
    struct http_response *health = http_get(keyless, "/healthz");
    expect_status(health, 200);
    http_response_free(health);
    struct http_response *keyed =
        call_with(limited.port, limited.admin_key, "GET", "/catalog", NULL);
    expect_status(keyed, 200);
    http_response_free(keyed);
    /* Half a second later (2 a second): one more. */
    suite_sleep_ms(600);
    struct http_response *again = http_get(keyless, "/catalog");
    expect_status(again, 200);
    http_response_free(again);
    http_client_free(keyless);
    server_finish(&limited);
}
END_TEST

START_TEST(test_keyless_saves_are_limited_apart)
{
    struct server limited = {0};
    const char *const env[] = {"GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND=1000",
                               "GPUQUOTE_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE=6", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&limited, &options);
    struct http_client *keyless = http_client_keyless(limited.port);
    const char *const headers[] = {JSON_TYPE, NULL};
    int saved = 0, refused = 0;
    for (int i = 0; i < 9; i++) { /* a minute's at once: 6 */
        struct http_response *response =
            http_request(keyless, "POST", "/quote", headers, INDIVIDUAL_QUOTE);
        saved += response->status == 201;
        refused += response->status == 429;
        http_response_free(response);
    }
    ck_assert_int_eq(saved, 6);
    ck_assert_int_eq(refused, 3);
    ck_assert_int_eq(server_db_integer(&limited, "SELECT count(*) FROM quotes", NULL), 6);
    /* An unsaved quote is not a save; a key's saves are its own bucket's. */
    struct http_response *unsaved = http_request(
        keyless, "POST", "/quote", headers,
        "{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":90}],\"save\":false}");
    expect_status(unsaved, 200);
    http_response_free(unsaved);
    struct http_response *keyed =
        call_with(limited.port, limited.admin_key, "POST", "/quote", INDIVIDUAL_QUOTE);
    expect_status(keyed, 201);
    http_response_free(keyed);
    http_client_free(keyless);
    server_finish(&limited);
}
END_TEST

/* Behind a trusted proxy the client's address is the header's last one;
 * from anyone else the header is a claim, not believed. */
START_TEST(test_client_address_from_a_trusted_proxy_only)
{
    for (int trusted = 0; trusted < 2; trusted++) {
        struct server proxied = {0};
        const char *const env[] = {"GPUQUOTE_CLIENT_ADDRESS_HEADER=X-Forwarded-For",
                                   trusted ? "GPUQUOTE_TRUSTED_PROXIES=10.0.0.0/8, 127.0.0.1"
                                           : "GPUQUOTE_TRUSTED_PROXIES=10.0.0.0/8",
                                   NULL};
        struct server_options options = {NULL, env, false};
        server_start(&proxied, &options);
        struct http_client *admin = http_client_new(proxied.port);
        const char *const headers[] = {JSON_TYPE, "X-Forwarded-For: 198.51.100.7, 203.0.113.9",
                                       NULL};
        struct http_response *made = http_request(admin, "POST", "/admin/keys", headers,
                                                  "{\"name\":\"p\",\"scopes\":[\"quotes:read\"]}");
        expect_status(made, 201);
        http_response_free(made);
        struct http_response *audit = http_get(admin, "/admin/audit");
        expect_str(audit->json, "data[1].client", trusted ? "203.0.113.9" : "127.0.0.1");
        http_response_free(audit);
        http_client_free(admin);
        server_finish(&proxied);
    }
}
END_TEST

/* Answers that do no handler's work count against the caller's limit
 * all the same: a wrong key, no key where one is needed, a path or a
 * method without a route, a preflight, and /readyz (which reaches for
 * the store). Each case from an address of its own (through a trusted
 * proxy's header), so that its burst is its own. */
static const struct {
    const char *method, *path, *key;
    long status; /* what the burst's calls are answered */
} unrouted_cases[] = {
    {"GET", "/catalog", NOT_A_KEY, 401}, {"GET", "/admin/keys", NULL, 401},
    {"GET", "/nope", NULL, 404},         {"DELETE", "/catalog", NULL, 405},
    {"OPTIONS", "/quote", NULL, 204},    {"GET", "/readyz", NULL, 200},
    {"GET", "/healthz", NOT_A_KEY, 401},
};

START_TEST(test_every_answer_is_rate_limited)
{
    struct server limited = {0};
    const char *const env[] = {"GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND=1",
                               "GPUQUOTE_RATE_LIMIT_KEYLESS_BURST=3",
                               "GPUQUOTE_CLIENT_ADDRESS_HEADER=X-Forwarded-For",
                               "GPUQUOTE_TRUSTED_PROXIES=127.0.0.1", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&limited, &options);
    for (size_t c = 0; c < sizeof unrouted_cases / sizeof unrouted_cases[0]; c++) {
        struct http_client *client = http_client_keyless(limited.port);
        http_client_set_key(client, unrouted_cases[c].key);
        char forwarded[64];
        snprintf(forwarded, sizeof forwarded, "X-Forwarded-For: 198.51.100.%zu", c + 1);
        const char *const headers[] = {forwarded, NULL};
        for (int i = 0; i < 4; i++) { /* a burst of 3, then 429 */
            struct http_response *response = http_request(client, unrouted_cases[c].method,
                                                          unrouted_cases[c].path, headers, NULL);
            ck_assert_msg(response->status == (i < 3 ? unrouted_cases[c].status : 429),
                          "%s %s, call %d: %ld", unrouted_cases[c].method, unrouted_cases[c].path,
                          i + 1, response->status);
            if (i == 3) {
                expect_error(response, 429, "rate_limited", NULL);
                ck_assert_str_eq(http_header(response, "retry-after"), "1");
            }
            http_response_free(response);
        }
        http_client_free(client);
    }
    /* Liveness stays unlimited: an orchestrator's probe never meets a 429. */
    struct http_client *prober = http_client_keyless(limited.port);
    const char *const last[] = {"X-Forwarded-For: 198.51.100.99", NULL};
    for (int i = 0; i < 5; i++) {
        struct http_response *live = http_request(prober, "GET", "/healthz", last, NULL);
        expect_status(live, 200);
        http_response_free(live);
    }
    http_client_free(prober);
    server_finish(&limited);
}
END_TEST

/* A client that sends its own X-Forwarded-For line before the one its
 * proxy appends: every line is read, from the right, so the audit, the
 * rate limit and the access log see the address the proxy added. Through
 * two trusted proxies (10.0.0.1 appended by the outer one, then the peer
 * 127.0.0.1) the rightmost untrusted hop is the client. */
START_TEST(test_client_address_over_every_line)
{
    struct server proxied = {0};
    const char *const env[] = {"GPUQUOTE_CLIENT_ADDRESS_HEADER=X-Forwarded-For",
                               "GPUQUOTE_TRUSTED_PROXIES=10.0.0.0/8, 127.0.0.1",
                               "GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND=1",
                               "GPUQUOTE_RATE_LIMIT_KEYLESS_BURST=2", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&proxied, &options);
    struct http_client *admin = http_client_new(proxied.port);
    const char *const headers[] = {JSON_TYPE, "X-Forwarded-For: 198.51.100.7",
                                   "X-Forwarded-For: 203.0.113.9, 10.0.0.1", NULL};
    struct http_response *made = http_request(admin, "POST", "/admin/keys", headers,
                                              "{\"name\":\"p\",\"scopes\":[\"quotes:read\"]}");
    expect_status(made, 201);
    http_response_free(made);
    struct http_response *audit = http_get(admin, "/admin/audit");
    expect_str(audit->json, "data[1].client", "203.0.113.9");
    http_response_free(audit);
    http_client_free(admin);
    /* A new claimed address each time: still one client's bucket. */
    struct http_client *keyless = http_client_keyless(proxied.port);
    long statuses[3];
    for (int i = 0; i < 3; i++) {
        char claimed[64];
        snprintf(claimed, sizeof claimed, "X-Forwarded-For: 198.51.100.%d", i + 1);
        const char *const spoofed[] = {claimed, "X-Forwarded-For: 203.0.113.9", NULL};
        struct http_response *response = http_request(keyless, "GET", "/catalog", spoofed, NULL);
        statuses[i] = response->status;
        http_response_free(response);
    }
    ck_assert_int_eq(statuses[0], 200);
    ck_assert_int_eq(statuses[1], 200);
    ck_assert_int_eq(statuses[2], 429);
    http_client_free(keyless);
    ck_assert(server_wait_for_text(&proxied, "stdout.log", "\"client\":\"203.0.113.9\"",
                                   suite_wait_ms(5)));
    char *log = server_read(&proxied, "stdout.log");
    ck_assert_ptr_null(strstr(log, "\"client\":\"198.51.100."));
    free(log);
    server_finish(&proxied);
}
END_TEST

/* The same with RFC 7239's Forwarded: two lines, the client's first. */
START_TEST(test_client_address_from_forwarded)
{
    struct server proxied = {0};
    const char *const env[] = {"GPUQUOTE_CLIENT_ADDRESS_HEADER=Forwarded",
                               "GPUQUOTE_TRUSTED_PROXIES=127.0.0.1", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&proxied, &options);
    struct http_client *admin = http_client_new(proxied.port);
    const char *const headers[] = {JSON_TYPE, "Forwarded: for=198.51.100.7",
                                   "Forwarded: for=\"[2001:db8:cafe::17]:4711\";proto=https", NULL};
    struct http_response *made = http_request(admin, "POST", "/admin/keys", headers,
                                              "{\"name\":\"f\",\"scopes\":[\"quotes:read\"]}");
    expect_status(made, 201);
    http_response_free(made);
    struct http_response *audit = http_get(admin, "/admin/audit");
    expect_str(audit->json, "data[1].client", "2001:db8:cafe::17");
    http_response_free(audit);
    http_client_free(admin);
    server_finish(&proxied);
}
END_TEST

START_TEST(test_bad_trusted_proxies_stop_start_up)
{
    struct server bad = {0};
    const char *const env[] = {"GPUQUOTE_TRUSTED_PROXIES=10.0.0.0/33", NULL};
    struct server_options options = {NULL, env, false};
    ck_assert_int_eq(server_run(&bad, &options), 2);
    char *err = server_read(&bad, "stderr.log");
    ck_assert_ptr_nonnull(strstr(err, "GPUQUOTE_TRUSTED_PROXIES: '10.0.0.0/33' is not an address"));
    free(err);
    server_cleanup(&bad);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_keys");
    TCase *policy = tcase_create("policy");
    tcase_add_checked_fixture(policy, start, finish);
    tcase_add_loop_test(policy, test_route_without_a_key, 0, ROUTES);
    tcase_add_loop_test(policy, test_route_with_a_key_that_is_no_key, 0, ROUTES);
    tcase_add_loop_test(policy, test_route_with_a_revoked_key, 0, ROUTES);
    tcase_add_loop_test(policy, test_route_with_a_key_lacking_its_scope, 0, ROUTES);
    tcase_add_test(policy, test_segment_claim_needs_customers_verify);
    tcase_add_test(policy, test_authorization_forms);
    suite_set_timeout(policy, 30);
    suite_add_tcase(suite, policy);

    TCase *keys = tcase_create("keys");
    tcase_add_checked_fixture(keys, start, finish);
    tcase_add_test(keys, test_key_life_and_its_audit);
    tcase_add_test(keys, test_key_body_refusals);
    tcase_add_test(keys, test_audit_pages_and_query);
    tcase_add_test(keys, test_last_use_is_recorded);
    tcase_add_test(keys, test_keys_reach_another_process);
    tcase_add_test(keys, test_keys_from_the_command_line);
    tcase_add_test(keys, test_keys_list_escapes_stored_names);
    tcase_add_test(keys, test_first_start_key_file);
    tcase_add_test(keys, test_keys_usage_before_the_database);
    tcase_add_test(keys, test_keys_create_takes_the_server_flags);
    suite_set_timeout(keys, 30);
    suite_add_tcase(suite, keys);

    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_rate_limits);
    tcase_add_test(limits, test_keyless_saves_are_limited_apart);
    tcase_add_test(limits, test_client_address_from_a_trusted_proxy_only);
    tcase_add_test(limits, test_every_answer_is_rate_limited);
    tcase_add_test(limits, test_client_address_over_every_line);
    tcase_add_test(limits, test_client_address_from_forwarded);
    tcase_add_test(limits, test_bad_trusted_proxies_stop_start_up);
    suite_set_timeout(limits, 30);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
