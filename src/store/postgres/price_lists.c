/*
 * The PostgreSQL backend's price lists (migration 0008): the lists read,
 * and each write of backend.h's PRICE_LIST_WRITE_* in one transaction with
 * its audit line (pg_run: again after a serialization failure). An
 * activation locks the list's row first (FOR UPDATE), so of two replicas
 * that wake at its effective_at one activates it and the other finds it
 * active. Not a hot path: PQexecParams, text in and out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"
#include "store/queries.h"

/* ---- Helpers. ---- */

/* Runs a command; *changes (may be NULL) receives the rows it changed or
 * returned. */
static enum gq_code command(struct pg_conn *conn, const char *sql, int n, const char *const *values,
                            int *changes, struct gq_error *err)
{
    PGresult *result = PQexecParams(conn->conn, sql, n, NULL, values, NULL, NULL, 0);
    ExecStatusType status = PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        enum gq_code code = pg_fail(conn, result, "writing a price list", err);
        PQclear(result);
        return code;
    }
    if (changes != NULL)
        *changes = status == PGRES_TUPLES_OK ? PQntuples(result) : atoi(PQcmdTuples(result));
    PQclear(result);
    return GQ_OK;
}

/* ---- Reading. ---- */

struct read_lists {
    int64_t version;
    struct price_list_set *out;
};

static enum gq_code read_list(const PGresult *result, int row, void *item, struct gq_error *err)
{
    struct price_list_info *info = item;
    info->version = pg_integer_at(result, row, 0);
    if (!price_list_state_parse(PQgetvalue(result, row, 1), &info->state))
        return gq_fail(err, GQ_ERR_INTERNAL, NULL, "price list %lld has an unknown state",
                       (long long)info->version);
    info->based_on = pg_integer_at(result, row, 2);
    info->created_at = pg_integer_at(result, row, 3);
    info->effective_at = pg_integer_at(result, row, 4);
    info->published_at = pg_integer_at(result, row, 5);
    info->superseded_at = pg_integer_at(result, row, 6);
    info->document = pg_copy_or_null(result, row, 7);
    if (info->document == NULL && !PQgetisnull(result, row, 7))
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    return GQ_OK;
}

static enum gq_code read_lists(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct read_lists *read = context;
    char version[PG_NUMBER_SIZE];
    const char *const values[] = {pg_number_text(read->version, version)};
    const struct pg_call call = {STORE_SQL_PRICE_LISTS, 1, values, NULL, NULL, "price lists"};
    enum gq_code code;
    PG_READ_PAGE(conn, &call, read_list, read->out, store_price_list_set_free, code, err);
    if (code != GQ_OK)
        store_price_list_set_free(read->out);
    return code;
}

enum gq_code pg_price_lists_read(struct store_backend *backend, int64_t version,
                                 struct price_list_set *out, struct gq_error *err)
{
    struct read_lists read = {version, out};
    out->items = NULL;
    out->count = 0;
    return pg_run(pg_store_of(backend), read_lists, &read, err);
}

/* ---- Writing. ---- */

struct list_write {
    const struct price_list_write *write;
    const struct audit_line *audit;
    bool *applied;
};

/* A row's values as text, in `buffers` (24 bytes each) where they are
 * numbers. */
static void value_texts(const struct store_value *values, size_t n, const char **texts,
                        char (*buffers)[32])
{
    for (size_t i = 0; i < n; i++) {
        switch (values[i].kind) {
        case STORE_VALUE_INTEGER:
            snprintf(buffers[i], sizeof buffers[i], "%lld", (long long)values[i].integer);
            texts[i] = buffers[i];
            break;
        case STORE_VALUE_REAL:
            snprintf(buffers[i], sizeof buffers[i], "%.17g", values[i].real);
            texts[i] = buffers[i];
            break;
        case STORE_VALUE_TEXT:
            texts[i] = values[i].text;
            break;
        default:
            texts[i] = NULL;
        }
    }
}

static enum gq_code write_rows(struct pg_conn *conn, enum catalog_write_table table,
                               const struct catalog_write_rows *rows, struct gq_error *err)
{
    enum gq_code code = GQ_OK;
    for (size_t r = 0; code == GQ_OK && r < rows->n_rows; r++) {
        const char *texts[16];
        char buffers[16][32];
        size_t n = rows->n_columns < 16 ? rows->n_columns : 16;
        value_texts(&rows->values[r * rows->n_columns], n, texts, buffers);
        code = command(conn, conn->store->catalog_write_sql[table], (int)n, texts, NULL, err);
    }
    return code;
}

