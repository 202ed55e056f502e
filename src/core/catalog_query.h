/*
 * Catalog queries: the filters and sort order of GET /catalog.
 *
 * A query is built one parameter at a time from text (the query string's
 * name=value pairs), so the same parser serves the HTTP handler, the unit
 * tests and the fuzzer. Running it selects and orders SKUs of a catalog
 * without copying them.
 */
#ifndef GQ_CORE_CATALOG_QUERY_H
#define GQ_CORE_CATALOG_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/error.h"

enum catalog_sort {
    CATALOG_SORT_ID, /* default */
    CATALOG_SORT_PRICE,
    CATALOG_SORT_MEMORY,
    CATALOG_SORT_TFLOPS
};

#define CATALOG_QUERY_GPU_SIZE 32
/* Long enough for every parameter at its longest accepted value. */
#define CATALOG_QUERY_CANONICAL_SIZE 256

struct catalog_query {
    char gpu[CATALOG_QUERY_GPU_SIZE]; /* model name, case-insensitive; "" = any */
    int32_t min_memory_gb;            /* per card; 0 = any */
    int32_t min_total_memory_gb;      /* whole instance; 0 = any */
    int32_t gpu_count;                /* exact; 0 = any */
    gq_money max_hourly;              /* on-demand per hour; -1 = any */
    enum catalog_sort sort;
    bool descending; /* "sort=-price" */
    unsigned seen;   /* bit per parameter already set: a repeat is an error */
};

/* An empty query: every SKU, by id. */
void catalog_query_init(struct catalog_query *query);

/* Sets one parameter from its text. Names: gpu, min_memory_gb,
 * min_total_memory_gb, gpu_count, max_hourly, sort. Returns
 * GQ_ERR_INVALID_PARAMETER with err->field = the name for an unknown name,
 * a repeated name, or a malformed or out-of-range value. */
enum gq_code catalog_query_set(struct catalog_query *query, const char *name, const char *value,
                               struct gq_error *err);

/* True when the query selects everything in the default order (no
 * parameter, or only neutral ones such as sort=id), so it can be answered
 * with the full, pre-rendered listing and its entity tag. */
bool catalog_query_is_empty(const struct catalog_query *query);

/* Writes the indices of the matching SKUs, in the query's order, into
 * `indices` (room for catalog->n_skus). Returns how many. */
size_t catalog_query_run(const struct catalog *catalog, const struct catalog_query *query,
                         size_t *indices);

/* A canonical text of the query, every parameter in a fixed order
 * ("gpu=v100&min_memory_gb=0&...&sort=-price"): equal queries give equal
 * text whatever the order and spelling of their parameters, for cache
 * validators. */
void catalog_query_canonical(const struct catalog_query *query,
                             char buf[CATALOG_QUERY_CANONICAL_SIZE]);

#endif
