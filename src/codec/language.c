/*
 * Accept-Language (RFC 9110, 12.5.4): which of the languages the service
 * speaks a request asks for.
 *
 * Each element of the list is a language range with an optional weight
 * ("zh-CN;q=0.8"). The range with the highest weight that names a language
 * we have wins; among equal weights, the first listed. Ranges are matched
 * by prefix, as RFC 4647 lookup does: "zh", "zh-CN", "zh-Hans", "zh-Hans-CN"
 * and "zh-SG" are Simplified Chinese; "zh-TW", "zh-HK" and "zh-Hant" are
 * Traditional, which we do not have, so they choose nothing; "en" and
 * "en-*" are English; "*" is any, and so English, the default. A weight of
 * 0 ("zh;q=0") says "not this one"; a language listed twice keeps its
 * first weight; "*" weighs for the languages the list does not name
 * ("zh;q=0, *" is English). Malformed elements are skipped, never
 * refused: a header a browser builds must not turn a page into an error.
 * With nothing acceptable the answer is English, not 406.
 *
 * Pure string work, without libmicrohttpd, so that it is tested on its own
 * (tests/bodies/check_language.c); server.c feeds it every Accept-Language
 * line of a request.
 */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "codec/bodies.h"

void language_choice_init(struct language_choice *choice)
{
    memset(choice, 0, sizeof *choice);
    for (int l = 0; l <= GQ_LANG_COUNT; l++)
        choice->weight[l] = -1; /* not listed */
}

/* Whether `range` (length bytes, case-insensitive) starts with `prefix`
 * as whole subtags: "zh-Hans-CN" starts with "zh-hans", "zhx" not with "zh". */
static bool has_prefix(const char *range, size_t length, const char *prefix)
{
    size_t n = strlen(prefix);
    return length >= n && strncasecmp(range, prefix, n) == 0 && (length == n || range[n] == '-');
}

/* The language a range names, or -1 for one we do not speak; "*" is
 * GQ_LANG_COUNT (any). */
static int range_language(const char *range, size_t length)
{
    if (length == 1 && range[0] == '*')
        return GQ_LANG_COUNT;
    if (has_prefix(range, length, "zh-tw") || has_prefix(range, length, "zh-hk") ||
        has_prefix(range, length, "zh-mo") || has_prefix(range, length, "zh-hant"))
        return -1;
    if (has_prefix(range, length, "zh"))
        return GQ_LANG_ZH_CN;
    if (has_prefix(range, length, "en"))
        return GQ_LANG_EN;
    return -1;
}

/* A weight "0", "0.5", "1.000": thousandths, or -1 when malformed. */
static int parse_weight(const char *text, size_t length)
{
    if (length == 0 || (text[0] != '0' && text[0] != '1'))
        return -1;
    int weight = (text[0] - '0') * 1000;
    if (length == 1)
        return weight;
    if (text[1] != '.' || length > 5)
        return -1;
    int scale = 100;
    for (size_t i = 2; i < length; i++, scale /= 10) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        weight += (text[i] - '0') * scale;
    }
    return weight <= 1000 ? weight : -1;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* `text` without the whitespace around it. */
static void trim(const char **text, size_t *length)
{
    while (*length > 0 && is_space(**text)) {
        (*text)++;
        (*length)--;
    }
    while (*length > 0 && is_space((*text)[*length - 1]))
        (*length)--;
}

/* The weight of an element's parameters (";q=0.8"): 1000 without one, -1
 * when a q parameter is malformed. Other parameters are ignored. */
static int element_weight(const char *params, size_t length)
{
    int weight = 1000;
    while (length > 0) {
        const char *semicolon = memchr(params, ';', length);
        size_t part = semicolon != NULL ? (size_t)(semicolon - params) : length;
        const char *p = params;
        size_t n = part;
        trim(&p, &n);
        if (n >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            const char *value = p + 2;
            size_t value_length = n - 2;
            trim(&value, &value_length);
            weight = parse_weight(value, value_length);
            if (weight < 0)
                return -1;
        }
        if (semicolon == NULL)
            break;
        params += part + 1;
        length -= part + 1;
    }
    return weight;
}

static void consider_element(struct language_choice *choice, const char *element, size_t length)
{
    const char *semicolon = memchr(element, ';', length);
    size_t before = semicolon != NULL ? (size_t)(semicolon - element) : length;
    const char *range = element;
    size_t range_length = before;
    trim(&range, &range_length);
    if (range_length == 0)
        return;
    int weight = semicolon != NULL ? element_weight(semicolon + 1, length - before - 1) : 1000;
    int language = range_language(range, range_length);
    choice->position++;
    if (weight < 0 || language < 0)
        return;
    /* A language listed twice keeps its first weight, as a list is read
     * from the start. */
    if (choice->weight[language] >= 0)
        return;
    choice->weight[language] = weight;
    choice->order[language] = choice->position;
}

void language_choice_add(struct language_choice *choice, const char *field_value)
{
    if (field_value == NULL)
        return;
    const char *p = field_value;
    size_t left = strlen(p);
    while (left > 0) {
        const char *comma = memchr(p, ',', left);
        size_t length = comma != NULL ? (size_t)(comma - p) : left;
        consider_element(choice, p, length);
        if (comma == NULL)
            break;
        p += length + 1;
        left -= length + 1;
    }
}

enum gq_lang language_choice_result(const struct language_choice *choice)
{
    /* "*" weighs for every language the list does not name itself. */
    enum gq_lang best = GQ_LANG_EN;
    int best_weight = 0, best_order = 0;
    for (int l = 0; l < GQ_LANG_COUNT; l++) {
        bool listed = choice->weight[l] >= 0;
        int weight = listed ? choice->weight[l] : choice->weight[GQ_LANG_COUNT];
        int order = listed ? choice->order[l] : choice->order[GQ_LANG_COUNT];
        if (weight > best_weight || (weight == best_weight && weight > 0 && order < best_order)) {
            best = (enum gq_lang)l;
            best_weight = weight;
            best_order = order;
        }
    }
    return best; /* nothing acceptable: English all the same */
}

enum gq_lang language_negotiate(const char *field_value)
{
    struct language_choice choice;
    language_choice_init(&choice);
    language_choice_add(&choice, field_value);
    return language_choice_result(&choice);
}
