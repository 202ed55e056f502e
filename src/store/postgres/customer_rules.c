/*
 * The PostgreSQL backend's customer discount rules: those of a customer,
 * and one put or delete with its audit line in one transaction (run again
 * on a serialization failure or a deadlock: pg_run_write). Not hot paths
 * enough to prepare: sent with PQexecParams, text in and out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"

static enum gq_code read_row(const PGresult *result, int row, void *item, struct gq_error *err)
{
    struct stored_customer_rule *rule = item;
    snprintf(rule->id, sizeof rule->id, "%s", PQgetvalue(result, row, CUSTOMER_RULE_COL_ID));
    rule->created_at = pg_integer_at(result, row, CUSTOMER_RULE_COL_CREATED_AT);
    rule->updated_at = pg_integer_at(result, row, CUSTOMER_RULE_COL_UPDATED_AT);
    rule->document = strdup(PQgetvalue(result, row, CUSTOMER_RULE_COL_DOCUMENT));
    return rule->document != NULL
               ? GQ_OK
               : gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading customer rules");
}

static void clear_row(void *item)
{
    struct stored_customer_rule *rule = item;
    free(rule->document);
}

enum gq_code pg_customer_rules_read(struct store_backend *backend, const char *customer_id,
                                    struct customer_rule_list *out, struct gq_error *err)
{
    enum gq_code code;
    PG_RUN_READ_LIST_BY_TEXT(backend, STORE_SQL_CUSTOMER_RULES, customer_id,
                             "reading customer rules", read_row, clear_row, out, code, err);
    return code;
}

static enum gq_code write_rule(struct pg_conn *conn, void *context, struct gq_error *err)
{
    const struct customer_rule_write *write = context;
    char now[PG_NUMBER_SIZE];
    const char *const values[] = {write->customer_id, write->rule_id, write->document,
                                  pg_number_text(write->now, now)};
    const struct pg_call put = {STORE_SQL_CUSTOMER_RULE_PUT, 4, values, NULL, NULL,
                                "storing a customer rule"};
    const struct pg_call delete = {STORE_SQL_CUSTOMER_RULE_DELETE, 2, values, NULL, NULL,
                                   "deleting a customer rule"};
    *write->done = false;
    enum gq_code code = pg_change(conn, write->document != NULL ? &put : &delete, write->done, err);
    if (code != GQ_OK || !*write->done)
        return code;
    return pg_audit_append(conn, write->audit, err);
}

enum gq_code pg_customer_rule_write(struct store_backend *backend,
                                    const struct customer_rule_write *write, struct gq_error *err)
{
    return pg_run_write(backend, write_rule, (void *)write, err);
}
