/*
 * A request body as JSON, loaded the one way the server loads bodies.
 *
 * RFC 8259 sets no limit on numbers, but jansson refuses one too large for
 * a double or an int64 and stops there: the rest of the body would go
 * unchecked, and the error could not name the field. So such a number is
 * replaced, in a copy of the body, by a stand-in of the same width that no
 * field accepts (1e300), and the copy is loaded again. Malformed JSON
 * after the number is then still 400 malformed_json; a body well formed
 * but for its numbers gets 422 out_of_range naming the field that held
 * the first one.
 */
#include <stdlib.h>
#include <string.h>

#include "codec/bodies.h"

/* Loads per pass: a body of many such numbers is not loaded once per
 * number (64 KB of them would be ~10,000 loads). */
#define MAX_NUMBERS_REPLACED 16
#define STAND_IN 1e300

static json_t *load(const char *text, size_t length, json_error_t *error)
{
    /* Any value, so that an array or a scalar is "valid JSON of the wrong
     * type" (422), not malformed; a repeated key is malformed. "\u0000" in
     * a string is valid JSON: the field readers refuse it where a string is
     * read (fields_is_text); jansson refuses it in a key. */
    return json_loadb(text, length, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL,
                      error);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Where the number that ends at `end` begins, reading back by JSON's
 * grammar: "." and "e" only after a digit, "+" and "-" only after such an
 * "e", except a "-" that starts the number. So "5-1e999" gives "-1e999",
 * and the "5" before it stays to make the body malformed, as it is. */
static size_t number_start(const char *text, size_t end)
{
    size_t start = end;
    while (start > 0) {
        char c = text[start - 1];
        bool after_digit = start >= 2 && is_digit(text[start - 2]);
        bool exponent_sign = (c == '-' || c == '+') && start >= 3 &&
                             (text[start - 2] == 'e' || text[start - 2] == 'E') &&
                             is_digit(text[start - 3]);
        if (is_digit(c) || exponent_sign || ((c == '.' || c == 'e' || c == 'E') && after_digit)) {
            start--;
            continue;
        }
        if (c == '-')
            start--; /* the number's own sign */
        break;
    }
    return start;
}

/* Overwrites the number that ends at `end` (jansson's error position) with
 * the stand-in padded with spaces; false when there is no number there or
 * it is narrower than the stand-in (an overflowing number never is: at
 * least "9e308", or 19 digits). */
static bool replace_number(char *text, size_t end)
{
    size_t start = number_start(text, end);
    bool negative = start < end && text[start] == '-';
    const char *stand_in = negative ? "-1e300" : "1e300";
    size_t width = strlen(stand_in);
    if (end - start < width)
        return false;
    memcpy(text + start, stand_in, width);
    memset(text + start + width, ' ', end - start - width);
    return true;
}

/* Writes into `path` the JSON path of the first stand-in in `value`, found
 * at `here`; false when there is none. */
static bool find_stand_in(json_t *value, const char *here, char *path, size_t size)
{
    char child[128];
    if (json_is_real(value) &&
        (json_real_value(value) == STAND_IN || json_real_value(value) == -STAND_IN)) {
        snprintf(path, size, "%s", here);
        return true;
    }
    if (json_is_object(value)) {
        const char *key;
        json_t *member;
        json_object_foreach(value, key, member)
        {
            fields_path(child, sizeof child, here, key);
            if (find_stand_in(member, child, path, size))
                return true;
        }
    } else if (json_is_array(value)) {
        for (size_t i = 0; i < json_array_size(value); i++) {
            fields_index_path(child, sizeof child, here, i);
            if (find_stand_in(json_array_get(value, i), child, path, size))
                return true;
        }
    }
    return false;
}

static bool is_numeric_overflow(const json_error_t *error)
{
    return json_error_code(error) == json_error_numeric_overflow;
}

static json_t *malformed(const json_error_t *error, struct gq_error *err)
{
    gq_fail_msg(err, GQ_ERR_MALFORMED_JSON, NULL, MSG_MALFORMED_JSON, MSG_INT(error->line),
                MSG_INT(error->column), MSG_TEXT(error->text));
    return NULL;
}

/* The body has numbers too large to hold: checks the rest of it and names
 * the field of the first. `first` is jansson's error for that one. */
static json_t *refuse_large_number(const char *body, size_t length, const json_error_t *first,
                                   struct gq_error *err)
{
    char *copy = malloc(length + 1);
    if (copy == NULL) {
        gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    memcpy(copy, body, length);
    copy[length] = '\0';
    json_error_t error = *first;
    json_t *loaded = NULL;
    bool replaced = true;
    for (int n = 0; n < MAX_NUMBERS_REPLACED && replaced && loaded == NULL; n++) {
        replaced = error.position > 0 && (size_t)error.position <= length &&
                   replace_number(copy, (size_t)error.position);
        if (replaced)
            loaded = load(copy, length, &error);
        if (loaded == NULL && replaced && !is_numeric_overflow(&error)) {
            free(copy);
            return malformed(&error, err); /* its position is the body's too */
        }
    }
    free(copy);
    if (loaded != NULL && !json_is_object(loaded)) { /* what the server says of it anyway */
        json_decref(loaded);
        gq_fail_msg(err, GQ_ERR_INVALID_TYPE, NULL, MSG_BODY_NOT_OBJECT);
        return NULL;
    }
    char field[128] = "";
    if (loaded != NULL)
        find_stand_in(loaded, "", field, sizeof field);
    json_decref(loaded);
    if (field[0] == '\0') /* too many such numbers to check them all */
        gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, NULL, MSG_NUMBER_TOO_LARGE_AT, MSG_INT(first->line),
                    MSG_INT(first->column));
    else
        gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_FIELD_NUMBER_TOO_LARGE, MSG_TEXT(field));
    return NULL;
}

json_t *body_load(const char *body, size_t length, struct gq_error *err)
{
    json_error_t error;
    json_t *loaded = load(body, length, &error);
    if (loaded != NULL)
        return loaded;
    if (is_numeric_overflow(&error))
        return refuse_large_number(body, length, &error, err);
    return malformed(&error, err);
}
