/*
 * Events (the outbox) and webhook endpoints through the real server, on
 * SQLite and (the second pass) PostgreSQL:
 *
 * - a saved quote writes one quote.created, with the quote as POST /quote
 *   returned it; an accept writes one quote.accepted, with the quote as
 *   the accept returned it; a replayed idempotent save writes none; a quote
 *   not saved writes none;
 * - GET /events pages oldest first (starting_after, limit), filters by
 *   type, and refuses a bad parameter (400) changing nothing; GET
 *   /events/{id} returns the same event, 404 for an unknown one;
 * - webhook endpoints: created with a secret shown once (whsec_ and 32
 *   bytes of base64), listed and fetched without it, patched, deleted,
 *   each with its audit line without the secret; refused URLs (http, a
 *   private or loopback address, credentials) and bodies (422) write
 *   nothing; an event written while an endpoint takes its type makes one
 *   pending delivery for it, which the deliveries list shows and retry
 *   makes due again.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/suite.h"
#include "support/testdb.h"

#define JSON_TYPE "Content-Type: application/json"
#define SAVED_QUOTE                                                                                \
    "{\"items\":[{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,"          \
    "\"days\":30}]}"
#define UNSAVED_QUOTE                                                                              \
    "{\"items\":[{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,"          \
    "\"days\":30}],\"save\":false}"

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

static long long count_of(const char *sql)
{
    return server_db_integer(&server, sql, NULL);
}

/* The strings of the array at `key`, joined by commas. */
static const char *strings_of(json_t *root, const char *key)
{
    static char joined[512];
    joined[0] = '\0';
    json_t *array = json_object_get(root, key);
    for (size_t i = 0; i < json_array_size(array); i++)
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", i ? "," : "",
                 json_string_value(json_array_get(array, i)));
    return joined;
}

