/*
 * The query of a list endpoint (GET /quote, /events, /admin/audit and
 * /admin/webhook-endpoints/{id}/deliveries): named parameters of a few kinds, a limit and a
 * cursor, every other name refused (a typo must not pass in silence), each
 * given at most once.
 */
#ifndef GQ_CODEC_LIST_QUERY_H
#define GQ_CODEC_LIST_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define LIST_PARAMS_MAX 8
#define LIST_LIMIT_DEFAULT 10
#define LIST_LIMIT_MAX 100

enum list_param_kind {
    LIST_TEXT,  /* any text up to 127 bytes */
    LIST_TIME,  /* RFC 3339 or unix seconds */
    LIST_LIMIT, /* 1..LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT when absent */
    LIST_CURSOR /* an id with the param's prefix (`id_prefix`) */
};

struct list_param {
    const char *name;
    enum list_param_kind kind;
    const char *id_prefix; /* LIST_CURSOR: "aud_", "q_", "evt_" */
};

struct list_query {
    bool present[LIST_PARAMS_MAX];
    char text[LIST_PARAMS_MAX][128]; /* LIST_TEXT, LIST_CURSOR */
    int64_t time[LIST_PARAMS_MAX];   /* LIST_TIME */
    size_t limit;                    /* of the LIST_LIMIT param, or the default */
};

/* Reads a list's query a pair at a time, from a connection
 * (request_list_query()) or from bytes (the request fuzzer):
 * list_query_begin(), then list_query_add() for each decoded name and value (NULL: a name without
 * "="), which returns false from the first refusal on (its reason in `err`). */
struct list_query_parser {
    const struct list_param *params;
    size_t count;
    struct list_query *out;
    struct gq_error *err;
    bool failed;
};

/* The text of param `param` (LIST_TEXT, LIST_CURSOR), NULL when absent. */
const char *list_query_text(const struct list_query *query, size_t param);
/* The time of param `param` (LIST_TIME), 0 when absent. */
int64_t list_query_time(const struct list_query *query, size_t param);

void list_query_begin(struct list_query_parser *parser, const struct list_param *params,
                      size_t count, struct list_query *out, struct gq_error *err);
bool list_query_add(struct list_query_parser *parser, const char *name, const char *value);

#endif
