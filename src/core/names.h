/*
 * Tables of stable names: the words an enumeration of the core is written
 * as in JSON, indexed by its value, and the lookup that parses one back.
 */
#ifndef GQ_CORE_NAMES_H
#define GQ_CORE_NAMES_H

#include <stddef.h>

/* The index of `text` among names[0..count), or -1 (for a NULL `text`
 * too). */
int names_find(const char *const *names, size_t count, const char *text);

#endif
