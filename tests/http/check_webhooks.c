/*
 * Webhook delivery through the real server and a receiver of the tests'
 * own (support/receiver.h, which checks each signature with OpenSSL), on
 * SQLite and (the second pass) PostgreSQL. The retry schedule is made fast
 * by configuration (webhook_retry_divisor 1000: 5 ms, 300 ms, 1.8 s, ...),
 * not by skipping code.
 *
 * - each event (quote.created, quote.accepted) arrives once with a valid
 *   signature and webhook-id its event's id; the delivery latency (event
 *   written, i.e. its request answered, to received) is printed as p50/p99;
 * - an endpoint answering 500 is retried on the schedule with the same id,
 *   then succeeds once it answers 200; the deliveries list says so;
 * - a hanging endpoint does not delay quotes;
 * - kill -9 of the server while a delivery is in flight: it is delivered
 *   after the restart, once its lease (2 x webhook_timeout_ms) has run out;
 * - two replicas on one database, both sending: each event arrives once
 *   (the duplicates are counted and printed, and must be none);
 * - a proxy named by the server's environment is not used;
 * - secrets are sealed at rest and survive a key rotation; a wrong key
 *   stops the start.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/receiver.h"
#include "support/server.h"
#include "support/suite.h"
#include "support/testdb.h"

#define JSON_TYPE "Content-Type: application/json"
#define SAVED_QUOTE                                                                                \
    "{\"items\":[{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,"          \
    "\"days\":30}]}"

static struct server server;
static struct receiver *receiver;

static const char *const server_env[] = {
    "GPUQUOTE_WEBHOOKS_ALLOW_HTTP=true",   "GPUQUOTE_WEBHOOKS_ALLOW_PRIVATE=true",
    "GPUQUOTE_WEBHOOK_RETRY_DIVISOR=1000", "GPUQUOTE_WEBHOOK_POLL_MS=50",
    "GPUQUOTE_WEBHOOK_TIMEOUT_MS=1000",    NULL};

static void start(void)
{
    memset(&server, 0, sizeof server);
    struct server_options options = {NULL, server_env, false};
    server_start(&server, &options);
    receiver = receiver_start();
    ck_assert_ptr_nonnull(receiver);
}

static void finish(void)
{
    receiver_stop(receiver);
    receiver = NULL;
    server_finish(&server);
}

static int64_t now_ms(void)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    return (int64_t)now.tv_sec * 1000 + now.tv_usec / 1000;
}

static struct http_response *request(const char *method, const char *path, const char *body)
{
    struct http_client *client = http_client_new(server.port);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

static char last_secret[80]; /* the secret of the endpoint add_endpoint() made */

/* An endpoint of every event type at the receiver; its id into `id`. */
static void add_endpoint(char *id)
{
    char body[256];
    snprintf(body, sizeof body, "{\"url\":\"http://127.0.0.1:%u/hook\",\"events\":[\"*\"]}",
             (unsigned)receiver_port(receiver));
    struct http_response *made = request("POST", "/admin/webhook-endpoints", body);
    expect_status(made, 201);
    receiver_set_secret(receiver, json_str(made->json, "secret"));
    snprintf(last_secret, sizeof last_secret, "%s", json_str(made->json, "secret"));
    snprintf(id, 40, "%s", json_str(made->json, "id"));
    http_response_free(made);
}

/* Saves a quote; its id into `id`; returns when the answer came (ms). */
static int64_t save_quote(char *id)
{
    struct http_response *saved = request("POST", "/quote", SAVED_QUOTE);
    int64_t at = now_ms();
    expect_status(saved, 201);
    snprintf(id, 40, "%s", json_str(saved->json, "id"));
    http_response_free(saved);
    return at;
}

