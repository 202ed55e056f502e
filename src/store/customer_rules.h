/*
 * A customer's own discount rules (customer_rules.c and each backend's
 * customer_rules.c): an enterprise contract's negotiated prices, each kept
 * as the JSON document the API took, one per (customer, rule id). The
 * store does not read the documents: the API checks them before they are
 * written and turns them into discount rules when a quote is priced.
 */
#ifndef GQ_STORE_CUSTOMER_RULES_H
#define GQ_STORE_CUSTOMER_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

#define STORE_RULE_ID_SIZE 65

/* A rule as stored; `document` is owned (store_customer_rule_list_free()
 * frees it). */
struct stored_customer_rule {
    char id[STORE_RULE_ID_SIZE];
    char *document;
    int64_t created_at, updated_at;
};

struct customer_rule_list {
    struct stored_customer_rule *items;
    size_t count;
};

void store_customer_rule_list_free(struct customer_rule_list *list);

/* The rules of `customer_id` by id; an unknown customer has none. */
enum gq_code store_customer_rules_read(struct store *store, const char *customer_id,
                                       struct customer_rule_list *out, struct gq_error *err);

/* Creates or replaces rule `rule_id` of `customer_id` with `document` at
 * `now` (document NULL: deletes it), with its audit line in one
 * transaction. *done false (nothing written) when the customer is unknown
 * or erased (a put) or has no such rule (a delete). */
enum gq_code store_customer_rule_write(struct store *store, const char *customer_id,
                                       const char *rule_id, const char *document, int64_t now,
                                       const struct audit_entry *audit, bool *done,
                                       struct gq_error *err);

/* ---- For the backends ---- */

struct customer_rule_write {
    const char *customer_id, *rule_id;
    const char *document; /* NULL: delete */
    int64_t now;
    const struct audit_line *audit;
    bool *done; /* set true when a row was written */
};

#endif
