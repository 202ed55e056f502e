/*
 * Running gpuquote: /healthz, /readyz and /openapi.yaml; the error envelope
 * for unknown paths (also with bytes that are not UTF-8) and 405 with Allow;
 * keep-alive over a hundred requests, error responses included; the access
 * log line; raw protocol errors; SIGTERM finishing a request in flight and
 * exiting 0; SIGHUP reloading prices, and keeping the old ones when the new
 * are broken; --version and --help; one-line refusals of bad configuration
 * (exit 2); a missing database directory, a port in use and a bad listen
 * address (exit 1); a restart on the port just released; and a body
 * trickled past request_timeout_seconds being cut off while others are
 * served.
 *
 * The endpoint cases share one server per test case; everything about the
 * process's life starts a server of its own.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/raw.h"
#include "support/server.h"
#include "support/shared.h"
#include "support/suite.h"
#include "support/testdb.h"

#define INT8_BODY                                                                                  \
    "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"precision\":\"int8\"}}"

/* The whole of a file, or NULL. */
static char *read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    ck_assert_ptr_nonnull(text);
    size_t got = fread(text, 1, (size_t)size, file);
    text[got] = '\0';
    fclose(file);
    return text;
}

/* The access-log line (parsed) whose path is `path`, waiting for the
 * writer's flush; NULL when none came in time. */
static json_t *find_access_line(struct server *server, const char *path)
{
    char needle[512];
    snprintf(needle, sizeof needle, "\"path\":\"%s\"", path);
    if (!server_wait_for_text(server, "stdout.log", needle, suite_wait_ms(3)))
        return NULL;
    char *log = server_read(server, "stdout.log");
    json_t *found = NULL;
    for (char *line = strtok(log, "\n"); line != NULL && found == NULL; line = strtok(NULL, "\n"))
        if (strstr(line, needle) != NULL)
            found = json_loads(line, 0, NULL);
    free(log);
    return found;
}

/* ---- the operational endpoints ----------------------------------------------- */

START_TEST(test_operations_healthz)
{
    struct http_response *response = http_get(client, "/healthz");
    expect_status(response, 200);
    ck_assert_str_eq(http_header(response, "content-type"), "application/json");
    ck_assert_str_eq(response->body, "{\"status\":\"ok\",\"version\":\"" GQ_VERSION "\"}");
    ck_assert_str_eq(http_header(response, "cache-control"), "no-store");
    http_response_free(response);
}
END_TEST

START_TEST(test_operations_readyz)
{
    struct http_response *response = http_get(client, "/readyz");
    expect_status(response, 200);
    ck_assert_str_eq(http_header(response, "content-type"), "application/json");
    ck_assert_str_eq(response->body, "{\"status\":\"ready\",\"price_list_version\":1,\"skus\":5}");
    http_response_free(response);
}
END_TEST

/* The value of an unlabelled counter in /metrics. */
static long long metric_value(const char *name)
{
    struct http_response *response = http_get(client, "/metrics");
    expect_status(response, 200);
    char needle[128];
    snprintf(needle, sizeof needle, "\n%s ", name);
    const char *at = strstr(response->body, needle);
    ck_assert_msg(at != NULL, "/metrics has no %s", name);
    long long value = strtoll(at + strlen(needle), NULL, 10);
    http_response_free(response);
    return value;
}

/* However often /readyz is asked, the database is checked at most about
 * once a second: two within a second make one check, a third after a
 * second another. */
START_TEST(test_operations_readyz_checks_the_database_once_a_second)
{
    static const char checks[] = "gpuquote_store_health_checks_total";
    suite_sleep_ms(1100); /* past any outcome an earlier /readyz left */
    long long before = metric_value(checks);
    for (int i = 0; i < 2; i++) {
        struct http_response *response = http_get(client, "/readyz");
        expect_status(response, 200);
        http_response_free(response);
    }
    ck_assert_int_eq(metric_value(checks), before + 1);
    suite_sleep_ms(1100);
    struct http_response *response = http_get(client, "/readyz");
    expect_status(response, 200);
    http_response_free(response);
    ck_assert_int_eq(metric_value(checks), before + 2);
}
END_TEST

START_TEST(test_operations_openapi)
{
    struct http_response *response = http_get(client, "/openapi.yaml");
    expect_status(response, 200);
    ck_assert_str_eq(http_header(response, "content-type"), "application/yaml");
    ck_assert_int_eq(strncmp(response->body, "openapi:", 8), 0);
    ck_assert_ptr_nonnull(http_header(response, "etag"));
    /* Exactly the contract the binary was built from. */
    char path[1024];
    snprintf(path, sizeof path, "%s/openapi.yaml", getenv("GPUQUOTE_SOURCE_DIR"));
    char *source = read_file(path);
    ck_assert_ptr_nonnull(source);
    ck_assert_uint_eq(response->body_length, strlen(source));
    ck_assert_msg(memcmp(response->body, source, response->body_length) == 0,
                  "GET /openapi.yaml differs from %s (rebuild?)", path);
    free(source);

    char header[256];
    snprintf(header, sizeof header, "If-None-Match: %s", http_header(response, "etag"));
    const char *const headers[] = {header, NULL};
    struct http_response *again = http_request(client, "GET", "/openapi.yaml", headers, NULL);
    expect_status(again, 304);
    ck_assert_uint_eq(again->body_length, 0);
    http_response_free(again);
    http_response_free(response);
}
END_TEST

struct not_found_case {
    const char *method;
    const char *path;
    const char *message;
};

static const struct not_found_case not_found[] = {
    {"GET", "/nope", "no resource at /nope"},
    {"GET", "/static/missing.js", "no resource at /static/missing.js"},
    {"GET", "/static/.hidden", "no resource at /static/.hidden"},
    {"GET", "/nope", "no resource at /nope"},
    {"POST", "/nope", "no resource at /nope"},
    {"DELETE", "/nope", "no resource at /nope"},
    {"GET", "/catalog/v100-16g-x1/prices", "no resource at /catalog/v100-16g-x1/prices"},
    {"GET", "/quotes", "no resource at /quotes"},
    {"GET", "/healthz/", "no resource at /healthz/"},
    {"OPTIONS", "/nope", "no resource at /nope"},
    /* bytes that are not UTF-8 are replaced, not refused with a bare 500 */
    {"GET", "/nope%FF", "no resource at /nope?"},
    {"GET", "/catalog/%FF%FE",
     "no SKU '?"
     "?'"},
    {"GET", "/catalog/%C3%A9t%C3%A9", "no SKU '\xc3\xa9t\xc3\xa9'"},
    {"GET", "/quote/%E2%82",
     "no quote '?"
     "?'"},
    /* a 63-byte id and a two-byte character: cut at 64 bytes, inside it */
    {"GET", "/catalog/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa%C3%A9",
     "no SKU 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa?'"},
};

START_TEST(test_operations_not_found)
{
    const struct not_found_case *c = &not_found[_i];
    struct http_response *response = http_request(client, c->method, c->path, NULL, NULL);
    ck_assert_msg(response->status == 404, "%s %s: %s", c->method, c->path,
                  http_describe(response));
    expect_error(response, 404, "not_found", NULL);
    expect_str(response->json, "error.message", c->message);
    ck_assert_str_eq(http_header(response, "content-type"), "application/json");
    http_response_free(response);
}
END_TEST

/* An unknown path is 404 whatever its body; a known route refuses an
 * oversized one with 413, whether it was declared or sent chunked. */
START_TEST(test_operations_oversized_body_routing)
{
    size_t size = 100 * 1024;
    char *body = malloc(size + 1);
    ck_assert_ptr_nonnull(body);
    memset(body, 'x', size);
    body[size] = '\0';
    const char *const json[] = {"Content-Type: application/json", NULL};
    struct http_response *response = http_request(client, "POST", "/nope", json, body);
    expect_error(response, 404, "not_found", NULL);
    http_response_free(response);
    response = http_request_chunked(client, "POST", "/nope", json, body);
    expect_error(response, 404, "not_found", NULL);
    http_response_free(response);
    response = http_request_chunked(client, "POST",
                                    "/quote/q_0123456789abcdef0123456789abcdef/accept", json, body);
    expect_error(response, 413, "body_too_large", NULL);
    http_response_free(response);
    free(body);
}
END_TEST

START_TEST(test_operations_parameter_not_utf8)
{
    struct http_response *response = http_get(client, "/catalog?%FF=1");
    expect_error(response, 400, "invalid_parameter", "?");
    http_response_free(response);
}
END_TEST

struct method_case {
    const char *method;
    const char *path;
    const char *allow;
};