static int compare_ms(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

#define QUOTES 40

START_TEST(test_each_event_delivered_once_signed)
{
    char endpoint[40];
    add_endpoint(endpoint);
    static char ids[QUOTES][40];
    static int64_t written[QUOTES * 2];
    for (int i = 0; i < QUOTES; i++)
        written[i] = save_quote(ids[i]);
    for (int i = 0; i < QUOTES / 4; i++) {
        char path[2048];
        snprintf(path, sizeof path, "/quote/%s/accept", ids[i]);
        struct http_response *accepted = request("POST", path, NULL);
        written[QUOTES + i] = now_ms();
        expect_status(accepted, 200);
        http_response_free(accepted);
    }
    size_t events = QUOTES + QUOTES / 4;
    ck_assert_msg(receiver_wait(receiver, events, suite_wait_ms(15)), "%zu of %zu arrived",
                  receiver_count(receiver), events);
    sleep(1); /* nothing more comes */
    ck_assert_uint_eq(receiver_count(receiver), events);
    static int64_t latency[QUOTES * 2];
    size_t n_latency = 0, duplicates = 0;
    for (size_t i = 0; i < events; i++) {
        struct received got = receiver_get(receiver, i);
        ck_assert_msg(got.valid, "delivery %zu (%s) has a bad signature", i, got.id);
        ck_assert_int_eq(strncmp(got.id, "evt_", 4), 0);
        for (size_t j = 0; j < i; j++)
            duplicates += strcmp(receiver_get(receiver, j).id, got.id) == 0;
        for (int q = 0; q < QUOTES; q++) {
            if (strcmp(got.object_id, ids[q]) != 0)
                continue;
            bool accepted = strcmp(got.type, "quote.accepted") == 0;
            ck_assert(accepted || strcmp(got.type, "quote.created") == 0);
            int64_t since = got.at_ms - written[accepted ? QUOTES + q : q];
            latency[n_latency++] = since > 0 ? since : 0;
        }
    }
    ck_assert_uint_eq(duplicates, 0);
    ck_assert_uint_eq(n_latency, events);
    qsort(latency, n_latency, sizeof latency[0], compare_ms);
    printf("webhooks (%s): %zu events, delivery latency p50 %lld ms, p99 %lld ms\n",
           testdb_backend(), n_latency, (long long)latency[n_latency / 2],
           (long long)latency[(n_latency * 99) / 100]);
}
END_TEST

/* The other types, each once and signed: a cancel, an expiry (the
 * sweeper, every 100 ms here), a published price list. */
START_TEST(test_every_other_event_type_delivered_once)
{
    finish();
    static const char *const env[] = {"GPUQUOTE_WEBHOOKS_ALLOW_HTTP=true",
                                      "GPUQUOTE_WEBHOOKS_ALLOW_PRIVATE=true",
                                      "GPUQUOTE_WEBHOOK_RETRY_DIVISOR=1000",
                                      "GPUQUOTE_WEBHOOK_POLL_MS=50",
                                      "GPUQUOTE_WEBHOOK_TIMEOUT_MS=1000",
                                      "GPUQUOTE_QUOTE_SWEEP_INTERVAL_MS=100",
                                      NULL};
    memset(&server, 0, sizeof server);
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    receiver = receiver_start();
    ck_assert_ptr_nonnull(receiver);
    char endpoint[40], canceled[40], expired[40], path[128];
    add_endpoint(endpoint);
    save_quote(canceled);
    save_quote(expired);
    snprintf(path, sizeof path, "/quote/%s/cancel", canceled);
    struct http_response *cancel = request("POST", path, "{\"reason\":\"test\"}");
    expect_status(cancel, 200);
    http_response_free(cancel);
    ck_assert_int_eq(
        server_db_exec(&server, "UPDATE quotes SET expires_at = created_at WHERE id = ?1", expired),
        1);
    struct http_response *draft = request("POST", "/admin/price-lists", NULL);
    expect_status(draft, 201);
    snprintf(path, sizeof path, "/admin/price-lists/%lld/publish",
             (long long)json_integer_value(json_at(draft->json, "version")));
    http_response_free(draft);
    struct http_response *published = request("POST", path, "{}");
    expect_status(published, 200);
    http_response_free(published);
    /* 2 quote.created, then the three. */
    ck_assert_msg(receiver_wait(receiver, 5, suite_wait_ms(10)), "%zu of 5 arrived",
                  receiver_count(receiver));
    sleep(1);
    ck_assert_uint_eq(receiver_count(receiver), 5);
    int canceled_seen = 0, expired_seen = 0, published_seen = 0;
    for (size_t i = 0; i < 5; i++) {
        struct received got = receiver_get(receiver, i);
        ck_assert_msg(got.valid, "%s has a bad signature", got.type);
        canceled_seen +=
            strcmp(got.type, "quote.canceled") == 0 && strcmp(got.object_id, canceled) == 0;
        expired_seen +=
            strcmp(got.type, "quote.expired") == 0 && strcmp(got.object_id, expired) == 0;
        published_seen += strcmp(got.type, "price_list.published") == 0;
    }
    ck_assert_int_eq(canceled_seen, 1);
    ck_assert_int_eq(expired_seen, 1);
    ck_assert_int_eq(published_seen, 1);
}
END_TEST

START_TEST(test_retries_on_500_with_the_schedule_and_one_id)
{
    char endpoint[40], quote[40];
    add_endpoint(endpoint);
    receiver_set_mode(receiver, RECEIVER_FAIL);
    save_quote(quote);
    /* The first try, then after 5 ms and 300 ms (the schedule / 1000). */
    ck_assert(receiver_wait(receiver, 3, suite_wait_ms(5)));
    receiver_set_mode(receiver, RECEIVER_OK);
    /* The next after 1.8 s: answered 200. */
    bool fourth = receiver_wait(receiver, 4, suite_wait_ms(6));
    if (!fourth) {
        char debug[160];
        snprintf(debug, sizeof debug, "/admin/webhook-endpoints/%s/deliveries", endpoint);
        struct http_response *list = request("GET", debug, NULL);
        fprintf(stderr, "DEBUG %zu %s\n", receiver_count(receiver), list->body);
        http_response_free(list);
    }
    ck_assert(fourth);
    sleep(1);
    ck_assert_uint_eq(receiver_count(receiver), 4);
    struct received first = receiver_get(receiver, 0);
    int64_t previous = first.at_ms;
    static const int64_t at_least[] = {0, 5, 300, 1800};
    for (size_t i = 0; i < 4; i++) {
        struct received got = receiver_get(receiver, i);
        ck_assert(got.valid);
        ck_assert_str_eq(got.id, first.id);
        ck_assert_int_ge(got.at_ms - previous, at_least[i]);
        previous = got.at_ms;
    }
    char path[160];
    snprintf(path, sizeof path, "/admin/webhook-endpoints/%s/deliveries", endpoint);
    struct http_response *deliveries = request("GET", path, NULL);
    expect_status(deliveries, 200);
    json_t *delivery = json_array_get(json_object_get(deliveries->json, "data"), 0);
    expect_str(delivery, "status", "succeeded");
    ck_assert_int_eq(json_integer_value(json_object_get(delivery, "attempt_count")), 4);
    ck_assert_str_eq(json_join(delivery, "attempts", "status_code"), "500,500,500,200");
    http_response_free(deliveries);
    /* The success ended the endpoint's failing streak. */
    ck_assert_int_eq(server_db_integer(&server,
                                       "SELECT COUNT(*) FROM webhook_endpoints WHERE id = ?1 AND "
                                       "failing_since IS NULL AND enabled = (1 = 1)",
                                       endpoint),
                     1);
}
END_TEST

/* An endpoint failing for webhook_disable_after_seconds (1 s here) straight
 * is disabled at its next failed try (the third, 1.8 s after the first),
 * with one webhook_endpoint.disabled, and is sent nothing more. */
START_TEST(test_an_endpoint_failing_for_long_is_disabled)
{
    finish();
    static const char *const env[] = {"GPUQUOTE_WEBHOOKS_ALLOW_HTTP=true",
                                      "GPUQUOTE_WEBHOOKS_ALLOW_PRIVATE=true",
                                      "GPUQUOTE_WEBHOOK_RETRY_DIVISOR=1000",
                                      "GPUQUOTE_WEBHOOK_POLL_MS=50",
                                      "GPUQUOTE_WEBHOOK_TIMEOUT_MS=1000",
                                      "GPUQUOTE_WEBHOOK_DISABLE_AFTER_SECONDS=1",
                                      NULL};
    memset(&server, 0, sizeof server);
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    receiver = receiver_start();
    ck_assert_ptr_nonnull(receiver);
    char endpoint[40], quote[40];
    add_endpoint(endpoint);
    receiver_set_mode(receiver, RECEIVER_FAIL);
    save_quote(quote);
    char path[160];
    snprintf(path, sizeof path, "/admin/webhook-endpoints/%s", endpoint);
    bool disabled = false;
    for (int i = 0; i < 100 && !disabled; i++) {
        usleep(50000);
        struct http_response *read = request("GET", path, NULL);
        disabled = json_is_false(json_at(read->json, "enabled"));
        http_response_free(read);
    }
    ck_assert_msg(disabled, "not disabled after 5 s of failures");
    size_t tries = receiver_count(receiver);
    ck_assert_uint_eq(tries, 4); /* at 0, 5 ms, 300 ms, 1.8 s: failing 1.8 s >= 1 s */
    struct http_response *events = request("GET", "/events?type=webhook_endpoint.disabled", NULL);
    expect_status(events, 200);
    ck_assert_uint_eq(json_array_size(json_at(events->json, "data")), 1);
    expect_str(events->json, "data[0].data.object.id", endpoint);
    ck_assert(json_is_false(json_at(events->json, "data[0].data.object.enabled")));
    http_response_free(events);
    save_quote(quote);
    sleep(1);
    ck_assert_uint_eq(receiver_count(receiver), tries); /* nothing to a disabled endpoint */
}
END_TEST

START_TEST(test_a_hanging_endpoint_does_not_delay_quotes)
{
    char endpoint[40], quote[40];
    add_endpoint(endpoint);
    receiver_set_mode(receiver, RECEIVER_HANG);
    save_quote(quote);
    ck_assert(receiver_wait(receiver, 1, suite_wait_ms(5)));
    int64_t slowest = 0;
    for (int i = 0; i < 20; i++) {
        int64_t before = now_ms();
        save_quote(quote);
        int64_t took = now_ms() - before;
        slowest = took > slowest ? took : slowest;
    }
    ck_assert_msg(slowest < suite_wait_ms(0.5), "a quote took %lld ms", (long long)slowest);
}
END_TEST

START_TEST(test_kill_mid_delivery_delivers_after_restart)
{
    char endpoint[40], quote[40];
    add_endpoint(endpoint);
    receiver_set_mode(receiver, RECEIVER_HANG);
    save_quote(quote);
    ck_assert(receiver_wait(receiver, 1, suite_wait_ms(5))); /* in flight now */
    ck_assert_int_eq(server_kill(&server), 128 + SIGKILL);
    receiver_set_mode(receiver, RECEIVER_OK);
    struct server_options options = {NULL, server_env, false};
    server_start(&server, &options);
    /* Its lease (2 s) runs out, and the new process sends it. */
    ck_assert(receiver_wait(receiver, 2, suite_wait_ms(10)));
    struct received first = receiver_get(receiver, 0), second = receiver_get(receiver, 1);
    ck_assert_str_eq(first.id, second.id);
    ck_assert(second.valid);
    ck_assert_str_eq(second.object_id, quote);
}
END_TEST

#define REPLICA_QUOTES 100

START_TEST(test_two_replicas_deliver_each_event_once)
{
    char endpoint[40], quote[40];
    add_endpoint(endpoint);
    struct server other = {0};
    server_prepare(&other);
    snprintf(other.db_path, sizeof other.db_path, "%s", server.db_path);
    struct server_options options = {NULL, server_env, false};
    server_start(&other, &options);
    struct http_client *clients[2] = {http_client_new(server.port), http_client_new(other.port)};
    http_client_set_key(clients[1], server.admin_key);
    const char *const headers[] = {JSON_TYPE, NULL};
    for (int i = 0; i < REPLICA_QUOTES; i++) {
        struct http_response *saved =
            http_request(clients[i % 2], "POST", "/quote", headers, SAVED_QUOTE);
        expect_status(saved, 201);
        http_response_free(saved);
    }
    ck_assert_msg(receiver_wait(receiver, REPLICA_QUOTES, suite_wait_ms(15)), "%zu of %d",
                  receiver_count(receiver), REPLICA_QUOTES);
    sleep(2); /* what a second sender would send twice comes now */
    size_t count = receiver_count(receiver), duplicates = 0;
    for (size_t i = 0; i < count; i++) {
        struct received got = receiver_get(receiver, i);
        ck_assert(got.valid);
        for (size_t j = 0; j < i; j++)
            duplicates += strcmp(receiver_get(receiver, j).id, got.id) == 0;
    }
    printf("webhooks (%s): two replicas, %d events, %zu received, %zu duplicates\n",
           testdb_backend(), REPLICA_QUOTES, count, duplicates);
    ck_assert_uint_eq(duplicates, 0);
    ck_assert_uint_eq(count, REPLICA_QUOTES);
    (void)quote;
    http_client_free(clients[0]);
    http_client_free(clients[1]);
    server_finish(&other);
}
END_TEST

/* A listening socket on 127.0.0.1 that nobody answers; its port. */
static int listen_socket(uint16_t *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&address, length), 0);
    ck_assert_int_eq(listen(fd, 16), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&address, &length), 0);
    *port = ntohs(address.sin_port);
    return fd;
}

