/*
 * Bad input through the real server: one table of refused requests, each
 * with the exact status, error code and field it must get, and the server
 * alive and still correct after every one of them.
 *
 * The table covers truncated and malformed JSON, bytes that are not UTF-8
 * (in bodies, keys, paths and query parameters), NUL bytes raw and escaped,
 * numbers beyond int64 and double (1e400, 2^63), -0 and underflow, deep
 * nesting, wrong types and nulls, arrays where objects belong, unknown and
 * duplicate keys, a BOM, trailing garbage, very long strings and keys,
 * bodies of 10 MB declared and chunked, bad headers, wrong methods and
 * malformed HTTP — across /quote, /recommend, /catalog, /quote/{id} and
 * /quote/{id}/accept. Every row would save a quote if it were accepted, so
 * the quote count staying at zero proves none of them wrote.
 *
 * Rows go through libcurl (so their responses are checked against
 * openapi.yaml too) unless libcurl cannot send them: those go over a raw
 * socket. A few rows are answered by libmicrohttpd itself, before any code
 * of ours runs (a Content-Length that is not a number, a broken chunk, a
 * header or URI over its memory pool): those have no error envelope and
 * close the connection, which is all the table asks of them.
 *
 * After the table: GET /catalog is still exactly the five SKUs, the
 * worked example is still 1641.60, nothing was written, and a quote can
 * still be saved and read back. A 10 MB declared body is refused before a
 * byte of it is read. Trickled bodies have a server of their own with a
 * 2-second request deadline: a slow body that arrives in time is priced, a
 * chunked body whose end comes late gets 408, and a body still arriving
 * after the deadline is cut off without an answer, while others are served.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/raw.h"
#include "support/server.h"
#include "support/shared.h"
#include "support/suite.h"

#define JSON_TYPE "Content-Type: application/json"
#define BODY_LIMIT 65536
#define TEN_MB (10 * 1024 * 1024)
#define ALL_IDS "t4-16g-x1,v100-16g-x1,v100-16g-x2,v100-32g-x4,v100-32g-x8"

/* The worked example's usage, and variations of one field of it. */
#define ITEM "{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":90}"
#define ITEM_WITH(extra) "{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":90," extra "}"
#define ITEM_DAYS(days) "{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":" days "}"
#define ITEM_HOURS(hours) "{\"sku\":\"v100-16g-x1\",\"hours_per_day\":" hours ",\"days\":90}"
#define ITEM_SKU(sku) "{\"sku\":" sku ",\"hours_per_day\":8,\"days\":90}"
#define ITEMS(item) "{\"items\":[" item "]}"
#define EXAMPLE_UNSAVED "{\"items\":[" ITEM "],\"save\":false}"
#define WORKLOAD "\"workload\":{\"task\":\"finetune\",\"model_params_b\":7}"
#define UNKNOWN_QUOTE "q_0123456789abcdef0123456789abcdef"

/* Long literals: 100 characters of one kind, 2 bytes each for é. */
#define K10 "kkkkkkkkkk"
#define K100 K10 K10 K10 K10 K10 K10 K10 K10 K10 K10
#define Q10 "qqqqqqqqqq"
#define Q100 Q10 Q10 Q10 Q10 Q10 Q10 Q10 Q10 Q10 Q10
#define A10 "aaaaaaaaaa"
#define A100 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10
#define E_ACUTE "\xc3\xa9"
#define E10 E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE
#define X10 "xxxxxxxxxx"
#define X64 X10 X10 X10 X10 X10 X10 "xxxx"

static long long count_quotes(struct server *server)
{
    return server_db_integer(server, "SELECT COUNT(*) FROM quotes", NULL);
}

/* ---- generated bodies ------------------------------------------------------- */

/* `count` copies of `piece` between `head` and `tail`, NUL-terminated. */
static char *repeat(const char *head, const char *piece, size_t count, const char *tail,
                    size_t *length)
{
    size_t head_length = strlen(head), piece_length = strlen(piece), tail_length = strlen(tail);
    *length = head_length + piece_length * count + tail_length;
    char *text = malloc(*length + 1);
    ck_assert_ptr_nonnull(text);
    memcpy(text, head, head_length);
    for (size_t i = 0; i < count; i++)
        memcpy(text + head_length + i * piece_length, piece, piece_length);
    memcpy(text + head_length + count * piece_length, tail, tail_length + 1);
    return text;
}

/* `count` copies of `open`, then of `close`, between `head` and `tail`. */
static char *nest(const char *head, const char *open, size_t count, const char *middle,
                  const char *close, const char *tail, size_t *length)
{
    size_t open_length = strlen(open), close_length = strlen(close);
    size_t head_length = strlen(head), middle_length = strlen(middle), tail_length = strlen(tail);
    *length = head_length + count * (open_length + close_length) + middle_length + tail_length;
    char *text = malloc(*length + 1);
    ck_assert_ptr_nonnull(text);
    char *p = text;
    memcpy(p, head, head_length);
    p += head_length;
    for (size_t i = 0; i < count; i++, p += open_length)
        memcpy(p, open, open_length);
    memcpy(p, middle, middle_length);
    p += middle_length;
    for (size_t i = 0; i < count; i++, p += close_length)
        memcpy(p, close, close_length);
    memcpy(p, tail, tail_length + 1);
    return text;
}

/* A quote that would be saved, padded with spaces to exactly `size` bytes. */
static char *padded_quote(size_t size, size_t *length)
{
    const char *start = "{\"items\":[" ITEM "],\"save\":true";
    size_t start_length = strlen(start);
    char *body = malloc(size + 1);
    ck_assert_ptr_nonnull(body);
    memcpy(body, start, start_length);
    memset(body + start_length, ' ', size - start_length - 1);
    body[size - 1] = '}';
    body[size] = '\0';
    *length = size;
    return body;
}

static char *arrays_60k(size_t *length)
{
    return repeat("", "[", 60000, "", length); /* under the cap, past the parser's depth */
}

static char *arrays_100k(size_t *length)
{
    return repeat("", "[", 100000, "", length); /* over the cap */
}

static char *objects_10k(size_t *length)
{
    return nest("", "{\"a\":", 10000, "1", "}", "", length);
}

static char *items_nested_2000(size_t *length)
{
    return nest("{\"items\":", "[", 2000, "", "]", "}", length);
}

static char *segment_nested_1000(size_t *length)
{
    return nest("{\"items\":[" ITEM "],\"customer\":{\"segment\":", "{\"a\":", 1000, "1", "}", "}}",
                length);
}

static char *sku_60k(size_t *length)
{
    return repeat("{\"items\":[{\"sku\":\"", "x", 60000, "\",\"hours_per_day\":8,\"days\":90}]}",
                  length);
}

static char *key_1000_e_acute(size_t *length)
{
    return repeat("{\"items\":[" ITEM "],\"", E_ACUTE, 1000, "\":1}", length);
}

static char *assumption_key_5000(size_t *length)
{
    return repeat("{" WORKLOAD ",\"assumptions\":{\"", "x", 5000, "\":1}}", length);
}

static char *ten_mb_quote(size_t *length)
{
    return padded_quote(TEN_MB, length);
}

static char *one_over_the_cap(size_t *length)
{
    return padded_quote(BODY_LIMIT + 1, length);
}

static char *raw_header_100k(size_t *length)
{
    return repeat("GET /catalog HTTP/1.1\r\nHost: test\r\nX-Big: ", "a", 100000, "\r\n\r\n",
                  length);
}

static char *raw_uri_100k(size_t *length)
{
    return repeat("GET /catalog?gpu=", "a", 100000, " HTTP/1.1\r\nHost: test\r\n\r\n", length);
}

/* ---- the table ---------------------------------------------------------------- */

enum transport {
    VIA_CURL,    /* with a Content-Length */
    VIA_CHUNKED, /* Transfer-Encoding: chunked */
    VIA_RAW      /* `body` is the whole request, sent as it is */
};

struct bad_request {
    const char *what; /* the category, for failure messages */
    const char *method;
    const char *path;
    const char *headers[4];            /* NULL-terminated */
    const char *body;                  /* NULL: no body */
    size_t length;                     /* of `body` when it holds NUL bytes; 0: strlen */
    char *(*generate)(size_t *length); /* makes the body (or raw request) instead */
    enum transport transport;
    int status;
    const char *code;    /* NULL: libmicrohttpd's own answer, no envelope */
    const char *field;   /* NULL: no field */
    const char *message; /* NULL: not checked */
    const char *allow;   /* the Allow header of a 405 */
    bool closes;         /* the connection must be closed after the answer */
};

#define POST_JSON(target) .method = "POST", .path = (target), .headers = {JSON_TYPE}
#define QUOTE(text) POST_JSON("/quote"), .body = (text)
#define RECOMMEND(text) POST_JSON("/recommend"), .body = (text)
#define QUOTE_GENERATED(function) POST_JSON("/quote"), .generate = (function)
#define BYTES(literal) .body = (literal), .length = sizeof(literal) - 1
#define QUOTE_BYTES(literal) POST_JSON("/quote"), BYTES(literal)
#define TEN_MB_EXPECTING(verb, target)                                                             \
    .method = (verb), .path = (target), .headers = {JSON_TYPE, "Expect: 100-continue"},            \
    .generate = ten_mb_quote