static const struct method_case wrong_methods[] = {
    {"DELETE", "/catalog", "GET, HEAD, OPTIONS"},
    {"POST", "/catalog", "GET, HEAD, OPTIONS"},
    {"PUT", "/catalog/v100-16g-x1", "GET, HEAD, OPTIONS"},
    {"POST", "/catalog/bundles", "GET, HEAD, OPTIONS"},
    {"PUT", "/quote", "GET, HEAD, POST, OPTIONS"},
    {"DELETE", "/quote", "GET, HEAD, POST, OPTIONS"},
    {"DELETE", "/quote/q_0123456789abcdef0123456789abcdef", "GET, HEAD, OPTIONS"},
    {"GET", "/quote/q_0123456789abcdef0123456789abcdef/accept", "POST, OPTIONS"},
    {"PATCH", "/recommend", "POST, OPTIONS"},
    {"POST", "/healthz", "GET, HEAD, OPTIONS"},
    {"POST", "/readyz", "GET, HEAD, OPTIONS"},
    {"PUT", "/openapi.yaml", "GET, HEAD, OPTIONS"},
};

START_TEST(test_operations_method_not_allowed)
{
    const struct method_case *c = &wrong_methods[_i];
    struct http_response *response = http_request(client, c->method, c->path, NULL, NULL);
    ck_assert_msg(response->status == 405, "%s %s: %s", c->method, c->path,
                  http_describe(response));
    ck_assert_str_eq(http_header(response, "allow"), c->allow);
    if (strcmp(c->method, "HEAD") != 0) {
        expect_error(response, 405, "method_not_allowed", NULL);
        char message[64];
        snprintf(message, sizeof message, "%s is not allowed here", c->method);
        expect_str(response->json, "error.message", message);
    }
    http_response_free(response);

    /* OPTIONS lists the same methods. */
    response = http_request(client, "OPTIONS", c->path, NULL, NULL);
    expect_status(response, 204);
    ck_assert_str_eq(http_header(response, "allow"), c->allow);
    ck_assert_uint_eq(response->body_length, 0);
    http_response_free(response);
}
END_TEST

/* A hundred requests of every kind on one connection: none closes it. */
START_TEST(test_operations_keep_alive)
{
    struct http_client *one = http_client_new(shared.port);
    long port = 0;
    for (int i = 0; i < 100; i++) {
        struct http_response *response;
        int want;
        switch (i % 6) {
        case 0:
            response = http_get(one, "/catalog");
            want = 200;
            break;
        case 1:
            response = http_post_json(one, "/quote",
                                      "{\"items\":[{\"sku\":\"v100-16g-x1\","
                                      "\"hours_per_day\":8,\"days\":90}],"
                                      "\"save\":false}");
            want = 200;
            break;
        case 2:
            response = http_get(one, "/nope");
            want = 404;
            break;
        case 3:
            response = http_request(one, "DELETE", "/catalog", NULL, NULL);
            want = 405;
            break;
        case 4:
            response = http_post_json(one, "/quote", "{\"items\":[]}");
            want = 422;
            break;
        default:
            response = http_post_json(one, "/recommend", "{\"workload\":");
            want = 400;
            break;
        }
        ck_assert_msg(response->status == want, "request %d: %s", i, http_describe(response));
        ck_assert_msg(!http_closes(response), "request %d (status %ld) closed the connection", i,
                      response->status);
        if (i == 0)
            port = response->local_port;
        else
            ck_assert_msg(response->reused_connection && response->local_port == port,
                          "request %d opened a new connection", i);
        http_response_free(response);
    }
    http_client_free(one);
}
END_TEST

/* True when `id` is "req_" and 32 lowercase hex digits. */
static bool is_generated_request_id(const char *id)
{
    if (id == NULL || strncmp(id, "req_", 4) != 0 || strlen(id) != 36)
        return false;
    return strspn(id + 4, "0123456789abcdef") == 32;
}

/* Every answer carries X-Request-Id: the client's when it is acceptable,
 * otherwise a new one; the access log records the same id. */
