/*
 * Array parameters in PostgreSQL's binary format, for statements that take
 * a whole batch at once (unnest($1::text[], ...)): one statement a batch
 * costs the server its per-statement work (the plan check, the executor's
 * set-up, the table's CHECK constraints read back into expressions) once,
 * where a statement a row paid it for each.
 *
 * The format is the server's array_recv(): a header of int32s (dimensions,
 * 1; a flags word, 0; the element type's OID; the length; the lower bound,
 * 1), then each element as an int32 length (-1 for NULL) and its bytes in
 * the element type's own binary format. Every integer is big-endian.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"
#include "util/buffer.h"

#define HEADER_SIZE 20 /* five int32s */
#define COUNT_OFFSET 12

static bool reserve(struct pg_array *array, size_t more)
{
    if (!array->failed && !buffer_grow(&array->data, &array->capacity, array->size + more, 256))
        array->failed = true;
    return !array->failed;
}

static void put_int32(struct pg_array *array, uint32_t value)
{
    uint32_t big = htonl(value);
    memcpy(array->data + array->size, &big, sizeof big);
    array->size += sizeof big;
}

void pg_array_begin(struct pg_array *array, uint32_t element_oid)
{
    memset(array, 0, sizeof *array);
    if (!reserve(array, HEADER_SIZE))
        return;
    put_int32(array, 1); /* dimensions */
    put_int32(array, 0); /* flags: the server finds the NULLs itself */
    put_int32(array, element_oid);
    put_int32(array, 0); /* the length, filled by pg_array_end() */
    put_int32(array, 1); /* the lower bound */
}

void pg_array_add(struct pg_array *array, const void *bytes, size_t length)
{
    if (bytes == NULL) {
        if (reserve(array, 4))
            put_int32(array, UINT32_MAX); /* -1: NULL */
    } else if (length <= INT32_MAX && reserve(array, 4 + length)) {
        put_int32(array, (uint32_t)length);
        memcpy(array->data + array->size, bytes, length);
        array->size += length;
    } else {
        array->failed = true;
    }
    array->count++;
}

void pg_array_add_text(struct pg_array *array, const char *text)
{
    pg_array_add(array, text, text != NULL ? strlen(text) : 0);
}

void pg_array_add_int64(struct pg_array *array, int64_t value)
{
    uint32_t high = htonl((uint32_t)((uint64_t)value >> 32));
    uint32_t low = htonl((uint32_t)value);
    char bytes[8];
    memcpy(bytes, &high, 4);
    memcpy(bytes + 4, &low, 4);
    pg_array_add(array, bytes, sizeof bytes);
}

bool pg_array_end(struct pg_array *array)
{
    if (array->failed || array->size > INT32_MAX)
        return false;
    uint32_t count = htonl(array->count);
    memcpy(array->data + COUNT_OFFSET, &count, sizeof count);
    return true;
}

void pg_array_free(struct pg_array *array)
{
    free(array->data);
    memset(array, 0, sizeof *array);
}
