/*
 * Replaying one fuzz input through the core's text parsers: money_parse
 * (with the checked arithmetic on what it parses) and the catalog query
 * parser. Core only: no jansson, no libmicrohttpd.
 *
 * Each replay checks its invariants with FUZZ_CHECK (which aborts) and
 * returns what happened, so a regression test can assert the outcome the
 * fix produces.
 */
#ifndef GQ_TESTS_FUZZ_REPLAY_CORE_H
#define GQ_TESTS_FUZZ_REPLAY_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/catalog_query.h"
#include "core/money.h"
#include "fuzz/fuzz.h"

/* ---- money ------------------------------------------------------------- */

/* The grammar of money_parse written out again, independently: digits,
 * optionally "." and one or two digits, at most MONEY_MAX fen. */
static inline bool fuzz_money_reference(const char *text, gq_money *out)
{
    size_t digits = strspn(text, "0123456789");
    if (digits == 0)
        return false;
    const char *rest = text + digits;
    size_t decimals = 0;
    if (rest[0] == '.') {
        decimals = strspn(rest + 1, "0123456789");
        if (decimals < 1 || decimals > 2)
            return false;
        rest += 1 + decimals;
    }
    if (rest[0] != '\0')
        return false;
    __extension__ unsigned __int128 fen = 0;
    for (size_t i = 0; i < digits; i++) {
        fen = fen * 10 + (unsigned)(text[i] - '0');
        if (fen > (unsigned __int128)MONEY_MAX)
            return false; /* the yuan alone are too many; stop before 128 bits overflow */
    }
    fen *= 100;
    if (decimals >= 1)
        fen += (unsigned)(text[digits + 1] - '0') * 10u;
    if (decimals == 2)
        fen += (unsigned)(text[digits + 2] - '0');
    if (fen > (unsigned __int128)MONEY_MAX)
        return false;
    *out = (gq_money)fen;
    return true;
}

/* The text money_format must produce, from the definition. */
static inline void fuzz_money_expected_text(gq_money value, char *buf, size_t size)
{
    __extension__ __int128 wide = value;
    __extension__ unsigned __int128 magnitude = (unsigned __int128)(wide < 0 ? -wide : wide);
    snprintf(buf, size, "%s%llu.%02llu", value < 0 ? "-" : "",
             (unsigned long long)(magnitude / 100), (unsigned long long)(magnitude % 100));
}

static inline void fuzz_check_format(gq_money value)
{
    char text[MONEY_FORMAT_SIZE], expected[64];
    memset(text, 'x', sizeof text);
    money_format(value, text);
    FUZZ_CHECK(memchr(text, '\0', sizeof text) != NULL);
    fuzz_money_expected_text(value, expected, sizeof expected);
    FUZZ_CHECK(strcmp(text, expected) == 0);
    if (value >= 0 && value <= MONEY_MAX) {
        gq_money back = -1;
        FUZZ_CHECK(money_parse(text, &back));
        FUZZ_CHECK(back == value);
    }
}

/* a × num ÷ den rounded half away from zero, from the definition. */
static inline bool fuzz_scale_reference(gq_money a, int64_t num, int64_t den, gq_money *out)
{
    __extension__ __int128 product = (__int128)a * num;
    __extension__ unsigned __int128 magnitude =
        (unsigned __int128)(product < 0 ? -product : product);
    __extension__ unsigned __int128 quotient = magnitude / (unsigned __int128)den;
    if ((magnitude % (unsigned __int128)den) * 2 >= (unsigned __int128)den)
        quotient++;
    __extension__ __int128 result = product < 0 ? -(__int128)quotient : (__int128)quotient;
    if (result > INT64_MAX || result < INT64_MIN)
        return false;
    *out = (gq_money)result;
    return true;
}

/* The checked arithmetic on two parsed amounts, against 128-bit results:
 * a result that fits is exact, one that does not is refused and leaves
 * the output alone. */
