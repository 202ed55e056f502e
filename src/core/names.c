/*
 * The lookups of a name in a table of stable names, and of a value's name
 * (names.h).
 */
#include "core/names.h"

#include <string.h>

int names_find(const char *const *names, size_t count, const char *text)
{
    if (text == NULL)
        return -1;
    for (size_t i = 0; i < count; i++)
        if (strcmp(names[i], text) == 0)
            return (int)i;
    return -1;
}

const char *names_id(const char *const *names, size_t count, int value)
{
    return value >= 0 && (size_t)value < count ? names[value] : "unknown";
}

bool names_parse(const struct names_table *table, const char *text, int *out)
{
    int index = names_find(table->names, table->count, text);
    if (index < 0)
        return false;
    *out = table->first + index;
    return true;
}