/* A proxy named by the server's environment (http_proxy, https_proxy,
 * all_proxy) is not used: the delivery goes to the endpoint itself, and
 * the proxy is never connected to. */
START_TEST(test_a_proxy_from_the_environment_is_not_used)
{
    finish();
    uint16_t proxy_port;
    int proxy = listen_socket(&proxy_port);
    char http_proxy[64], https_proxy[64], all_proxy[64];
    snprintf(http_proxy, sizeof http_proxy, "http_proxy=http://127.0.0.1:%u", proxy_port);
    snprintf(https_proxy, sizeof https_proxy, "https_proxy=http://127.0.0.1:%u", proxy_port);
    snprintf(all_proxy, sizeof all_proxy, "all_proxy=http://127.0.0.1:%u", proxy_port);
    const char *const env[] = {"GPUQUOTE_WEBHOOKS_ALLOW_HTTP=true",
                               "GPUQUOTE_WEBHOOKS_ALLOW_PRIVATE=true",
                               "GPUQUOTE_WEBHOOK_POLL_MS=50",
                               "GPUQUOTE_WEBHOOK_TIMEOUT_MS=1000",
                               http_proxy,
                               https_proxy,
                               all_proxy,
                               NULL};
    memset(&server, 0, sizeof server);
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    receiver = receiver_start();
    ck_assert_ptr_nonnull(receiver);
    char endpoint[40], quote[40];
    add_endpoint(endpoint);
    save_quote(quote);
    bool arrived = receiver_wait(receiver, 1, suite_wait_ms(5));
    int through_proxy = accept(proxy, NULL, NULL);
    if (through_proxy >= 0)
        close(through_proxy);
    close(proxy);
    ck_assert_msg(through_proxy < 0, "the sender connected to the environment's proxy");
    ck_assert_msg(arrived, "the delivery did not reach its endpoint");
    ck_assert(receiver_get(receiver, 0).valid);
}
END_TEST

