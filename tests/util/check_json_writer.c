/*
 * The streaming JSON writer: exact text for every kind of value, commas and
 * nesting, escaping and UTF-8 repair, failure on misuse — and random
 * documents that jansson must parse back to what was written.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_writer.h"

static char *finish(struct jsonw *writer)
{
    char *text = jsonw_finish(writer, NULL);
    ck_assert_ptr_nonnull(text);
    return text;
}

START_TEST(writes_nested_documents_with_commas)
{
    struct jsonw w;
    jsonw_init(&w, 8); /* small: forces the buffer to grow */
    jsonw_object_begin(&w);
    jsonw_key_string(&w, "sku", "v100-16g-x1");
    jsonw_key_integer(&w, "quantity", 3);
    jsonw_key(&w, "parts");
    jsonw_array_begin(&w);
    jsonw_object_begin(&w);
    jsonw_key_money(&w, "amount", 164160);
    jsonw_object_end(&w);
    jsonw_object_begin(&w);
    jsonw_object_end(&w);
    jsonw_array_end(&w);
    jsonw_key(&w, "empty");
    jsonw_array_begin(&w);
    jsonw_array_end(&w);
    jsonw_key_boolean(&w, "preset", false);
    jsonw_key(&w, "none");
    jsonw_null(&w);
    jsonw_object_end(&w);
    size_t length = 0;
    char *text = jsonw_finish(&w, &length);
    ck_assert_str_eq(text, "{\"sku\":\"v100-16g-x1\",\"quantity\":3,\"parts\":[{\"amount\":"
                           "\"1641.60\"},{}],\"empty\":[],\"preset\":false,\"none\":null}");
    ck_assert_uint_eq(length, strlen(text));
    free(text);
}
END_TEST

/* The frame of a key with room for its bytes, the comma when one is due;
 * NULL, and nothing written, once the writer has failed. */
START_TEST(writes_a_key_around_room_for_its_name)
{
    struct jsonw w;
    jsonw_init(&w, 8);
    jsonw_object_begin(&w);
    char *at = jsonw_key_room(&w, 3);
    ck_assert_ptr_nonnull(at);
    memcpy(at, "sku", 3);
    jsonw_integer(&w, 1);
    at = jsonw_key_room(&w, 8);
    ck_assert_ptr_nonnull(at);
    memcpy(at, "quantity", 8);
    jsonw_integer(&w, 2);
    jsonw_key_n(&w, "days", 4);
    jsonw_integer(&w, 30);
    jsonw_object_end(&w);
    char *text = finish(&w);
    ck_assert_str_eq(text, "{\"sku\":1,\"quantity\":2,\"days\":30}");
    free(text);

    jsonw_init(&w, PTRDIFF_MAX); /* no allocator grants this */
    ck_assert_ptr_null(jsonw_key_room(&w, 3));
    ck_assert_ptr_null(jsonw_finish(&w, NULL));
}
END_TEST

static const struct {
    int64_t scaled;
    int decimals;
    const char *text;
} fixed_cases[] = {
    {7500, 3, "7.5"},     {720000, 3, "720.0"}, {1, 3, "0.001"},  {8000, 3, "8.0"},
    {180, 1, "18.0"},     {161, 1, "16.1"},     {274, 1, "27.4"}, {0, 1, "0.0"},
    {-2500, 3, "-2.5"},   {24000, 3, "24.0"},   {19608, 3, "19.608"},
    {INT64_MAX, 3, "9223372036854775.807"},
};

START_TEST(writes_fixed_point_exactly)
{
    struct jsonw w;
    jsonw_init(&w, 0);
    jsonw_fixed(&w, fixed_cases[_i].scaled, fixed_cases[_i].decimals);
    char *text = finish(&w);
    ck_assert_str_eq(text, fixed_cases[_i].text);
    free(text);
}
END_TEST

static const struct {
    double value;
    const char *text;
} real_cases[] = {
    {16.8, "16.8"}, {14.0, "14.0"}, {0.0, "0.0"}, {0.35, "0.35"}, {1e300, "1e+300"},
    {78.43, "78.43"}, {-1.5, "-1.5"}, {NAN, "null"}, {INFINITY, "null"},
};

START_TEST(writes_reals_as_jansson_does)
{
    struct jsonw w;
    jsonw_init(&w, 0);
    jsonw_real(&w, real_cases[_i].value);
    char *text = finish(&w);
    ck_assert_str_eq(text, real_cases[_i].text);
    free(text);
}
END_TEST

