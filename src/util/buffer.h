/*
 * Growing a byte buffer by doubling, for the writers that append to one
 * (the JSON writer, PostgreSQL's binary arrays, a quote's PDF, a request's
 * body).
 */
#ifndef GQ_UTIL_BUFFER_H
#define GQ_UTIL_BUFFER_H

#include <stdbool.h>
#include <stddef.h>

/* Makes *data, of *capacity bytes (0: none yet), hold at least `needed`
 * bytes: the capacity doubles from `initial` (or from *capacity) until it
 * does, and *data may move. Returns false, both left as they were, when
 * memory runs out. */
bool buffer_grow(char **data, size_t *capacity, size_t needed, size_t initial);

#endif
