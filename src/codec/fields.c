/*
 * Reading fields of a request's JSON object with strict types and ranges,
 * reporting the exact JSON path ("items[2].days") of the first problem.
 *
 * Unknown keys are refused (fields_only): a misspelt "hours_per_dya" must
 * not silently price the default. No string taken holds a control
 * character (utf8_find_control()): what is stored is later printed, in a
 * terminal or a page, and must show there as what it is.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codec/bodies.h"
#include "core/plans.h"
#include "core/price_list.h"
#include "util/clock.h"
#include "util/decimal.h"
#include "util/utf8.h"

void fields_path(char *buf, size_t size, const char *parent, const char *key)
{
    if (parent == NULL || parent[0] == '\0')
        snprintf(buf, size, "%s", key);
    else
        snprintf(buf, size, "%s.%s", parent, key);
}

/* Appends what fits of `count` bytes to the `*length` bytes at `buf`,
 * keeping one byte of `size` for the NUL, as snprintf truncates. */
static void append_bounded(char *buf, size_t size, size_t *length, const char *bytes, size_t count)
{
    size_t room = size - 1 - *length;
    if (count > room)
        count = room;
    memcpy(buf + *length, bytes, count);
    *length += count;
}

/* Written by hand: every item's path is formatted, error or not (it is
 * handed to each of the item's fields), and snprintf cost more than
 * reading the item's fields did. */
void fields_index_path(char *buf, size_t size, const char *parent, size_t index)
{
    if (size == 0)
        return;
    char digits[DECIMAL_DIGITS_SIZE];
    size_t first = decimal_format(index, digits);
    size_t length = 0;
    append_bounded(buf, size, &length, parent, strlen(parent));
    append_bounded(buf, size, &length, "[", 1);
    append_bounded(buf, size, &length, digits + first, DECIMAL_DIGITS_SIZE - first);
    append_bounded(buf, size, &length, "]", 1);
    buf[length] = '\0';
}

/* What a value is, as a message ("a string", "字符串"). */
static enum gq_msg type_name(const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT:
        return MSG_TYPE_OBJECT;
    case JSON_ARRAY:
        return MSG_TYPE_ARRAY;
    case JSON_STRING:
        return MSG_TYPE_STRING;
    case JSON_INTEGER:
    case JSON_REAL:
        return MSG_TYPE_NUMBER;
    case JSON_TRUE:
    case JSON_FALSE:
        return MSG_TYPE_BOOLEAN;
    case JSON_NULL:
        break;
    }
    return MSG_TYPE_NULL;
}

/* Fails for the field `path`.`key` with message `id`, whose {1} is the
 * field's path and {2}, {3} the two arguments given (a message with fewer
 * places ignores the rest). The path is only formatted here, on failure: a
 * valid request never pays for it. */
static enum gq_code fail_at(struct gq_error *err, enum gq_code code, const char *path,
                            const char *key, enum gq_msg id, struct msg_arg second,
                            struct msg_arg third)
{
    char field[96];
    fields_path(field, sizeof field, path, key);
    return gq_fail_msg(err, code, field, id, MSG_TEXT(field), second, third);
}

/* No second or third argument. */
#define NO_ARG MSG_TEXT(NULL)

enum gq_code fields_fail_one_of(const char *path, const char *key, const char *choices,
                                struct gq_error *err)
{
    return fail_at(err, GQ_ERR_INVALID_VALUE, path, key, MSG_FIELD_ONE_OF, MSG_TEXT(choices),
                   NO_ARG);
}

/* Fails for the field `path`.`key` when `text` holds a control character,
 * naming it and its byte offset. */
static enum gq_code refuse_control(const char *text, const char *path, const char *key,
                                   struct gq_error *err)
{
    size_t offset;
    uint32_t code_point;
    if (!utf8_find_control(text, &offset, &code_point))
        return GQ_OK;
    char hex[16];
    snprintf(hex, sizeof hex, "%04X", (unsigned)code_point);
    return fail_at(err, GQ_ERR_INVALID_VALUE, path, key, MSG_FIELD_CONTROL_CHARACTER, MSG_TEXT(hex),
                   MSG_INT(offset));
}

/* Looks up `key`; NULL with GQ_OK when absent and optional. A JSON null
 * counts as absent: clients often send null for "not set". */
static enum gq_code lookup(json_t *object, const char *key, const char *path, bool required,
                           json_t **out, struct gq_error *err)
{
    json_t *value = json_object_get(object, key);
    if (value != NULL && json_is_null(value))
        value = NULL;
    *out = value;
    if (value == NULL && required)
        return fail_at(err, GQ_ERR_MISSING_FIELD, path, key, MSG_FIELD_REQUIRED, NO_ARG, NO_ARG);
    return GQ_OK;
}

