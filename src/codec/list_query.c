/*
 * List queries (list_query.h).
 */
#include "codec/list_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

static bool read_time(const char *value, int64_t *out)
{
    if (clock_parse_rfc3339(value, out))
        return true;
    char *end;
    long long seconds = strtoll(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || seconds < 0)
        return false;
    *out = seconds;
    return true;
}

static bool read_limit(const char *value, size_t *out)
{
    char *end;
    long number = strtol(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || number < 1 || number > LIST_LIMIT_MAX)
        return false;
    *out = (size_t)number;
    return true;
}

/* The names a list takes, for the message of an unknown one. */
static void known_names(const struct list_query_parser *parse, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < parse->count; i++) {
        int n = snprintf(out + used, size - used, "%s%s", i ? ", " : "", parse->params[i].name);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}

static enum gq_code refuse(struct list_query_parser *parse, const struct list_param *param)
{
    switch (param->kind) {
    case LIST_TIME:
        return gq_fail_msg(parse->err, GQ_ERR_INVALID_PARAMETER, param->name, MSG_PARAM_FORM,
                           MSG_TEXT(param->name), MSG_SAY(MSG_FORM_TIME));
    case LIST_LIMIT:
        return gq_fail_msg(parse->err, GQ_ERR_INVALID_PARAMETER, param->name, MSG_FORM_LIMIT,
                           MSG_TEXT(param->name), MSG_INT(LIST_LIMIT_MAX));
    case LIST_CURSOR:
        return gq_fail_msg(parse->err, GQ_ERR_INVALID_PARAMETER, param->name, MSG_FORM_CURSOR,
                           MSG_TEXT(param->name), MSG_TEXT(param->id_prefix));
    case LIST_TEXT:
    default:
        return gq_fail_msg(parse->err, GQ_ERR_INVALID_PARAMETER, param->name, MSG_PARAM_FORM,
                           MSG_TEXT(param->name), MSG_SAY(MSG_TYPE_STRING));
    }
}

static enum gq_code take(struct list_query_parser *parse, const char *name, const char *value)
{
    for (size_t i = 0; i < parse->count; i++) {
        const struct list_param *param = &parse->params[i];
        if (strcmp(param->name, name) != 0)
            continue;
        struct list_query *out = parse->out;
        if (out->present[i])
            return gq_fail_msg(parse->err, GQ_ERR_INVALID_PARAMETER, name, MSG_PARAM_TWICE,
                               MSG_TEXT_CUT(name, 40));
        out->present[i] = true;
        value = value != NULL ? value : "";
        bool good = true;
        switch (param->kind) {
        case LIST_TEXT:
            good = strlen(value) < sizeof out->text[i];
            break;
        case LIST_TIME:
            good = read_time(value, &out->time[i]);
            break;
        case LIST_LIMIT:
            good = read_limit(value, &out->limit);
            break;
        case LIST_CURSOR:
            if (value[0] == '\0') { /* "starting_after=": from the start */
                out->present[i] = false;
                return GQ_OK;
            }
            good = strncmp(value, param->id_prefix, strlen(param->id_prefix)) == 0 &&
                   strlen(value) < sizeof out->text[i];
            break;
        }
        if (!good)
            return refuse(parse, param);
        snprintf(out->text[i], sizeof out->text[i], "%s", value);
        return GQ_OK;
    }
    char known[256];
    known_names(parse, known, sizeof known);
    return gq_fail_msg(parse->err, GQ_ERR_INVALID_PARAMETER, name, MSG_PARAM_NOT_KNOWN,
                       MSG_TEXT_CUT(name, 40), MSG_TEXT(known));
}

void list_query_begin(struct list_query_parser *parse, const struct list_param *params,
                      size_t count, struct list_query *out, struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    out->limit = LIST_LIMIT_DEFAULT;
    *parse = (struct list_query_parser){params, count < LIST_PARAMS_MAX ? count : LIST_PARAMS_MAX,
                                        out, err, false};
}

bool list_query_add(struct list_query_parser *parse, const char *name, const char *value)
{
    if (parse->failed)
        return false;
    if (name[0] == '\0' && value == NULL)
        return true; /* "a=1&&b=2": an empty pair */
    if (name[0] == '\0') {
        gq_fail_msg(parse->err, GQ_ERR_INVALID_PARAMETER, NULL, MSG_PARAM_NO_NAME);
        parse->failed = true;
        return false;
    }
    parse->failed = take(parse, name, value) != GQ_OK;
    return !parse->failed;
}

const char *list_query_text(const struct list_query *query, size_t param)
{
    return query->present[param] ? query->text[param] : NULL;
}

int64_t list_query_time(const struct list_query *query, size_t param)
{
    return query->present[param] ? query->time[param] : 0;
}