#define KEY_A "a:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
#define KEY_B "b:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8="
#define KEY_B_WRONG "b:QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8="

static void write_keys(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    ck_assert_int_eq(fclose(file), 0);
}

/* The stored secret column of the only endpoint (the caller frees it). */
static char *stored_secret(void)
{
    return server_db_text(&server, "SELECT secret FROM webhook_endpoints", NULL);
}

/* One saved quote delivered with a valid signature, as the n-th arrival. */
static void expect_signed_delivery(size_t n)
{
    char quote[40];
    save_quote(quote);
    ck_assert_msg(receiver_wait(receiver, n, suite_wait_ms(5)), "%zu of %zu arrived",
                  receiver_count(receiver), n);
    struct received got = receiver_get(receiver, n - 1);
    ck_assert_msg(got.valid, "delivery %zu has a bad signature", n);
    ck_assert_str_eq(got.object_id, quote);
}

/* Webhook secrets are sealed at rest with the keyring's first key: the
 * column holds no secret, deliveries are signed with the real one. Then a
 * rotation: key b added first with a kept (the start seals the row with
 * b), a removed (b opens it); a clear row (as stored before keys) is
 * sealed at the next start; a wrong key under b's id stops the start with
 * a clear error instead of signing with garbage. */
START_TEST(test_secrets_sealed_at_rest_and_rotated)
{
    finish();
    memset(&server, 0, sizeof server);
    server_prepare(&server);
    char keys[SERVER_PATH_SIZE], keys_setting[SERVER_PATH_SIZE + 40];
    snprintf(keys, sizeof keys, "%s", server_path(&server, "secrets.keys"));
    snprintf(keys_setting, sizeof keys_setting, "GPUQUOTE_SECRETS_KEY_FILE=%s", keys);
    const char *const env[] = {"GPUQUOTE_WEBHOOKS_ALLOW_HTTP=true",
                               "GPUQUOTE_WEBHOOKS_ALLOW_PRIVATE=true",
                               "GPUQUOTE_WEBHOOK_POLL_MS=50",
                               "GPUQUOTE_WEBHOOK_TIMEOUT_MS=1000",
                               keys_setting,
                               NULL};
    struct server_options options = {NULL, env, false};
    write_keys(keys, "# the first seals\n" KEY_A "\n");
    server_start(&server, &options);
    receiver = receiver_start();
    ck_assert_ptr_nonnull(receiver);
    char endpoint[40];
    add_endpoint(endpoint);
    char secret[80];
    snprintf(secret, sizeof secret, "%s", last_secret);
    char *stored = stored_secret();
    ck_assert_msg(strstr(stored, secret + 6) == NULL, "the secret is stored in clear: %s", stored);
    ck_assert_msg(strncmp(stored, "whsec_v1:a:", 11) == 0, "stored as %s", stored);
    free(stored);
    expect_signed_delivery(1);

    /* Rotation, step 1: b first, a kept. The start seals the row with b. */
    ck_assert_int_eq(server_stop(&server), 0);
    write_keys(keys, KEY_B "\n" KEY_A "\n");
    server_start(&server, &options);
    stored = stored_secret();
    ck_assert_msg(strncmp(stored, "whsec_v1:b:", 11) == 0, "not sealed anew with b: %s", stored);
    free(stored);
    expect_signed_delivery(2);

    /* Step 2: a removed. */
    ck_assert_int_eq(server_stop(&server), 0);
    write_keys(keys, KEY_B "\n");
    server_start(&server, &options);
    expect_signed_delivery(3);

    /* A row stored in clear (before keys) is sealed at the next start. */
    ck_assert_int_eq(server_stop(&server), 0);
    ck_assert_int_eq(server_db_exec(&server, "UPDATE webhook_endpoints SET secret = ?1", secret),
                     1);
    server_start(&server, &options);
    stored = stored_secret();
    ck_assert_msg(strncmp(stored, "whsec_v1:b:", 11) == 0, "the clear row stayed: %s", stored);
    free(stored);
    expect_signed_delivery(4);

    /* A wrong key under b's id: no start, a clear error, no key shown. */
    ck_assert_int_eq(server_stop(&server), 0);
    write_keys(keys, KEY_B_WRONG "\n");
    ck_assert_int_eq(server_run(&server, &options), 1);
    char *err = server_read(&server, "stderr.log");
    ck_assert_msg(strstr(err, "does not open with key 'b'") != NULL, "%s", err);
    ck_assert_ptr_null(strstr(err, KEY_B_WRONG + 2));
    ck_assert_ptr_null(strstr(err, secret));
    free(err);

    /* A missing key: the same. */
    write_keys(keys, KEY_A "\n");
    ck_assert_int_eq(server_run(&server, &options), 1);
    err = server_read(&server, "stderr.log");
    ck_assert_msg(strstr(err, "sealed with key 'b', which the secrets keyring lacks") != NULL, "%s",
                  err);
    free(err);
    write_keys(keys, KEY_B "\n");
    server_start(&server, &options); /* for the fixture's finish */
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_webhooks");
    TCase *delivery = tcase_create("delivery");
    tcase_add_checked_fixture(delivery, start, finish);
    tcase_add_test(delivery, test_each_event_delivered_once_signed);
    tcase_add_test(delivery, test_every_other_event_type_delivered_once);
    tcase_add_test(delivery, test_retries_on_500_with_the_schedule_and_one_id);
    tcase_add_test(delivery, test_an_endpoint_failing_for_long_is_disabled);
    tcase_add_test(delivery, test_a_hanging_endpoint_does_not_delay_quotes);
    tcase_add_test(delivery, test_kill_mid_delivery_delivers_after_restart);
    tcase_add_test(delivery, test_two_replicas_deliver_each_event_once);
    tcase_add_test(delivery, test_a_proxy_from_the_environment_is_not_used);
    tcase_add_test(delivery, test_secrets_sealed_at_rest_and_rotated);
    suite_set_timeout(delivery, 40);
    suite_add_tcase(suite, delivery);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