static enum gq_code wrong_type(const char *path, const char *key, enum gq_msg expected,
                               const json_t *value, struct gq_error *err)
{
    return fail_at(err, GQ_ERR_INVALID_TYPE, path, key, MSG_FIELD_WRONG_TYPE, MSG_SAY(expected),
                   MSG_SAY(type_name(value)));
}

enum gq_code fields_only(json_t *object, const char *const *allowed, const char *path,
                         struct gq_error *err)
{
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value)
    {
        bool known = false;
        /* The first byte tells most names apart without a call. */
        for (const char *const *name = allowed; *name != NULL && !known; name++)
            known = (*name)[0] == key[0] && strcmp(*name, key) == 0;
        if (!known) {
            char field[96];
            fields_path(field, sizeof field, path, key);
            return gq_fail_msg(err, GQ_ERR_UNKNOWN_FIELD, field, MSG_UNKNOWN_FIELD,
                               MSG_TEXT_CUT(key, 60));
        }
    }
    return GQ_OK;
}

enum gq_code fields_object_only(json_t *value, const char *const *allowed, const char *path,
                                struct gq_error *err)
{
    if (!json_is_object(value))
        return gq_fail_msg(err, GQ_ERR_INVALID_TYPE, path, MSG_FIELD_OBJECT, MSG_TEXT(path));
    return fields_only(value, allowed, path, err);
}

enum gq_code fields_string(json_t *object, const char *key, const char *path, bool required,
                           const char **out, struct gq_error *err)
{
    json_t *value;
    *out = NULL;
    enum gq_code code = lookup(object, key, path, required, &value, err);
    if (code != GQ_OK || value == NULL)
        return code;
    if (!json_is_string(value))
        return wrong_type(path, key, MSG_TYPE_STRING, value, err);
    if (!fields_is_text(value))
        return fail_at(err, GQ_ERR_INVALID_VALUE, path, key, MSG_FIELD_NO_NUL, NO_ARG, NO_ARG);
    code = refuse_control(json_string_value(value), path, key, err);
    if (code == GQ_OK)
        *out = json_string_value(value);
    return code;
}

bool fields_is_text(const json_t *value)
{
    return json_is_string(value) && strlen(json_string_value(value)) == json_string_length(value);
}

bool fields_integral_value(const json_t *value, int64_t *out)
{
    if (json_is_integer(value)) {
        *out = (int64_t)json_integer_value(value);
        return true;
    }
    double real = json_real_value(value);
    if (!json_is_real(value) || real != floor(real) || fabs(real) > 9e15)
        return false;
    *out = (int64_t)real;
    return true;
}

enum gq_code fields_integer(json_t *object, const char *key, const char *path, bool required,
                            int64_t min, int64_t max, int64_t *out, struct gq_error *err)
{
    json_t *value;
    enum gq_code code = lookup(object, key, path, required, &value, err);
    if (code != GQ_OK || value == NULL)
        return code;
    if (!json_is_number(value))
        return wrong_type(path, key, MSG_TYPE_WHOLE_NUMBER, value, err);
    int64_t number;
    bool whole = fields_integral_value(value, &number);
    if (!whole && json_number_value(value) != floor(json_number_value(value)))
        return fail_at(err, GQ_ERR_INVALID_VALUE, path, key, MSG_FIELD_WHOLE, NO_ARG, NO_ARG);
    if (!whole || number < min || number > max) /* not whole here: beyond ±9e15 */
        return fail_at(err, GQ_ERR_OUT_OF_RANGE, path, key, MSG_FIELD_INTEGER_RANGE, MSG_INT(min),
                       MSG_INT(max));
    *out = number;
    return GQ_OK;
}

enum gq_code fields_real(json_t *object, const char *key, const char *path, bool required,
                         double min, double max, double *out, struct gq_error *err)
{
    json_t *value;
    enum gq_code code = lookup(object, key, path, required, &value, err);
    if (code != GQ_OK || value == NULL)
        return code;
    if (!json_is_number(value))
        return wrong_type(path, key, MSG_TYPE_NUMBER, value, err);
    double number = json_number_value(value);
    if (!(number >= min && number <= max))
        return fail_at(err, GQ_ERR_OUT_OF_RANGE, path, key, MSG_FIELD_REAL_RANGE, MSG_REAL(min),
                       MSG_REAL(max));
    *out = number;
    return GQ_OK;
}

