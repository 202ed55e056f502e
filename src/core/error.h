/*
 * The error vocabulary of gpuquote.
 *
 * Every fallible function in the project returns an `enum gq_code`; GQ_OK is
 * success. Where a caller needs more than the code (which field, a sentence
 * for a human), the function also fills a `struct gq_error`. The HTTP layer
 * alone turns a code into a status and the JSON error envelope, from one table
 * (src/http/reply.c); nothing below it knows about HTTP.
 *
 * The names in gq_code_name() are the stable machine codes clients see in
 * `error.code`: never rename one, only add.
 */
#ifndef GQ_CORE_ERROR_H
#define GQ_CORE_ERROR_H

#include <stddef.h>

#include "core/messages.h"

enum gq_code {
    GQ_OK = 0,
    /* Request shape (400). */
    GQ_ERR_MALFORMED_JSON,    /* body is not JSON */
    GQ_ERR_INVALID_PARAMETER, /* a query parameter is malformed */
    /* Routing and HTTP framing. */
    GQ_ERR_NOT_FOUND,              /* 404: unknown path or id */
    GQ_ERR_METHOD_NOT_ALLOWED,     /* 405 */
    GQ_ERR_REQUEST_TIMEOUT,        /* 408: body too slow */
    GQ_ERR_BODY_TOO_LARGE,         /* 413 */
    GQ_ERR_UNSUPPORTED_MEDIA_TYPE, /* 415 */
    /* Keys and limits. */
    GQ_ERR_UNAUTHENTICATED,      /* 401: no key where one is needed, or a key that is not one */
    GQ_ERR_FORBIDDEN,            /* 403: the key lacks the scope */
    GQ_ERR_SEGMENT_NOT_VERIFIED, /* 403: a segment the customer does not hold */
    GQ_ERR_RATE_LIMITED,         /* 429 */
    /* Conflicts (409). */
    GQ_ERR_IDEMPOTENCY_CONFLICT,
    GQ_ERR_QUOTE_EXPIRED,
    GQ_ERR_QUOTE_NOT_OPEN,             /* accepted already (or, later, canceled) */
    GQ_ERR_PRICE_LIST_NOT_DRAFT,       /* a price list that is published already is not edited */
    GQ_ERR_PRICE_LIST_WOULD_REVERT,    /* a scheduled list would undo another list's changes */
    GQ_ERR_PRICE_LIST_REBASE_CONFLICT, /* a rebase met the same field changed on both sides */
    /* Valid JSON that breaks a rule (422). */
    GQ_ERR_MISSING_FIELD,
    GQ_ERR_UNKNOWN_FIELD,
    GQ_ERR_INVALID_TYPE,
    GQ_ERR_OUT_OF_RANGE,
    GQ_ERR_INVALID_VALUE,
    GQ_ERR_UNKNOWN_SKU,
    GQ_ERR_UNKNOWN_BUNDLE,
    GQ_ERR_NOT_ELIGIBLE,
    GQ_ERR_AMOUNT_TOO_LARGE,         /* an amount does not fit the money type */
    GQ_ERR_PRICE_NOT_POSITIVE,       /* a price list's price of zero or less */
    GQ_ERR_PRICE_ABOVE_HOURLY,       /* a block price above its hours at the on-demand rate */
    GQ_ERR_INVALID_VALIDITY,         /* a validity window that ends before it starts */
    GQ_ERR_PROMOTION_CODE_INVALID,   /* 422: a code that cannot be used (state: why) */
    GQ_ERR_PROMOTION_CODE_EXHAUSTED, /* 409: redeemed as often as it may be */
    GQ_ERR_PROMOTION_CODE_EXISTS,    /* 409: a code of that name exists already */
    /* Service state. */
    GQ_ERR_NOT_READY,   /* 503: the database does not answer (/readyz); at start, cannot serve */
    GQ_ERR_RETRY_LATER, /* 503: database busy */
    GQ_ERR_INTERNAL,    /* 500 */
    GQ_ERR_NO_MEMORY,   /* 500 */
    GQ_CODE_COUNT
};

/* A failure with its context. `field` is a JSON path ("items[0].sku") or a
 * query parameter name, empty when no single field is to blame. `message`
 * is English, the error log's language; a failure made with gq_fail_msg()
 * also has its message in Chinese. (Each language has its member: a third
 * one adds its own, and gq_error_text() learns it.) */
struct gq_error {
    enum gq_code code;
    char field[96];
    char message[256];
    char message_zh_cn[256]; /* "" when the failure has no message id */
    char state[16];          /* quote_not_open, quote_expired: the quote's status; else "" */
};

/* The stable machine name of a code ("unknown_sku"). Never NULL. */
const char *gq_code_name(enum gq_code code);

/* Fills `err` (when not NULL) and returns `code`, so a failing path can say
 * `return gq_fail(err, GQ_ERR_OUT_OF_RANGE, "days", "days must be ...", ...);`.
 * `field` may be NULL. The message is printf-formatted and truncated to fit. */
enum gq_code gq_fail(struct gq_error *err, enum gq_code code, const char *field, const char *format,
                     ...) __attribute__((format(printf, 4, 5)));

/* Fills `err` (when not NULL) with message `id` in every language, its
 * places filled from `args`, and returns `code`. Use gq_fail_msg(). */
enum gq_code gq_fail_args(struct gq_error *err, enum gq_code code, const char *field,
                          enum gq_msg id, const struct msg_arg *args, size_t n_args);

/* gq_fail_args with the arguments written in line:
 * `return gq_fail_msg(err, GQ_ERR_UNKNOWN_SKU, field, MSG_NO_SKU, MSG_TEXT(id));`
 * The arguments are an array of struct msg_arg, so a number passed where a
 * text is wanted does not compile. */
#define gq_fail_msg(err, code, field, id, ...)                                                     \
    gq_fail_args(                                                                                  \
        (err), (code), (field), (id), (const struct msg_arg[]){MSG_TEXT(NULL), __VA_ARGS__} + 1,   \
        sizeof((const struct msg_arg[]){MSG_TEXT(NULL), __VA_ARGS__}) / sizeof(struct msg_arg) -   \
            1)

/* The message in `lang`: its translation when it has one, else the
 * English text. Never NULL. */
const char *gq_error_text(const struct gq_error *err, enum gq_lang lang);

/* Clears `err` to GQ_OK with empty field and message. */
void gq_error_clear(struct gq_error *err);

#endif
