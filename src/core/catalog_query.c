/*
 * Parsing catalog query parameters strictly, and selecting and sorting SKUs.
 */
#include "core/catalog_query.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/names.h"

/* Bounds on integer filters: far above any real machine, low enough that
 * nothing downstream can overflow. */
#define QUERY_MAX_MEMORY_GB 1000000
#define QUERY_MAX_GPU_COUNT 1024

enum query_param {
    PARAM_GPU,
    PARAM_MIN_MEMORY_GB,
    PARAM_MIN_TOTAL_MEMORY_GB,
    PARAM_GPU_COUNT,
    PARAM_MAX_HOURLY,
    PARAM_SORT,
    PARAM_COUNT
};

static const char *const param_names[PARAM_COUNT] = {
    [PARAM_GPU] = "gpu",
    [PARAM_MIN_MEMORY_GB] = "min_memory_gb",
    [PARAM_MIN_TOTAL_MEMORY_GB] = "min_total_memory_gb",
    [PARAM_GPU_COUNT] = "gpu_count",
    [PARAM_MAX_HOURLY] = "max_hourly",
    [PARAM_SORT] = "sort",
};

static const char *const sort_names[] = {
    [CATALOG_SORT_ID] = "id",
    [CATALOG_SORT_PRICE] = "price",
    [CATALOG_SORT_MEMORY] = "memory",
    [CATALOG_SORT_TFLOPS] = "tflops",
};

void catalog_query_init(struct catalog_query *query)
{
    memset(query, 0, sizeof *query);
    query->max_hourly = -1;
    query->sort = CATALOG_SORT_ID;
}

bool catalog_query_is_empty(const struct catalog_query *query)
{
    return query->gpu[0] == '\0' && query->min_memory_gb == 0 && query->min_total_memory_gb == 0 &&
           query->gpu_count == 0 && query->max_hourly < 0 && query->sort == CATALOG_SORT_ID &&
           !query->descending;
}

/* Digits only, no sign or spaces, within [min, max]. Leading zeros do not
 * count toward the 9 digits that always fit a long ("0016" is 16). */
static bool parse_bounded_int(const char *text, int32_t min, int32_t max, int32_t *out)
{
    if (*text == '\0')
        return false;
    for (const char *p = text; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    const char *significant = text + strspn(text, "0");
    if (strlen(significant) > 9)
        return false;
    long value = strtol(significant, NULL, 10);
    if (value < min || value > max)
        return false;
    *out = (int32_t)value;
    return true;
}

/* Each parser writes its output only when the whole value is valid, so a
 * refused parameter leaves the query as it was. */
static bool parse_gpu(const char *text, char out[CATALOG_QUERY_GPU_SIZE])
{
    size_t length = strlen(text);
    if (length == 0 || length >= CATALOG_QUERY_GPU_SIZE)
        return false;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        if (!isalnum(c) && c != '-' && c != '_')
            return false;
    }
    for (size_t i = 0; i <= length; i++)
        out[i] = (char)tolower((unsigned char)text[i]);
    return true;
}

static bool parse_sort(const char *text, enum catalog_sort *sort, bool *descending)
{
    bool minus = text[0] == '-';
    const char *key = minus ? text + 1 : text;
    int index = names_find(sort_names, sizeof sort_names / sizeof sort_names[0], key);
    if (index < 0)
        return false;
    *sort = (enum catalog_sort)index;
    *descending = minus;
    return true;
}

static int find_param(const char *name)
{
    return names_find(param_names, PARAM_COUNT, name);
}

static bool parse_value(struct catalog_query *query, enum query_param param, const char *value)
{
    switch (param) {
    case PARAM_GPU:
        return parse_gpu(value, query->gpu);
    case PARAM_MIN_MEMORY_GB:
        return parse_bounded_int(value, 0, QUERY_MAX_MEMORY_GB, &query->min_memory_gb);
    case PARAM_MIN_TOTAL_MEMORY_GB:
        return parse_bounded_int(value, 0, QUERY_MAX_MEMORY_GB, &query->min_total_memory_gb);
    case PARAM_GPU_COUNT:
        return parse_bounded_int(value, 1, QUERY_MAX_GPU_COUNT, &query->gpu_count);
    case PARAM_MAX_HOURLY:
        return money_parse(value, &query->max_hourly);
    case PARAM_SORT:
        return parse_sort(value, &query->sort, &query->descending);
    case PARAM_COUNT:
        break;
    }
    return false;
}

static enum gq_msg expected_form(enum query_param param)
{
    switch (param) {
    case PARAM_GPU:
        return MSG_FORM_GPU;
    case PARAM_MIN_MEMORY_GB:
    case PARAM_MIN_TOTAL_MEMORY_GB:
        return MSG_FORM_GB;
    case PARAM_GPU_COUNT:
        return MSG_FORM_CARDS;
    case PARAM_MAX_HOURLY:
        return MSG_FORM_HOURLY;
    case PARAM_SORT:
    case PARAM_COUNT:
        break;
    }
    return MSG_FORM_SORT;
}