enum gq_code fields_hours_per_day(json_t *object, const char *key, const char *path, bool required,
                                  int32_t *out_millihours, struct gq_error *err)
{
    json_t *value;
    enum gq_code code = lookup(object, key, path, required, &value, err);
    if (code != GQ_OK || value == NULL)
        return code;
    if (!json_is_number(value))
        return wrong_type(path, key, MSG_TYPE_HOURS, value, err);
    double hours = json_number_value(value);
    if (!(hours > 0 && hours <= 24))
        return fail_at(err, GQ_ERR_OUT_OF_RANGE, path, key, MSG_FIELD_HOURS_RANGE, NO_ARG, NO_ARG);
    /* Hours are billed in thousandths; more precision than that would be
     * silently rounded, so it is refused instead. */
    double millihours = hours * USAGE_MILLIHOURS_PER_HOUR;
    double whole = round(millihours);
    if (fabs(millihours - whole) > 1e-6 || whole < 1)
        return fail_at(err, GQ_ERR_INVALID_VALUE, path, key, MSG_FIELD_THREE_DECIMALS, NO_ARG,
                       NO_ARG);
    *out_millihours = (int32_t)whole;
    return GQ_OK;
}

enum gq_code fields_boolean(json_t *object, const char *key, const char *path, bool required,
                            bool *out, struct gq_error *err)
{
    json_t *value;
    enum gq_code code = lookup(object, key, path, required, &value, err);
    if (code != GQ_OK || value == NULL)
        return code;
    if (!json_is_boolean(value))
        return wrong_type(path, key, MSG_TYPE_TRUE_OR_FALSE, value, err);
    *out = json_is_true(value);
    return GQ_OK;
}

enum gq_code fields_money(json_t *object, const char *key, const char *path, bool required,
                          gq_money *out, struct gq_error *err)
{
    json_t *value;
    enum gq_code code = lookup(object, key, path, required, &value, err);
    if (code != GQ_OK || value == NULL)
        return code;
    char most[MONEY_FORMAT_SIZE];
    if (json_is_number(value)) {
        /* Whole yuan (3000 or 3000.0); fen only in a string, since a
         * binary fraction cannot hold them exactly. */
        int64_t yuan;
        bool whole = fields_integral_value(value, &yuan);
        if (!whole && json_number_value(value) != floor(json_number_value(value)))
            return fail_at(err, GQ_ERR_INVALID_VALUE, path, key, MSG_FIELD_WHOLE_YUAN, NO_ARG,
                           NO_ARG);
        if (!whole || yuan < 0 || yuan > MONEY_MAX / 100) /* not whole here: beyond ±9e15 */
            return fail_at(err, GQ_ERR_OUT_OF_RANGE, path, key, MSG_FIELD_MONEY_RANGE,
                           MSG_TEXT(money_format(MONEY_MAX, most)), NO_ARG);
        *out = (gq_money)yuan * 100;
        return GQ_OK;
    }
    if (!json_is_string(value))
        return wrong_type(path, key, MSG_TYPE_MONEY_STRING, value, err);
    if (!fields_is_text(value))
        return fail_at(err, GQ_ERR_INVALID_VALUE, path, key, MSG_FIELD_NO_NUL, NO_ARG, NO_ARG);
    switch (money_parse_amount(json_string_value(value), out)) {
    case MONEY_PARSE_OK:
        return GQ_OK;
    case MONEY_PARSE_TOO_LARGE:
        return fail_at(err, GQ_ERR_OUT_OF_RANGE, path, key, MSG_FIELD_MONEY_RANGE,
                       MSG_TEXT(money_format(MONEY_MAX, most)), NO_ARG);
    case MONEY_PARSE_MALFORMED:
        break;
    }
    return fail_at(err, GQ_ERR_INVALID_VALUE, path, key, MSG_FIELD_MONEY_FORM, NO_ARG, NO_ARG);
}

enum gq_code fields_array(json_t *object, const char *key, const char *path, bool required,
                          size_t max, json_t **out, struct gq_error *err)
{
    json_t *value;
    enum gq_code code = lookup(object, key, path, required, &value, err);
    *out = NULL;
    if (code != GQ_OK || value == NULL)
        return code;
    if (!json_is_array(value))
        return wrong_type(path, key, MSG_TYPE_ARRAY, value, err);
    if (json_array_size(value) > max)
        return fail_at(err, GQ_ERR_OUT_OF_RANGE, path, key, MSG_FIELD_ARRAY_MAX, MSG_INT(max),
                       NO_ARG);
    *out = value;
    return GQ_OK;
}

enum gq_code fields_object(json_t *object, const char *key, const char *path, bool required,
                           json_t **out, struct gq_error *err)
{
    json_t *value;
    enum gq_code code = lookup(object, key, path, required, &value, err);
    *out = NULL;
    if (code != GQ_OK || value == NULL)
        return code;
    if (!json_is_object(value))
        return wrong_type(path, key, MSG_TYPE_OBJECT, value, err);
    *out = value;
    return GQ_OK;
}

