/*
 * The SQLite backend's customer discount rules: those of a customer, and
 * one put or delete with its audit line in one write transaction. The
 * statements are queries.c's, shared with PostgreSQL.
 */
#include <stdio.h>

#include "store/sqlite/db.h"

static enum gq_code read_rule(sqlite3_stmt *stmt, void *item, struct gq_error *err)
{
    struct stored_customer_rule *rule = item;
    snprintf(rule->id, sizeof rule->id, "%s", sqlite_db_text(stmt, CUSTOMER_RULE_COL_ID));
    rule->created_at = sqlite3_column_int64(stmt, CUSTOMER_RULE_COL_CREATED_AT);
    rule->updated_at = sqlite3_column_int64(stmt, CUSTOMER_RULE_COL_UPDATED_AT);
    if (!sqlite_db_column_strdup(stmt, CUSTOMER_RULE_COL_DOCUMENT, &rule->document))
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading customer rules");
    return GQ_OK;
}

enum gq_code sqlite_customer_rules_read(struct store_backend *backend, const char *customer_id,
                                        struct customer_rule_list *out, struct gq_error *err)
{
    enum gq_code code;
    SQLITE_DB_READ_LIST_BY_TEXT(sqlite_db_read_pooled, backend, STORE_SQL_CUSTOMER_RULES,
                                customer_id, "reading customer rules", read_rule, out, code, err);
    return code;
}

static enum gq_code write_rule(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    const struct customer_rule_write *write = context;
    const struct sqlite_db_param params[] = {
        SQLITE_DB_TEXT_OF(write->customer_id), SQLITE_DB_TEXT_OF(write->rule_id),
        SQLITE_DB_TEXT_OF(write->document), SQLITE_DB_INT64_OF(write->now)};
    const struct sqlite_db_call put = {sqlite_sql(STORE_SQL_CUSTOMER_RULE_PUT), params, 4,
                                       "storing a customer rule"};
    const struct sqlite_db_call delete = {sqlite_sql(STORE_SQL_CUSTOMER_RULE_DELETE), params, 2,
                                          "deleting a customer rule"};
    enum gq_code code =
        sqlite_db_change(conn, write->document != NULL ? &put : &delete, write->done, err);
    if (code != GQ_OK || !*write->done)
        return code;
    return sqlite_audit_append(conn, write->audit, err);
}

enum gq_code sqlite_customer_rule_write(struct store_backend *backend,
                                        const struct customer_rule_write *write,
                                        struct gq_error *err)
{
    *write->done = false;
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), write_rule, (void *)write, err);
}
