/*
 * The store's lists and pages, whatever their items (page.h): taking out
 * the one item a read by id returns.
 */
#include <string.h>

#include "store/page.h"

bool store_items_take_first(void *items, size_t count, size_t size, void *out)
{
    if (count == 0)
        return false;
    memcpy(out, items, size);
    memset(items, 0, size);
    return true;
}
