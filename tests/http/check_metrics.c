/*
 * GET /metrics through the real server, on SQLite and (the second pass)
 * PostgreSQL:
 *
 * - counters move by exactly the requests made: by the route's pattern
 *   (never the path as sent), method and status, a path no route has under
 *   "other"; quotes saved, replayed and accepted; group-commit batches;
 *   a busy store (SQLite) as one busy error;
 * - a route's duration histogram is cumulative, and its count and +Inf
 *   bucket are the requests made;
 * - access: 401 without a key, 403 with a key lacking metrics:read, 200
 *   with one; keyless on the metrics_listen address, which serves nothing
 *   else; never a CORS header; a bad metrics_listen stops start-up;
 * - a real Prometheus scrapes the metrics listener and answers a counter's
 *   value through its HTTP API, and `promtool check metrics` passes on the
 *   exposition with no complaint.
 */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/prometheus.h"
#include "support/server.h"
#include "support/suite.h"
#include "support/testdb.h"

#define JSON_TYPE "Content-Type: application/json"
#define EXPOSITION_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define INDIVIDUAL_QUOTE                                                                           \
    "{\"items\":[{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,"          \
    "\"days\":90}]}"

static struct server server;
static uint16_t metrics_port; /* the server's metrics_listen port */
static struct prometheus prometheus;

/* The port the server logged for its metrics listener ("127.0.0.1:0"). */
static uint16_t logged_metrics_port(struct server *target)
{
    static const char marker[] = "metrics listening on 127.0.0.1:0 port ";
    ck_assert_msg(server_wait_for_text(target, "stderr.log", marker, suite_wait_ms(10)),
                  "the server did not log its metrics port");
    char *log = server_read(target, "stderr.log");
    unsigned port = (unsigned)strtoul(strstr(log, marker) + sizeof marker - 1, NULL, 10);
    free(log);
    ck_assert_uint_gt(port, 0);
    return (uint16_t)port;
}