static inline void fuzz_check_arithmetic(gq_money a, gq_money b)
{
    const gq_money untouched = 0x5a5a5a5a5a5a5a5aLL;
    __extension__ __int128 wide;
    gq_money out;

    out = untouched;
    wide = (__int128)a + b;
    FUZZ_CHECK(money_add(a, b, &out) == (wide >= INT64_MIN && wide <= INT64_MAX));
    FUZZ_CHECK(out == (wide >= INT64_MIN && wide <= INT64_MAX ? (gq_money)wide : untouched));

    out = untouched;
    wide = (__int128)a - b;
    FUZZ_CHECK(money_sub(a, b, &out) == (wide >= INT64_MIN && wide <= INT64_MAX));
    FUZZ_CHECK(out == (wide >= INT64_MIN && wide <= INT64_MAX ? (gq_money)wide : untouched));
    if (out != untouched)
        fuzz_check_format(out);

    /* Products of amounts leave MONEY_MAX far behind and reach INT64_MAX. */
    out = untouched;
    wide = (__int128)a * b;
    FUZZ_CHECK(money_mul(a, b, &out) == (wide >= INT64_MIN && wide <= INT64_MAX));
    FUZZ_CHECK(out == (wide >= INT64_MIN && wide <= INT64_MAX ? (gq_money)wide : untouched));
    if (out != untouched) {
        fuzz_check_format(out);
        fuzz_check_format(-out);
    }

    /* Scaling by b/den and -b/den for a few divisors, including b itself
     * (the rate × hours ÷ 1000 and basis-point shapes). */
    const int64_t dens[] = {1, 2, 3, 100, 1000, 10000, b > 0 ? b : 7, INT64_MAX};
    for (size_t i = 0; i < sizeof dens / sizeof dens[0]; i++) {
        for (int sign = -1; sign <= 1; sign += 2) {
            gq_money expected = untouched;
            bool fits = fuzz_scale_reference(a, sign * b, dens[i], &expected);
            out = untouched;
            FUZZ_CHECK(money_scale(a, sign * b, dens[i], &out) == fits);
            FUZZ_CHECK(out == expected);
            if (fits)
                fuzz_check_format(out);
        }
    }
}

/* Up to three amounts separated by ':' ("12.50:3:7"); ':' is not money,
 * so the whole text is also a parse that must fail when one is present. */
#define FUZZ_MONEY_OPERANDS 3

/* Replays `data` as money text. Returns whether money_parse accepted the
 * whole of it; *value gets the amount when it did. */