static struct http_response *request(const char *method, const char *path, const char *body,
                                     const char *extra_header)
{
    struct http_client *client = http_client_new(server.port);
    const char *const headers[] = {JSON_TYPE, extra_header, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

/* Saves a quote; its id into `id` (40 bytes) and its body as returned. */
static json_t *save_quote(char *id, const char *idempotency_header)
{
    struct http_response *saved = request("POST", "/quote", SAVED_QUOTE, idempotency_header);
    ck_assert_msg(saved->status == 201 || saved->status == 200, "%s", http_describe(saved));
    snprintf(id, 40, "%s", json_str(saved->json, "id"));
    json_t *body = json_incref(saved->json);
    http_response_free(saved);
    return body;
}

/* The events of `type` (NULL: all), as one page of up to 100. */
static struct http_response *events_of(const char *type)
{
    char path[128];
    if (type != NULL)
        snprintf(path, sizeof path, "/events?limit=100&type=%s", type);
    else
        snprintf(path, sizeof path, "/events?limit=100");
    struct http_response *response = request("GET", path, NULL, NULL);
    expect_status(response, 200);
    return response;
}

START_TEST(test_saved_and_accepted_quotes_write_their_events)
{
    char id[40];
    json_t *quote = save_quote(id, NULL);
    struct http_response *created = events_of("quote.created");
    ck_assert_int_eq(json_count(created->json, "data"), 1);
    json_t *event = json_array_get(json_object_get(created->json, "data"), 0);
    ck_assert_str_eq(json_keys(event, ""), "id,object,type,created_at,data");
    ck_assert_str_eq(json_str(event, "object"), "event");
    ck_assert_str_eq(json_str(event, "type"), "quote.created");
    ck_assert_int_eq(strncmp(json_str(event, "id"), "evt_", 4), 0);
    /* The object is the quote exactly as POST /quote returned it. */
    ck_assert(json_equal(json_object_get(json_object_get(event, "data"), "object"), quote));
    char created_id[40];
    snprintf(created_id, sizeof created_id, "%s", json_str(event, "id"));

    char path[96];
    snprintf(path, sizeof path, "/quote/%s/accept", id);
    struct http_response *accepted = request("POST", path, NULL, NULL);
    expect_status(accepted, 200);
    struct http_response *accepts = events_of("quote.accepted");
    ck_assert_int_eq(json_count(accepts->json, "data"), 1);
    json_t *accept_event = json_array_get(json_object_get(accepts->json, "data"), 0);
    json_t *object = json_object_get(json_object_get(accept_event, "data"), "object");
    expect_str(object, "status", "accepted");
    ck_assert(json_equal(object, accepted->json));
    /* Ordered: the accept's after the creation's. */
    ck_assert_int_gt(strcmp(json_str(accept_event, "id"), created_id), 0);

    /* A second accept (409) writes nothing. */
    struct http_response *again = request("POST", path, NULL, NULL);
    expect_status(again, 409);
    ck_assert_int_eq(count_of("SELECT count(*) FROM events"), 2);

    snprintf(path, sizeof path, "/events/%s", created_id);
    struct http_response *one = request("GET", path, NULL, NULL);
    expect_status(one, 200);
    ck_assert(json_equal(one->json, event));
    json_decref(quote);
    http_response_free(one);
    http_response_free(again);
    http_response_free(accepts);
    http_response_free(accepted);
    http_response_free(created);
}
END_TEST

START_TEST(test_replays_and_unsaved_quotes_write_no_event)
{
    char first[40], second[40];
    json_decref(save_quote(first, "Idempotency-Key: order-17"));
    json_decref(save_quote(second, "Idempotency-Key: order-17"));
    ck_assert_str_eq(first, second);
    struct http_response *unsaved = request("POST", "/quote", UNSAVED_QUOTE, NULL);
    expect_status(unsaved, 200);
    ck_assert_int_eq(count_of("SELECT count(*) FROM events"), 1);
    ck_assert_int_eq(count_of("SELECT count(*) FROM quotes"), 1);
    http_response_free(unsaved);
}
END_TEST

START_TEST(test_events_page_oldest_first)
{
    char ids[5][40];
    for (int i = 0; i < 5; i++)
        json_decref(save_quote(ids[i], NULL));
    char path[128], after[48] = "";
    int seen = 0;
    for (int page = 0; page < 3; page++) {
        if (after[0] != '\0')
            snprintf(path, sizeof path, "/events?limit=2&starting_after=%s", after);
        else
            snprintf(path, sizeof path, "/events?limit=2");
        struct http_response *response = request("GET", path, NULL, NULL);
        expect_status(response, 200);
        json_t *data = json_object_get(response->json, "data");
        for (size_t i = 0; i < json_array_size(data); i++) {
            json_t *event = json_array_get(data, i);
            ck_assert_str_eq(json_str(event, "data.object.id"), ids[seen]);
            snprintf(after, sizeof after, "%s", json_str(event, "id"));
            seen++;
        }
        ck_assert(json_is_true(json_object_get(response->json, "has_more")) == (page < 2));
        http_response_free(response);
    }
    ck_assert_int_eq(seen, 5);
}
END_TEST

/* An empty cursor, as a form or a template leaves it, is the first page. */
START_TEST(test_events_empty_cursor_is_the_start)
{
    char ids[3][40];
    for (int i = 0; i < 3; i++)
        json_decref(save_quote(ids[i], NULL));
    struct http_response *response = request("GET", "/events?limit=2&starting_after=", NULL, NULL);
    expect_status(response, 200);
    ck_assert_int_eq(json_count(response->json, "data"), 2);
    ck_assert_str_eq(json_str(response->json, "data[0].data.object.id"), ids[0]);
    ck_assert_str_eq(json_str(response->json, "data[1].data.object.id"), ids[1]);
    ck_assert(json_is_true(json_object_get(response->json, "has_more")));
    http_response_free(response);
}
END_TEST

START_TEST(test_events_query_refusals)
{
    static const char *const paths[] = {
        "/events?limit=0",          "/events?limit=101",  "/events?starting_after=q_1",
        "/events?type=quote.eaten", "/events?colour=red", "/events?limit=1&limit=2",
    };
    static const char *const fields[] = {"limit", "limit",  "starting_after",
                                         "type",  "colour", "limit"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct http_response *response = request("GET", paths[i], NULL, NULL);
        expect_error(response, 400, "invalid_parameter", fields[i]);
        http_response_free(response);
    }
    struct http_response *unknown =
        request("GET", "/events/evt_0123456789abcdef0123456789abcdef", NULL, NULL);
    expect_error(unknown, 404, "not_found", NULL);
    struct http_response *malformed = request("GET", "/events/nope", NULL, NULL);
    expect_error(malformed, 404, "not_found", NULL);
    http_response_free(unknown);
    http_response_free(malformed);
}
END_TEST

/* ---- Webhook endpoints. ---- */

static struct server open_server;

static void start_open(void)
{
    memset(&open_server, 0, sizeof open_server);
    static const char *const env[] = {"GPUQUOTE_WEBHOOKS_ALLOW_HTTP=true",
                                      "GPUQUOTE_WEBHOOKS_ALLOW_PRIVATE=true", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&open_server, &options);
    server = open_server;
}

static void finish_open(void)
{
    server_finish(&open_server);
}

START_TEST(test_endpoint_life_and_its_audit)
{
    /* A URL no test reaches: deliveries stay pending. */
    struct http_response *made =
        request("POST", "/admin/webhook-endpoints",
                "{\"url\":\"https://orders.example.com/hooks\",\"events\":[\"quote.accepted\","
                "\"quote.created\",\"quote.accepted\"],\"description\":\"orders\"}",
                NULL);
    expect_status(made, 201);
    const char *secret = json_str(made->json, "secret");
    ck_assert_int_eq(strncmp(secret, "whsec_", 6), 0);
    ck_assert_uint_eq(strlen(secret), 6 + 44); /* 32 bytes of base64 */
    ck_assert_str_eq(strings_of(made->json, "events"), "quote.accepted,quote.created");
    ck_assert(json_is_true(json_object_get(made->json, "enabled")));
    char id[40], path[160], secret_copy[64];
    snprintf(id, sizeof id, "%s", json_str(made->json, "id"));
    snprintf(secret_copy, sizeof secret_copy, "%s", secret);
    snprintf(path, sizeof path, "/admin/webhook-endpoints/%s", id);
    ck_assert_str_eq(http_header(made, "location"), path);

    struct http_response *got = request("GET", path, NULL, NULL);
    expect_status(got, 200);
    expect_absent(got->json, "secret");
    expect_str(got->json, "url", "https://orders.example.com/hooks");
    struct http_response *list = request("GET", "/admin/webhook-endpoints", NULL, NULL);
    expect_status(list, 200);
    ck_assert_int_eq(json_count(list->json, "data"), 1);
    ck_assert_ptr_null(strstr(list->body, secret_copy));

    /* A saved quote makes one pending delivery for it. */
    char quote_id[40];
    json_decref(save_quote(quote_id, NULL));
    char deliveries_path[200];
    snprintf(deliveries_path, sizeof deliveries_path, "%s/deliveries", path);
    struct http_response *deliveries = request("GET", deliveries_path, NULL, NULL);
    expect_status(deliveries, 200);
    ck_assert_int_eq(json_count(deliveries->json, "data"), 1);
    json_t *delivery = json_array_get(json_object_get(deliveries->json, "data"), 0);
    expect_str(delivery, "status", "pending");
    ck_assert_int_eq(strncmp(json_str(delivery, "event"), "evt_", 4), 0);
    char retry_path[260];
    snprintf(retry_path, sizeof retry_path, "%s/%s/retry", deliveries_path,
             json_str(delivery, "id"));
    struct http_response *retried = request("POST", retry_path, NULL, NULL);
    expect_status(retried, 202);
    snprintf(retry_path, sizeof retry_path, "%s/whd_0123456789abcdef0123456789abcdef/retry",
             deliveries_path);
    struct http_response *no_delivery = request("POST", retry_path, NULL, NULL);
    expect_error(no_delivery, 404, "not_found", NULL);

    /* Disabled: events made then get no delivery. */
    struct http_response *patched = request("PATCH", path, "{\"enabled\":false}", NULL);
    expect_status(patched, 200);
    ck_assert(json_is_false(json_object_get(patched->json, "enabled")));
    ck_assert_str_eq(strings_of(patched->json, "events"), "quote.accepted,quote.created");
    json_decref(save_quote(quote_id, NULL));
    ck_assert_int_eq(count_of("SELECT count(*) FROM webhook_deliveries"), 1);
    struct http_response *repatched =
        request("PATCH", path, "{\"enabled\":true,\"events\":[\"*\"]}", NULL);
    expect_status(repatched, 200);
    ck_assert_str_eq(strings_of(repatched->json, "events"), "*");

    struct http_response *deleted = request("DELETE", path, NULL, NULL);
    expect_status(deleted, 200);
    struct http_response *gone = request("GET", path, NULL, NULL);
    expect_error(gone, 404, "not_found", NULL);
    ck_assert_int_eq(count_of("SELECT count(*) FROM webhook_deliveries"), 0);

    /* Each change has its audit line, none with the secret. */
    struct http_response *audit = request("GET", "/admin/audit?limit=100", NULL, NULL);
    expect_status(audit, 200);
    expect_join(audit->json, "data", "action",
                "key.create,webhook_endpoint.create,webhook_delivery.retry,webhook_endpoint.update,"
                "webhook_endpoint.update,webhook_endpoint.delete");
    ck_assert_ptr_null(strstr(audit->body, secret_copy));
    ck_assert_ptr_null(strstr(audit->body, "whsec_"));
    char *log = server_read(&server, "stderr.log");
    ck_assert_ptr_null(strstr(log, secret_copy));
    free(log);
    http_response_free(audit);
    http_response_free(gone);
    http_response_free(deleted);
    http_response_free(repatched);
    http_response_free(patched);
    http_response_free(no_delivery);
    http_response_free(retried);
    http_response_free(deliveries);
    http_response_free(list);
    http_response_free(got);
    http_response_free(made);
}
END_TEST

struct refusal {
    const char *body;
    int status;
    const char *code, *field;
};

#define URL_REFUSAL(url)                                                                           \
    {                                                                                              \
        "{\"url\":\"" url "\",\"events\":[\"*\"]}", 422, "invalid_value", "url"                    \
    }

static const struct refusal endpoint_refusals[] = {
    {"{\"url\":\"http://orders.example.com/\",\"events\":[\"*\"]}", 422, "invalid_value", "url"},
    {"{\"url\":\"https://127.0.0.1/\",\"events\":[\"*\"]}", 422, "invalid_value", "url"},
    {"{\"url\":\"https://10.1.2.3:8443/\",\"events\":[\"*\"]}", 422, "invalid_value", "url"},
    {"{\"url\":\"https://[::1]/\",\"events\":[\"*\"]}", 422, "invalid_value", "url"},
    {"{\"url\":\"https://169.254.169.254/latest\",\"events\":[\"*\"]}", 422, "invalid_value",
     "url"},
    {"{\"url\":\"https://localhost/\",\"events\":[\"*\"]}", 422, "invalid_value", "url"},
    /* Not globally reachable (IANA special-purpose registries), embedded forms too. */
    URL_REFUSAL("https://[::7f00:1]"),
    URL_REFUSAL("https://[::a9fe:a9fe]"),
    URL_REFUSAL("https://[64:ff9b::7f00:1]"),
    URL_REFUSAL("https://[2002:7f00:1::]"),
    URL_REFUSAL("https://192.0.0.1"),
    URL_REFUSAL("https://198.18.0.1"),
    URL_REFUSAL("https://203.0.113.5"),
    URL_REFUSAL("https://192.0.2.10:8443/hook"),
    URL_REFUSAL("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]"),
    URL_REFUSAL("https://[::ffff:10.0.0.1]"),
    {"{\"url\":\"https://user:pw@orders.example.com/\",\"events\":[\"*\"]}", 422, "invalid_value",
     "url"},
    {"{\"url\":\"ftp://orders.example.com/\",\"events\":[\"*\"]}", 422, "invalid_value", "url"},
    {"{\"url\":\"https://orders.example.com/\",\"events\":[]}", 422, "invalid_value", "events"},
    {"{\"url\":\"https://orders.example.com/\",\"events\":[\"quote.eaten\"]}", 422, "invalid_value",
     "events[0]"},
    {"{\"url\":\"https://orders.example.com/\"}", 422, "missing_field", "events"},
    {"{\"events\":[\"*\"]}", 422, "missing_field", "url"},
    {"{\"url\":\"https://orders.example.com/\",\"events\":[\"*\"],\"colour\":1}", 422,
     "unknown_field", "colour"},
};

START_TEST(test_endpoint_refusals_write_nothing)
{
    const struct refusal *refusal = &endpoint_refusals[_i];
    long long audit_lines = count_of("SELECT count(*) FROM audit_log");
    struct http_response *response =
        request("POST", "/admin/webhook-endpoints", refusal->body, NULL);
    expect_error(response, refusal->status, refusal->code, refusal->field);
    ck_assert_int_eq(count_of("SELECT count(*) FROM webhook_endpoints"), 0);
    ck_assert_int_eq(count_of("SELECT count(*) FROM audit_log"), audit_lines);
    http_response_free(response);
}
END_TEST

START_TEST(test_http_and_loopback_where_allowed)
{
    struct http_response *made =
        request("POST", "/admin/webhook-endpoints",
                "{\"url\":\"http://127.0.0.1:9/hook\",\"events\":[\"quote.created\"]}", NULL);
    expect_status(made, 201);
    http_response_free(made);
    struct http_response *patch_bad =
        request("PATCH", "/admin/webhook-endpoints/we_0123456789abcdef0123456789abcdef",
                "{\"enabled\":false}", NULL);
    expect_error(patch_bad, 404, "not_found", NULL);
    http_response_free(patch_bad);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_events");
    TCase *events = tcase_create("events");
    tcase_add_checked_fixture(events, start, finish);
    tcase_add_test(events, test_saved_and_accepted_quotes_write_their_events);
    tcase_add_test(events, test_replays_and_unsaved_quotes_write_no_event);
    tcase_add_test(events, test_events_page_oldest_first);
    tcase_add_test(events, test_events_empty_cursor_is_the_start);
    tcase_add_test(events, test_events_query_refusals);
    suite_set_timeout(events, 30);
    suite_add_tcase(suite, events);

    TCase *endpoints = tcase_create("endpoints");
    tcase_add_checked_fixture(endpoints, start, finish);
    tcase_add_test(endpoints, test_endpoint_life_and_its_audit);
    tcase_add_loop_test(endpoints, test_endpoint_refusals_write_nothing, 0,
                        sizeof endpoint_refusals / sizeof endpoint_refusals[0]);
    suite_set_timeout(endpoints, 30);
    suite_add_tcase(suite, endpoints);

    TCase *allowed = tcase_create("allowed");
    tcase_add_checked_fixture(allowed, start_open, finish_open);
    tcase_add_test(allowed, test_http_and_loopback_where_allowed);
    suite_set_timeout(allowed, 30);
    suite_add_tcase(suite, allowed);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