START_TEST(test_operations_request_id)
{
    struct http_response *first = http_get(client, "/healthz");
    struct http_response *second = http_get(client, "/nope");
    expect_status(first, 200);
    expect_status(second, 404);
    const char *first_id = http_header(first, "x-request-id");
    const char *second_id = http_header(second, "x-request-id");
    ck_assert_msg(is_generated_request_id(first_id), "generated id %s", first_id);
    ck_assert_msg(is_generated_request_id(second_id), "generated id %s", second_id);
    ck_assert_str_ne(first_id, second_id);
    http_response_free(first);
    http_response_free(second);

    /* A proxy's id is passed on, on errors too, and logged. */
    char path[96], header[160], id[96];
    snprintf(path, sizeof path, "/request-id-probe-%ld", (long)getpid());
    snprintf(id, sizeof id, "storefront-7f3a.%ld:42_A", (long)getpid());
    snprintf(header, sizeof header, "X-Request-Id: %s", id);
    const char *const given[] = {header, NULL};
    struct http_response *response = http_request(client, "GET", path, given, NULL);
    expect_status(response, 404);
    ck_assert_str_eq(http_header(response, "x-request-id"), id);
    http_response_free(response);
    json_t *line = find_access_line(&shared, path);
    ck_assert_msg(line != NULL, "no access-log line for %s", path);
    expect_str(line, "request_id", id);
    json_decref(line);

    const char *const on_post[] = {header, "Content-Type: application/json", NULL};
    response = http_request(client, "POST", "/quote", on_post, "{\"items\":[]}");
    expect_status(response, 422);
    ck_assert_str_eq(http_header(response, "x-request-id"), id);
    http_response_free(response);

    /* Unacceptable ids are replaced, not refused: a space, a quote, too
     * long, empty, or given twice. */
    char too_long[200];
    memset(too_long, 'a', sizeof too_long);
    memcpy(too_long, "X-Request-Id: ", 14);
    too_long[14 + 129] = '\0';
    const char *const bad[][3] = {
        {"X-Request-Id: two words", NULL, NULL},
        {"X-Request-Id: quo\"te", NULL, NULL},
        {too_long, NULL, NULL},
        {"X-Request-Id;", NULL, NULL}, /* libcurl: sent with an empty value */
        {"X-Request-Id: first", "X-Request-Id: second", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        response = http_request(client, "GET", "/healthz", bad[i], NULL);
        expect_status(response, 200);
        const char *replaced = http_header(response, "x-request-id");
        ck_assert_msg(is_generated_request_id(replaced), "case %zu: %s", i, replaced);
        http_response_free(response);
    }

    /* Whitespace after the value is not part of it; a quote anywhere
     * makes the id unacceptable. */
    static const struct {
        const char *header;
        size_t length;
        const char *expected; /* NULL: a generated id */
    } raw_cases[] = {
#define RAW_HEADER(text) text, sizeof text - 1
        {RAW_HEADER("X-Request-Id: abc:def \t\r\n"), "abc:def"},
        {RAW_HEADER("X-Request-Id: abc\" \r\n"), NULL},
#undef RAW_HEADER
    };
    for (size_t i = 0; i < sizeof raw_cases / sizeof raw_cases[0]; i++) {
        char request[256];
        int head = snprintf(request, sizeof request, "GET /healthz HTTP/1.1\r\nHost: x\r\n");
        memcpy(request + head, raw_cases[i].header, raw_cases[i].length);
        memcpy(request + head + raw_cases[i].length, "\r\n", 2);
        int fd = raw_connect(shared.port);
        ck_assert_int_ge(fd, 0);
        ck_assert(raw_send(fd, request, (size_t)head + raw_cases[i].length + 2));
        char *answer = raw_read_response(fd, suite_wait_ms(3), true, NULL);
        close(fd);
        ck_assert_ptr_nonnull(answer);
        ck_assert_int_eq(raw_status(answer), 200);
        char got[160];
        ck_assert(raw_header(answer, "X-Request-Id", got, sizeof got));
        if (raw_cases[i].expected != NULL)
            ck_assert_str_eq(got, raw_cases[i].expected);
        else
            ck_assert_msg(is_generated_request_id(got), "case %zu: %s", i, got);
        free(answer);
    }

    /* The longest acceptable id, 128 characters, is kept whole. */
    too_long[14 + 128] = '\0';
    const char *const longest[] = {too_long, NULL};
    response = http_request(client, "GET", "/healthz", longest, NULL);
    ck_assert_str_eq(http_header(response, "x-request-id"), too_long + 14);
    http_response_free(response);
}
END_TEST

START_TEST(test_operations_access_log)
{
    char path[96];
    snprintf(path, sizeof path, "/access-log-probe-%ld", (long)getpid());
    struct http_response *response = http_get(client, path);
    expect_status(response, 404);
    json_t *line = find_access_line(&shared, path);
    ck_assert_msg(line != NULL, "no access-log line for %s", path);
    ck_assert_str_eq(json_keys(line, ""), "ts,request_id,client,method,path,status,bytes,us");
    expect_str(line, "request_id", http_header(response, "x-request-id"));
    expect_str(line, "client", "127.0.0.1");
    expect_str(line, "method", "GET");
    expect_str(line, "path", path);
    expect_text(line, "status", "404");
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%zu", response->body_length);
    expect_text(line, "bytes", bytes);
    ck_assert(json_is_integer(json_object_get(line, "us")));
    ck_assert_int_ge(json_integer_value(json_object_get(line, "us")), 0);
    const char *ts = json_str(line, "ts"); /* 2026-11-30T17:51:19.123Z */
    ck_assert_uint_eq(strlen(ts), 24);
    ck_assert_int_eq(ts[19], '.');
    ck_assert_int_eq(ts[23], 'Z');
    json_decref(line);
    http_response_free(response);

    /* The query is logged as the client sent it: libmicrohttpd decodes it
     * in place, so this shows it was kept before that. */
    snprintf(path, sizeof path, "/access-log-query-%ld", (long)getpid());
    char target[160];
    snprintf(target, sizeof target, "%s?gpu=V100&sort=%%22price%%22&x", path);
    response = http_get(client, target);
    expect_status(response, 404);
    http_response_free(response);
    line = find_access_line(&shared, path);
    ck_assert_msg(line != NULL, "no access-log line for %s", path);
    ck_assert_str_eq(json_keys(line, ""), "ts,request_id,client,method,path,query,status,bytes,us");
    expect_str(line, "query", "gpu=V100&sort=%22price%22&x");
    json_decref(line);

    /* A query is logged up to 256 bytes, never ending in half a character:
     * 255 bytes and a 2-byte "é" log the 255 bytes. */
    snprintf(path, sizeof path, "/access-log-long-query-%ld", (long)getpid());
    char long_target[512], expected_query[300];
    memset(expected_query, 'a', 255);
    expected_query[255] = '\0';
    snprintf(long_target, sizeof long_target, "%s?%s\xc3\xa9tail", path, expected_query);
    response = http_get(client, long_target);
    expect_status(response, 404);
    http_response_free(response);
    line = find_access_line(&shared, path);
    ck_assert_msg(line != NULL, "no access-log line for %s", path);
    expect_str(line, "query", expected_query);
    json_decref(line);

    /* A POST that answers 201 logs its method, status and size. */
    response = http_post_json(
        client, "/quote", "{\"items\":[{\"sku\":\"t4-16g-x1\",\"hours_per_day\":1,\"days\":1}]}");
    expect_status(response, 201);
    const char *location = http_header(response, "location");
    ck_assert_ptr_nonnull(location);
    struct http_response *read = http_get(client, location);
    expect_status(read, 200);
    line = find_access_line(&shared, location);
    ck_assert_msg(line != NULL, "no access-log line for %s", location);
    expect_str(line, "method", "GET");
    expect_text(line, "status", "200");
    snprintf(bytes, sizeof bytes, "%zu", read->body_length);
    expect_text(line, "bytes", bytes);
    json_decref(line);
    http_response_free(read);
    http_response_free(response);

    /* HEAD sends no body, and logs none. */
    snprintf(path, sizeof path, "/access-log-head-%ld", (long)getpid());
    response = http_request(client, "HEAD", path, NULL, NULL);
    expect_status(response, 404);
    http_response_free(response);
    line = find_access_line(&shared, path);
    ck_assert_msg(line != NULL, "no access-log line for %s", path);
    expect_str(line, "method", "HEAD");
    expect_text(line, "bytes", "0");
    json_decref(line);

    /* A client that hangs up halfway through its body: nothing was
     * answered, and the line says why. */
    snprintf(path, sizeof path, "/access-log-abort-%ld", (long)getpid());
    int fd = raw_connect(shared.port);
    ck_assert_int_ge(fd, 0);
    char request[256];
    snprintf(request, sizeof request,
             "POST %s HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
             "Content-Length: 100\r\n\r\n{\"items\"",
             path);
    ck_assert(raw_send(fd, request, strlen(request)));
    ck_assert(raw_wait_until_read(fd, suite_wait_ms(2)));
    close(fd);
    line = find_access_line(&shared, path);
    ck_assert_msg(line != NULL, "no access-log line for %s", path);
    ck_assert_str_eq(json_keys(line, ""),
                     "ts,request_id,client,method,path,status,bytes,us,interrupted");
    expect_text(line, "status", "0");
    expect_text(line, "bytes", "0");
    expect_str(line, "interrupted", "client_abort");
    json_decref(line);
}
END_TEST

/* Requests libmicrohttpd answers itself, or closes unanswered, after
 * reading the request line are logged too, with its status: the handler
 * never ran, so there is no method, no request id and no body size; the
 * path is as sent. */
START_TEST(test_operations_access_log_library_refusals)
{
    /* Header fields over the connection's memory: 431. */
    char path[96], request[20480];
    snprintf(path, sizeof path, "/access-log-431-%ld", (long)getpid());
    int length = snprintf(request, sizeof request,
                          "GET %s?gpu=V100 HTTP/1.1\r\nHost: test\r\nX-Big: ", path);
    memset(request + length, 'a', 18000);
    strcpy(request + length + 18000, "\r\n\r\n");
    char *answer = raw_exchange(shared.port, request, suite_wait_ms(5));
    ck_assert_ptr_nonnull(answer);
    ck_assert_int_eq(raw_status(answer), 431);
    free(answer);
    json_t *line = find_access_line(&shared, path);
    ck_assert_msg(line != NULL, "no access-log line for %s", path);
    ck_assert_str_eq(json_keys(line, ""), "ts,client,path,query,status,bytes,us");
    expect_str(line, "client", "127.0.0.1");
    expect_str(line, "query", "gpu=V100");
    expect_text(line, "status", "431");
    expect_text(line, "bytes", "0");
    json_decref(line);

    /* A Content-Length that is not a number: 400. The path is logged as
     * sent, not decoded. */
    snprintf(path, sizeof path, "/access-log-length-%ld%%41", (long)getpid());
    snprintf(request, sizeof request,
             "POST %s HTTP/1.1\r\nHost: test\r\nContent-Length: ten\r\n\r\n", path);
    answer = raw_exchange(shared.port, request, suite_wait_ms(5));
    ck_assert_ptr_nonnull(answer);
    ck_assert_int_eq(raw_status(answer), 400);
    free(answer);
    line = find_access_line(&shared, path);
    ck_assert_msg(line != NULL, "no access-log line for %s", path);
    ck_assert_str_eq(json_keys(line, ""), "ts,client,path,status,bytes,us");
    expect_text(line, "status", "400");
    json_decref(line);

    /* A malformed chunk: the handler had begun (method and id known), the
     * library answered 400, and the answer was sent whole. */
    snprintf(path, sizeof path, "/access-log-chunk-%ld", (long)getpid());
    snprintf(request, sizeof request,
             "POST %s HTTP/1.1\r\nHost: test\r\nX-Request-Id: chunk-probe\r\n"
             "Transfer-Encoding: chunked\r\n\r\nzz\r\n",
             path);
    answer = raw_exchange(shared.port, request, suite_wait_ms(5));
    ck_assert_ptr_nonnull(answer);
    ck_assert_int_eq(raw_status(answer), 400);
    free(answer);
    line = find_access_line(&shared, path);
    ck_assert_msg(line != NULL, "no access-log line for %s", path);
    ck_assert_str_eq(json_keys(line, ""), "ts,request_id,client,method,path,status,bytes,us");
    expect_str(line, "request_id", "chunk-probe");
    expect_str(line, "method", "POST");
    expect_text(line, "status", "400");
    json_decref(line);

    /* 400 query parameters (2 KB) do not fit the connection's memory:
     * libmicrohttpd closes the connection unanswered, and the line says so. */
    snprintf(path, sizeof path, "/access-log-parameters-%ld", (long)getpid());
    length = snprintf(request, sizeof request, "GET %s?a=1", path);
    for (int i = 1; i < 400; i++)
        length += snprintf(request + length, sizeof request - (size_t)length, "&a=1");
    snprintf(request + length, sizeof request - (size_t)length, " HTTP/1.1\r\nHost: test\r\n\r\n");
    answer = raw_exchange(shared.port, request, suite_wait_ms(5));
    ck_assert_ptr_null(answer);
    line = find_access_line(&shared, path);
    ck_assert_msg(line != NULL, "no access-log line for %s", path);
    ck_assert_str_eq(json_keys(line, ""), "ts,client,path,query,status,bytes,us,interrupted");
    expect_text(line, "status", "0");
    expect_str(line, "interrupted", "error");
    ck_assert_uint_eq(strlen(json_str(line, "query")), 256); /* the log keeps 256 bytes */
    json_decref(line);
}
END_TEST

START_TEST(test_operations_raw_protocol_errors)
{
    /* A header line without a colon: libmicrohttpd's own 400, and close. */
    char *response =
        raw_exchange(shared.port, "GET /catalog HTTP/1.1\r\nHost: test\r\nNoColonHere\r\n\r\n",
                     suite_wait_ms(5));
    ck_assert_ptr_nonnull(response);
    ck_assert_int_eq(raw_status(response), 400);
    free(response);

    /* A later HTTP/1 minor version is served as 1.1, Host required too. */
    response = raw_exchange(shared.port, "GET /healthz HTTP/1.2\r\n\r\n", suite_wait_ms(5));
    ck_assert_ptr_nonnull(response);
    ck_assert_int_eq(raw_status(response), 400);
    ck_assert_str_eq(raw_body(response),
                     "{\"error\":{\"code\":\"invalid_parameter\",\"message\":\"an HTTP/1.1 "
                     "request must carry a Host header\",\"field\":\"Host\"}}");
    free(response);

    /* An HTTP version nobody speaks. */
    response =
        raw_exchange(shared.port, "GET /catalog HTTP/9.9\r\nHost: test\r\n\r\n", suite_wait_ms(5));
    ck_assert_ptr_nonnull(response);
    ck_assert_int_eq(raw_status(response), 505);
    free(response);

    /* A path with a raw byte that is not UTF-8: our 404 envelope. */
    response = raw_exchange(shared.port, "GET /ca\xfftalog HTTP/1.1\r\nHost: test\r\n\r\n",
                            suite_wait_ms(5));
    ck_assert_ptr_nonnull(response);
    ck_assert_int_eq(raw_status(response), 404);
    ck_assert_str_eq(
        raw_body(response),
        "{\"error\":{\"code\":\"not_found\",\"message\":\"no resource at /ca?talog\"}}");
    free(response);

    /* A target in absolute form, as a proxy may send it, is routed by its
     * path. */
    response = raw_exchange(shared.port,
                            "GET http://localhost:8080/catalog/v100-16g-x1 HTTP/1.1\r\n"
                            "Host: localhost:8080\r\n\r\n",
                            suite_wait_ms(5));
    ck_assert_ptr_nonnull(response);
    ck_assert_int_eq(raw_status(response), 200);
    ck_assert_ptr_eq(strstr(raw_body(response), "{\"id\":\"v100-16g-x1\","), raw_body(response));
    free(response);
    /* No path at all is "/": the storefront page. */
    response = raw_exchange(shared.port, "GET HTTPS://example.test HTTP/1.1\r\nHost: test\r\n\r\n",
                            suite_wait_ms(5));
    ck_assert_ptr_nonnull(response);
    ck_assert_int_eq(raw_status(response), 200);
    ck_assert_ptr_eq(strstr(raw_body(response), "<!doctype html>"), raw_body(response));
    free(response);

    /* A request line that is not one: the connection is dropped. */
    response = raw_exchange(shared.port, "GARBAGE\r\n\r\n", suite_wait_ms(5));
    ck_assert_ptr_null(response);

    /* HTTP/1.0 is answered and closed. */
    response = raw_exchange(shared.port, "GET /healthz HTTP/1.0\r\n\r\n", suite_wait_ms(5));
    ck_assert_ptr_nonnull(response);
    ck_assert_int_eq(raw_status(response), 200);
    ck_assert_str_eq(raw_body(response), "{\"status\":\"ok\",\"version\":\"" GQ_VERSION "\"}");
    free(response);

    /* And the server goes on. */
    struct http_response *health = http_get(client, "/healthz");
    expect_status(health, 200);
    http_response_free(health);
}
END_TEST

/* ---- the process: signals ---------------------------------------------------------- */

/* SIGTERM while a POST is half-way in: the server stops listening, finishes
 * that request, answers it in full and exits 0. "100 Continue" proves the
 * server has begun the request before the signal is sent; the log line
 * proves the signal was taken before the rest of the body is sent. */
START_TEST(test_operations_sigterm_finishes_request_in_flight)
{
    struct server server = {0};
    server_start(&server, NULL);
    int fd = raw_connect(server.port);
    ck_assert_int_ge(fd, 0);
    const char *body = INT8_BODY;
    char headers[256];
    snprintf(headers, sizeof headers,
             "POST /recommend HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
             "Expect: 100-continue\r\nContent-Length: %zu\r\n\r\n",
             strlen(body));
    ck_assert(raw_send(fd, headers, strlen(headers)));
    char *interim = raw_read_response(fd, suite_wait_ms(5), false, NULL);
    ck_assert_ptr_nonnull(interim);
    ck_assert_int_eq(raw_status(interim), 100);
    free(interim);
    ck_assert(raw_send(fd, body, 10));

    server_signal(&server, SIGTERM);
    ck_assert(server_wait_for_text(&server, "stderr.log", "signal 15: finishing requests in flight",
                                   suite_wait_ms(5)));
    /* No new connections once stopping (the listener closes just after
     * the line is logged). */
    ck_assert_msg(raw_connections_refused(server.port, suite_wait_ms(2)),
                  "connections are still accepted after SIGTERM");

    /* The rest of the body over about a second. */
    size_t rest = strlen(body) - 10;
    ck_assert_uint_eq(raw_trickle(fd, body + 10, rest, (rest + 9) / 10, 100), rest);
    char *response = raw_read_response(fd, suite_wait_ms(10), true, NULL);
    ck_assert_ptr_nonnull(response);
    ck_assert_int_eq(raw_status(response), 200);
    json_t *json = json_loads(raw_body(response), 0, NULL);
    ck_assert_ptr_nonnull(json);
    /* 7B in int8 as GPTQ stores it (16-bit embeddings and output layer, a
     * scale per group), one request, a tenth free */
    expect_text(json, "estimate.memory_gb", "10.8");
    expect_str(json, "recommendations[0].sku", "v100-16g-x1");
    expect_str(json, "recommendations[0].total", "1231.00");
    json_decref(json);
    free(response);
    close(fd);

    ck_assert_int_eq(server_wait(&server, suite_wait_ms(15)), 0);
    char *log = server_read(&server, "stderr.log");
    ck_assert_ptr_nonnull(strstr(log, "gpuquote: info: stopped"));
    free(log);
    log = server_read(&server, "stdout.log");
    ck_assert_ptr_nonnull(
        strstr(log, "\"method\":\"POST\",\"path\":\"/recommend\",\"status\":200"));
    free(log);
    server_cleanup(&server);
}
END_TEST

/* SIGTERM with idle keep-alive connections open: they do not hold it up. */
START_TEST(test_operations_sigterm_with_idle_connections)
{
    struct server server = {0};
    server_start(&server, NULL);
    struct http_client *idle[3];
    for (int i = 0; i < 3; i++) {
        idle[i] = http_client_new(server.port);
        struct http_response *response = http_get(idle[i], "/catalog");
        expect_status(response, 200);
        http_response_free(response);
    }
    long long started = suite_now_ms();
    ck_assert_int_eq(server_stop(&server), 0);
    ck_assert_int_lt(suite_now_ms() - started, suite_wait_ms(5));
    for (int i = 0; i < 3; i++)
        http_client_free(idle[i]);
    server_cleanup(&server);
}
END_TEST

/* Price changes and reloads, one after another, on their own thread. */
struct reload_storm {
    struct server *server;
    int reloads;
    atomic_bool done;
};

static void *storm_reloads(void *argument)
{
    struct reload_storm *storm = argument;
    struct timespec pause = {0, 20 * 1000 * 1000};
    for (int i = 0; i < storm->reloads; i++) {
        server_db_exec(storm->server,
                       "UPDATE sku_prices SET amount_fen = amount_fen + 1 "
                       "WHERE sku_id = ?1 AND mode_id = 'on_demand'",
                       "t4-16g-x1");
        server_signal(storm->server, SIGHUP);
        nanosleep(&pause, NULL);
    }
    atomic_store(&storm->done, true);
    return NULL;
}

/* "9.90" plus `fen` as the JSON money string. */
static void money_after(long fen, char out[32])
{
    snprintf(out, 32, "%ld.%02ld", (990 + fen) / 100, (990 + fen) % 100);
}

/* While prices change and the catalog is reloaded 40 times, every answer
 * is priced from one snapshot: a quote's price_list_version and its amount
 * agree (each change adds 1 fen and one version), as do a listing's. */
START_TEST(test_operations_reloads_under_load_keep_answers_whole)
{
    struct server server = {0};
    server_start(&server, NULL);
    struct http_client *to = http_client_new(server.port);
    struct reload_storm storm = {.server = &server, .reloads = 40};
    atomic_init(&storm.done, false);
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, storm_reloads, &storm), 0);
    int answers = 0;
    long highest = 1;
    char want[32];
    while (!atomic_load(&storm.done) || answers < 20) {
        struct http_response *quote =
            http_post_json(to, "/quote",
                           "{\"items\":[{\"sku\":\"t4-16g-x1\",\"billing\":\"on_demand\","
                           "\"hours_per_day\":1,\"days\":1}],\"save\":false}");
        expect_status(quote, 200);
        long version = (long)json_integer_value(json_at(quote->json, "price_list_version"));
        money_after(version - 1, want);
        ck_assert_msg(strcmp(json_str(quote->json, "items[0].amount"), want) == 0,
                      "version %ld priced %s, not %s", version,
                      json_str(quote->json, "items[0].amount"), want);
        http_response_free(quote);

        struct http_response *listing = http_get(to, "/catalog?gpu=T4");
        expect_status(listing, 200);
        long listed = (long)json_integer_value(json_at(listing->json, "price_list_version"));
        money_after(listed - 1, want);
        expect_str(listing->json, "skus[0].prices.on_demand.amount", want);
        http_response_free(listing);
        if (version > highest)
            highest = version;
        answers += 2;
    }
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    ck_assert(server_wait_for_text(&server, "stderr.log", "price list version 41, 5 SKUs",
                                   suite_wait_ms(5)));
    ck_assert_msg(highest > 1, "no reload was seen in %d answers", answers);
    struct http_response *ready = http_get(to, "/readyz");
    ck_assert_str_eq(ready->body, "{\"status\":\"ready\",\"price_list_version\":41,\"skus\":5}");
    http_response_free(ready);
    http_client_free(to);
    server_finish(&server);
}
END_TEST