static inline bool fuzz_replay_money(const uint8_t *data, size_t size, gq_money *value)
{
    char *text = malloc(size + 1);
    FUZZ_CHECK(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0'; /* an embedded NUL ends the text, as in a C caller */

    gq_money parsed = -1, reference = -1;
    bool ok = money_parse(text, &parsed);
    FUZZ_CHECK(ok == fuzz_money_reference(text, &reference));
    FUZZ_CHECK(!ok || parsed == reference);
    FUZZ_CHECK(ok || parsed == -1); /* refused: output untouched */
    if (ok) {
        FUZZ_CHECK(parsed >= 0 && parsed <= MONEY_MAX);
        fuzz_check_format(parsed);
        /* The canonical text is a fixed point: formatting what it parses
         * to gives it back. */
        char canonical[MONEY_FORMAT_SIZE], again[MONEY_FORMAT_SIZE];
        gq_money back = -1;
        money_format(parsed, canonical);
        FUZZ_CHECK(money_parse(canonical, &back) && back == parsed);
        FUZZ_CHECK(strcmp(money_format(back, again), canonical) == 0);
        *value = parsed;
    }

    gq_money operands[FUZZ_MONEY_OPERANDS];
    int n_operands = 0;
    char *save = NULL;
    for (char *part = strtok_r(text, ":", &save); part != NULL && n_operands < FUZZ_MONEY_OPERANDS;
         part = strtok_r(NULL, ":", &save))
        if (money_parse(part, &operands[n_operands]))
            n_operands++;
    for (int i = 0; i < n_operands; i++)
        for (int j = 0; j < n_operands; j++)
            fuzz_check_arithmetic(operands[i], operands[j]);
    if (n_operands == 1)
        fuzz_check_arithmetic(operands[0], MONEY_MAX);
    free(text);
    return ok;
}

/* ---- catalog query ------------------------------------------------------ */

/* What a query string did: the first refusal (as the handler stops at it),
 * and what the query, as far as it got, selected. */
struct fuzz_query_outcome {
    enum gq_code code; /* GQ_OK, or the first refusal's */
    char field[sizeof(((struct gq_error *)0)->field)];
    size_t n_pairs;    /* name=value pairs handed to catalog_query_set */
    size_t n_selected; /* SKUs catalog_query_run returned */
    char canonical[CATALOG_QUERY_CANONICAL_SIZE];
};

static inline int fuzz_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes %XX in place, as libmicrohttpd does for GET arguments; a decoded
 * NUL ends the C string the handler then sees. */
static inline void fuzz_percent_decode(char *text)
{
    char *out = text;
    for (const char *in = text; *in != '\0'; in++) {
        int high, low;
        if (in[0] == '%' && (high = fuzz_hex_digit(in[1])) >= 0 &&
            (low = fuzz_hex_digit(in[2])) >= 0) {
            *out++ = (char)(high * 16 + low);
            in += 2;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
}

/* The filters restated from their documentation. */
static inline bool fuzz_query_selects(const struct catalog_query *query, const struct sku *sku)
{
    if (query->gpu[0] != '\0' && strcasecmp(query->gpu, sku->gpu->name) != 0)
        return false;
    if (sku->gpu->memory_gb < query->min_memory_gb)
        return false;
    if ((int64_t)sku->gpu->memory_gb * sku->gpu_count < query->min_total_memory_gb)
        return false;
    if (query->gpu_count != 0 && sku->gpu_count != query->gpu_count)
        return false;
    return query->max_hourly < 0 || sku->price[BILLING_ON_DEMAND] <= query->max_hourly;
}

/* < 0 when `a` must come before `b`: the sort key in the asked direction,
 * then ids ascending; sort=-id is ids descending. */
static inline int fuzz_query_order(const struct catalog_query *query, const struct sku *a,
                                   const struct sku *b)
{
    double key_a = 0, key_b = 0;
    switch (query->sort) {
    case CATALOG_SORT_PRICE:
        key_a = (double)a->price[BILLING_ON_DEMAND];
        key_b = (double)b->price[BILLING_ON_DEMAND];
        break;
    case CATALOG_SORT_MEMORY:
        key_a = (double)a->gpu->memory_gb * a->gpu_count;
        key_b = (double)b->gpu->memory_gb * b->gpu_count;
        break;
    case CATALOG_SORT_TFLOPS:
        key_a = a->gpu->fp16_tflops * a->gpu_count;
        key_b = b->gpu->fp16_tflops * b->gpu_count;
        break;
    case CATALOG_SORT_ID:
        return query->descending ? strcmp(b->id, a->id) : strcmp(a->id, b->id);
    }
    int order = (key_a > key_b) - (key_a < key_b);
    if (query->descending)
        order = -order;
    return order != 0 ? order : strcmp(a->id, b->id);
}

/* Runs the query and checks the selection against the restated filters
 * and order: every index in range, each SKU once, exactly the matching
 * ones, strictly in order. */
static inline size_t fuzz_check_run(const struct catalog *catalog,
                                    const struct catalog_query *query, size_t *indices)
{
    for (size_t i = 0; i <= catalog->n_skus; i++)
        indices[i] = (size_t)-1;
    size_t count = catalog_query_run(catalog, query, indices);
    FUZZ_CHECK(count <= catalog->n_skus);
    FUZZ_CHECK(indices[catalog->n_skus] == (size_t)-1); /* nothing past the room promised */
    size_t expected = 0;
    for (size_t i = 0; i < catalog->n_skus; i++)
        expected += fuzz_query_selects(query, &catalog->skus[i]);
    FUZZ_CHECK(count == expected);
    for (size_t i = 0; i < count; i++) {
        FUZZ_CHECK(indices[i] < catalog->n_skus);
        FUZZ_CHECK(fuzz_query_selects(query, &catalog->skus[indices[i]]));
        if (i > 0)
            FUZZ_CHECK(fuzz_query_order(query, &catalog->skus[indices[i - 1]],
                                        &catalog->skus[indices[i]]) < 0);
    }
    return count;
}

/* Builds a query again from its canonical text: the same text and the
 * same selection must come back. Parameters at their neutral value are
 * left out, since the canonical text shows them empty or 0. */
static inline void fuzz_check_canonical(const struct catalog *catalog,
                                        const struct catalog_query *query, const char *canonical,
                                        size_t *indices)
{
    FUZZ_CHECK(strlen(canonical) < CATALOG_QUERY_CANONICAL_SIZE - 1); /* never truncated */
    struct catalog_query empty, again;
    char empty_text[CATALOG_QUERY_CANONICAL_SIZE], again_text[CATALOG_QUERY_CANONICAL_SIZE];
    catalog_query_init(&empty);
    catalog_query_canonical(&empty, empty_text);
    FUZZ_CHECK(catalog_query_is_empty(query) == (strcmp(canonical, empty_text) == 0));

    char copy[CATALOG_QUERY_CANONICAL_SIZE];
    memcpy(copy, canonical, sizeof copy);
    catalog_query_init(&again);
    char *save = NULL;
    for (char *pair = strtok_r(copy, "&", &save); pair != NULL; pair = strtok_r(NULL, "&", &save)) {
        char *equals = strchr(pair, '=');
        FUZZ_CHECK(equals != NULL);
        *equals = '\0';
        const char *value = equals + 1;
        if (value[0] == '\0' || (strcmp(pair, "gpu_count") == 0 && strcmp(value, "0") == 0))
            continue;
        struct gq_error err;
        FUZZ_CHECK(catalog_query_set(&again, pair, value, &err) == GQ_OK);
    }
    catalog_query_canonical(&again, again_text);
    FUZZ_CHECK(strcmp(again_text, canonical) == 0);

    size_t *selected = malloc((catalog->n_skus + 1) * sizeof *selected);
    FUZZ_CHECK(selected != NULL);
    size_t count = catalog_query_run(catalog, query, selected);
    FUZZ_CHECK(catalog_query_run(catalog, &again, indices) == count);
    FUZZ_CHECK(count == 0 || memcmp(selected, indices, count * sizeof *indices) == 0);
    free(selected);
}

/* Sets one parameter and checks the documented contract: a refusal is
 * invalid_parameter naming the parameter and leaves the query as it was;
 * success marks the parameter seen. */
static inline enum gq_code fuzz_query_set(struct catalog_query *query, const char *name,
                                          const char *value, struct gq_error *err)
{
    struct catalog_query before = *query;
    gq_error_clear(err);
    enum gq_code code = catalog_query_set(query, name, value, err);
    if (code != GQ_OK) {
        FUZZ_CHECK(code == GQ_ERR_INVALID_PARAMETER && err->code == code);
        FUZZ_CHECK(strncmp(err->field, name, sizeof err->field - 1) == 0);
        FUZZ_CHECK(memcmp(&before, query, sizeof before) == 0);
        return code;
    }
    FUZZ_CHECK(value != NULL);
    FUZZ_CHECK(query->seen != before.seen && (query->seen & before.seen) == before.seen);
    FUZZ_CHECK(memchr(query->gpu, '\0', sizeof query->gpu) != NULL);
    FUZZ_CHECK((unsigned)query->sort <= CATALOG_SORT_TFLOPS);
    FUZZ_CHECK(query->max_hourly >= -1 && query->max_hourly <= MONEY_MAX);
    return GQ_OK;
}

/* Replays `data` as a query string against `catalog`: split on '&' and the
 * first '=', percent-decoded, each pair set in turn until one is refused
 * (as the handler does), then run and canonicalised. */
static inline void fuzz_replay_catalog_query(const struct catalog *catalog, const uint8_t *data,
                                             size_t size, struct fuzz_query_outcome *out)
{
    memset(out, 0, sizeof *out);
    char *text = malloc(size + 1);
    size_t *indices = malloc((catalog->n_skus + 1) * sizeof *indices);
    FUZZ_CHECK(text != NULL && indices != NULL);
    memcpy(text, data, size);
    text[size] = '\0';

    struct catalog_query query;
    catalog_query_init(&query);
    FUZZ_CHECK(catalog_query_is_empty(&query));
    char *save = NULL;
    for (char *pair = strtok_r(text, "&", &save); pair != NULL; pair = strtok_r(NULL, "&", &save)) {
        char *equals = strchr(pair, '=');
        const char *value = NULL;
        if (equals != NULL) {
            *equals = '\0';
            fuzz_percent_decode(equals + 1);
            value = equals + 1;
        }
        fuzz_percent_decode(pair);
        if (pair[0] == '\0' && value == NULL)
            continue; /* the handler skips an empty pair */
        out->n_pairs++;
        struct gq_error err;
        if (fuzz_query_set(&query, pair, value, &err) != GQ_OK) {
            out->code = err.code;
            snprintf(out->field, sizeof out->field, "%s", err.field);
            break;
        }
    }

    out->n_selected = fuzz_check_run(catalog, &query, indices);
    catalog_query_canonical(&query, out->canonical);
    fuzz_check_canonical(catalog, &query, out->canonical, indices);
    free(indices);
    free(text);
}

#endif
