/*
 * The PostgreSQL backend's API keys and audit log: keys read, inserted,
 * revoked and touched, each write with its audit line in one transaction
 * (run again on a serialization failure or a deadlock, and once on a fresh
 * connection when the first was lost: pg_run); the audit log read a page
 * at a time. These are not hot paths: statements are sent with
 * PQexecParams, text in and out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"

/* ---- Helpers. ---- */

static PGresult *run(struct pg_conn *conn, const char *sql, int n, const char *const *values,
                     ExecStatusType expected, const char *what, struct gq_error *err)
{
    PGresult *result = PQexecParams(conn->conn, sql, n, NULL, values, NULL, NULL, 0);
    if (PQresultStatus(result) == expected)
        return result;
    pg_fail(conn, result, what, err);
    PQclear(result);
    return NULL;
}

static int64_t integer_at(const PGresult *result, int row, int column)
{
    return PQgetisnull(result, row, column) ? 0
                                            : strtoll(PQgetvalue(result, row, column), NULL, 10);
}

static enum gq_code read_keys(const PGresult *result, struct key_list *out, struct gq_error *err)
{
    int rows = PQntuples(result);
    out->items = rows > 0 ? calloc((size_t)rows, sizeof *out->items) : NULL;
    out->count = 0;
    if (rows > 0 && out->items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading keys");
    for (int row = 0; row < rows; row++) {
        struct stored_key *key = &out->items[out->count];
        snprintf(key->id, sizeof key->id, "%s", PQgetvalue(result, row, KEY_COL_ID));
        snprintf(key->name, sizeof key->name, "%s", PQgetvalue(result, row, KEY_COL_NAME));
        snprintf(key->prefix, sizeof key->prefix, "%s", PQgetvalue(result, row, KEY_COL_PREFIX));
        snprintf(key->hash, sizeof key->hash, "%s", PQgetvalue(result, row, KEY_COL_HASH));
        if (!store_scopes_parse(PQgetvalue(result, row, KEY_COL_SCOPES), &key->scopes)) {
            store_key_list_free(out);
            return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL,
                           "API key %s has an unknown scope in '%s'", key->id,
                           PQgetvalue(result, row, KEY_COL_SCOPES));
        }
        key->created_at = integer_at(result, row, KEY_COL_CREATED_AT);
        key->last_used_at = integer_at(result, row, KEY_COL_LAST_USED_AT);
        key->revoked_at = integer_at(result, row, KEY_COL_REVOKED_AT);
        out->count++;
    }
    return GQ_OK;
}

static void number_text(int64_t value, char out[24])
{
    snprintf(out, 24, "%lld", (long long)value);
}

/* Inside the caller's transaction (pg.h). */
enum gq_code pg_audit_append(struct pg_conn *conn, const struct audit_line *line,
                             struct gq_error *err)
{
    const struct audit_entry *entry = line->entry;
    char at[24];
    number_text(line->at, at);
    const char *const values[] = {line->id,      at,
                                  entry->key_id, entry->key_name,
                                  entry->client, entry->request_id,
                                  entry->action, entry->target,
                                  entry->change};
    PGresult *result = run(conn, pg_sql(conn, STORE_SQL_AUDIT_INSERT), 9, values, PGRES_COMMAND_OK,
                           "writing the audit log", err);
    PQclear(result);
    return result != NULL ? GQ_OK : (err != NULL ? err->code : GQ_ERR_INTERNAL);
}

/* ---- Reads. ---- */

