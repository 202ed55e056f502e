/*
 * A customer's own discount rules, the part every backend shares: freeing
 * what the backends read, and the write wrapper that makes its audit line.
 */
#include "store/customer_rules.h"

#include <stdlib.h>
#include <string.h>

#include "store/backend.h"
#include "store/page.h"

static void clear_rule(struct stored_customer_rule *rule)
{
    free(rule->document);
}

void store_customer_rule_list_free(struct customer_rule_list *list)
{
    STORE_LIST_FREE(list, clear_rule);
}

enum gq_code store_customer_rules_read(struct store *store, const char *customer_id,
                                       struct customer_rule_list *out, struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    enum gq_code code =
        store_ops(store)->customer_rules_read(store_backend(store), customer_id, out, err);
    if (code != GQ_OK)
        store_customer_rule_list_free(out);
    return code;
}

enum gq_code store_customer_rule_write(struct store *store, const char *customer_id,
                                       const char *rule_id, const char *document, int64_t now,
                                       const struct audit_entry *audit, bool *done,
                                       struct gq_error *err)
{
    struct audit_line line;
    *done = false;
    enum gq_code code = store_audit_line(audit, &line, err);
    if (code != GQ_OK)
        return code;
    struct customer_rule_write write = {customer_id, rule_id, document, now, &line, done};
    return store_ops(store)->customer_rule_write(store_backend(store), &write, err);
}
