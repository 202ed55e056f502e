/*
 * The lists and pages the store reads (customers, events, deliveries,
 * audit lines...), handled once whatever their items. A list is a struct
 * with `items`, an array its items are in, and their `count`; a page has
 * `has_more` too, and is read with one item more than its limit, which
 * tells whether more follow. What an item owns is freed by its type's
 * clear function, which these take by name, so that they call it typed.
 */
#ifndef GPUQUOTE_STORE_PAGE_H
#define GPUQUOTE_STORE_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* Frees list `list` (NULL: nothing), each item cleared with `clear`, and
 * zeroes it. */
#define STORE_LIST_FREE(list, clear)                                                               \
    do {                                                                                           \
        if ((list) != NULL) {                                                                      \
            for (size_t item_ = 0; item_ < (list)->count; item_++)                                 \
                clear(&(list)->items[item_]);                                                      \
            free((list)->items);                                                                   \
            memset((list), 0, sizeof *(list));                                                     \
        }                                                                                          \
    } while (0)

/* Clears the items of page `page` past `limit`, and sets its has_more when
 * there were any. */
#define STORE_PAGE_TRIM(page, limit, clear)                                                        \
    do {                                                                                           \
        const size_t limit_ = (limit);                                                             \
        while ((page)->count > limit_) {                                                           \
            clear(&(page)->items[--(page)->count]);                                                \
            (page)->has_more = true;                                                               \
        }                                                                                          \
    } while (0)

/* Ends the read of page `page` (asked for one item more than `limit`) that
 * returned `code`: frees the page when it failed, trims it when not. */
#define STORE_PAGE_END(code, page, limit, clear)                                                   \
    do {                                                                                           \
        if ((code) != GQ_OK)                                                                       \
            STORE_LIST_FREE(page, clear);                                                          \
        else                                                                                       \
            STORE_PAGE_TRIM(page, limit, clear);                                                   \
    } while (0)

/* Moves the first of the `count` items of `size` bytes at `items` into
 * `out` (the array no longer owns what it points to); false, `out`
 * untouched, when there is none. */
bool store_items_take_first(void *items, size_t count, size_t size, void *out);

#endif