static const struct {
    const char *raw;
    const char *json;
} string_cases[] = {
    {"plain", "\"plain\""},
    {"quote \" and \\ back", "\"quote \\\" and \\\\ back\""},
    {"line\nfeed\ttab\rcr", "\"line\\nfeed\\ttab\\rcr\""},
    {"\x01\x1f", "\"\\u0001\\u001f\""},
    {"V100 16GB \xc3\x97 1", "\"V100 16GB \xc3\x97 1\""},           /* × passes through */
    {"\xe8\xae\xad\xe7\xbb\x83", "\"\xe8\xae\xad\xe7\xbb\x83\""},   /* 训练 */
    {"bad \xff byte", "\"bad \xef\xbf\xbd byte\""},                  /* -> U+FFFD */
    {"cut \xe8\xae", "\"cut \xef\xbf\xbd\xef\xbf\xbd\""},            /* truncated */
    {"\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},   /* surrogate */
    {"", "\"\""},
};

START_TEST(escapes_strings_and_repairs_utf8)
{
    struct jsonw w;
    jsonw_init(&w, 0);
    jsonw_string(&w, string_cases[_i].raw);
    char *text = finish(&w);
    ck_assert_str_eq(text, string_cases[_i].json);
    json_error_t error;
    json_t *parsed = json_loads(text, JSON_DECODE_ANY, &error);
    ck_assert_msg(parsed != NULL, "jansson refused %s: %s", text, error.text);
    json_decref(parsed);
    free(text);
}
END_TEST

START_TEST(refuses_incomplete_or_misused_documents)
{
    struct jsonw w;
    jsonw_init(&w, 0);
    jsonw_object_begin(&w);
    ck_assert_ptr_null(jsonw_finish(&w, NULL)); /* unclosed */
    jsonw_init(&w, 0);
    jsonw_object_end(&w);
    ck_assert_ptr_null(jsonw_finish(&w, NULL)); /* closes nothing */
    jsonw_init(&w, 0);
    for (int i = 0; i <= JSONW_MAX_DEPTH; i++)
        jsonw_array_begin(&w);
    ck_assert(w.failed);
    ck_assert_ptr_null(jsonw_finish(&w, NULL));
    jsonw_init(&w, 0);
    jsonw_fixed(&w, 1, 0);
    ck_assert_ptr_null(jsonw_finish(&w, NULL)); /* no decimals is not fixed point */
    jsonw_init(&w, 0);
    ck_assert_ptr_null(jsonw_finish(&w, NULL)); /* empty */
}
END_TEST

/* Under ASan, let an impossible allocation return NULL as libc's does,
 * rather than stop the test. Ignored without ASan. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

/* When the first allocation fails, every write fails with it (none goes
 * through a NULL buffer) and the document is refused. */
START_TEST(failed_first_allocation_fails_every_write)
{
    struct jsonw w;
    jsonw_init(&w, PTRDIFF_MAX); /* no allocator grants this */
    ck_assert(w.failed);
    jsonw_object_begin(&w);
    jsonw_key_string(&w, "sku", "v100-16g-x1");
    jsonw_key_money(&w, "total", 164160);
    jsonw_key_integer(&w, "quantity", 3);
    jsonw_object_end(&w);
    ck_assert_ptr_null(jsonw_finish(&w, NULL));
}
END_TEST

START_TEST(embeds_raw_json)
{
    struct jsonw w;
    jsonw_init(&w, 0);
    jsonw_array_begin(&w);
    jsonw_raw(&w, "{\"a\":1}", 7);
    jsonw_raw(&w, "[2]", 3);
    jsonw_array_end(&w);
    char *text = finish(&w);
    ck_assert_str_eq(text, "[{\"a\":1},[2]]");
    free(text);
}
END_TEST

/* A value written earlier is written again byte for byte, with its comma,
 * even when the copy makes the buffer grow (a 64-byte start). */
START_TEST(repeats_an_earlier_value)
{
    struct jsonw w;
    jsonw_init(&w, 0);
    jsonw_object_begin(&w);
    jsonw_key(&w, "first");
    size_t start = jsonw_length(&w);
    jsonw_object_begin(&w);
    jsonw_key_money(&w, "amount", 164160);
    jsonw_key_string(&w, "summary", "1 quarter + 10 days on demand");
    jsonw_object_end(&w);
    size_t end = jsonw_length(&w);
    jsonw_key(&w, "second");
    jsonw_repeat(&w, start, end);
    jsonw_key(&w, "list");
    jsonw_array_begin(&w);
    jsonw_integer(&w, 1);
    jsonw_repeat(&w, start, end);
    jsonw_array_end(&w);
    jsonw_object_end(&w);
    char *text = finish(&w);
    ck_assert_str_eq(text, "{\"first\":{\"amount\":\"1641.60\",\"summary\":\"1 quarter + 10 days "
                           "on demand\"},\"second\":{\"amount\":\"1641.60\",\"summary\":\"1 "
                           "quarter + 10 days on demand\"},\"list\":[1,{\"amount\":\"1641.60\","
                           "\"summary\":\"1 quarter + 10 days on demand\"}]}");
    free(text);

    jsonw_init(&w, 0); /* a range past what is written fails the document */
    jsonw_array_begin(&w);
    jsonw_repeat(&w, 0, 5);
    jsonw_array_end(&w);
    ck_assert_ptr_null(jsonw_finish(&w, NULL));
}
END_TEST

/* Writes a random value to `w` and builds the same value with jansson. */
static json_t *random_value(struct jsonw *w, int depth)
{
    int kind = rand() % (depth > 4 ? 5 : 7);
    switch (kind) {
    case 0: {
        int64_t n = ((int64_t)rand() << 31 | rand()) - (1LL << 40);
        jsonw_integer(w, n);
        return json_integer(n);
    }
    case 1: {
        int64_t fen = rand() % 100000000;
        jsonw_money(w, fen);
        char text[32];
        snprintf(text, sizeof text, "%lld.%02lld", (long long)(fen / 100), (long long)(fen % 100));
        return json_string(text);
    }
    case 2: {
        char text[16];
        for (int i = 0; i < 15; i++)
            text[i] = (char)(1 + rand() % 126);
        text[15] = '\0';
        jsonw_string(w, text);
        return json_string(text);
    }
    case 3: {
        bool value = rand() % 2;
        jsonw_boolean(w, value);
        return json_boolean(value);
    }
    case 4:
        jsonw_null(w);
        return json_null();
    case 5: {
        json_t *array = json_array();
        jsonw_array_begin(w);
        for (int n = rand() % 4; n > 0; n--)
            json_array_append_new(array, random_value(w, depth + 1));
        jsonw_array_end(w);
        return array;
    }
    default: {
        json_t *object = json_object();
        jsonw_object_begin(w);
        for (int n = rand() % 4; n > 0; n--) {
            char key[16];
            snprintf(key, sizeof key, "k%d", n);
            jsonw_key(w, key);
            json_object_set_new(object, key, random_value(w, depth + 1));
        }
        jsonw_object_end(w);
        return object;
    }
    }
}

START_TEST(random_documents_parse_back_equal)
{
    srand(11);
    for (int trial = 0; trial < 3000; trial++) {
        struct jsonw w;
        jsonw_init(&w, 16);
        jsonw_array_begin(&w);
        json_t *expected = json_array();
        json_array_append_new(expected, random_value(&w, 0));
        jsonw_array_end(&w);
        char *text = finish(&w);
        json_error_t error;
        json_t *parsed = json_loads(text, 0, &error);
        ck_assert_msg(parsed != NULL, "unparseable %s: %s", text, error.text);
        ck_assert_msg(json_equal(parsed, expected), "%s differs", text);
        json_decref(parsed);
        json_decref(expected);
        free(text);
    }
}
END_TEST

#define LOOP(tc, test, table) \
    tcase_add_loop_test(tc, test, 0, (int)(sizeof(table) / sizeof((table)[0])))

static Suite *json_writer_suite(void)
{
    Suite *suite = suite_create("json_writer");
    TCase *tc = tcase_create("json_writer");
    tcase_add_test(tc, writes_nested_documents_with_commas);
    tcase_add_test(tc, writes_a_key_around_room_for_its_name);
    LOOP(tc, writes_fixed_point_exactly, fixed_cases);
    LOOP(tc, writes_reals_as_jansson_does, real_cases);
    LOOP(tc, escapes_strings_and_repairs_utf8, string_cases);
    tcase_add_test(tc, refuses_incomplete_or_misused_documents);
    tcase_add_test(tc, failed_first_allocation_fails_every_write);
    tcase_add_test(tc, embeds_raw_json);
    tcase_add_test(tc, repeats_an_earlier_value);
    tcase_add_test(tc, random_documents_parse_back_equal);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(json_writer_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
