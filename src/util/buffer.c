/*
 * Growing a byte buffer by doubling (buffer.h).
 */
#include "util/buffer.h"

#include <stdint.h>
#include <stdlib.h>

bool buffer_grow(char **data, size_t *capacity, size_t needed, size_t initial)
{
    if (needed <= *capacity)
        return true;
    size_t grown = *capacity > 0 ? *capacity : initial;
    while (grown < needed)
        grown = grown > SIZE_MAX / 2 ? needed : grown * 2;
    char *moved = realloc(*data, grown);
    if (moved == NULL)
        return false;
    *data = moved;
    *capacity = grown;
    return true;
}
