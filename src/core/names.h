/*
 * Tables of stable names: the words an enumeration of the core is written
 * as in JSON, indexed by its value, and the lookups both ways.
 */
#ifndef GQ_CORE_NAMES_H
#define GQ_CORE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* The names a request may write for an enumeration: names[i] is the value
 * first + i (values below `first`, such as a DEFAULT that shares another
 * value's name, are never parsed). */
struct names_table {
    const char *const *names;
    size_t count;
    int first;
};

/* The index of `text` among names[0..count), or -1 (for a NULL `text`
 * too). */
int names_find(const char *const *names, size_t count, const char *text);

/* names[value], or "unknown" when `value` is not below `count`. */
const char *names_id(const char *const *names, size_t count, int value);

/* Returns false when `text` (NULL included) is none of the table's names;
 * else stores its value in *out. */
bool names_parse(const struct names_table *table, const char *text, int *out);

#endif