enum gq_code catalog_query_set(struct catalog_query *query, const char *name, const char *value,
                               struct gq_error *err)
{
    if (name[0] == '\0') /* "?=x": there is no name for `field` to give */
        return gq_fail_msg(err, GQ_ERR_INVALID_PARAMETER, NULL, MSG_PARAM_NO_NAME);
    int param = find_param(name);
    if (param < 0) {
        return gq_fail_msg(err, GQ_ERR_INVALID_PARAMETER, name, MSG_PARAM_UNKNOWN,
                           MSG_TEXT_CUT(name, 40));
    }
    if (query->seen & (1u << param))
        return gq_fail_msg(err, GQ_ERR_INVALID_PARAMETER, name, MSG_PARAM_TWICE, MSG_TEXT(name));
    if (value == NULL || !parse_value(query, (enum query_param)param, value))
        return gq_fail_msg(err, GQ_ERR_INVALID_PARAMETER, name, MSG_PARAM_FORM, MSG_TEXT(name),
                           MSG_SAY(expected_form((enum query_param)param)));
    query->seen |= 1u << param;
    return GQ_OK;
}

static bool gpu_matches(const char *wanted, const struct gpu_model *gpu)
{
    return wanted[0] == '\0' || strcasecmp(wanted, gpu->name) == 0;
}

static bool sku_matches(const struct sku *sku, const struct catalog_query *query)
{
    return gpu_matches(query->gpu, sku->gpu) && sku->gpu->memory_gb >= query->min_memory_gb &&
           sku_total_memory_gb(sku) >= query->min_total_memory_gb &&
           (query->gpu_count == 0 || sku->gpu_count == query->gpu_count) &&
           (query->max_hourly < 0 || sku->price[BILLING_ON_DEMAND] <= query->max_hourly);
}

/* qsort has no context argument in C11: the comparison reads these. They
 * are per-thread so concurrent requests cannot see each other's. */
static _Thread_local const struct catalog *sort_catalog;
static _Thread_local const struct catalog_query *sort_query;

static int compare_keys(const struct sku *a, const struct sku *b, enum catalog_sort sort)
{
    switch (sort) {
    case CATALOG_SORT_PRICE:
        return (a->price[BILLING_ON_DEMAND] > b->price[BILLING_ON_DEMAND]) -
               (a->price[BILLING_ON_DEMAND] < b->price[BILLING_ON_DEMAND]);
    case CATALOG_SORT_MEMORY:
        return (sku_total_memory_gb(a) > sku_total_memory_gb(b)) -
               (sku_total_memory_gb(a) < sku_total_memory_gb(b));
    case CATALOG_SORT_TFLOPS:
        return (sku_total_fp16_tflops(a) > sku_total_fp16_tflops(b)) -
               (sku_total_fp16_tflops(a) < sku_total_fp16_tflops(b));
    case CATALOG_SORT_ID:
        break;
    }
    return 0;
}

/* The sort key, then the id, so equal keys keep a stable, documented order
 * (ids ascending) in either direction. */
static int compare_indices(const void *left, const void *right)
{
    const struct sku *a = &sort_catalog->skus[*(const size_t *)left];
    const struct sku *b = &sort_catalog->skus[*(const size_t *)right];
    int order = compare_keys(a, b, sort_query->sort);
    if (sort_query->descending)
        order = -order;
    if (order == 0)
        order = strcmp(a->id, b->id);
    if (sort_query->sort == CATALOG_SORT_ID && sort_query->descending)
        order = -order;
    return order;
}

size_t catalog_query_run(const struct catalog *catalog, const struct catalog_query *query,
                         size_t *indices)
{
    size_t count = 0;
    for (size_t i = 0; i < catalog->n_skus; i++)
        if (sku_matches(&catalog->skus[i], query))
            indices[count++] = i;
    bool already_ordered = query->sort == CATALOG_SORT_ID && !query->descending;
    if (!already_ordered && count > 1) {
        sort_catalog = catalog;
        sort_query = query;
        qsort(indices, count, sizeof *indices, compare_indices);
    }
    return count;
}

void catalog_query_canonical(const struct catalog_query *query,
                             char buf[CATALOG_QUERY_CANONICAL_SIZE])
{
    char money[MONEY_FORMAT_SIZE];
    snprintf(buf, CATALOG_QUERY_CANONICAL_SIZE,
             "gpu=%s&min_memory_gb=%d&min_total_memory_gb=%d&gpu_count=%d&max_hourly=%s&sort=%s%s",
             query->gpu, (int)query->min_memory_gb, (int)query->min_total_memory_gb,
             (int)query->gpu_count,
             query->max_hourly < 0 ? "" : money_format(query->max_hourly, money),
             query->descending ? "-" : "", sort_names[query->sort]);
}