START_TEST(test_operations_sighup_reload)
{
    struct server server = {0};
    server_start(&server, NULL);
    struct http_client *to = http_client_new(server.port);

    ck_assert_int_eq(server_db_exec(&server,
                                    "UPDATE bundles SET price_fen = 120000, "
                                    "valid_until = 1893456000 WHERE id = ?1",
                                    "training-starter-monthly"),
                     1);
    server_signal(&server, SIGHUP);
    ck_assert(server_wait_for_text(
        &server, "stderr.log", "catalog loaded: price list version 2, 5 SKUs", suite_wait_ms(5)));
    struct http_response *ready = http_get(to, "/readyz");
    ck_assert_str_eq(ready->body, "{\"status\":\"ready\",\"price_list_version\":2,\"skus\":5}");
    http_response_free(ready);
    struct http_response *bundles = http_get(to, "/catalog/bundles");
    expect_text(bundles->json, "price_list_version", "2");
    expect_str(bundles->json, "bundles[1].price", "1200.00");
    expect_str(bundles->json, "bundles[1].list_saving", "442.00");
    expect_str(bundles->json, "bundles[1].saving", "31.00"); /* a month is 1231.00 */
    expect_str(bundles->json, "bundles[1].valid_until", "2030-01-01T00:00:00Z");
    expect_text(bundles->json, "bundles[1].valid_from", "null");
    expect_text(bundles->json, "bundles[0].valid_until", "null");
    http_response_free(bundles);

    /* A broken price list is refused and the last good one kept. */
    ck_assert_int_eq(server_db_exec(&server,
                                    "DELETE FROM sku_prices WHERE sku_id = ?1 AND "
                                    "mode_id = 'on_demand'",
                                    "t4-16g-x1"),
                     1);
    server_signal(&server, SIGHUP);
    ck_assert(server_wait_for_text(&server, "stderr.log",
                                   "catalog not loaded: SKU 't4-16g-x1' has no on-demand price; "
                                   "still serving price list version 2\n",
                                   suite_wait_ms(5)));
    ready = http_get(to, "/readyz");
    ck_assert_str_eq(ready->body, "{\"status\":\"ready\",\"price_list_version\":2,\"skus\":5}");
    http_response_free(ready);
    struct http_response *sku = http_get(to, "/catalog/t4-16g-x1");
    expect_status(sku, 200);
    expect_str(sku->json, "prices.on_demand.amount", "9.90");
    http_response_free(sku);

    http_client_free(to);
    server_finish(&server);
}
END_TEST

