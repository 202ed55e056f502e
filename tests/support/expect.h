/*
 * Assertions on JSON responses that name what they looked at: a value is
 * found by a path ("items[0].cheapest.plan.parts[1].amount") and compared
 * as text, so a failure prints the path, the value received and the value
 * wanted, e.g. `json_str(body, "items[0].amount") == "1641.60"` failed:
 * "1641.59" != "1641.60".
 *
 * The text helpers return strings from a small ring of static buffers:
 * valid until a dozen further calls, which is enough for one assertion.
 */
#ifndef GQ_TESTS_SUPPORT_EXPECT_H
#define GQ_TESTS_SUPPORT_EXPECT_H

#include <check.h>
#include <jansson.h>
#include <stddef.h>

#include "support/http.h"

/* The value at `path` under `root` (borrowed), or NULL when any step is
 * missing. Path steps: `key`, `.key`, `[index]`. "" is the root. */
json_t *json_at(json_t *root, const char *path);

/* The string at `path`, or "<missing PATH>" / "<not a string at PATH: ...>". */
const char *json_str(json_t *root, const char *path);

/* json_str, or "<absent>" when there is nothing at `path`. */
const char *json_optional_str(json_t *root, const char *path);

/* `text`, or "<absent>" for NULL: the other side of json_optional_str. */
const char *optional_text(const char *text);

/* The keys an error object has: "code,message" and ",field" when `field`. */
/* The members an error envelope has: "code,message", then "field" when
 * there is one, then "state" for the codes about a quote's state. */
const char *error_keys_for(const char *field, const char *code);

/* The value at `path` as compact JSON text, reals to 12 significant digits
 * as the server writes them ("18.0", "\"1.50\"", "[1,2]", "true"), or
 * "<missing PATH>". */
const char *json_text(json_t *root, const char *path);

/* The string (or whole number) member `key` of every element of the array
 * at `path`, joined with commas: "t4-16g-x1,v100-16g-x1". "<missing PATH>"
 * when there is no array there. */
const char *json_join(json_t *root, const char *path, const char *key);

/* The keys of the object at `path`, in the order the server wrote them,
 * joined with commas. */
const char *json_keys(json_t *root, const char *path);

/* The number of elements of the array at `path`, or -1. */
long json_count(json_t *root, const char *path);

/* Unix seconds of an RFC 3339 UTC time such as "2026-11-30T17:51:19Z",
 * or -1 when `text` is not exactly of that form. */
long long rfc3339_seconds(const char *text);

/* A short description of a response for failure messages: status, error
 * and the start of the body. */
const char *http_describe(const struct http_response *response);

#define expect_str(root, path, want) ck_assert_str_eq(json_str((root), (path)), (want))
#define expect_text(root, path, want) ck_assert_str_eq(json_text((root), (path)), (want))
#define expect_join(root, path, key, want)                                                         \
    ck_assert_str_eq(json_join((root), (path), (key)), (want))
#define expect_absent(root, path)                                                                  \
    ck_assert_msg(json_at((root), (path)) == NULL, "%s should be absent, is %s", (path),           \
                  json_text((root), (path)))

/* The status; a failure quotes the body (or libcurl's error). */
#define expect_status(response, want)                                                              \
    ck_assert_msg((response)->status == (want), "status %ld, wanted %d: %s", (response)->status,   \
                  (int)(want), http_describe(response))

/* An error envelope: status, error.code, error.field (NULL: no field) and a
 * non-empty error.message, and nothing else in it. The message's wording is
 * left to the tests that care. */
#define expect_error(response, want_status, want_code, want_field)                                 \
    do {                                                                                           \
        expect_status(response, want_status);                                                      \
        ck_assert_msg((response)->json != NULL, "no JSON body: %s", http_describe(response));      \
        ck_assert_str_eq(json_keys((response)->json, ""), "error");                                \
        expect_str((response)->json, "error.code", (want_code));                                   \
        ck_assert_msg(json_str((response)->json, "error.message")[0] != '<' &&                     \
                          json_str((response)->json, "error.message")[0] != '\0',                  \
                      "error.message: %s", json_text((response)->json, "error.message"));          \
        ck_assert_str_eq(json_optional_str((response)->json, "error.field"),                       \
                         optional_text(want_field));                                               \
        ck_assert_str_eq(json_keys((response)->json, "error"),                                     \
                         error_keys_for(want_field, want_code));                                   \
    } while (0)

/* The same for a quote_not_open or quote_expired error: it names the
 * state the quote is in. */
#define expect_error_state(response, want_status, want_code, want_state)                           \
    do {                                                                                           \
        expect_error(response, want_status, want_code, NULL);                                      \
        expect_str((response)->json, "error.state", (want_state));                                 \
    } while (0)

#endif