static enum gq_code read_version(struct pg_conn *conn, void *context, struct gq_error *err)
{
    PGresult *result = run(conn, pg_sql(conn, STORE_SQL_KEYS_VERSION), 0, NULL, PGRES_TUPLES_OK,
                           "reading the keys' version", err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    *(int64_t *)context = PQntuples(result) == 1 ? integer_at(result, 0, 0) : 0;
    PQclear(result);
    return GQ_OK;
}

enum gq_code pg_keys_version(struct store_backend *backend, int64_t *version, struct gq_error *err)
{
    return pg_run(pg_store_of(backend), read_version, version, err);
}

struct keys_query {
    bool with_revoked;
    const char *id;
    struct key_list *out;
};

static enum gq_code select_keys(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct keys_query *query = context;
    const char *const values[] = {query->with_revoked ? "true" : "false", query->id};
    PGresult *result =
        run(conn, pg_sql(conn, STORE_SQL_KEYS), 2, values, PGRES_TUPLES_OK, "reading keys", err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    enum gq_code code = read_keys(result, query->out, err);
    PQclear(result);
    return code;
}

enum gq_code pg_keys_read(struct store_backend *backend, bool with_revoked, const char *id,
                          struct key_list *out, struct gq_error *err)
{
    struct keys_query query = {with_revoked, id, out};
    return pg_run(pg_store_of(backend), select_keys, &query, err);
}

/* ---- Writes. ---- */

struct key_insert {
    const struct stored_key *key;
    const struct audit_line *audit;
};

static enum gq_code write_key(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct key_insert *insert = context;
    const struct stored_key *key = insert->key;
    char scopes[160], created[24];
    store_scopes_text(key->scopes, scopes, sizeof scopes);
    number_text(key->created_at, created);
    const char *const values[] = {key->id, key->name, key->prefix, key->hash, scopes, created};
    PGresult *result = run(conn, pg_sql(conn, STORE_SQL_KEY_INSERT), 6, values, PGRES_COMMAND_OK,
                           "storing a key", err);
    PQclear(result);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    return pg_audit_append(conn, insert->audit, err);
}

static enum gq_code insert_in_transaction(struct pg_conn *conn, void *context, struct gq_error *err)
{
    return pg_in_transaction(conn, write_key, context, err);
}

enum gq_code pg_key_insert(struct store_backend *backend, const struct stored_key *key,
                           const struct audit_line *audit, struct gq_error *err)
{
    struct key_insert insert = {key, audit};
    return pg_run(pg_store_of(backend), insert_in_transaction, &insert, err);
}

struct key_revoke {
    const char *id;
    int64_t now;
    const struct audit_line *audit;
    struct stored_key *out;
    bool *found, *was_revoked;
};

static enum gq_code write_revoke(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct key_revoke *revoke = context;
    char now[24];
    number_text(revoke->now, now);
    const char *const values[] = {revoke->id, now};
    PGresult *result = run(conn, pg_sql(conn, STORE_SQL_KEY_REVOKE), 2, values, PGRES_COMMAND_OK,
                           "revoking a key", err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    bool revoked_now = strcmp(PQcmdTuples(result), "1") == 0;
    PQclear(result);
    struct key_list list = {0};
    struct keys_query query = {true, revoke->id, &list};
    enum gq_code code = select_keys(conn, &query, err);
    if (code != GQ_OK)
        return code;
    *revoke->found = list.count == 1;
    *revoke->was_revoked = *revoke->found && !revoked_now;
    if (*revoke->found)
        *revoke->out = list.items[0];
    store_key_list_free(&list);
    return revoked_now ? pg_audit_append(conn, revoke->audit, err) : GQ_OK;
}

static enum gq_code revoke_in_transaction(struct pg_conn *conn, void *context, struct gq_error *err)
{
    return pg_in_transaction(conn, write_revoke, context, err);
}

enum gq_code pg_key_revoke(struct store_backend *backend, const char *id, int64_t now,
                           const struct audit_line *audit, struct stored_key *out, bool *found,
                           bool *was_revoked, struct gq_error *err)
{
    struct key_revoke revoke = {id, now, audit, out, found, was_revoked};
    return pg_run(pg_store_of(backend), revoke_in_transaction, &revoke, err);
}

struct key_touch {
    const struct stored_key *keys;
    size_t count;
};

static enum gq_code write_touch(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct key_touch *touch = context;
    for (size_t i = 0; i < touch->count; i++) {
        char used[24];
        number_text(touch->keys[i].last_used_at, used);
        const char *const values[] = {touch->keys[i].id, used};
        PGresult *result = run(conn, pg_sql(conn, STORE_SQL_KEY_TOUCH), 2, values, PGRES_COMMAND_OK,
                               "recording keys' last use", err);
        PQclear(result);
        if (result == NULL)
            return err != NULL ? err->code : GQ_ERR_INTERNAL;
    }
    return GQ_OK;
}

static enum gq_code touch_in_transaction(struct pg_conn *conn, void *context, struct gq_error *err)
{
    return pg_in_transaction(conn, write_touch, context, err);
}

enum gq_code pg_keys_touch(struct store_backend *backend, const struct stored_key *keys,
                           size_t count, struct gq_error *err)
{
    struct key_touch touch = {keys, count};
    return pg_run(pg_store_of(backend), touch_in_transaction, &touch, err);
}

/* ---- The audit log. ---- */

struct audit_query {
    int64_t since;
    const char *starting_after;
    size_t limit;
    struct audit_page *out;
};

static char *copy_or_null(const PGresult *result, int row, int column)
{
    return PQgetisnull(result, row, column) ? NULL : strdup(PQgetvalue(result, row, column));
}

static enum gq_code read_page(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct audit_query *query = context;
    char since[24], limit[24];
    number_text(query->since, since);
    number_text((int64_t)query->limit + 1, limit); /* one more tells has_more */
    const char *const values[] = {since, query->starting_after, limit};
    PGresult *result = run(conn, pg_sql(conn, STORE_SQL_AUDIT_PAGE), 3, values, PGRES_TUPLES_OK,
                           "reading the audit log", err);
    if (result == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    store_audit_page_free(query->out);
    int rows = PQntuples(result);
    struct audit_page *page = query->out;
    page->items = rows > 0 ? calloc((size_t)rows, sizeof *page->items) : NULL;
    enum gq_code code = rows > 0 && page->items == NULL
                            ? gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory")
                            : GQ_OK;
    for (int row = 0; code == GQ_OK && row < rows; row++) {
        struct audit_record *record = &page->items[page->count++];
        snprintf(record->id, sizeof record->id, "%s", PQgetvalue(result, row, AUDIT_COL_ID));
        record->at = integer_at(result, row, AUDIT_COL_AT);
        char **columns[] = {&record->key_id,     &record->key_name, &record->client,
                            &record->request_id, &record->action,   &record->target,
                            &record->change};
        for (int i = 0; i < 7; i++) {
            *columns[i] = copy_or_null(result, row, AUDIT_COL_KEY_ID + i);
            if (*columns[i] == NULL && !PQgetisnull(result, row, AUDIT_COL_KEY_ID + i))
                code = gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
        }
    }
    PQclear(result);
    return code;
}

enum gq_code pg_audit_read(struct store_backend *backend, int64_t since, const char *starting_after,
                           size_t limit, struct audit_page *out, struct gq_error *err)
{
    struct audit_query query = {since, starting_after, limit, out};
    enum gq_code code = pg_run(pg_store_of(backend), read_page, &query, err);
    if (code != GQ_OK) {
        store_audit_page_free(out);
        return code;
    }
    store_audit_page_trim(out, limit);
    return GQ_OK;
}
