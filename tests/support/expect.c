/*
 * JSON paths and the text forms the assertions of expect.h compare.
 */
#include "support/expect.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING_SIZE 16
#define TEXT_SIZE 8192

/* The next buffer of the ring, filled printf-style. */
static const char *ring_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));

static const char *ring_printf(const char *format, ...)
{
    static char ring[RING_SIZE][TEXT_SIZE];
    static unsigned next;
    char *text = ring[next++ % RING_SIZE];
    va_list args;
    va_start(args, format);
    vsnprintf(text, TEXT_SIZE, format, args);
    va_end(args);
    return text;
}

json_t *json_at(json_t *root, const char *path)
{
    json_t *value = root;
    const char *p = path;
    while (value != NULL && *p != '\0') {
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '[') {
            char *end;
            unsigned long index = strtoul(p + 1, &end, 10);
            if (*end != ']' || !json_is_array(value))
                return NULL;
            value = json_array_get(value, index);
            p = end + 1;
            continue;
        }
        size_t length = strcspn(p, ".[");
        char key[128];
        if (length >= sizeof key || !json_is_object(value))
            return NULL;
        memcpy(key, p, length);
        key[length] = '\0';
        value = json_object_get(value, key);
        p += length;
    }
    return value;
}

const char *json_text(json_t *root, const char *path)
{
    json_t *value = json_at(root, path);
    if (value == NULL)
        return ring_printf("<missing %s>", path);
    char *dumped = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(12));
    const char *text = ring_printf("%s", dumped ? dumped : "<unprintable>");
    free(dumped);
    return text;
}

const char *json_str(json_t *root, const char *path)
{
    json_t *value = json_at(root, path);
    if (value == NULL)
        return ring_printf("<missing %s>", path);
    if (!json_is_string(value))
        return ring_printf("<not a string at %s: %s>", path, json_text(root, path));
    return ring_printf("%s", json_string_value(value));
}

const char *json_optional_str(json_t *root, const char *path)
{
    return json_at(root, path) == NULL ? "<absent>" : json_str(root, path);
}

const char *optional_text(const char *text)
{
    return text != NULL ? text : "<absent>";
}

const char *error_keys_for(const char *field, const char *code)
{
    if (code != NULL &&
        (strcmp(code, "quote_not_open") == 0 || strcmp(code, "quote_expired") == 0 ||
         strcmp(code, "promotion_code_invalid") == 0 ||
         strcmp(code, "promotion_code_exhausted") == 0))
        return field != NULL ? "code,message,field,state" : "code,message,state";
    if (code != NULL && strcmp(code, "price_list_would_revert") == 0)
        return "code,message,reverts";
    if (code != NULL && strcmp(code, "price_list_rebase_conflict") == 0)
        return "code,message,conflicts";
    return field != NULL ? "code,message,field" : "code,message";
}

const char *json_join(json_t *root, const char *path, const char *key)
{
    json_t *array = json_at(root, path);
    if (!json_is_array(array))
        return ring_printf("<missing %s>", path);
    char joined[TEXT_SIZE] = "";
    size_t used = 0;
    size_t index;
    json_t *element;
    json_array_foreach(array, index, element)
    {
        json_t *member = json_object_get(element, key);
        char piece[256];
        if (json_is_string(member))
            snprintf(piece, sizeof piece, "%s", json_string_value(member));
        else if (json_is_integer(member))
            snprintf(piece, sizeof piece, "%lld", (long long)json_integer_value(member));
        else
            snprintf(piece, sizeof piece, "<no %s>", key);
        int written =
            snprintf(joined + used, sizeof joined - used, "%s%s", index ? "," : "", piece);
        if (written < 0 || (size_t)written >= sizeof joined - used)
            break;
        used += (size_t)written;
    }
    return ring_printf("%s", joined);
}

const char *json_keys(json_t *root, const char *path)
{
    json_t *object = json_at(root, path);
    if (!json_is_object(object))
        return ring_printf("<no object at %s>", path);
    char joined[TEXT_SIZE] = "";
    size_t used = 0;
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value)
    {
        int written = snprintf(joined + used, sizeof joined - used, "%s%s", used ? "," : "", key);
        if (written < 0 || (size_t)written >= sizeof joined - used)
            break;
        used += (size_t)written;
    }
    return ring_printf("%s", joined);
}

long json_count(json_t *root, const char *path)
{
    json_t *array = json_at(root, path);
    return json_is_array(array) ? (long)json_array_size(array) : -1;
}

const char *http_describe(const struct http_response *response)
{
    if (response->status == 0)
        return ring_printf("no response (%s)", response->error);
    return ring_printf("HTTP %ld, body %.600s", response->status, response->body);
}

long long rfc3339_seconds(const char *text)
{
    struct tm parts = {0};
    const char *end = strptime(text, "%Y-%m-%dT%H:%M:%SZ", &parts);
    if (end == NULL || *end != '\0' || strlen(text) != 20)
        return -1;
    return (long long)timegm(&parts);
}