#define GET(target) .method = "GET", .path = (target)
#define RAW(literal) .transport = VIA_RAW, BYTES(literal)
#define MALFORMED .status = 400, .code = "malformed_json"
/* Valid JSON (RFC 8259 sets no limit on numbers) that jansson cannot hold:
 * the field that held it is named all the same. */
#define TOO_BIG(error_field) .status = 422, .code = "out_of_range", .field = (error_field)
#define REFUSED(error_code, error_field) .status = 422, .code = (error_code), .field = (error_field)
#define BAD_PARAMETER(name) .status = 400, .code = "invalid_parameter", .field = (name)
#define NOT_FOUND .status = 404, .code = "not_found"
#define NOT_ALLOWED(methods) .status = 405, .code = "method_not_allowed", .allow = (methods)
#define TOO_LARGE .status = 413, .code = "body_too_large"
#define NOT_JSON .status = 415, .code = "unsupported_media_type"

static const struct bad_request rows[] = {
    /* ---- truncated and malformed JSON ---- */
    {"truncated", QUOTE("{"), MALFORMED},
    {"truncated", QUOTE("{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8"), MALFORMED},
    {"truncated", QUOTE("{\"items\":[" ITEM "]"), MALFORMED},
    {"truncated", QUOTE("{\"items\":[{\"sku\":\"v100-16g"), MALFORMED},
    {"truncated", RECOMMEND("{\"workload\":"), MALFORMED},
    {"trailing garbage", QUOTE(ITEMS(ITEM) "}"), MALFORMED},
    {"trailing garbage", QUOTE(ITEMS(ITEM) " and more"), MALFORMED},
    {"trailing garbage", QUOTE(ITEMS(ITEM) ITEMS(ITEM)), MALFORMED},
    {"malformed", QUOTE("{\"items\":[" ITEM ",]}"), MALFORMED},
    {"malformed", QUOTE("{items:[" ITEM "]}"), MALFORMED},
    {"malformed", QUOTE("{\"items\":[" ITEM "],\"save\":True}"), MALFORMED},
    {"malformed", QUOTE("/* a comment */" ITEMS(ITEM)), MALFORMED},
    {"malformed", QUOTE(ITEMS(ITEM_DAYS("NaN"))), MALFORMED},
    {"malformed", QUOTE(ITEMS(ITEM_HOURS("Infinity"))), MALFORMED},
    {"malformed", QUOTE(ITEMS(ITEM_DAYS("090"))), MALFORMED},
    {"malformed", QUOTE(ITEMS(ITEM_DAYS("0x5A"))), MALFORMED},
    {"malformed", QUOTE(ITEMS(ITEM_DAYS("+90"))), MALFORMED},
    {"malformed", QUOTE(ITEMS(ITEM_HOURS(".5"))), MALFORMED},
    {"malformed", QUOTE(" \r\n\t "), MALFORMED},
    {"malformed", .method = "POST", .path = "/quote", .headers = {JSON_TYPE}, MALFORMED,
     .message = "the body is empty; expected a JSON object"},
    {"not JSON", QUOTE("hello, server"), MALFORMED},
    {"not JSON", QUOTE("items=v100-16g-x1&hours_per_day=8&days=90"), MALFORMED},
    {"not JSON", QUOTE("<quote><sku>v100-16g-x1</sku></quote>"), MALFORMED},
    {"BOM", QUOTE("\xef\xbb\xbf" ITEMS(ITEM)), MALFORMED},
    {"duplicate key", QUOTE("{\"items\":[" ITEM "],\"save\":false,\"save\":true}"), MALFORMED},
    {"duplicate key",
     QUOTE(ITEMS("{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":90,"
                 "\"days\":9}")),
     MALFORMED},
    {"duplicate key",
     QUOTE("{\"items\":[" ITEM "],\"customer\":{\"segment\":\"student\",\"segment\":\"startup\"}}"),
     MALFORMED},
    {"duplicate key", RECOMMEND("{" WORKLOAD "," WORKLOAD "}"), MALFORMED},

    /* ---- NUL bytes and text that is not UTF-8 ---- */
    /* "\u0000" is valid JSON in a string, but C would read the string only
     * up to it: "v100-16g-x1\u0000" must not price the v100-16g-x1. */
    {"NUL", QUOTE(ITEMS(ITEM_SKU("\"v100-16g-x1\\u0000\""))),
     REFUSED("invalid_value", "items[0].sku")},
    {"NUL", QUOTE("{\"items\":[" ITEM "],\"bundles\":[\"training-starter-monthly\\u0000x\"]}"),
     REFUSED("invalid_value", "bundles[0]")},
    {"NUL", QUOTE("{\"items\":[" ITEM "],\"customer\":{\"segment\":\"student\\u0000\"}}"),
     REFUSED("invalid_value", "customer.segment")},
    {"NUL", RECOMMEND("{" WORKLOAD ",\"budget\":\"3000\\u0000.00\"}"),
     REFUSED("invalid_value", "budget")},
    {"NUL", QUOTE("{\"items\":[" ITEM "],\"a\\u0000b\":1}"), MALFORMED},
    {"NUL", QUOTE_BYTES("{\"items\":[]\0}"), MALFORMED},
    {"NUL", QUOTE_BYTES("{\"items\":[{\"sku\":\"v1\0\",\"hours_per_day\":8,\"days\":90}]}"),
     MALFORMED},
    {"NUL", QUOTE_BYTES(ITEMS(ITEM) "\0"), MALFORMED},
    {"NUL", QUOTE_BYTES("\0"), MALFORMED},
    {"UTF-8", QUOTE(ITEMS(ITEM_SKU("\"v100\xff\xfe\""))), MALFORMED},
    {"UTF-8", QUOTE("{\"it\xffms\":[" ITEM "]}"), MALFORMED},
    {"UTF-8", QUOTE(ITEMS(ITEM_SKU("\"v100\xc0\xaf\""))), MALFORMED},     /* overlong */
    {"UTF-8", QUOTE(ITEMS(ITEM_SKU("\"v100\xe2\x82\""))), MALFORMED},     /* cut short */
    {"UTF-8", QUOTE(ITEMS(ITEM_SKU("\"v100\xed\xa0\x80\""))), MALFORMED}, /* surrogate */
    {"UTF-8", QUOTE(ITEMS(ITEM_SKU("\"\\ud800\""))), MALFORMED},          /* lone high */
    {"UTF-8", QUOTE(ITEMS(ITEM_SKU("\"\\udc00x\""))), MALFORMED},         /* lone low */
    {"UTF-8", .method = "POST", .path = "/quote",
     .headers = {"Content-Type: application/json; charset=iso-8859-1"},
     .body = ITEMS(ITEM_SKU("\"caf\xe9\"")), NOT_JSON}, /* declared latin1: refused unread */
    {"UTF-8", .method = "POST", .path = "/quote",
     .headers = {"Content-Type: application/json; charset=\"UTF-8\""},
     .body = ITEMS(ITEM_SKU("\"caf\xe9\"")), MALFORMED}, /* declared UTF-8, and is not */
    {"control character", QUOTE(ITEMS(ITEM_SKU("\"v100\n\""))), MALFORMED},
    {"control character", QUOTE(ITEMS(ITEM_SKU("\"v100\x01\""))), MALFORMED},

    /* ---- numbers: beyond int64 and double, -0, underflow ---- */
    {"huge number", QUOTE(ITEMS(ITEM_DAYS("1e400"))), TOO_BIG("items[0].days")},
    {"huge number", QUOTE(ITEMS(ITEM_HOURS("-1e400"))), TOO_BIG("items[0].hours_per_day")},
    {"huge number", QUOTE(ITEMS(ITEM_DAYS("9223372036854775808"))), /* 2^63 */
     TOO_BIG("items[0].days")},
    {"huge number", QUOTE(ITEMS(ITEM_WITH("\"quantity\":-9223372036854775809"))),
     TOO_BIG("items[0].quantity")},
    {"huge number", RECOMMEND("{" WORKLOAD ",\"budget\":100000000000000000000}"),
     TOO_BIG("budget")},
    {"huge number", QUOTE(ITEMS(ITEM_WITH("\"quantity\":99999999999999999999999"))),
     TOO_BIG("items[0].quantity"), .message = "items[0].quantity is too large a number"},
    {"huge number", RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"mfu\":1e999}}"),
     TOO_BIG("assumptions.mfu"), .message = "assumptions.mfu is too large a number"},
    /* The rest of the body is read all the same: malformed after the number
     * is malformed, and so is a repeated key. */
    {"huge number", QUOTE("{\"items\":[" ITEM_DAYS("1e400") "],}"), MALFORMED,
     .message = "malformed JSON at line 1, column 65: string or '}' expected near '}'"},
    {"huge number", QUOTE(ITEMS(ITEM_WITH("\"quantity\":1e999,\"quantity\":2"))), MALFORMED},
    {"huge number", QUOTE("[1e999]"), REFUSED("invalid_type", NULL)},
    /* Only the number itself is replaced: what stands before it is read. */
    {"huge number", QUOTE("{\"a\":5-1e999}"), MALFORMED},
    {"huge number", QUOTE("{\"a\":1e5-1e999}"), MALFORMED},
    {"huge number", QUOTE(ITEMS(ITEM_DAYS("-1e+999"))), TOO_BIG("items[0].days")},
    /* Past 16 such numbers they are not all read: the first is named by its
     * place. */
    {"huge number",
     QUOTE("{\"a\":[1e999,1e999,1e999,1e999,1e999,1e999,1e999,1e999,1e999,1e999,1e999,1e999,"
           "1e999,1e999,1e999,1e999,1e999]}"),
     TOO_BIG(NULL), .message = "the number at line 1, column 11 is too large"},
    {"huge number", QUOTE(ITEMS(ITEM_DAYS("9223372036854775807"))),
     REFUSED("out_of_range", "items[0].days"), .message = "items[0].days must be 1..3650"},
    {"huge number", QUOTE(ITEMS(ITEM_WITH("\"quantity\":-9223372036854775808"))),
     REFUSED("out_of_range", "items[0].quantity")},
    {"huge number", QUOTE(ITEMS(ITEM_WITH("\"quantity\":1e19"))),
     REFUSED("out_of_range", "items[0].quantity")},
    {"huge number", RECOMMEND("{\"workload\":{\"task\":\"finetune\",\"model_params_b\":1e308}}"),
     REFUSED("out_of_range", "workload.model_params_b")},
    {"huge number", RECOMMEND("{" WORKLOAD ",\"budget\":\"99999999999999999999.99\"}"),
     REFUSED("out_of_range", "budget")},
    {"huge number", RECOMMEND("{" WORKLOAD ",\"budget\":1e20}"), REFUSED("out_of_range", "budget")},
    {"negative number", QUOTE(ITEMS(ITEM_DAYS("-0"))), REFUSED("out_of_range", "items[0].days")},
    {"negative number", QUOTE(ITEMS(ITEM_HOURS("-0.0"))),
     REFUSED("out_of_range", "items[0].hours_per_day")},
    {"negative number", QUOTE(ITEMS(ITEM_WITH("\"quantity\":-1"))),
     REFUSED("out_of_range", "items[0].quantity")},
    {"negative number", RECOMMEND("{\"workload\":{\"task\":\"finetune\",\"model_params_b\":-7}}"),
     REFUSED("out_of_range", "workload.model_params_b")},
    {"negative number", RECOMMEND("{" WORKLOAD ",\"budget\":-5}"),
     REFUSED("out_of_range", "budget")},
    {"negative number",
     RECOMMEND("{\"workload\":{\"task\":\"finetune\",\"model_params_b\":7,\"tokens_b\":-1}}"),
     REFUSED("out_of_range", "workload.tokens_b")},
    {"tiny number", QUOTE(ITEMS(ITEM_HOURS("1e-400"))), /* underflows to 0 */
     REFUSED("out_of_range", "items[0].hours_per_day")},
    {"tiny number", QUOTE(ITEMS(ITEM_HOURS("4.9e-324"))), /* positive, not a billable amount */
     REFUSED("invalid_value", "items[0].hours_per_day")},
    {"fraction", RECOMMEND("{" WORKLOAD ",\"budget\":\"3000.001\"}"),
     REFUSED("invalid_value", "budget")},

    /* ---- deep nesting ---- */
    {"nesting", QUOTE_GENERATED(arrays_60k), MALFORMED},
    {"nesting", QUOTE_GENERATED(objects_10k), MALFORMED},
    {"nesting", QUOTE_GENERATED(arrays_100k), TOO_LARGE},
    {"nesting", QUOTE_GENERATED(items_nested_2000), REFUSED("invalid_type", "items[0]")},
    {"nesting", QUOTE_GENERATED(segment_nested_1000), REFUSED("invalid_type", "customer.segment")},

    /* ---- wrong types, nulls, empty objects, arrays where objects belong ---- */
    {"empty object", QUOTE("{}"), REFUSED("out_of_range", "items"),
     .message = "a quote needs at least one item or bundle"},
    {"empty object", RECOMMEND("{}"), REFUSED("missing_field", "workload")},
    {"array for object", QUOTE("[]"), REFUSED("invalid_type", NULL)},
    {"array for object", QUOTE("[" ITEMS(ITEM) "]"), REFUSED("invalid_type", NULL)},
    {"array for object", RECOMMEND("{\"workload\":[]}"), REFUSED("invalid_type", "workload")},
    {"array for object", QUOTE("{\"items\":[" ITEM "],\"customer\":[]}"),
     REFUSED("invalid_type", "customer")},
    {"array for object", RECOMMEND("{" WORKLOAD ",\"assumptions\":[]}"),
     REFUSED("invalid_type", "assumptions")},
    {"object for array", QUOTE("{\"items\":" ITEM "}"), REFUSED("invalid_type", "items")},
    {"scalar body", QUOTE("\"a quote\""), REFUSED("invalid_type", NULL)},
    {"scalar body", QUOTE("null"), REFUSED("invalid_type", NULL)},
    {"scalar body", QUOTE("-0"), REFUSED("invalid_type", NULL)},
    {"null", QUOTE("{\"items\":null}"), REFUSED("out_of_range", "items")},
    {"null", QUOTE("{\"items\":[null]}"), REFUSED("invalid_type", "items[0]")},
    {"null", QUOTE(ITEMS(ITEM_SKU("null"))), REFUSED("missing_field", "items[0].sku")},
    {"null", QUOTE("{\"items\":[" ITEM "],\"bundles\":[null]}"),
     REFUSED("invalid_type", "bundles[0]")},
    {"null", RECOMMEND("{\"workload\":null}"), REFUSED("missing_field", "workload")},
    {"wrong type", QUOTE("{\"items\":[[" ITEM "]]}"), REFUSED("invalid_type", "items[0]")},
    {"wrong type", QUOTE("{\"items\":[\"v100-16g-x1\"]}"), REFUSED("invalid_type", "items[0]")},
    {"wrong type", QUOTE(ITEMS(ITEM_SKU("[\"v100-16g-x1\"]"))),
     REFUSED("invalid_type", "items[0].sku")},
    {"wrong type", QUOTE(ITEMS(ITEM_WITH("\"quantity\":true"))),
     REFUSED("invalid_type", "items[0].quantity")},
    {"wrong type", QUOTE(ITEMS(ITEM_WITH("\"quantity\":\"2\""))),
     REFUSED("invalid_type", "items[0].quantity")},
    {"wrong type", QUOTE(ITEMS(ITEM_HOURS("{}"))),
     REFUSED("invalid_type", "items[0].hours_per_day")},
    {"wrong type", QUOTE("{\"items\":[" ITEM "],\"save\":\"false\"}"),
     REFUSED("invalid_type", "save")},
    {"wrong type", QUOTE("{\"items\":[" ITEM "],\"save\":0}"), REFUSED("invalid_type", "save")},
    {"wrong type", QUOTE("{\"items\":[" ITEM "],\"customer\":{\"segment\":[\"student\"]}}"),
     REFUSED("invalid_type", "customer.segment")},
    {"wrong type", QUOTE("{\"items\":[" ITEM "],\"bundles\":\"training-starter-monthly\"}"),
     REFUSED("invalid_type", "bundles")},
    {"wrong type", QUOTE("{\"bundles\":[{\"id\":\"training-starter-monthly\"}]}"),
     REFUSED("invalid_type", "bundles[0]")},
    {"wrong type", RECOMMEND("{\"workload\":{\"task\":7}}"),
     REFUSED("invalid_type", "workload.task")},
    {"wrong type", RECOMMEND("{\"workload\":{\"task\":\"finetune\",\"model_params_b\":\"7\"}}"),
     REFUSED("invalid_type", "workload.model_params_b")},
    {"wrong type", RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"mfu\":\"high\"}}"),
     REFUSED("invalid_type", "assumptions.mfu")},
    {"wrong value", RECOMMEND("{\"workload\":{\"task\":\"train\"}}"),
     REFUSED("invalid_value", "workload.task")},
    {"wrong value", RECOMMEND("{" WORKLOAD ",\"objective\":\"speed\"}"),
     REFUSED("invalid_value", "objective")},
    {"wrong value", RECOMMEND("{" WORKLOAD ",\"limit\":0}"), REFUSED("out_of_range", "limit")},
    {"wrong value", RECOMMEND("{" WORKLOAD ",\"hours_per_day\":25}"),
     REFUSED("out_of_range", "hours_per_day")},

    /* ---- a quote of nothing, whichever way it is said: out of range once
     * every field present has its type ---- */
    {"nothing to quote", QUOTE("{\"save\":false}"), REFUSED("out_of_range", "items"),
     .message = "a quote needs at least one item or bundle"},
    {"nothing to quote", QUOTE("{\"bundles\":[],\"save\":false}"),
     REFUSED("out_of_range", "items")},
    {"nothing to quote", QUOTE("{\"items\":[],\"bundles\":null}"),
     REFUSED("out_of_range", "items")},
    {"nothing to quote", QUOTE("{\"bundles\":\"training-starter-monthly\",\"save\":false}"),
     REFUSED("invalid_type", "bundles")},
    {"nothing to quote", QUOTE("{\"bundles\":[7]}"), REFUSED("invalid_type", "bundles[0]")},
    {"nothing to quote", QUOTE("{\"save\":\"no\"}"), REFUSED("invalid_type", "save")},
    {"nothing to quote", QUOTE("{\"customer\":[]}"), REFUSED("invalid_type", "customer")},

    /* ---- a fraction where a whole number is required: invalid_value, in
     * range or not, in every integer field of both bodies ---- */
    {"fraction", QUOTE(ITEMS(ITEM_WITH("\"quantity\":1.5"))),
     REFUSED("invalid_value", "items[0].quantity")},
    {"fraction", QUOTE(ITEMS(ITEM_DAYS("90.5"))), REFUSED("invalid_value", "items[0].days")},
    {"fraction", RECOMMEND("{" WORKLOAD ",\"days\":30.5}"), REFUSED("invalid_value", "days")},
    {"fraction", RECOMMEND("{" WORKLOAD ",\"deadline_days\":40.5}"),
     REFUSED("invalid_value", "deadline_days")},
    {"fraction", RECOMMEND("{" WORKLOAD ",\"limit\":2.5}"), REFUSED("invalid_value", "limit")},
    {"fraction", RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"max_instances\":2.5}}"),
     REFUSED("invalid_value", "assumptions.max_instances"),
     .message = "assumptions.max_instances must be a whole number"},
    {"fraction", RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"max_instances\":64.5}}"),
     REFUSED("invalid_value", "assumptions.max_instances")},
    {"fraction", RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"max_instances\":65}}"),
     REFUSED("out_of_range", "assumptions.max_instances")},

    /* ---- assumptions that would make an estimate nonsense: a share of a
     * peak below 1 % ---- */
    {"tiny share", RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"mfu\":5e-324}}"),
     REFUSED("out_of_range", "assumptions.mfu"),
     .message = "assumptions.mfu must be at least 0.01 and at most 1"},
    {"tiny share", RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"mfu\":1e-300}}"),
     REFUSED("out_of_range", "assumptions.mfu")},
    {"tiny share",
     RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"decode_bandwidth_efficiency\":1e-300}}"),
     REFUSED("out_of_range", "assumptions.decode_bandwidth_efficiency")},
    {"tiny share",
     RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"multi_card_efficiency_nvlink\":0.009}}"),
     REFUSED("out_of_range", "assumptions.multi_card_efficiency_nvlink")},
    {"tiny share",
     RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"multi_card_efficiency_pcie\":0.001}}"),
     REFUSED("out_of_range", "assumptions.multi_card_efficiency_pcie")},
    {"tiny share", RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"network_bandwidth_gbit_s\":1e-9}}"),
     REFUSED("out_of_range", "assumptions.network_bandwidth_gbit_s")},
    {"flat scaling above one",
     RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"multi_instance_efficiency\":1.5}}"),
     REFUSED("out_of_range", "assumptions.multi_instance_efficiency")},
    {"no step", RECOMMEND("{\"workload\":{\"task\":\"finetune\",\"global_batch_tokens\":0}}"),
     REFUSED("out_of_range", "workload.global_batch_tokens")},
    {"serving has no step",
     RECOMMEND("{\"workload\":{\"task\":\"inference\",\"global_batch_tokens\":1000}}"),
     REFUSED("invalid_value", "workload.global_batch_tokens")},

    /* ---- a rental (WORKLOAD has no tokens) ends when its days are up: a
     * deadline before that contradicts the request ---- */
    {"rental deadline",
     RECOMMEND("{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,"
               "\"precision\":\"int8\"},\"days\":30,\"deadline_days\":10}"),
     REFUSED("out_of_range", "deadline_days"),
     .message = "a 30-day rental cannot end within deadline_days 10: give deadline_days of at "
                "least 30, or fewer days"},
    {"rental deadline", RECOMMEND("{" WORKLOAD ",\"deadline_days\":29}"),
     REFUSED("out_of_range", "deadline_days")},

    /* ---- unknown fields ---- */
    {"unknown field", QUOTE("{\"items\":[" ITEM "],\"discount\":50}"),
     REFUSED("unknown_field", "discount")},
    {"unknown field", QUOTE("{\"Items\":[" ITEM "]}"), REFUSED("unknown_field", "Items")},
    {"unknown field", QUOTE(ITEMS(ITEM_WITH("\"gpu\":\"A100\""))),
     REFUSED("unknown_field", "items[0].gpu")},
    {"unknown field", RECOMMEND("{" WORKLOAD ",\"gpu\":\"V100\"}"),
     REFUSED("unknown_field", "gpu")},
    {"unknown field", RECOMMEND("{" WORKLOAD ",\"customer\":{\"segment\":\"student\",\"age\":20}}"),
     REFUSED("unknown_field", "customer.age")},
    {"unknown field", RECOMMEND("{" WORKLOAD ",\"assumptions\":{\"bogus\":1}}"),
     REFUSED("unknown_field", "assumptions.bogus")},

    /* ---- very long strings and keys ---- */
    {"long string", QUOTE_GENERATED(sku_60k), REFUSED("unknown_sku", "items[0].sku"),
     .message = "no SKU '" X64 "'"},
    /* the field is cut at 95 bytes, inside a character: the stray byte becomes '?' */
    {"long key", QUOTE_GENERATED(key_1000_e_acute),
     REFUSED("unknown_field",
             E10 E10 E10 E10 E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE E_ACUTE "?")},
    {"long key", .method = "POST", .path = "/recommend", .headers = {JSON_TYPE},
     .generate = assumption_key_5000,
     REFUSED("unknown_field", "assumptions." X10 X10 X10 X10 X10 X10 X10 X10 "xxx")},
    {"odd string", QUOTE(ITEMS(ITEM_SKU("\"\""))), REFUSED("unknown_sku", "items[0].sku")},
    {"odd string", QUOTE(ITEMS(ITEM_SKU("\"v100-16g-x1" E_ACUTE "\""))),
     REFUSED("unknown_sku", "items[0].sku"), .message = "no SKU 'v100-16g-x1" E_ACUTE "'"},
    /* Several faults in one item: the first field's is reported. */
    {"first fault", QUOTE(ITEMS("{\"sku\":\"x9\",\"hours_per_day\":99,\"days\":1}")),
     REFUSED("unknown_sku", "items[0].sku")},
    {"first fault",
     QUOTE(ITEMS("{\"sku\":\"v100-16g-x1\",\"billing\":\"weekly\",\"hours_per_day\":99}")),
     REFUSED("invalid_value", "items[0].billing")},

    /* ---- headers ---- */
    {"header", .method = "POST", .path = "/quote", .headers = {"Content-Type: text/plain"},
     .body = ITEMS(ITEM), NOT_JSON},
    {"header", .method = "POST", .path = "/quote", .headers = {"Content-Type:"},
     .body = ITEMS(ITEM), NOT_JSON},
    {"header", .method = "POST", .path = "/quote",
     .headers = {"Content-Type: application/json-patch+json"}, .body = ITEMS(ITEM), NOT_JSON},
    {"header", .method = "POST", .path = "/quote",
     .headers = {"Content-Type: multipart/form-data; boundary=x"}, .body = ITEMS(ITEM), NOT_JSON},
    {"header", .method = "POST", .path = "/quote",
     .headers = {"Content-Type: text/plain", JSON_TYPE}, .body = ITEMS(ITEM), NOT_JSON},
    {"header", .method = "POST", .path = "/quote",
     .headers = {"Content-Type: application/json; charset=latin1"}, .body = ITEMS(ITEM), NOT_JSON,
     .message = "the body must be UTF-8: Content-Type may name no other charset"},
    {"header", .method = "POST", .path = "/recommend",
     .headers = {"Content-Type: application/json;boundary=x; Charset=\"ISO-8859-1\""},
     .body = "{" WORKLOAD "}", NOT_JSON},
    {"header", .method = "POST", .path = "/recommend", .headers = {"Content-Type: text/csv"},
     .body = "{" WORKLOAD "}", NOT_JSON},
    {"header", .method = "POST", .path = "/quote",
     .headers = {JSON_TYPE, "Idempotency-Key: " K100 K100 K100}, .body = ITEMS(ITEM),
     BAD_PARAMETER("Idempotency-Key")},
    {"header", .method = "POST", .path = "/quote",
     .headers = {JSON_TYPE, "Idempotency-Key: key-\xff\xfe"}, .body = ITEMS(ITEM),
     BAD_PARAMETER("Idempotency-Key")},
    {"header", .method = "POST", .path = "/quote",
     RAW("POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Idempotency-Key:\r\nContent-Length: 61\r\n\r\n" ITEMS(ITEM)),
     BAD_PARAMETER("Idempotency-Key")},
    {"header", .method = "POST", .path = "/quote",
     RAW("POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Idempotency-Key: first\r\nidempotency-key: second\r\nContent-Length: 61\r\n\r\n" ITEMS(
             ITEM)),
     BAD_PARAMETER("Idempotency-Key"), .message = "Idempotency-Key is given more than once"},

    /* ---- sizes ---- */
    {"10 MB", TEN_MB_EXPECTING("POST", "/quote"), TOO_LARGE,
     .message = "the body is over 65536 bytes", .closes = true},
    {"10 MB", QUOTE_GENERATED(ten_mb_quote), .transport = VIA_CHUNKED, TOO_LARGE},
    {"10 MB", TEN_MB_EXPECTING("POST", "/recommend"), TOO_LARGE, .closes = true},
    {"10 MB", TEN_MB_EXPECTING("OPTIONS", "/quote"), TOO_LARGE, .closes = true},
    {"10 MB", TEN_MB_EXPECTING("POST", "/no-such-thing"), NOT_FOUND, .closes = true},
    {"one byte over", QUOTE_GENERATED(one_over_the_cap), .transport = VIA_CHUNKED, TOO_LARGE},

    /* ---- catalog query parameters ---- */
    {"query", GET("/catalog?gpu=%FF"), BAD_PARAMETER("gpu")},
    {"query", GET("/catalog?%FF=1"), BAD_PARAMETER("?")},
    {"query", GET("/catalog?sort=%E2%82"), BAD_PARAMETER("sort")},
    {"query", GET("/catalog?gpu=V100%00evil"), BAD_PARAMETER("gpu")},
    {"query", GET("/catalog?%00=1"), BAD_PARAMETER("%00")},
    {"query", GET("/catalog?sort=price&sort=memory"), BAD_PARAMETER("sort"),
     .message = "parameter 'sort' is given twice"},
    {"query", GET("/catalog?max_hourly=-1"), BAD_PARAMETER("max_hourly")},
    {"query", GET("/catalog?max_hourly=1e400"), BAD_PARAMETER("max_hourly")},
    {"query", GET("/catalog?max_hourly=99999999999999999999"), BAD_PARAMETER("max_hourly"),
     .message = "max_hourly must be an amount such as 5 or 9.90, at most 10000000000000.00"},
    {"query", GET("/catalog?min_memory_gb=99999999999999999999"), BAD_PARAMETER("min_memory_gb")},
    {"query", GET("/catalog?min_memory_gb=+16"), BAD_PARAMETER("min_memory_gb")},
    {"query", GET("/catalog?gpu_count=-1"), BAD_PARAMETER("gpu_count")},
    {"query", GET("/catalog?bogus=1"), BAD_PARAMETER("bogus")},
    {"query", GET("/catalog?gpu=" A100 A100 A100), BAD_PARAMETER("gpu")},
    {"query", GET("/catalog?gpu"), BAD_PARAMETER("gpu")},
    {"query", .method = "GET", .path = "/catalog",
     RAW("GET /catalog?gpu=\xff HTTP/1.1\r\nHost: test\r\n\r\n"), BAD_PARAMETER("gpu")},

    /* ---- query strings where none is read: refused, never ignored ---- */
    {"query elsewhere", POST_JSON("/quote?save=false"), .body = ITEMS(ITEM), BAD_PARAMETER("save"),
     .message = "POST /quote takes no query parameters"},
    {"query elsewhere", POST_JSON("/recommend?limit=1"), .body = "{" WORKLOAD "}",
     BAD_PARAMETER("limit")},
    {"query elsewhere", GET("/catalog/bundles?sort=price"), BAD_PARAMETER("sort")},
    {"query elsewhere", GET("/catalog/v100-16g-x1?fields=id"), BAD_PARAMETER("fields")},
    {"query elsewhere", GET("/quote/" UNKNOWN_QUOTE "?expand=items"), BAD_PARAMETER("expand")},
    {"query elsewhere", GET("/healthz?probe"), BAD_PARAMETER("probe"),
     .message = "GET /healthz takes no query parameters"},
    {"query elsewhere", GET("/catalog/billing-modes?&"), BAD_PARAMETER(NULL)},
    {"query elsewhere", GET("/quote/a%20b%0Ac?=1"), BAD_PARAMETER(NULL),
     .message = "GET /quote/a%20b%0Ac takes no query parameters"},
    {"query elsewhere", .method = "HEAD", .path = "/catalog/bundles?sort=price", .status = 400},

    /* ---- paths and ids ---- */
    {"path", GET("/quote/not-a-quote"), NOT_FOUND},
    {"path", GET("/quote/" UNKNOWN_QUOTE), NOT_FOUND, .message = "no quote '" UNKNOWN_QUOTE "'"},
    {"path", GET("/quote/%FF%FE"), NOT_FOUND},
    {"path", GET("/quote/" Q100 Q100 Q100), NOT_FOUND},
    /* An accept's body is read before its quote is looked for. */
    {"path", .method = "POST", .path = "/quote/" UNKNOWN_QUOTE "/accept", .headers = {JSON_TYPE},
     .body = "{\"accept\":true}", REFUSED("unknown_field", "accept")},
    {"path", .method = "POST", .path = "/quote/" UNKNOWN_QUOTE "/accept",
     .headers = {"Content-Type: text/plain"}, .body = "\xff\xfe not JSON", NOT_JSON},
    {"path", .method = "POST", .path = "/quote/" UNKNOWN_QUOTE "/accept", .headers = {JSON_TYPE},
     .body = "{}", NOT_FOUND},
    {"path", .method = "POST", .path = "/quote/" UNKNOWN_QUOTE "/cancel", .headers = {JSON_TYPE},
     .body = "{\"reason\":\"\"}", TOO_BIG("reason")},
    {"path", .method = "POST", .path = "/quote/" UNKNOWN_QUOTE "/cancel", NOT_FOUND},
    {"path", .method = "POST", .path = "/quote/%00/accept", NOT_FOUND, .message = "no quote '%00'"},
    {"path", GET("/catalog/v100-16g-x1%00junk"), NOT_FOUND,
     .message = "no SKU 'v100-16g-x1%00junk'"},
    {"path", POST_JSON("/quote%00"), .body = ITEMS(ITEM), NOT_FOUND,
     .message = "no resource at /quote%00"},
    {"path", GET("/catalog/%C0%AF"), NOT_FOUND,
     .message = "no SKU '?"
                "?'"},
    {"path", GET("/catalog/v100-16g-x1/"), NOT_FOUND},
    {"path", .method = "GET", .path = "/cat", RAW("GET /cat\0alog HTTP/1.1\r\nHost: test\r\n\r\n"),
     NOT_FOUND, .message = "no resource at /cat"},

    /* ---- wrong methods ---- */
    {"method", .method = "PUT", .path = "/quote", .headers = {JSON_TYPE}, .body = ITEMS(ITEM),
     NOT_ALLOWED("GET, HEAD, POST, OPTIONS")},
    {"method", GET("/recommend"), NOT_ALLOWED("POST, OPTIONS")},
    {"method", .method = "HEAD", .path = "/recommend", .status = 405, .allow = "POST, OPTIONS"},
    {"method", .method = "DELETE", .path = "/quote/" UNKNOWN_QUOTE,
     NOT_ALLOWED("GET, HEAD, OPTIONS")},
    {"method", GET("/quote/" UNKNOWN_QUOTE "/accept"), NOT_ALLOWED("POST, OPTIONS")},
    {"method", .method = "PATCH", .path = "/catalog", .headers = {JSON_TYPE},
     .body = "{\"gpu\":\"V100\"}", NOT_ALLOWED("GET, HEAD, OPTIONS")},
    {"method", POST_JSON("/catalog"), .body = ITEMS(ITEM), NOT_ALLOWED("GET, HEAD, OPTIONS")},
    {"method", .method = "TRACE", .path = "/healthz", NOT_ALLOWED("GET, HEAD, OPTIONS")},
    /* methods are case-sensitive: "post" is not POST (libcurl would log it as
     * POST for the contract check, so it goes raw) */
    {"method", .method = "post", .path = "/quote",
     RAW("post /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Content-Length: 61\r\n\r\n" ITEMS(ITEM)),
     NOT_ALLOWED("GET, HEAD, POST, OPTIONS"), .message = "post is not allowed here"},

    /* ---- ambiguous framing or target: refused first, and the connection
     * closed. The smuggled GET after the first Content-Length's 2 bytes
     * must not be answered. ---- */
    {"framing", .method = "POST", .path = "/recommend",
     RAW("POST /recommend HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Content-Length: 2\r\nContent-Length: 40\r\n\r\n"
         "{}GET /nope-smuggled HTTP/1.1\r\nHost: x\r\n\r\n"),
     BAD_PARAMETER("Content-Length"), .message = "Content-Length is given more than once",
     .closes = true},
    {"framing", .method = "POST", .path = "/quote",
     RAW("POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Content-Length: 61\r\ncontent-length: 61\r\n\r\n" ITEMS(ITEM)),
     BAD_PARAMETER("Content-Length"), .closes = true},
    {"framing", .method = "POST", .path = "/quote",
     RAW("POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}"),
     BAD_PARAMETER("Transfer-Encoding"),
     .message = "a request cannot carry both Transfer-Encoding and Content-Length", .closes = true},
    {"framing", .method = "POST", .path = "/recommend",
     RAW("POST /recommend HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Transfer-Encoding: gzip\r\n\r\n{}"),
     BAD_PARAMETER("Transfer-Encoding"),
     .message = "the only Transfer-Encoding accepted is chunked", .closes = true},
    {"framing", .method = "POST", .path = "/quote",
     RAW("POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
     BAD_PARAMETER("Transfer-Encoding"), .closes = true},
    {"framing", .method = "GET", .path = "/healthz", RAW("GET /healthz HTTP/1.1\r\n\r\n"),
     BAD_PARAMETER("Host"), .message = "an HTTP/1.1 request must carry a Host header",
     .closes = true},
    {"framing", .method = "GET", .path = "/catalog",
     RAW("GET /catalog HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"), BAD_PARAMETER("Host"),
     .message = "Host is given more than once", .closes = true},
    {"framing", .method = "GET", .path = "/no-such-thing",
     RAW("GET /no-such-thing HTTP/1.1\r\n\r\n"), BAD_PARAMETER("Host"), .closes = true},
    {"framing", .method = "DELETE", .path = "/recommend",
     RAW("DELETE /recommend HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"), BAD_PARAMETER("Host"),
     .closes = true},

    /* ---- a malformed head (RFC 9112 2.2, 5.1, 5.2) that libmicrohttpd
     * 0.9.75 reads as something else: refused, and the connection closed.
     * "Content-Length : 40" would otherwise be a header of another name,
     * and the body a second request answered on its own. ---- */
    {"head", .method = "POST", .path = "/recommend",
     RAW("POST /recommend HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Content-Length : 40\r\n\r\nGET /nope-smuggled HTTP/1.1\r\nHost: x\r\n\r\n"),
     BAD_PARAMETER(NULL),
     .message = "a header name may hold no space or separator: nothing may stand between a name "
                "and its colon",
     .closes = true},
    {"head", .method = "POST", .path = "/quote",
     RAW("POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\nGET /nope-smuggled HTTP/1.1\r\n"
         "Host: x\r\n\r\n"),
     BAD_PARAMETER(NULL), .closes = true},
    {"head", .method = "GET", .path = "/catalog",
     RAW("GET /catalog HTTP/1.1\r\nHost: test\r\nContent-Length\t: 0\r\n\r\n"), BAD_PARAMETER(NULL),
     .closes = true},
    {"head", .method = "GET", .path = "/catalog",
     RAW("GET /catalog HTTP/1.1\r\nHost: test\r\nX Y: 1\r\n\r\n"), BAD_PARAMETER(NULL),
     .closes = true},
    {"head", .method = "GET", .path = "/catalog", RAW("GET /catalog HTTP/1.1\nHost: test\r\n\r\n"),
     BAD_PARAMETER(NULL),
     .message = "every line of a request's head must end with CRLF, and no header may be folded "
                "onto a second line",
     .closes = true},
    {"head", .method = "GET", .path = "/catalog",
     RAW("GET /catalog HTTP/1.1\r\nHost: test\nAccept: */*\r\n\r\n"), BAD_PARAMETER(NULL),
     .closes = true},
    {"head", .method = "GET", .path = "/catalog", RAW("GET /catalog HTTP/1.1\nHost: test\n\n"),
     BAD_PARAMETER(NULL), .closes = true},
    {"head", .method = "GET", .path = "/catalog",
     RAW("GET /catalog HTTP/1.1\r\nHost: test\r\nAccept: text/plain,\r\n application/json\r\n"
         "\r\n"),
     BAD_PARAMETER(NULL), .closes = true},
    {"head", .method = "GET", .path = "/catalog",
     RAW("GET /catalog HTTP/1.1\r\nHost: test\r\nX-A: 1\r\n\tmore: 2\r\n\r\n"), BAD_PARAMETER(NULL),
     .closes = true},

    /* ---- malformed HTTP: libmicrohttpd answers, without our envelope ---- */
    {"protocol", .method = "POST", .path = "/quote",
     RAW("POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Content-Length: abc\r\n\r\n{}"),
     .status = 400, .closes = true},
    {"protocol", .method = "POST", .path = "/quote",
     RAW("POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Content-Length: -1\r\n\r\n{}"),
     .status = 400, .closes = true},
    {"protocol", .method = "POST", .path = "/quote",
     RAW("POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
     .status = 400, .closes = true},
    {"protocol", .method = "GET", .path = "/catalog", .transport = VIA_RAW,
     .generate = raw_header_100k, .status = 431, .closes = true},
    {"protocol", .method = "GET", .path = "/catalog", .transport = VIA_RAW,
     .generate = raw_uri_100k, .status = 414, .closes = true},
};

#define ROW_COUNT (int)(sizeof rows / sizeof rows[0])

/* ---- sending a row ------------------------------------------------------------ */

/* A raw response as an http_response, so that the same assertions apply.
 * Takes `text` (NULL: no response at all). */
static struct http_response *response_from_raw(char *text, bool closed)
{
    struct http_response *response = calloc(1, sizeof *response);
    ck_assert_ptr_nonnull(response);
    if (text == NULL) {
        snprintf(response->error, sizeof response->error, "no response (%s)",
                 closed ? "closed" : "timed out");
        response->body = strdup("");
        ck_assert_ptr_nonnull(response->body);
        return response;
    }
    response->status = raw_status(text);
    const char *body = raw_body(text);
    response->body_length = strlen(body);
    response->body = strdup(body);
    ck_assert_ptr_nonnull(response->body);
    /* Header lines, up to the blank one. */
    const char *line = strstr(text, "\r\n");
    while (line != NULL && strncmp(line, "\r\n\r\n", 4) != 0) {
        const char *start = line + 2;
        const char *end = strstr(start, "\r\n");
        const char *colon = memchr(start, ':', end ? (size_t)(end - start) : strlen(start));
        if (end == NULL || colon == NULL)
            break;
        response->headers =
            realloc(response->headers, (response->n_headers + 1) * sizeof *response->headers);
        ck_assert_ptr_nonnull(response->headers);
        struct http_header *header = &response->headers[response->n_headers++];
        header->name = strndup(start, (size_t)(colon - start));
        const char *value = colon + 1 + strspn(colon + 1, " \t");
        header->value = strndup(value, (size_t)(end - value));
        ck_assert(header->name != NULL && header->value != NULL);
        for (char *c = header->name; *c != '\0'; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        line = end;
    }
    const char *type = http_header(response, "content-type");
    if (type != NULL && strncasecmp(type, "application/json", 16) == 0)
        response->json = json_loads(response->body, 0, NULL);
    free(text);
    return response;
}

/* Sends `request` as it is and reads one response; when `await_close`,
 * also waits for the server to close the connection after it. */
static struct http_response *send_raw(const char *request, size_t length, bool await_close,
                                      bool *closed)
{
    int fd = raw_connect(shared.port);
    ck_assert_int_ge(fd, 0);
    *closed = false;
    char *text = NULL;
    if (raw_send(fd, request, length))
        text = raw_read_response(fd, suite_wait_ms(5), true, closed);
    if (text != NULL && !*closed && await_close) {
        char *more = raw_read_response(fd, suite_wait_ms(5), true, closed);
        ck_assert_msg(more == NULL, "a second response: %.200s", more);
    }
    close(fd);
    return response_from_raw(text, *closed);
}

static struct http_response *send_row(const struct bad_request *row, bool *closed)
{
    size_t length = 0;
    char *generated = row->generate != NULL ? row->generate(&length) : NULL;
    const char *body = generated != NULL ? generated : row->body;
    if (generated == NULL && body != NULL)
        length = row->length != 0 ? row->length : strlen(body);
    struct http_response *response;
    *closed = false;
    switch (row->transport) {
    case VIA_RAW:
        response = send_raw(body, length, row->closes, closed);
        break;
    case VIA_CHUNKED:
        response = http_request_chunked(client, row->method, row->path, row->headers, body);
        break;
    default:
        response = http_request_sized(client, row->method, row->path, row->headers, body, length);
        *closed = http_closes(response);
        break;
    }
    free(generated);
    return response;
}

/* The table's one test: the row's answer, then nothing written and the
 * server still there. */
START_TEST(test_bad_input_refused)
{
    const struct bad_request *row = &rows[_i];
    bool closed;
    struct http_response *response = send_row(row, &closed);
    ck_assert_msg(response->status == row->status, "row %d (%s, %s %.80s): %s", _i, row->what,
                  row->method, row->path, http_describe(response));
    if (row->code != NULL) {
        expect_error(response, row->status, row->code, row->field);
        ck_assert_str_eq(http_header(response, "content-type"), "application/json");
    }
    if (row->message != NULL)
        expect_str(response->json, "error.message", row->message);
    if (row->allow != NULL)
        ck_assert_str_eq(http_header(response, "allow"), row->allow);
    if (row->closes)
        ck_assert_msg(closed, "row %d (%s): the connection stayed open", _i, row->what);
    ck_assert_ptr_null(http_header(response, "location"));
    http_response_free(response);

    ck_assert_int_eq(count_quotes(&shared), 0);
    struct http_response *health = http_get(client, "/healthz");
    expect_status(health, 200);
    http_response_free(health);
}
END_TEST

/* ---- after the table: alive and correct ---------------------------------------- */

START_TEST(test_bad_input_server_still_correct)
{
    struct http_response *catalog = http_get(client, "/catalog");
    expect_status(catalog, 200);
    ck_assert_int_eq(json_count(catalog->json, "skus"), 5);
    expect_join(catalog->json, "skus", "id", ALL_IDS);
    expect_str(catalog->json, "skus[1].id", "v100-16g-x1");
    expect_str(catalog->json, "skus[1].prices.on_demand.amount", "2.28");
    expect_str(catalog->json, "skus[1].prices.monthly.amount", "1231.00");
    http_response_free(catalog);

    struct http_response *quote = http_post_json(client, "/quote", EXAMPLE_UNSAVED);
    expect_status(quote, 200);
    expect_str(quote->json, "status", "unsaved");
    expect_str(quote->json, "items[0].amount", "1641.60");
    expect_str(quote->json, "items[0].cheapest.billing", "on_demand");
    expect_str(quote->json, "total", "1641.60");
    http_response_free(quote);

    struct http_response *recommend = http_post_json(
        client, "/recommend",
        "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"precision\":\"int8\"}}");
    expect_status(recommend, 200);
    expect_str(recommend->json, "recommendations[0].sku", "v100-16g-x1");
    expect_str(recommend->json, "recommendations[0].total", "1231.00");
    http_response_free(recommend);

    /* Not one of the refused requests wrote; writing still works. */
    ck_assert_int_eq(count_quotes(&shared), 0);
    struct http_response *saved = http_post_json(client, "/quote", ITEMS(ITEM));
    expect_status(saved, 201);
    expect_str(saved->json, "total", "1641.60");
    char path[96];
    snprintf(path, sizeof path, "/quote/%s", json_str(saved->json, "id"));
    struct http_response *read = http_get(client, path);
    expect_status(read, 200);
    ck_assert_msg(json_equal(read->json, saved->json), "read back %s", read->body);
    ck_assert_int_eq(count_quotes(&shared), 1);
    server_db_exec(&shared, "DELETE FROM quotes", NULL); /* for any row run after this */
    http_response_free(read);
    http_response_free(saved);

    /* No error of ours in the log (libmicrohttpd reports the requests it
     * refused itself as "error: http: ..."), and no 500 in the access log. */
    char *errors = server_read(&shared, "stderr.log");
    for (char *line = strtok(errors, "\n"); line != NULL; line = strtok(NULL, "\n"))
        ck_assert_msg(strstr(line, "error:") == NULL || strstr(line, "error: http: ") != NULL,
                      "the server logged: %s", line);
    free(errors);
    char *access = server_read(&shared, "stdout.log");
    ck_assert_msg(strstr(access, "\"status\":500") == NULL, "a 500 in the access log");
    free(access);
}
END_TEST

/* A 10 MB body with its Content-Length: 413 from the headers alone, then
 * the server closes; the body is never read. */
START_TEST(test_bad_input_ten_megabytes_unread)
{
    int fd = raw_connect(shared.port);
    ck_assert_int_ge(fd, 0);
    char headers[256];
    snprintf(headers, sizeof headers,
             "POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
             "Content-Length: %d\r\n\r\n",
             TEN_MB);
    ck_assert(raw_send(fd, headers, strlen(headers)));
    bool closed = false;
    char *text = raw_read_response(fd, suite_wait_ms(5), true, &closed);
    ck_assert_msg(text != NULL, "no answer before the body");
    ck_assert_int_eq(raw_status(text), 413);
    ck_assert_str_eq(raw_body(text),
                     "{\"error\":{\"code\":\"body_too_large\",\"message\":\"the body is over "
                     "65536 bytes\"}}");
    char connection[32];
    ck_assert(raw_header(text, "Connection", connection, sizeof connection));
    ck_assert_str_eq(connection, "close");
    free(text);
    if (!closed) {
        char *more = raw_read_response(fd, suite_wait_ms(5), true, &closed);
        ck_assert_ptr_null(more);
    }
    ck_assert_msg(closed, "the connection stays open for a body that will be refused");
    /* Sending the body now gets nowhere. */
    size_t length;
    char *body = ten_mb_quote(&length);
    size_t sent = raw_trickle(fd, body, length, 64 * 1024, 0);
    ck_assert_msg(sent < length, "all %zu bytes of the body were taken", sent);
    free(body);
    close(fd);
    ck_assert_int_eq(count_quotes(&shared), 0);
}
END_TEST

/* ---- trickled bodies: a server with a 2-second request deadline --------------- */

#define DEADLINE_SECONDS 2

static struct server slow;

static void start_slow(void)
{
    static const char *const env[] = {"GPUQUOTE_REQUEST_TIMEOUT_SECONDS=2", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&slow, &options);
}

static void stop_slow(void)
{
    server_finish_shared(&slow);
}

static void expect_example_on(uint16_t port)
{
    struct http_response *response =
        http_once(port, "POST", "/quote", (const char *const[]){JSON_TYPE, NULL}, EXAMPLE_UNSAVED);
    expect_status(response, 200);
    expect_str(response->json, "total", "1641.60");
    http_response_free(response);
}

/* A body a byte every 10 ms, well within the deadline: priced as usual. */
START_TEST(test_bad_input_trickle_in_time)
{
    int fd = raw_connect(slow.port);
    ck_assert_int_ge(fd, 0);
    const char *body = EXAMPLE_UNSAVED;
    char headers[256];
    snprintf(headers, sizeof headers,
             "POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n\r\n",
             strlen(body));
    ck_assert(raw_trickle(fd, headers, strlen(headers), 8, 10) == strlen(headers));
    ck_assert(raw_trickle(fd, body, strlen(body), 1, 10) == strlen(body));
    char *text = raw_read_response(fd, suite_wait_ms(5), true, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(raw_status(text), 200);
    json_t *json = json_loads(raw_body(text), 0, NULL);
    ck_assert_ptr_nonnull(json);
    expect_str(json, "items[0].amount", "1641.60");
    json_decref(json);
    free(text);
    close(fd);
}
END_TEST

/* A chunked body whose chunks come in time and whose end does not: 408,
 * and nothing written. */
START_TEST(test_bad_input_trickle_end_late)
{
    int fd = raw_connect(slow.port);
    ck_assert_int_ge(fd, 0);
    const char *headers = "POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                          "Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n";
    ck_assert(raw_send(fd, headers, strlen(headers)));
    /* "100 Continue": the server has begun the request, so its deadline is
     * at most 2 s from now. */
    char *interim = raw_read_response(fd, suite_wait_ms(5), false, NULL);
    ck_assert_msg(interim != NULL && raw_status(interim) == 100, "%s",
                  interim ? interim : "no 100 Continue");
    free(interim);
    long long begun = suite_now_ms();
    const char *body = ITEMS(ITEM);
    char chunk[256];
    snprintf(chunk, sizeof chunk, "%zx\r\n%s\r\n", strlen(body), body);
    ck_assert(raw_send(fd, chunk, strlen(chunk)));
    /* Others are served meanwhile. */
    expect_example_on(slow.port);
    /* The last chunk after the deadline (no condition to poll: the
     * deadline is the server's clock). */
    long long late = begun + DEADLINE_SECONDS * 1000 + 200 - suite_now_ms();
    if (late > 0)
        suite_sleep_ms((long)late);
    ck_assert(raw_send(fd, "0\r\n\r\n", 5));
    char *text = raw_read_response(fd, suite_wait_ms(5), true, NULL);
    ck_assert_msg(text != NULL, "no answer to a late end");
    ck_assert_int_eq(raw_status(text), 408);
    ck_assert_str_eq(raw_body(text),
                     "{\"error\":{\"code\":\"request_timeout\",\"message\":\"the request took "
                     "longer than 2 s to arrive\"}}");
    free(text);
    close(fd);
    ck_assert_int_eq(count_quotes(&slow), 0);
}
END_TEST

/* A body still arriving after the deadline: cut off, no answer, nothing
 * written, and the server goes on. */
START_TEST(test_bad_input_trickle_past_deadline)
{
    int fd = raw_connect(slow.port);
    ck_assert_int_ge(fd, 0);
    const char *body = ITEMS(ITEM);
    char headers[256];
    snprintf(headers, sizeof headers,
             "POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n\r\n",
             strlen(body));
    long long started = suite_now_ms();
    ck_assert(raw_send(fd, headers, strlen(headers)));
    /* A byte every 100 ms: 6 s for the whole body, three times the deadline. */
    size_t sent = raw_trickle(fd, body, strlen(body), 1, 100);
    long long elapsed = suite_now_ms() - started;
    ck_assert_msg(sent < strlen(body), "the whole body was taken over %lld ms", elapsed);
    ck_assert_msg(elapsed >= DEADLINE_SECONDS * 1000, "cut off after %lld ms", elapsed);
    bool closed = false;
    char *nothing = raw_read_response(fd, suite_wait_ms(2), true, &closed);
    ck_assert_msg(nothing == NULL, "answered: %s", nothing);
    ck_assert(closed);
    close(fd);
    ck_assert_int_eq(count_quotes(&slow), 0);
    expect_example_on(slow.port);
}
END_TEST

/* ---- control characters in stored text ------------------------------------ */

/* Every string the API stores that a person later reads (a terminal, a
 * page, a log) is refused with a control character in it: the 422 names
 * the field, and nothing is written. A table of one field each, with the
 * character the test of the row puts in it. */
static struct server stored;
static char stored_quote[64];

static void start_stored(void)
{
    server_start(&stored, NULL);
    struct http_response *made = http_once(stored.port, "POST", "/admin/price-lists", NULL, NULL);
    expect_status(made, 201);
    http_response_free(made);
    made = http_once(stored.port, "POST", "/quote", (const char *const[]){JSON_TYPE, NULL},
                     ITEMS(ITEM));
    expect_status(made, 201);
    snprintf(stored_quote, sizeof stored_quote, "%s", json_str(made->json, "id"));
    http_response_free(made);
}

static void stop_stored(void)
{
    server_finish_shared(&stored);
}

#define ESC "\\u001b"
#define SKU_WITH(field)                                                                            \
    "{\"gpu_model\":\"t4-16g\",\"gpu_count\":1,\"interconnect\":\"pcie\"," field "}"
#define BUNDLE_WITH(field)                                                                         \
    "{\"name\":\"Month\",\"list_price\":\"2000.00\",\"price\":\"1400.00\",\"contents\":[{\"sku\":" \
    "\"t4-16g-x1\",\"quantity\":1,\"hours\":720}]," field "}"
#define MODEL_WITH(model)                                                                          \
    "{\"model\":\"" model "\",\"memory_gb\":24,\"memory_type\":\"GDDR6\",\"fp16_tflops\":125,"     \
    "\"fp32_tflops\":31.2,\"memory_bandwidth_gbps\":600,\"tdp_watts\":150}"

static const struct {
    const char *method, *path; /* after "QUOTE/": the saved quote's, the rest */
    const char *body, *field, *code_point;
} control_rows[] = {
    {"POST", "/admin/keys",
     "{\"name\":\"evil" ESC "[31mRED" ESC "[0m\\rkey_fake\","
     "\"scopes\":[\"quotes:read\"]}",
     "name", "U+001B"},
    {"POST", "/quote", "{\"items\":[" ITEM "],\"client_reference_id\":\"PO\\u0007\"}",
     "client_reference_id", "U+0007"},
    {"POST", "/quote", "{\"items\":[" ITEM "],\"metadata\":{\"team\":\"nlp\\u202e\"}}",
     "metadata.team", "U+202E"},
    {"POST", "/quote", "{\"items\":[" ITEM "],\"metadata\":{\"te\\u009bam\":\"nlp\"}}", "metadata",
     "U+009B"},
    {"POST", "QUOTE/accept", "{\"reference\":\"PO-1\\r\\nPO-2\"}", "reference", "U+000D"},
    {"POST", "QUOTE/cancel", "{\"reason\":\"too dear\\u2028\"}", "reason", "U+2028"},
    {"PUT", "/admin/price-lists/2/skus/t4-x9", SKU_WITH("\"name\":\"A10\\u2066\""), "name",
     "U+2066"},
    {"PUT", "/admin/price-lists/2/skus/t4-x9",
     SKU_WITH("\"name\":\"A10\",\"description\":\"\\u007f\""), "description", "U+007F"},
    {"PUT", "/admin/price-lists/2/skus/t4-x9",
     SKU_WITH("\"name\":\"A10\",\"translations\":{\"zh-CN\":{\"name\":\"\\u0085A10\"}}"),
     "translations.zh-CN.name", "U+0085"},
    {"PUT", "/admin/price-lists/2/gpu-models/a10", MODEL_WITH("A10\\t24GB"), "model", "U+0009"},
    {"PUT", "/admin/price-lists/2/discount-rules/r9",
     "{\"name\":\"launch\\u202a\",\"basis_points\":1000}", "name", "U+202A"},
    {"PUT", "/admin/price-lists/2/bundles/b9", BUNDLE_WITH("\"description\":\"x\\u0001\""),
     "description", "U+0001"},
    {"PUT", "/admin/price-lists/2/bundles/b9",
     BUNDLE_WITH("\"translations\":{\"zh-CN\":{\"name\":\"月卡\",\"description\":\"\\u2069\"}}"),
     "translations.zh-CN.description", "U+2069"},
    {"POST", "/admin/webhook-endpoints",
     "{\"url\":\"https://93.184.216.34/hook\",\"events\":[\"quote.created\"],"
     "\"description\":\"order system" ESC "]0;owned\\u0007\"}",
     "description", "U+001B"},
};

START_TEST(test_control_characters_refused)
{
    char path[160];
    const char *row_path = control_rows[_i].path;
    if (strncmp(row_path, "QUOTE/", 6) == 0)
        snprintf(path, sizeof path, "/quote/%s/%s", stored_quote, row_path + 6);
    else
        snprintf(path, sizeof path, "%s", row_path);
    const char *audited = "SELECT COUNT(*) FROM audit_log";
    long long audit_lines = server_db_integer(&stored, audited, NULL);
    long long quotes = count_quotes(&stored);
    struct http_response *refused =
        http_once(stored.port, control_rows[_i].method, path,
                  (const char *const[]){JSON_TYPE, NULL}, control_rows[_i].body);
    expect_error(refused, 422, "invalid_value", control_rows[_i].field);
    const char *message = json_str(refused->json, "error.message");
    ck_assert_msg(strstr(message, control_rows[_i].field) == message &&
                      strstr(message, control_rows[_i].code_point) != NULL,
                  "message: %s", message);
    http_response_free(refused);
    ck_assert_int_eq(server_db_integer(&stored, audited, NULL), audit_lines);
    ck_assert_int_eq(count_quotes(&stored), quotes);
    char *status = server_db_text(&stored, "SELECT status FROM quotes WHERE id = ?1", stored_quote);
    ck_assert_str_eq(status, "open");
    free(status);
}
END_TEST

/* The same texts without the character are taken: the rows above fail for
 * the character alone. */
START_TEST(test_plain_text_taken)
{
    struct http_response *made =
        http_once(stored.port, "PUT", "/admin/price-lists/2/discount-rules/r9",
                  (const char *const[]){JSON_TYPE, NULL},
                  "{\"name\":\"launch \\u00e9\\u2014\\u6708\",\"basis_points\":1000}");
    expect_status(made, 200);
    expect_str(made->json, "value.name", "launch \xc3\xa9\xe2\x80\x94\xe6\x9c\x88");
    http_response_free(made);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_bad_input");

    TCase *table = tcase_create("table");
    tcase_add_unchecked_fixture(table, start_shared, stop_shared);
    tcase_add_checked_fixture(table, open_client, close_client);
    suite_set_timeout(table, 10);
    tcase_add_loop_test(table, test_bad_input_refused, 0, ROW_COUNT);
    tcase_add_test(table, test_bad_input_ten_megabytes_unread);
    tcase_add_test(table, test_bad_input_server_still_correct);
    suite_add_tcase(suite, table);

    TCase *trickle = tcase_create("trickle");
    tcase_add_unchecked_fixture(trickle, start_slow, stop_slow);
    suite_set_timeout(trickle, 15);
    tcase_add_test(trickle, test_bad_input_trickle_in_time);
    tcase_add_test(trickle, test_bad_input_trickle_end_late);
    tcase_add_test(trickle, test_bad_input_trickle_past_deadline);
    suite_add_tcase(suite, trickle);

    TCase *controls = tcase_create("control_characters");
    tcase_add_unchecked_fixture(controls, start_stored, stop_stored);
    suite_set_timeout(controls, 10);
    tcase_add_loop_test(controls, test_control_characters_refused, 0,
                        sizeof control_rows / sizeof control_rows[0]);
    tcase_add_test(controls, test_plain_text_taken);
    suite_add_tcase(suite, controls);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
