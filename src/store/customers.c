/*
 * Customers, the part every backend shares: freeing what the backends
 * read, and the wrappers of store.h, which make each write's event and
 * audit line and word a missing customer.
 */
#include <stdlib.h>
#include <string.h>

#include "store/backend.h"
#include "store/page.h"
#include "store/store.h"

void store_customer_clear(struct stored_customer *customer)
{
    if (customer == NULL)
        return;
    free(customer->email);
    free(customer->document);
    memset(customer, 0, sizeof *customer);
}

void store_customer_page_free(struct customer_page *page)
{
    STORE_LIST_FREE(page, store_customer_clear);
}

static enum gq_code no_customer(const char *id, struct gq_error *err)
{
    return gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_NO_CUSTOMER, MSG_TEXT_CUT(id, 40));
}

enum gq_code store_customers_read(struct store *store, const struct customer_filter *filter,
                                  struct customer_page *out, struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    enum gq_code code = store_ops(store)->customers_read(store_backend(store), filter, out, err);
    STORE_PAGE_END(code, out, filter->limit, store_customer_clear);
    return code;
}

enum gq_code store_customer_check_live(struct store *store, const char *id, struct gq_error *err)
{
    struct stored_customer customer = {0};
    enum gq_code code = store_customer_get(store, id, &customer, err);
    if (code == GQ_OK && customer.deleted)
        code = no_customer(id, err);
    store_customer_clear(&customer);
    return code;
}

enum gq_code store_customer_get(struct store *store, const char *id, struct stored_customer *out,
                                struct gq_error *err)
{
    struct customer_filter filter = {.id = id, .include_deleted = true, .limit = 1};
    struct customer_page page;
    enum gq_code code = store_customers_read(store, &filter, &page, err);
    if (code == GQ_OK && !store_items_take_first(page.items, page.count, sizeof *page.items, out))
        code = no_customer(id, err);
    store_customer_page_free(&page);
    return code;
}

enum gq_code store_customer_write(struct store *store, bool create,
                                  const struct stored_customer *customer, const char *event_type,
                                  const char *object, const struct audit_entry *audit,
                                  struct gq_error *err)
{
    struct audit_line line;
    struct store_event event;
    enum gq_code code = store_audit_line(audit, &line, err);
    if (code != GQ_OK)
        return code;
    code = store_event_make(event_type, object, &event, err);
    if (code != GQ_OK)
        return code;
    store_event_concerns(&event, customer->id);
    struct customer_write write = {create, customer, &event, object, &line};
    bool found = false;
    code = store_ops(store)->customer_write(store_backend(store), &write, &found, err);
    store_event_clear(&event);
    if (code == GQ_OK && !found)
        return no_customer(customer->id, err);
    if (code == GQ_OK)
        store_events_committed(store);
    return code;
}