/* ---- the process: command line and configuration ------------------------------------ */

START_TEST(test_operations_version_and_help)
{
    struct server server = {0};
    const char *const version[] = {"--version", NULL};
    struct server_options options = {version, NULL, true};
    ck_assert_int_eq(server_run(&server, &options), 0);
    char *out = server_read(&server, "stdout.log");
    ck_assert_str_eq(out, "gpuquote " GQ_VERSION "\n");
    free(out);
    server_cleanup(&server);

    const char *const help[] = {"--help", NULL};
    options.args = help;
    ck_assert_int_eq(server_run(&server, &options), 0);
    out = server_read(&server, "stdout.log");
    ck_assert_int_eq(strncmp(out, "Usage: gpuquote [serve | migrate] [options]\n", 44), 0);
    const char *const mentioned[] = {"--db PATH",
                                     "--port N",
                                     "--port-file PATH",
                                     "--config PATH",
                                     "--listen ADDR",
                                     "--threads N",
                                     "--migrations DIR",
                                     "GPUQUOTE_PORT",
                                     "GPUQUOTE_CORS_ORIGINS",
                                     "GPUQUOTE_REQUEST_TIMEOUT_SECONDS",
                                     "--version",
                                     "gpuquote keys create|list|revoke",
                                     "'gpuquote keys --help'"};
    for (size_t i = 0; i < sizeof mentioned / sizeof mentioned[0]; i++)
        ck_assert_msg(strstr(out, mentioned[i]) != NULL, "--help does not mention %s",
                      mentioned[i]);
    free(out);
    char *err = server_read(&server, "stderr.log");
    ck_assert_str_eq(err, "");
    free(err);
    server_cleanup(&server);
}
END_TEST

struct bad_config {
    const char *arg;     /* one extra argument, or NULL */
    const char *value;   /* its value, or NULL */
    const char *env;     /* one extra variable, or NULL */
    const char *file;    /* a configuration file's text, or NULL */
    const char *message; /* standard error; {file} stands for the file's path */
};

static const struct bad_config bad_configs[] = {
    {"--threads", "0", NULL, NULL, "gpuquote: error: --threads: 0 is out of range 1..64\n"},
    {"--port", "70000", NULL, NULL, "gpuquote: error: --port: 70000 is out of range 0..65535\n"},
    {"--port", NULL, NULL, NULL, "gpuquote: error: --port: missing value\n"},
    {"--bogus", NULL, NULL, NULL, "gpuquote: error: unknown option --bogus\n"},
    {NULL, NULL, "GPUQUOTE_PORT=abc", NULL,
     "gpuquote: error: GPUQUOTE_PORT: \"abc\" is not an integer\n"},
    {NULL, NULL, "GPUQUOTE_REQUEST_TIMEOUT_SECONDS=0", NULL,
     "gpuquote: error: GPUQUOTE_REQUEST_TIMEOUT_SECONDS: 0 is out of range 1..3600\n"},
    {NULL, NULL, "GPUQUOTE_ACCESS_LOG=maybe", NULL,
     "gpuquote: error: GPUQUOTE_ACCESS_LOG: \"maybe\" is not a boolean (true, false, 1 or 0)\n"},
    {NULL, NULL, "GPUQUOTE_QUOTE_EXPIRY_SECONDS=59", NULL,
     "gpuquote: error: GPUQUOTE_QUOTE_EXPIRY_SECONDS: 59 is out of range 60..31536000\n"},
    {NULL, NULL, NULL, "{\"body_limit_bytes\": 10}",
     "gpuquote: error: {file}: body_limit_bytes: 10 is out of range 1024..16777216\n"},
    {NULL, NULL, NULL, "{\"port\": \"8080\"}",
     "gpuquote: error: {file}: port: expected an integer, got a string\n"},
    {NULL, NULL, NULL, "{\"colour\": 1}", "gpuquote: error: {file}: unknown key \"colour\"\n"},
    {"--config", "/", NULL, NULL, "gpuquote: error: --config: /: Is a directory\n"},
};