static void start(void)
{
    memset(&server, 0, sizeof server);
    memset(&prometheus, 0, sizeof prometheus);
    /* A short busy timeout: test_busy_store_is_counted waits it out. */
    const char *const env[] = {"GPUQUOTE_METRICS_LISTEN=127.0.0.1:0", "GPUQUOTE_CORS_ORIGINS=*",
                               "GPUQUOTE_DB_BUSY_TIMEOUT_MS=100", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    metrics_port = logged_metrics_port(&server);
}

static void finish(void)
{
    prometheus_stop(&prometheus); /* whatever the test did */
    server_finish(&server);
}

static double sample(const char *exposition, const char *series);

/* The exposition, read with the admin key (every scope), once every
 * request before it has been counted: a request is counted when it
 * completes, just after its client has the answer, so a scrape sent at
 * once may come first (seen under valgrind). Requests in flight, this
 * scrape among them, tell: 1 means none other is left. How many /metrics
 * requests it sent goes to scrape_requests. The caller frees it. */
static int scrape_requests;

static char *scrape(void)
{
    struct http_client *admin = http_client_new(server.port);
    char *body = NULL;
    for (int tries = 0; tries < 100; tries++) {
        free(body);
        struct http_response *answer = http_get(admin, "/metrics");
        expect_status(answer, 200);
        ck_assert_str_eq(http_header(answer, "Content-Type"), EXPOSITION_TYPE);
        body = strdup(answer->body);
        http_response_free(answer);
        scrape_requests = tries + 1;
        if (sample(body, "gpuquote_http_requests_in_flight") <= 1)
            break;
        suite_sleep_ms(20);
    }
    http_client_free(admin);
    return body;
}

/* The value of the sample `series` (name and labels exactly as printed);
 * 0 when it is absent (a request series appears once it has counted). */
static double sample(const char *exposition, const char *series)
{
    size_t length = strlen(series);
    for (const char *line = exposition; *line != '\0';) {
        if (strncmp(line, series, length) == 0 && line[length] == ' ')
            return strtod(line + length + 1, NULL);
        const char *next = strchr(line, '\n');
        if (next == NULL)
            break;
        line = next + 1;
    }
    return 0;
}

/* How much `series` moved between two expositions. */
static double moved(const char *before, const char *after, const char *series)
{
    return sample(after, series) - sample(before, series);
}

static void get_times(const char *path, int times, long status)
{
    struct http_client *client = http_client_keyless(server.port);
    for (int i = 0; i < times; i++) {
        struct http_response *answer = http_get(client, path);
        expect_status(answer, status);
        http_response_free(answer);
    }
    http_client_free(client);
}

START_TEST(test_requests_counted_by_route_method_and_status)
{
    char *before = scrape();
    get_times("/catalog", 3, 200);
    get_times("/catalog/v100-16g-x1", 2, 200);
    get_times("/no/such/path", 1, 404);
    struct http_client *client = http_client_keyless(server.port);
    struct http_response *refused = http_request(client, "DELETE", "/catalog", NULL, NULL);
    expect_status(refused, 405);
    http_response_free(refused);
    http_client_free(client);
    char *after = scrape();
    ck_assert_double_eq(
        moved(before, after,
              "gpuquote_http_requests_total{route=\"/catalog\",method=\"GET\",status=\"200\"}"),
        3);
    /* The pattern, never the SKU sent: a client cannot make series. */
    ck_assert_double_eq(moved(before, after,
                              "gpuquote_http_requests_total{route=\"/catalog/{id}\",method="
                              "\"GET\",status=\"200\"}"),
                        2);
    ck_assert_ptr_null(strstr(after, "v100-16g-x1"));
    ck_assert_double_eq(
        moved(before, after,
              "gpuquote_http_requests_total{route=\"other\",method=\"GET\",status=\"404\"}"),
        1);
    ck_assert_ptr_null(strstr(after, "/no/such/path"));
    ck_assert_double_eq(
        moved(before, after,
              "gpuquote_http_requests_total{route=\"/catalog\",method=\"DELETE\",status=\"405\"}"),
        1);
    /* The first scrape was counted once it ended, and so was each request of
     * the second but its last, which is in flight. */
    ck_assert_double_eq(
        moved(before, after,
              "gpuquote_http_requests_total{route=\"/metrics\",method=\"GET\",status=\"200\"}"),
        scrape_requests);
    ck_assert_double_ge(sample(after, "gpuquote_http_requests_in_flight"), 1);
    free(before);
    free(after);
}
END_TEST

/* The bucket values of `route`'s histogram, in order, into buckets[]; returns how many. */
static size_t read_buckets(const char *exposition, const char *route, double *buckets, size_t max)
{
    char prefix[160];
    snprintf(prefix, sizeof prefix,
             "gpuquote_http_request_duration_seconds_bucket{route=\"%s\",le=\"", route);
    size_t n = 0;
    for (const char *at = strstr(exposition, prefix); at != NULL && n < max;
         at = strstr(at + 1, prefix)) {
        const char *value = strstr(at, "} ");
        ck_assert_ptr_nonnull(value);
        buckets[n++] = strtod(value + 2, NULL);
    }
    return n;
}

START_TEST(test_histogram_is_cumulative_and_counts_the_requests)
{
    get_times("/catalog/billing-modes", 5, 200);
    char *after = scrape();
    double buckets[32];
    size_t n = read_buckets(after, "/catalog/billing-modes", buckets, 32);
    ck_assert_uint_eq(n, 17); /* 16 bounds from 50 µs to 5 s, and +Inf */
    for (size_t i = 1; i < n; i++)
        ck_assert_double_ge(buckets[i], buckets[i - 1]);
    ck_assert_double_eq(buckets[n - 1], 5);
    ck_assert_double_eq(
        sample(after,
               "gpuquote_http_request_duration_seconds_count{route=\"/catalog/billing-modes\"}"),
        5);
    double sum = sample(
        after, "gpuquote_http_request_duration_seconds_sum{route=\"/catalog/billing-modes\"}");
    ck_assert_double_gt(sum, 0);
    ck_assert_double_lt(sum, 5 * 10.0); /* each within the request timeout */
    ck_assert_ptr_nonnull(strstr(after, "{route=\"/catalog/billing-modes\",le=\"5e-05\"}"));
    free(after);
}
END_TEST

START_TEST(test_quote_events_and_batches)
{
    char *before = scrape();
    struct http_client *client = http_client_new(server.port);
    const char *const headers[] = {JSON_TYPE, "Idempotency-Key: metrics-test-1", NULL};
    struct http_response *saved = http_request(client, "POST", "/quote", headers, INDIVIDUAL_QUOTE);
    expect_status(saved, 201);
    char accept_path[96];
    snprintf(accept_path, sizeof accept_path, "/quote/%s/accept", json_str(saved->json, "id"));
    struct http_response *replayed =
        http_request(client, "POST", "/quote", headers, INDIVIDUAL_QUOTE);
    expect_status(replayed, 201);
    ck_assert_str_eq(http_header(replayed, "Idempotent-Replayed"), "true");
    struct http_response *accepted = http_request(client, "POST", accept_path, NULL, NULL);
    expect_status(accepted, 200);
    char *after = scrape();
    ck_assert_double_eq(moved(before, after, "gpuquote_quotes_saved_total"), 1);
    ck_assert_double_eq(moved(before, after, "gpuquote_quotes_replayed_total"), 1);
    ck_assert_double_eq(moved(before, after, "gpuquote_quotes_accepted_total"), 1);
    /* The save and its retry (which the transaction finds saved), one
     * after the other: two batches of one. */
    ck_assert_double_eq(moved(before, after, "gpuquote_quote_batch_size_count"), 2);
    ck_assert_double_eq(moved(before, after, "gpuquote_quote_batch_size_sum"), 2);
    ck_assert_double_eq(moved(before, after, "gpuquote_quote_batch_size_bucket{le=\"1\"}"), 2);
    ck_assert_double_eq(moved(before, after, "gpuquote_quote_batch_size_bucket{le=\"+Inf\"}"), 2);
    ck_assert_double_eq(
        moved(before, after,
              "gpuquote_http_requests_total{route=\"/quote/{id}/accept\",method=\"POST\","
              "status=\"200\"}"),
        1);
    ck_assert_double_ge(sample(after, "gpuquote_catalog_version"), 1);
    ck_assert_ptr_nonnull(strstr(after, "gpuquote_build_info{version=\"0.1.0\",backend=\""));
    ck_assert_double_gt(sample(after, "process_resident_memory_bytes"), 1e6);
    ck_assert_double_gt(sample(after, "process_start_time_seconds"), 1.7e9);
    ck_assert_double_gt(sample(after, "process_open_fds"), 3);
    ck_assert_double_eq(sample(after, "gpuquote_store_errors_total{kind=\"other\"}"), 0);
    http_response_free(saved);
    http_response_free(replayed);
    http_response_free(accepted);
    http_client_free(client);
    free(before);
    free(after);
}
END_TEST

/* SQLite: a save while another writer holds the lock is a busy store
 * error, counted once per failed transaction, and no other kind moves. */
START_TEST(test_busy_store_is_counted)
{
    char *before = scrape();
    sqlite3 *db = testdb_sqlite_hold(server.db_path);
    struct http_client *client = http_client_new(server.port);
    struct http_response *busy = http_post_json(client, "/quote", INDIVIDUAL_QUOTE);
    expect_error(busy, 503, "retry_later", NULL);
    testdb_sqlite_release(db);
    char *after = scrape();
    ck_assert_double_eq(moved(before, after, "gpuquote_store_errors_total{kind=\"busy\"}"), 1);
    ck_assert_double_eq(moved(before, after, "gpuquote_store_errors_total{kind=\"other\"}"), 0);
    ck_assert_double_eq(moved(before, after, "gpuquote_store_errors_total{kind=\"storage\"}"), 0);
    ck_assert_double_eq(moved(before, after, "gpuquote_quotes_saved_total"), 0);
    ck_assert_double_eq(
        moved(before, after,
              "gpuquote_http_requests_total{route=\"/quote\",method=\"POST\",status=\"503\"}"),
        1);
    http_response_free(busy);
    http_client_free(client);
    free(before);
    free(after);
}
END_TEST

/* A key of its own with `scopes_json`, made with the admin key; its secret into `secret`. */
static void make_key(const char *scopes_json, char secret[64])
{
    struct http_client *admin = http_client_new(server.port);
    char body[160];
    snprintf(body, sizeof body, "{\"name\":\"metrics test\",\"scopes\":%s}", scopes_json);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *made = http_request(admin, "POST", "/admin/keys", headers, body);
    expect_status(made, 201);
    snprintf(secret, 64, "%s", json_str(made->json, "secret"));
    http_response_free(made);
    http_client_free(admin);
}

static struct http_response *get_with_key(uint16_t port, const char *key, const char *path)
{
    struct http_client *client = http_client_keyless(port);
    http_client_set_key(client, key);
    const char *const headers[] = {"Origin: https://shop.example", NULL};
    struct http_response *answer = http_request(client, "GET", path, headers, NULL);
    http_client_free(client);
    return answer;
}

START_TEST(test_access_needs_metrics_read)
{
    struct http_response *keyless = get_with_key(server.port, NULL, "/metrics");
    expect_error(keyless, 401, "unauthenticated", "Authorization");
    ck_assert_ptr_nonnull(strstr(json_str(keyless->json, "error.message"), "metrics:read"));
    ck_assert_ptr_null(http_header(keyless, "Access-Control-Allow-Origin"));
    char reader[64], scraper[64];
    make_key("[\"quotes:read\"]", reader);
    make_key("[\"metrics:read\"]", scraper);
    struct http_response *lacking = get_with_key(server.port, reader, "/metrics");
    expect_error(lacking, 403, "forbidden", "Authorization");
    ck_assert_ptr_nonnull(strstr(json_str(lacking->json, "error.message"), "metrics:read"));
    struct http_response *allowed = get_with_key(server.port, scraper, "/metrics");
    expect_status(allowed, 200);
    ck_assert_str_eq(http_header(allowed, "Content-Type"), EXPOSITION_TYPE);
    ck_assert_ptr_nonnull(strstr(allowed->body, "# TYPE gpuquote_http_requests_total counter\n"));
    /* CORS is configured ("*") and the Origin sent: still none on /metrics. */
    ck_assert_ptr_null(http_header(allowed, "Access-Control-Allow-Origin"));
    struct http_response *catalog = get_with_key(server.port, NULL, "/catalog");
    ck_assert_str_eq(http_header(catalog, "Access-Control-Allow-Origin"), "https://shop.example");
    http_response_free(keyless);
    http_response_free(lacking);
    http_response_free(allowed);
    http_response_free(catalog);
}
END_TEST

START_TEST(test_metrics_listener_is_keyless_and_serves_metrics_alone)
{
    struct http_response *scraped = get_with_key(metrics_port, NULL, "/metrics");
    expect_status(scraped, 200);
    ck_assert_str_eq(http_header(scraped, "Content-Type"), EXPOSITION_TYPE);
    ck_assert_ptr_null(http_header(scraped, "Access-Control-Allow-Origin"));
    ck_assert_ptr_nonnull(strstr(scraped->body, "gpuquote_catalog_version "));
    /* The API is not there, with a key or without (the answer is the
     * listener's, outside the API's contract: not logged for it). */
    struct http_client *client = http_client_new(metrics_port);
    http_client_unlogged(client);
    struct http_response *catalog = http_get(client, "/catalog");
    expect_status(catalog, 404);
    struct http_response *keys = http_get(client, "/admin/keys");
    expect_status(keys, 404);
    /* Its scrapes are counted with the others, under /metrics. */
    char *after = scrape();
    ck_assert_double_ge(
        sample(after,
               "gpuquote_http_requests_total{route=\"/metrics\",method=\"GET\",status=\"200\"}"),
        1);
    free(after);
    http_response_free(scraped);
    http_response_free(catalog);
    http_response_free(keys);
    http_client_free(client);
}
END_TEST

START_TEST(test_promtool_check_metrics_passes)
{
    get_times("/catalog", 1, 200);
    get_times("/nope", 1, 404);
    char *exposition = scrape();
    char *output = NULL;
    int status = promtool_check_metrics(exposition, &output);
    ck_assert_msg(status == 0 && output[0] == '\0', "promtool check metrics: exit %d: %s", status,
                  output);
    free(output);
    free(exposition);
}
END_TEST

START_TEST(test_prometheus_scrapes_a_counter)
{
    get_times("/catalog/bundles", 3, 200);
    prometheus_start(&prometheus, metrics_port);
    const char *query =
        "gpuquote_http_requests_total{job=\"gpuquote\",route=\"/catalog/bundles\",method=\"GET\","
        "status=\"200\"}";
    double value = prometheus_query_until(&prometheus, query, 3, suite_wait_ms(30));
    ck_assert_msg(value == 3, "Prometheus answered %g for %s", value, query);
    ck_assert_double_eq(
        prometheus_query_until(&prometheus, "up{job=\"gpuquote\"}", 1, suite_wait_ms(5)), 1);
    /* Two more, seen at a later scrape. */
    get_times("/catalog/bundles", 2, 200);
    ck_assert_double_eq(prometheus_query_until(&prometheus, query, 5, suite_wait_ms(15)), 5);
    prometheus_stop(&prometheus);
}
END_TEST

START_TEST(test_bad_metrics_listen_stops_start_up)
{
    struct server bad = {0};
    const char *const env[] = {"GPUQUOTE_METRICS_LISTEN=localhost:9464", NULL};
    struct server_options options = {NULL, env, false};
    ck_assert_int_eq(server_run(&bad, &options), 2);
    char *err = server_read(&bad, "stderr.log");
    ck_assert_ptr_nonnull(
        strstr(err, "GPUQUOTE_METRICS_LISTEN: 'localhost:9464' is not a numeric ADDRESS:PORT"));
    free(err);
    server_cleanup(&bad);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_metrics");
    TCase *counters = tcase_create("counters");
    tcase_add_checked_fixture(counters, start, finish);
    tcase_add_test(counters, test_requests_counted_by_route_method_and_status);
    tcase_add_test(counters, test_histogram_is_cumulative_and_counts_the_requests);
    tcase_add_test(counters, test_quote_events_and_batches);
    suite_add_sqlite_test(counters, test_busy_store_is_counted);
    suite_set_timeout(counters, 30);
    suite_add_tcase(suite, counters);

    TCase *access = tcase_create("access");
    tcase_add_checked_fixture(access, start, finish);
    tcase_add_test(access, test_access_needs_metrics_read);
    tcase_add_test(access, test_metrics_listener_is_keyless_and_serves_metrics_alone);
    tcase_add_test(access, test_bad_metrics_listen_stops_start_up);
    suite_set_timeout(access, 30);
    suite_add_tcase(suite, access);

    TCase *prometheus_case = tcase_create("prometheus");
    tcase_add_checked_fixture(prometheus_case, start, finish);
    tcase_add_test(prometheus_case, test_promtool_check_metrics_passes);
    tcase_add_test(prometheus_case, test_prometheus_scrapes_a_counter);
    suite_set_timeout(prometheus_case, 90);
    suite_add_tcase(suite, prometheus_case);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