enum gq_code fields_text(json_t *object, const char *key, const char *path, size_t max,
                         const char **out, struct gq_error *err)
{
    enum gq_code code = fields_string(object, key, path, false, out, err);
    if (code != GQ_OK || *out == NULL)
        return code;
    size_t length = strlen(*out);
    if (length == 0 || length > max) {
        char field[128];
        fields_path(field, sizeof field, path, key);
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_FIELD_TEXT_LENGTH, MSG_TEXT(field),
                           MSG_INT(1), MSG_INT((long long)max));
    }
    return GQ_OK;
}

/* Metadata as Stripe keeps it: at most 50 keys of 1 to 40 bytes, each a
 * string of at most 500 bytes. */
enum gq_code fields_metadata(json_t *object, const char *key, const char *path, json_t **out,
                             struct gq_error *err)
{
    enum gq_code code = fields_object(object, key, path, false, out, err);
    if (code != GQ_OK || *out == NULL)
        return code;
    char field[128];
    fields_path(field, sizeof field, path, key);
    if (json_object_size(*out) > FIELDS_METADATA_KEYS)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_FIELD_ARRAY_MAX, MSG_TEXT(field),
                           MSG_INT(FIELDS_METADATA_KEYS));
    const char *name;
    json_t *value;
    json_object_foreach(*out, name, value)
    {
        size_t length = strlen(name);
        if (length == 0 || length > FIELDS_METADATA_KEY_BYTES) {
            char at[192];
            snprintf(at, sizeof at, "%s.%.40s", field, name);
            return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_FIELD_TEXT_LENGTH,
                               MSG_TEXT_CUT(at, 100), MSG_INT(1),
                               MSG_INT(FIELDS_METADATA_KEY_BYTES));
        }
        const char *text = NULL;
        code = refuse_control(name, "", field, err);
        if (code == GQ_OK)
            code = fields_string(*out, name, field, true, &text, err);
        if (code == GQ_OK && strlen(text) > FIELDS_METADATA_VALUE_BYTES) {
            char at[192];
            fields_path(at, sizeof at, field, name);
            code = gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, at, MSG_FIELD_TEXT_LENGTH, MSG_TEXT(at),
                               MSG_INT(0), MSG_INT(FIELDS_METADATA_VALUE_BYTES));
        }
        if (code != GQ_OK)
            return code;
    }
    return GQ_OK;
}

enum gq_code fields_time(json_t *object, const char *key, const char *path, bool required,
                         int64_t *out, struct gq_error *err)
{
    json_t *value;
    enum gq_code code = lookup(object, key, path, required, &value, err);
    if (code != GQ_OK || value == NULL)
        return code;
    int64_t seconds;
    if (json_is_number(value)) {
        if (!fields_integral_value(value, &seconds) || seconds < 0 || seconds > FIELDS_TIME_MAX)
            return fail_at(err, GQ_ERR_INVALID_VALUE, path, key, MSG_FORM_TIME, NO_ARG, NO_ARG);
        *out = seconds;
        return GQ_OK;
    }
    const char *text;
    code = fields_string(object, key, path, true, &text, err);
    if (code == GQ_OK && (!clock_parse_rfc3339(text, &seconds) || seconds > FIELDS_TIME_MAX))
        code = fail_at(err, GQ_ERR_INVALID_VALUE, path, key, MSG_FORM_TIME, NO_ARG, NO_ARG);
    if (code == GQ_OK)
        *out = seconds;
    return code;
}

enum gq_code fields_price(json_t *object, const char *key, const char *path, gq_money *out,
                          struct gq_error *err)
{
    json_t *value = json_object_get(object, key);
    const char *text = json_string_value(value);
    char field[96];
    fields_path(field, sizeof field, path, key);
    /* "-1.00" is a price below zero, not a malformed one. */
    if ((text != NULL && text[strspn(text, " ")] == '-') ||
        (json_is_number(value) && json_number_value(value) <= 0))
        return gq_fail_msg(err, GQ_ERR_PRICE_NOT_POSITIVE, field, MSG_PRICE_NOT_POSITIVE,
                           MSG_TEXT(field));
    enum gq_code code = fields_money(object, key, path, true, out, err);
    if (code == GQ_OK && *out <= 0)
        return gq_fail_msg(err, GQ_ERR_PRICE_NOT_POSITIVE, field, MSG_PRICE_NOT_POSITIVE,
                           MSG_TEXT(field));
    if (code == GQ_OK && *out > PRICE_LIST_PRICE_MAX) {
        char price[MONEY_FORMAT_SIZE], most[MONEY_FORMAT_SIZE];
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_PRICE_ABOVE_CEILING,
                           MSG_TEXT(field), MSG_TEXT(money_format(*out, price)),
                           MSG_TEXT(money_format(PRICE_LIST_PRICE_MAX, most)));
    }
    return code;
}