/* `message` with {file} replaced by `path`. */
static void expand_message(const char *message, const char *path, char *out, size_t size)
{
    const char *mark = strstr(message, "{file}");
    if (mark == NULL)
        snprintf(out, size, "%s", message);
    else
        snprintf(out, size, "%.*s%s%s", (int)(mark - message), message, path, mark + 6);
}

START_TEST(test_operations_bad_configuration)
{
    const struct bad_config *c = &bad_configs[_i];
    struct server server = {0};
    server_prepare(&server);
    const char *args[5] = {NULL};
    const char *env[2] = {c->env, NULL};
    int n = 0;
    char config_path[SERVER_PATH_SIZE] = "";
    if (c->file != NULL) {
        snprintf(config_path, sizeof config_path, "%s", server_path(&server, "bad.json"));
        FILE *file = fopen(config_path, "w");
        ck_assert_ptr_nonnull(file);
        fputs(c->file, file);
        ck_assert_int_eq(fclose(file), 0);
        args[n++] = "--config";
        args[n++] = config_path;
    }
    if (c->arg != NULL)
        args[n++] = c->arg;
    if (c->value != NULL)
        args[n++] = c->value;
    struct server_options options = {args, env, false};
    ck_assert_int_eq(server_run(&server, &options), 2);
    char expected[1024];
    expand_message(c->message, config_path, expected, sizeof expected);
    char *err = server_read(&server, "stderr.log");
    ck_assert_str_eq(err, expected);
    free(err);
    char *out = server_read(&server, "stdout.log");
    ck_assert_str_eq(out, "");
    free(out);
    ck_assert_msg(access(server.db_path, F_OK) != 0, "a database was created");
    server_cleanup(&server);
}
END_TEST

START_TEST(test_operations_database_directory_missing)
{
    struct server server = {0};
    server_prepare(&server);
    char db[SERVER_PATH_SIZE];
    snprintf(db, sizeof db, "%s", server_path(&server, "missing/sub/gpuquote.db"));
    const char *const args[] = {"--db", db, NULL};
    struct server_options options = {args, NULL, false};
    ck_assert_int_eq(server_run(&server, &options), 1);
    char expected[2048];
    snprintf(expected, sizeof expected,
             "gpuquote: error: directory %s/missing/sub of database %s does not exist (create "
             "it first)\n",
             server.dir, db);
    char *err = server_read(&server, "stderr.log");
    ck_assert_str_eq(err, expected);
    free(err);
    ck_assert_int_ne(access(server.port_file, F_OK), 0);
    server_cleanup(&server);
}
END_TEST

START_TEST(test_operations_migrations_missing)
{
    struct server server = {0};
    server_prepare(&server);
    char dir[SERVER_PATH_SIZE];
    snprintf(dir, sizeof dir, "%s", server_path(&server, "no-migrations"));
    const char *const args[] = {"--migrations", dir, NULL};
    struct server_options options = {args, NULL, false};
    ck_assert_int_eq(server_run(&server, &options), 1);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "gpuquote: error: cannot open migrations directory %s/%s: No such file or "
             "directory\n",
             dir, testdb_backend());
    char *err = server_read(&server, "stderr.log");
    ck_assert_str_eq(err, expected);
    free(err);
    ck_assert_msg(access(server.db_path, F_OK) != 0, "%s was created", server.db_path);
    server_cleanup(&server);
}
END_TEST

/* One thread serves, and is no error: libmicrohttpd is not given a pool
 * size it would complain about. */
START_TEST(test_operations_one_thread)
{
    struct server server = {0};
    const char *const args[] = {"--threads", "1", NULL};
    struct server_options options = {args, NULL, false};
    server_start(&server, &options);
    struct http_response *response = http_once(server.port, "GET", "/healthz", NULL, NULL);
    expect_status(response, 200);
    http_response_free(response);
    ck_assert_int_eq(server_stop(&server), 0);
    char *err = server_read(&server, "stderr.log");
    ck_assert_msg(strstr(err, "error") == NULL, "stderr: %s", err);
    free(err);
    server_cleanup(&server);
}
END_TEST

/* A second server on a port in use must fail, not share the port. */
START_TEST(test_operations_port_in_use)
{
    struct server first = {0}, second = {0};
    server_start(&first, NULL);
    char port[16];
    snprintf(port, sizeof port, "%u", (unsigned)first.port);
    const char *const args[] = {"--port", port, NULL};
    struct server_options options = {args, NULL, false};
    ck_assert_int_eq(server_run(&second, &options), 1);
    char expected[192];
    snprintf(expected, sizeof expected,
             "gpuquote: error: cannot listen on 127.0.0.1 port %s: Address already in use "
             "(another port: the setting port, GPUQUOTE_PORT or --port)\n",
             port);
    char *err = server_read(&second, "stderr.log");
    ck_assert_str_eq(err, expected);
    free(err);
    /* Found before the database is touched: none was created. */
    ck_assert_msg(access(second.db_path, F_OK) != 0, "%s was created", second.db_path);
    server_cleanup(&second);

    /* Every connection still reaches the first one. */
    for (int i = 0; i < 20; i++) {
        struct http_response *response = http_once(first.port, "GET", "/readyz", NULL, NULL);
        expect_status(response, 200);
        http_response_free(response);
    }
    server_finish(&first);
}
END_TEST

/* The socket bound before the database serves IPv6 too, and only IPv6
 * on an IPv6 address. Skipped where the machine has no IPv6 loopback. */
START_TEST(test_operations_listens_on_ipv6)
{
    int probe = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 loopback = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    bool usable = probe >= 0 && bind(probe, (struct sockaddr *)&loopback, sizeof loopback) == 0;
    if (probe >= 0)
        close(probe);
    if (!usable) {
        fprintf(stderr, "test_operations_listens_on_ipv6: skipped, no IPv6 loopback here\n");
        return;
    }
    struct server server = {0};
    const char *const args[] = {"--listen", "::1", NULL};
    struct server_options options = {args, NULL, false};
    server_launch(&server, &options);
    ck_assert(
        server_wait_for_text(&server, "stderr.log", "listening on ::1 port ", suite_wait_ms(10)));
    char *written = server_read(&server, "port");
    unsigned port = (unsigned)strtoul(written, NULL, 10);
    free(written);
    ck_assert_uint_gt(port, 0);

    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    loopback.sin6_port = htons((uint16_t)port);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&loopback, sizeof loopback), 0);
    static const char request[] = "GET /healthz HTTP/1.1\r\nHost: [::1]\r\n\r\n";
    ck_assert(raw_send(fd, request, sizeof request - 1));
    char *response = raw_read_response(fd, suite_wait_ms(5), true, NULL);
    ck_assert_ptr_nonnull(response);
    ck_assert_int_eq(raw_status(response), 200);
    ck_assert_str_eq(raw_body(response), "{\"status\":\"ok\",\"version\":\"" GQ_VERSION "\"}");
    free(response);
    close(fd);
    /* Not on IPv4: the address is IPv6 only. */
    ck_assert(raw_connections_refused((uint16_t)port, 200));
    ck_assert_int_eq(server_stop(&server), 0);
    server_cleanup(&server);
}
END_TEST

/* A port file that cannot be written stops the server: whoever asked for
 * it would otherwise wait for a port it never learns. */
START_TEST(test_operations_port_file_unwritable)
{
    struct server server = {0};
    server_prepare(&server);
    char port_file[SERVER_PATH_SIZE];
    snprintf(port_file, sizeof port_file, "%s", server_path(&server, "missing/port"));
    const char *const args[] = {"--port-file", port_file, NULL};
    struct server_options options = {args, NULL, false};
    ck_assert_int_eq(server_run(&server, &options), 1);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "gpuquote: error: cannot write the port to %s: No such file or directory\n",
             port_file);
    char *err = server_read(&server, "stderr.log");
    ck_assert_msg(strstr(err, expected) != NULL, "stderr: %s", err);
    ck_assert_msg(strstr(err, "listening on") == NULL, "stderr: %s", err);
    free(err);
    server_cleanup(&server);
}
END_TEST

/* A misspelt variable is named on standard error, and serving goes on. */
static int occurrences(const char *text, const char *needle)
{
    int count = 0;
    for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle))
        count++;
    return count;
}

