/*
 * The lookup of a name in a table of stable names (names.h).
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
