/*
 * What a write that reads its row back reports (readback.h): the key or
 * promotion code found, moved out of the list the backend read, and
 * whether this call was the one that changed it.
 */
#include <string.h>

#include "store/readback.h"

void store_key_revoke_report(const struct store_key_revoke *revoke, struct key_list *list,
                             bool revoked_now)
{
    *revoke->found = list->count == 1;
    *revoke->was_revoked = *revoke->found && !revoked_now;
    if (*revoke->found)
        *revoke->out = list->items[0];
    store_key_list_free(list);
}

void store_code_deactivate_begin(const struct store_code_deactivate *deactivate)
{
    *deactivate->found = false;
    memset(deactivate->out, 0, sizeof *deactivate->out);
}

void store_code_deactivate_report(const struct store_code_deactivate *deactivate,
                                  struct promotion_code_list *list)
{
    *deactivate->found = list->count == 1;
    if (*deactivate->found) {
        store_promotion_code_clear(deactivate->out);
        *deactivate->out = list->items[0];
        memset(&list->items[0], 0, sizeof list->items[0]);
    }
    store_promotion_code_list_free(list);
}

enum gq_code store_code_deactivate_end(const struct store_code_deactivate *deactivate,
                                       enum gq_code code)
{
    if (code != GQ_OK) {
        *deactivate->found = false;
        store_promotion_code_clear(deactivate->out);
    }
    return code;
}