/* The start-up log says where the page is, and which keys are in force,
 * once each: the catalog watch's first reload of the same keys is silent. */
START_TEST(test_operations_start_up_log_says_each_thing_once)
{
    struct server server = {0};
    const char *const env[] = {"GPUQUOTE_CATALOG_POLL_MS=50", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    suite_sleep_ms(400); /* several polls of the catalog watch */
    ck_assert_int_eq(server_stop(&server), 0);
    char *err = server_read(&server, "stderr.log");
    char page[96];
    snprintf(page, sizeof page, "the storefront page is http://127.0.0.1:%u/\n",
             (unsigned)server.port);
    ck_assert_msg(occurrences(err, page) == 1, "stderr: %s", err);
    ck_assert_msg(occurrences(err, "keys loaded: 1 in force") == 1, "stderr: %s", err);
    free(err);
    server_cleanup(&server);
}
END_TEST

START_TEST(test_operations_unknown_variable_warned)
{
    struct server server = {0};
    const char *const env[] = {"GPUQUOTE_PROT=9999", "GPUQUOTE_THREADS=1", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    ck_assert_int_eq(server_stop(&server), 0);
    char *err = server_read(&server, "stderr.log");
    ck_assert_msg(strstr(err, "gpuquote: warning: environment variable GPUQUOTE_PROT is not a "
                              "configuration key: ignored\n") != NULL,
                  "stderr: %s", err);
    ck_assert_msg(strstr(err, "GPUQUOTE_THREADS") == NULL, "stderr: %s", err);
    free(err);
    server_cleanup(&server);
}
END_TEST

/* Valgrind keeps descriptors of its own below the hard limit and shows the
 * server its soft limit as both: the figures then are valgrind's, and a
 * soft limit cannot be seen raised. */
static bool under_a_wrapper(void)
{
    const char *wrapper = getenv("GPUQUOTE_WRAPPER");
    return wrapper != NULL && wrapper[0] != '\0';
}

/* A hard open-files limit of 256 cannot hold 1024 connections beside the
 * 116 descriptors a default server needs otherwise (3 standard streams, 7
 * for the listener and two threads' wake-ups, 15 for five database
 * connections, 51 for 16 webhook deliveries, 8 workers, a margin of 32):
 * one warning with the figures, both limits lowered (the per-address one,
 * unset, stays a quarter of the other), and it serves. */
START_TEST(test_operations_connection_limit_fits_open_files)
{
    struct server server = {.open_files_soft = 200, .open_files_hard = 256};
    server_start(&server, NULL);
    struct http_client *to = http_client_new(server.port);
    struct http_response *catalog = http_get(to, "/catalog");
    expect_status(catalog, 200);
    http_response_free(catalog);
    http_client_free(to);
    ck_assert_int_eq(server_stop(&server), 0);
    char *err = server_read(&server, "stderr.log");
    static const char marker[] = "gpuquote: warning: open files: the limit of ";
    const char *line = strstr(err, marker);
    ck_assert_msg(line != NULL, "no warning: %s", err);
    ck_assert_msg(strstr(line + 1, marker) == NULL, "warned twice: %s", err);
    unsigned limit = (unsigned)strtoul(line + sizeof marker - 1, NULL, 10);
    ck_assert_uint_eq(limit, under_a_wrapper() ? limit : 256); /* the soft 200 raised */
    char expected[400];
    snprintf(expected, sizeof expected,
             "the limit of %u descriptors, less the 116 the server needs besides connections, "
             "leaves %u: connection_limit lowered from 1024 to %u, per_ip_connection_limit from "
             "256 to %u (raise the hard limit, ulimit -Hn or systemd's LimitNOFILE, to serve "
             "more)\n",
             limit, limit - 116, limit - 116, (limit - 116) / 4); /* unset: a quarter of each */
    ck_assert_msg(strstr(line, expected) != NULL, "expected \"%s\" in: %s", expected, err);
    free(err);
    server_cleanup(&server);
}
END_TEST

/* A soft limit of 128 under a hard one of 1024 is raised to 1024, where
 * connection_limit 600 fits: no warning, and the metrics show the limit. */
START_TEST(test_operations_soft_open_files_raised)
{
    struct server server = {.open_files_soft = 128, .open_files_hard = 1024};
    const char *const env[] = {"GPUQUOTE_CONNECTION_LIMIT=600", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    struct http_client *to = http_client_new(server.port);
    struct http_response *metrics = http_get(to, "/metrics");
    expect_status(metrics, 200);
    const char *max_fds = strstr(metrics->body, "\nprocess_max_fds ");
    ck_assert_msg(max_fds != NULL, "no process_max_fds: %s", metrics->body);
    unsigned long shown = strtoul(max_fds + strlen("\nprocess_max_fds "), NULL, 10);
    ck_assert_uint_eq(shown, under_a_wrapper() ? shown : 1024);
    http_response_free(metrics);
    http_client_free(to);
    ck_assert_int_eq(server_stop(&server), 0);
    char *err = server_read(&server, "stderr.log");
    ck_assert_msg(under_a_wrapper() || strstr(err, "open files") == NULL, "stderr: %s", err);
    free(err);
    server_cleanup(&server);
}
END_TEST

/* A configuration error (exit 2), found before the database is created. */
START_TEST(test_operations_bad_listen_address)
{
    struct server server = {0};
    const char *const args[] = {"--listen", "999.1.1.1", NULL};
    struct server_options options = {args, NULL, false};
    ck_assert_int_eq(server_run(&server, &options), 2);
    char *err = server_read(&server, "stderr.log");
    ck_assert_msg(strstr(err, "gpuquote: error: --listen: '999.1.1.1' is not a numeric IPv4 or "
                              "IPv6 address\n") != NULL,
                  "stderr: %s", err);
    free(err);
    ck_assert_msg(access(server.db_path, F_OK) != 0, "%s was created", server.db_path);
    server_cleanup(&server);
}
END_TEST

/* Stop, then start again on the very port just released (connections to it
 * may still be in TIME_WAIT). */
START_TEST(test_operations_restart_on_same_port)
{
    struct server first = {0}, second = {0};
    server_start(&first, NULL);
    struct http_client *to = http_client_new(first.port);
    struct http_response *response = http_get(to, "/catalog");
    expect_status(response, 200);
    http_response_free(response);
    char port[16];
    snprintf(port, sizeof port, "%u", (unsigned)first.port);
    server_finish(&first);
    http_client_free(to);

    const char *const args[] = {"--port", port, NULL};
    struct server_options options = {args, NULL, false};
    server_start(&second, &options);
    ck_assert_uint_eq(second.port, first.port);
    response = http_once(second.port, "GET", "/readyz", NULL, NULL);
    expect_status(response, 200);
    http_response_free(response);
    server_finish(&second);
}
END_TEST

/* ---- the process: a body that never finishes ------------------------------------ */

START_TEST(test_operations_request_timeout)
{
    struct server server = {0};
    const char *const env[] = {"GPUQUOTE_REQUEST_TIMEOUT_SECONDS=1", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    struct http_client *other = http_client_new(server.port);

    int fd = raw_connect(server.port);
    ck_assert_int_ge(fd, 0);
    const char *body = INT8_BODY;
    char headers[256];
    snprintf(headers, sizeof headers,
             "POST /recommend HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n\r\n",
             strlen(body));
    long long started = suite_now_ms();
    ck_assert(raw_send(fd, headers, strlen(headers)));
    /* A byte every 100 ms: half a second in, others are served. */
    ck_assert_uint_eq(raw_trickle(fd, body, 5, 1, 100), 5);
    struct http_response *response = http_get(other, "/healthz");
    expect_status(response, 200);
    http_response_free(response);

    size_t sent = 5 + raw_trickle(fd, body + 5, strlen(body) - 5, 1, 100);
    long long cut = suite_now_ms() - started;
    ck_assert_msg(sent < strlen(body), "the whole body (%zu bytes over %lld ms) was taken", sent,
                  cut);
    ck_assert_msg(cut >= 1000 && cut <= 1000 + suite_wait_ms(1.5), "cut off after %lld ms", cut);
    bool closed = false;
    char *nothing = raw_read_response(fd, suite_wait_ms(2), true, &closed);
    ck_assert_msg(nothing == NULL, "answered: %s", nothing);
    ck_assert(closed);
    close(fd);

    response = http_get(other, "/healthz");
    expect_status(response, 200);
    http_response_free(response);
    json_t *line = find_access_line(&server, "/recommend");
    ck_assert_ptr_nonnull(line);
    expect_text(line, "status", "0"); /* no response was sent */
    expect_text(line, "bytes", "0");
    expect_str(line, "interrupted", "timeout");
    json_decref(line);

    /* The deadline runs from the request line: headers that end late, but
     * before the connection is cut, get 408 even without a body. */
    fd = raw_connect(server.port);
    ck_assert_int_ge(fd, 0);
    const char *slow = "GET /readyz HTTP/1.1\r\nHost: test\r\n";
    ck_assert(raw_send(fd, slow, strlen(slow)));
    ck_assert_uint_eq(raw_trickle(fd, "X-Slow: 1\r\n", 12, 1, 100), 12); /* 1.2 s */
    ck_assert(raw_send(fd, "\r\n", 2));
    char *late = raw_read_response(fd, suite_wait_ms(2), true, &closed);
    ck_assert_ptr_nonnull(late);
    ck_assert_int_eq(raw_status(late), 408);
    ck_assert_str_eq(raw_body(late), "{\"error\":{\"code\":\"request_timeout\",\"message\":"
                                     "\"the request took longer than 1 s to arrive\"}}");
    free(late);
    close(fd);

    http_client_free(other);
    server_finish(&server);
}
END_TEST

/* Sends `text` a byte every 100 ms until the server closes the connection;
 * returns the milliseconds from `started` to the close, or -1 when all of
 * it went out. */
static long long trickle_until_cut(int fd, const char *text, long long started)
{
    size_t length = strlen(text);
    if (raw_trickle(fd, text, length, 1, 100) == length)
        return -1;
    return suite_now_ms() - started;
}

/* A request still arriving a second after its deadline is cut, though
 * every byte resets libmicrohttpd's idle timeout, and though the handler
 * never sees the bytes: without the cut a client could hold a connection
 * for days, a byte every 29 s. The deadline (1 s here) runs from the
 * request line; a request line has the idle timeout (1 s) before it. */
START_TEST(test_operations_slow_request_line_and_headers)
{
    struct server server = {0};
    const char *const env[] = {"GPUQUOTE_REQUEST_TIMEOUT_SECONDS=1",
                               "GPUQUOTE_CONNECTION_TIMEOUT_SECONDS=1", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    /* 40 lines of 12 bytes, a byte every 100 ms: 48 s if not cut. */
    char lines[512] = "";
    for (int i = 0; i < 40; i++)
        snprintf(lines + strlen(lines), sizeof lines - strlen(lines), "X-Slow%02d: 1\r\n", i);

    /* Headers. */
    int fd = raw_connect(server.port);
    ck_assert_int_ge(fd, 0);
    const char *start = "GET /headers-never-end HTTP/1.1\r\nHost: test\r\n";
    long long started = suite_now_ms();
    ck_assert(raw_send(fd, start, strlen(start)));
    long long cut = trickle_until_cut(fd, lines, started);
    ck_assert_msg(cut >= 2000 && cut <= 2000 + suite_wait_ms(1.5), "cut off after %lld ms", cut);
    bool closed = false;
    char *nothing = raw_read_response(fd, suite_wait_ms(2), true, &closed);
    ck_assert_msg(nothing == NULL, "answered: %s", nothing);
    ck_assert(closed);
    close(fd);
    json_t *logged = find_access_line(&server, "/headers-never-end");
    ck_assert_ptr_nonnull(logged);
    ck_assert_str_eq(json_keys(logged, ""), "ts,client,path,status,bytes,us,interrupted");
    expect_text(logged, "status", "0");
    expect_str(logged, "interrupted", "timeout");
    json_decref(logged);

    /* The trailers of a chunked body, which the handler never sees. */
    fd = raw_connect(server.port);
    ck_assert_int_ge(fd, 0);
    start = "POST /trailers-never-end HTTP/1.1\r\nHost: test\r\nX-Request-Id: trailers\r\n"
            "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n";
    started = suite_now_ms();
    ck_assert(raw_send(fd, start, strlen(start)));
    cut = trickle_until_cut(fd, lines, started);
    ck_assert_msg(cut >= 2000 && cut <= 2000 + suite_wait_ms(1.5), "cut off after %lld ms", cut);
    close(fd);
    logged = find_access_line(&server, "/trailers-never-end");
    ck_assert_ptr_nonnull(logged);
    expect_str(logged, "request_id", "trailers");
    expect_text(logged, "status", "0");
    expect_str(logged, "interrupted", "timeout");
    json_decref(logged);

    /* A request line, after a request on the same connection. */
    fd = raw_connect(server.port);
    ck_assert_int_ge(fd, 0);
    const char *ready = "GET /readyz HTTP/1.1\r\nHost: test\r\n\r\n";
    ck_assert(raw_send(fd, ready, strlen(ready)));
    char *answer = raw_read_response(fd, suite_wait_ms(2), true, NULL);
    ck_assert_ptr_nonnull(answer);
    ck_assert_int_eq(raw_status(answer), 200);
    free(answer);
    started = suite_now_ms();
    cut = trickle_until_cut(fd, "GET /request-line-never-ends-0123456789-0123456789", started);
    /* The wait began when the answer was sent, a little before `started`. */
    ck_assert_msg(cut >= 2500 && cut <= 3000 + suite_wait_ms(1.5), "cut off after %lld ms", cut);
    close(fd);

    /* The server goes on. */
    answer = raw_exchange(server.port, ready, suite_wait_ms(2));
    ck_assert_ptr_nonnull(answer);
    ck_assert_int_eq(raw_status(answer), 200);
    free(answer);
    server_finish(&server);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_operations");

    TCase *endpoints = tcase_create("endpoints");
    tcase_add_unchecked_fixture(endpoints, start_shared, stop_shared);
    tcase_add_checked_fixture(endpoints, open_client, close_client);
    suite_set_timeout(endpoints, 10);
    tcase_add_test(endpoints, test_operations_healthz);
    tcase_add_test(endpoints, test_operations_readyz);
    tcase_add_test(endpoints, test_operations_readyz_checks_the_database_once_a_second);
    tcase_add_test(endpoints, test_operations_openapi);
    tcase_add_loop_test(endpoints, test_operations_not_found, 0,
                        (int)(sizeof not_found / sizeof not_found[0]));
    tcase_add_test(endpoints, test_operations_parameter_not_utf8);
    tcase_add_test(endpoints, test_operations_oversized_body_routing);
    tcase_add_loop_test(endpoints, test_operations_method_not_allowed, 0,
                        (int)(sizeof wrong_methods / sizeof wrong_methods[0]));
    tcase_add_test(endpoints, test_operations_keep_alive);
    tcase_add_test(endpoints, test_operations_access_log);
    tcase_add_test(endpoints, test_operations_access_log_library_refusals);
    tcase_add_test(endpoints, test_operations_request_id);
    tcase_add_test(endpoints, test_operations_raw_protocol_errors);
    suite_add_tcase(suite, endpoints);

    TCase *signals = tcase_create("signals");
    suite_set_timeout(signals, 30);
    tcase_add_test(signals, test_operations_sigterm_finishes_request_in_flight);
    tcase_add_test(signals, test_operations_sigterm_with_idle_connections);
    tcase_add_test(signals, test_operations_sighup_reload);
    tcase_add_test(signals, test_operations_reloads_under_load_keep_answers_whole);
    tcase_add_test(signals, test_operations_request_timeout);
    tcase_add_test(signals, test_operations_slow_request_line_and_headers);
    suite_add_tcase(suite, signals);

    TCase *process = tcase_create("process");
    suite_set_timeout(process, 20);
    tcase_add_test(process, test_operations_version_and_help);
    tcase_add_test(process, test_operations_one_thread);
    tcase_add_loop_test(process, test_operations_bad_configuration, 0,
                        (int)(sizeof bad_configs / sizeof bad_configs[0]));
    tcase_add_test(process, test_operations_database_directory_missing);
    tcase_add_test(process, test_operations_migrations_missing);
    tcase_add_test(process, test_operations_port_in_use);
    tcase_add_test(process, test_operations_port_file_unwritable);
    tcase_add_test(process, test_operations_listens_on_ipv6);
    tcase_add_test(process, test_operations_unknown_variable_warned);
    tcase_add_test(process, test_operations_connection_limit_fits_open_files);
    tcase_add_test(process, test_operations_soft_open_files_raised);
    tcase_add_test(process, test_operations_start_up_log_says_each_thing_once);
    tcase_add_test(process, test_operations_bad_listen_address);
    tcase_add_test(process, test_operations_restart_on_same_port);
    suite_add_tcase(suite, process);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
