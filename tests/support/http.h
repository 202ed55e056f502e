/*
 * A small HTTP client for the integration tests, on libcurl: one request
 * in, one response out with its status, headers (looked up by name in any
 * case), body as text, and the body parsed with jansson when the server
 * says it is JSON.
 *
 * A client keeps one libcurl easy handle, so consecutive requests reuse one
 * keep-alive connection when the server allows it; each response says
 * whether it did and whether the server asked to close.
 *
 * With GPUQUOTE_CONTRACT_LOG set to a file, every response received is
 * appended to it as one JSON line {"method", "path" (no query), "status",
 * "headers": {lower-case name: value}, "body": JSON, null when empty, or a
 * string}, which scripts check against openapi.yaml.
 */
#ifndef GQ_TESTS_SUPPORT_HTTP_H
#define GQ_TESTS_SUPPORT_HTTP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct http_client;

struct http_header {
    char *name; /* lower case */
    char *value;
};

struct http_response {
    long status;     /* 0 when no response arrived (see `error`) */
    char error[256]; /* libcurl's reason when status is 0 */
    int curl_code;   /* libcurl's CURLcode: 0 (CURLE_OK) when a response arrived */
    char *body;      /* NUL-terminated; "" when empty */
    size_t body_length;
    json_t *json; /* the parsed body when Content-Type is JSON, else NULL */
    struct http_header *headers;
    size_t n_headers;
    bool reused_connection; /* no new connection was opened for it */
    long local_port;        /* of the connection it used */
};

/* A client of 127.0.0.1:port. Never NULL (fails the test instead). */
struct http_client *http_client_new(uint16_t port);
void http_client_free(struct http_client *client);

/* The key every client of `port` made from now on sends (the harness
 * registers a server's admin_key when it is ready). */
void http_register_key(uint16_t port, const char *key);

/* A client of `port` that sends no key, whatever is registered. */
struct http_client *http_client_keyless(uint16_t port);

/* The key this client sends ("Authorization: Bearer KEY" on every request
 * that names no Authorization of its own); NULL: none. */
void http_client_set_key(struct http_client *client, const char *key);

/* Keeps the client's responses out of the contract log: a client of
 * something else than gpuquote (a load balancer, whose own 502 and 503 are
 * not the service's). */
void http_client_unlogged(struct http_client *client);

/* Sends `method` `path` with `headers` ("Name: value", NULL-terminated, may
 * be NULL) and `body` (may be NULL) with a Content-Length. HEAD reads no
 * body. libcurl's own "Expect: 100-continue" is off unless a header asks
 * for it. Never NULL; a failed transfer has status 0. */
struct http_response *http_request(struct http_client *client, const char *method, const char *path,
                                   const char *const *headers, const char *body);

/* The same with a body of `length` bytes that may hold NUL bytes. */
struct http_response *http_request_sized(struct http_client *client, const char *method,
                                         const char *path, const char *const *headers,
                                         const char *body, size_t length);

/* The same with the body sent in chunks (Transfer-Encoding: chunked, no
 * Content-Length). */
struct http_response *http_request_chunked(struct http_client *client, const char *method,
                                           const char *path, const char *const *headers,
                                           const char *body);

/* GET `path`. */
struct http_response *http_get(struct http_client *client, const char *path);

/* POST `body` to `path` as application/json. */
struct http_response *http_post_json(struct http_client *client, const char *path,
                                     const char *body);

/* One request on a client of its own, for tests that need no reuse. */
struct http_response *http_once(uint16_t port, const char *method, const char *path,
                                const char *const *headers, const char *body);

/* The value of response header `name` (any case), or NULL. */
const char *http_header(const struct http_response *response, const char *name);

/* True when the server answered "Connection: close". */
bool http_closes(const struct http_response *response);

/* NULL is fine. */
void http_response_free(struct http_response *response);

#endif
