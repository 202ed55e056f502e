/*
 * Answers (reply.c): the one table from error code to HTTP status, the
 * error envelope, JSON bodies, cached bodies with their entity tags, and
 * the headers every answer carries.
 */
#ifndef GQ_HTTP_REPLY_H
#define GQ_HTTP_REPLY_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/messages.h"
#include "http/request.h"

/* The HTTP status for an error code. */
unsigned reply_status_for(enum gq_code code);

/* A response holding `body` serialised (compact, reals to 12 digits), its
 * length recorded in the request for the access log; steals `body`. NULL
 * when memory runs out. */
struct MHD_Response *reply_make_json(struct http_request *request, json_t *body);

/* Adds the headers every response carries (CORS for allowed origins,
 * Content-Type when given), records status and size for the access log,
 * queues it and drops the caller's reference. `response` may be NULL
 * (memory ran out): a bare 500 is queued instead. */
enum MHD_Result reply_queue(struct http_request *request, unsigned status,
                            struct MHD_Response *response);

/* A JSON response holding `text` (stolen; freed by libmicrohttpd). */
struct MHD_Response *reply_make_text(struct http_request *request, char *text);

/* reply_make_json + reply_queue. */
enum MHD_Result reply_json(struct http_request *request, unsigned status, json_t *body);

/* A page of a list endpoint: 200 {"data": data, "has_more": has_more}.
 * Steals `data`; NULL (memory ran out building it) is a 500. */
enum MHD_Result reply_page(struct http_request *request, json_t *data, bool has_more);

/* A 201 holding `body` (stolen) with a Location of the path that
 * `location_format` makes; `no_store` for a body that shows a secret once. */
enum MHD_Result reply_created(struct http_request *request, json_t *body, bool no_store,
                              const char *location_format, ...)
    __attribute__((format(printf, 4, 5)));

/* The error envelope {"error":{"code","message","field"}} for `err`, with
 * the status of its code; 405 adds Allow, 503 adds Retry-After. */
enum MHD_Result reply_error(struct http_request *request, const struct gq_error *err);

/* reply_error for a code and a formatted message; `field` may be NULL.
 * The message is English whatever the request's language: for the few
 * failures that are the server's (a 500 says its own translated sentence
 * and logs this one). A client's mistake is reply_fail_msg(). */
enum MHD_Result reply_fail(struct http_request *request, enum gq_code code, const char *field,
                           const char *format, ...) __attribute__((format(printf, 4, 5)));

/* reply_error for message `id` of the message tables, said in the
 * request's language. Use reply_fail_msg(). */
enum MHD_Result reply_fail_args(struct http_request *request, enum gq_code code, const char *field,
                                enum gq_msg id, const struct msg_arg *args, size_t n_args);

/* reply_fail_args with its arguments in line, as gq_fail_msg() takes them. */
#define reply_fail_msg(request, code, field, id, ...)                                              \
    reply_fail_args((request), (code), (field), (id),                                              \
                    (const struct msg_arg[]){MSG_TEXT(NULL), __VA_ARGS__} + 1,                     \
                    sizeof((const struct msg_arg[]){MSG_TEXT(NULL), __VA_ARGS__}) /                \
                            sizeof(struct msg_arg) -                                               \
                        1)

/* Marks the answer as written in the request's language: it will carry
 * Content-Language and Vary: Accept-Language. */
void reply_in_language(struct http_request *request);

#define JSON_CONTENT_TYPE "application/json"

/* Sends a body that outlives the request (snapshot or static data) with
 * its ETag and Cache-Control, or 304 when If-None-Match matches `etag`. */
enum MHD_Result reply_cached(struct http_request *request, const char *content_type,
                             const char *body, size_t length, const char *etag);

/* Queues `response`, a body of `length` bytes tagged `etag` that caches may
 * keep, as a 200 with its ETag, Cache-Control and Content-Type; a NULL
 * response is a 500. */
enum MHD_Result reply_cacheable(struct http_request *request, struct MHD_Response *response,
                                const char *content_type, size_t length, const char *etag);

/* 304 for a client whose copy, tagged `etag`, is current: no body, and a
 * Content-Length that is the 200's, `full_length` (RFC 9110 8.6). */
enum MHD_Result reply_not_modified(struct http_request *request, size_t full_length,
                                   const char *etag);

/* True when the request's If-None-Match names `etag` (or is "*"). */
bool reply_etag_matches(struct http_request *request, const char *etag);

/* True when one If-None-Match field value lists `etag` (weakly) or is "*". */
bool reply_etag_list_matches(const char *list, const char *etag);

#endif