static enum gq_code activate(struct pg_conn *conn, const struct price_list_write *write,
                             bool *applied, struct gq_error *err)
{
    char version[24], now[24];
    snprintf(version, sizeof version, "%lld", (long long)write->version);
    snprintf(now, sizeof now, "%lld", (long long)write->now);
    const char *const version_only[] = {version};
    const char *const version_now[] = {version, now};
    const char *const superseded[] = {now, write->document};
    const char *const models[] = {write->model_ids};
    int scheduled = 0;
    enum gq_code code = command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_IS_SCHEDULED), 1,
                                version_only, &scheduled, err);
    *applied = code == GQ_OK && scheduled > 0;
    if (!*applied)
        return code;
    for (size_t i = 0; code == GQ_OK && i < STORE_CATALOG_CLEAR_COUNT; i++)
        code = command(conn, store_catalog_clear_sql[i], 0, NULL, NULL, err);
    for (int t = 0; code == GQ_OK && t < CATALOG_WRITE_COUNT; t++)
        code = write_rows(conn, (enum catalog_write_table)t, &write->rows[t], err);
    if (code == GQ_OK)
        code = command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_DROP_MODELS), 1, models, NULL, err);
    if (code == GQ_OK)
        code =
            command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_OVERTAKEN), 2, version_now, NULL, err);
    if (code == GQ_OK)
        code =
            command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_SUPERSEDE), 2, superseded, NULL, err);
    if (code == GQ_OK)
        code =
            command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_ACTIVATE), 1, version_only, NULL, err);
    if (code == GQ_OK)
        code = command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_SET_VERSION), 2, version_now, NULL,
                       err);
    return code;
}

static enum gq_code write_list(struct pg_conn *conn, const struct price_list_write *write,
                               bool *applied, struct gq_error *err)
{
    char version[24], based_on[24], now[24], effective_at[24];
    snprintf(version, sizeof version, "%lld", (long long)write->version);
    snprintf(based_on, sizeof based_on, "%lld", (long long)write->based_on);
    snprintf(now, sizeof now, "%lld", (long long)write->now);
    snprintf(effective_at, sizeof effective_at, "%lld", (long long)write->effective_at);
    int changes = 0;
    enum gq_code code = GQ_OK;
    switch (write->kind) {
    case PRICE_LIST_WRITE_INSERT: {
        const char *const values[] = {version, based_on, now, write->document};
        code = command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_INSERT), 4, values, &changes, err);
        break;
    }
    case PRICE_LIST_WRITE_EDIT: {
        const char *const values[] = {version, write->document, write->old_document};
        code = command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_EDIT), 3, values, &changes, err);
        break;
    }
    case PRICE_LIST_WRITE_SCHEDULE: {
        const char *const values[] = {version, effective_at, now};
        code = command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_SCHEDULE), 3, values, &changes, err);
        break;
    }
    case PRICE_LIST_WRITE_ACTIVATE:
        return activate(conn, write, applied, err);
    case PRICE_LIST_WRITE_CANCEL: {
        const char *const values[] = {version};
        code = command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_CANCEL), 1, values, &changes, err);
        break;
    }
    case PRICE_LIST_WRITE_REBASE: {
        const char *const values[] = {version, write->document, based_on};
        code = command(conn, pg_sql(conn, STORE_SQL_PRICE_LIST_REBASE), 3, values, &changes, err);
        break;
    }
    }
    *applied = code == GQ_OK && changes > 0;
    return code;
}

static enum gq_code write_audited(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct list_write *list = context;
    *list->applied = false;
    enum gq_code code = write_list(conn, list->write, list->applied, err);
    if (code == GQ_OK && *list->applied)
        code = pg_audit_append(conn, list->audit, err);
    if (code == GQ_OK && *list->applied && list->write->event != NULL)
        code = pg_event_append(conn, list->write->event, err);
    return code;
}

enum gq_code pg_price_list_write(struct store_backend *backend,
                                 const struct price_list_write *write,
                                 const struct audit_line *audit, bool *applied,
                                 struct gq_error *err)
{
    struct list_write list = {write, audit, applied};
    enum gq_code code = pg_run_write(backend, write_audited, &list, err);
    if (code != GQ_OK)
        *applied = false;
    return code;
}
