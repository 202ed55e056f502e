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

#include "store/readback.h"
#include "store/postgres/pg.h"

static enum gq_code read_key(const PGresult *result, int row, void *item, struct gq_error *err)
{
    struct stored_key *key = item;
    snprintf(key->id, sizeof key->id, "%s", PQgetvalue(result, row, KEY_COL_ID));
    snprintf(key->name, sizeof key->name, "%s", PQgetvalue(result, row, KEY_COL_NAME));
    snprintf(key->prefix, sizeof key->prefix, "%s", PQgetvalue(result, row, KEY_COL_PREFIX));
    snprintf(key->hash, sizeof key->hash, "%s", PQgetvalue(result, row, KEY_COL_HASH));
    if (!store_scopes_parse(PQgetvalue(result, row, KEY_COL_SCOPES), &key->scopes))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, NULL, "API key %s has an unknown scope in '%s'",
                       key->id, PQgetvalue(result, row, KEY_COL_SCOPES));
    key->created_at = pg_integer_at(result, row, KEY_COL_CREATED_AT);
    key->last_used_at = pg_integer_at(result, row, KEY_COL_LAST_USED_AT);
    key->revoked_at = pg_integer_at(result, row, KEY_COL_REVOKED_AT);
    snprintf(key->customer_id, sizeof key->customer_id, "%s",
             PQgetvalue(result, row, KEY_COL_CUSTOMER_ID));
    return GQ_OK;
}

/* Inside the caller's transaction (pg.h). */
enum gq_code pg_audit_append(struct pg_conn *conn, const struct audit_line *line,
                             struct gq_error *err)
{
    const struct audit_entry *entry = line->entry;
    char at[PG_NUMBER_SIZE];
    const char *const values[] = {line->id,      pg_number_text(line->at, at),
                                  entry->key_id, entry->key_name,
                                  entry->client, entry->request_id,
                                  entry->action, entry->target,
                                  entry->change};
    return pg_update(conn, STORE_SQL_AUDIT_INSERT, 9, values, NULL, "writing the audit log", err);
}

/* ---- Reads. ---- */

static enum gq_code read_version(struct pg_conn *conn, void *context, struct gq_error *err)
{
    PGresult *result =
        pg_query(conn, STORE_SQL_KEYS_VERSION, 0, NULL, "reading the keys' version", err);
    if (result == NULL)
        return pg_failed(err);
    *(int64_t *)context = PQntuples(result) == 1 ? pg_integer_at(result, 0, 0) : 0;
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
    const struct pg_call call = {STORE_SQL_KEYS, 2, values, NULL, NULL, "reading keys"};
    enum gq_code code;
    PG_READ_LIST(conn, &call, read_key, query->out, code, err);
    if (code != GQ_OK)
        store_key_list_free(query->out);
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
    char scopes[160], created[PG_NUMBER_SIZE];
    store_scopes_text(key->scopes, scopes, sizeof scopes);
    const char *const values[] = {key->id,
                                  key->name,
                                  key->prefix,
                                  key->hash,
                                  scopes,
                                  pg_number_text(key->created_at, created),
                                  key->customer_id[0] != '\0' ? key->customer_id : NULL};
    enum gq_code code =
        pg_update(conn, STORE_SQL_KEY_INSERT, 7, values, NULL, "storing a key", err);
    return code == GQ_OK ? pg_audit_append(conn, insert->audit, err) : code;
}

enum gq_code pg_key_insert(struct store_backend *backend, const struct stored_key *key,
                           const struct audit_line *audit, struct gq_error *err)
{
    struct key_insert insert = {key, audit};
    return pg_run_write(backend, write_key, &insert, err);
}

static enum gq_code write_revoke(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct store_key_revoke *revoke = context;
    char now[PG_NUMBER_SIZE];
    const char *const values[] = {revoke->id, pg_number_text(revoke->now, now)};
    bool revoked_now = false;
    struct key_list list = {0};
    struct keys_query query = {true, revoke->id, &list};
    enum gq_code code =
        pg_update(conn, STORE_SQL_KEY_REVOKE, 2, values, &revoked_now, "revoking a key", err);
    if (code == GQ_OK)
        code = select_keys(conn, &query, err);
    if (code != GQ_OK)
        return code;
    store_key_revoke_report(revoke, &list, revoked_now);
    return revoked_now ? pg_audit_append(conn, revoke->audit, err) : GQ_OK;
}

enum gq_code pg_key_revoke(struct store_backend *backend, const char *id, int64_t now,
                           const struct audit_line *audit, struct stored_key *out, bool *found,
                           bool *was_revoked, struct gq_error *err)
{
    struct store_key_revoke revoke = {id, now, audit, out, found, was_revoked};
    return pg_run_write(backend, write_revoke, &revoke, err);
}

struct key_touch {
    const struct stored_key *keys;
    size_t count;
};

static enum gq_code write_touch(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct key_touch *touch = context;
    for (size_t i = 0; i < touch->count; i++) {
        char used[PG_NUMBER_SIZE];
        const char *const values[] = {touch->keys[i].id,
                                      pg_number_text(touch->keys[i].last_used_at, used)};
        enum gq_code code =
            pg_update(conn, STORE_SQL_KEY_TOUCH, 2, values, NULL, "recording keys' last use", err);
        if (code != GQ_OK)
            return code;
    }
    return GQ_OK;
}

enum gq_code pg_keys_touch(struct store_backend *backend, const struct stored_key *keys,
                           size_t count, struct gq_error *err)
{
    struct key_touch touch = {keys, count};
    return pg_run_write(backend, write_touch, &touch, err);
}

/* ---- The audit log. ---- */

struct audit_query {
    int64_t since;
    const char *starting_after;
    size_t limit;
    struct audit_page *out;
};

static enum gq_code read_record(const PGresult *result, int row, void *item, struct gq_error *err)
{
    struct audit_record *record = item;
    snprintf(record->id, sizeof record->id, "%s", PQgetvalue(result, row, AUDIT_COL_ID));
    record->at = pg_integer_at(result, row, AUDIT_COL_AT);
    char **columns[] = {&record->key_id, &record->key_name, &record->client, &record->request_id,
                        &record->action, &record->target,   &record->change};
    for (int i = 0; i < 7; i++) {
        *columns[i] = pg_copy_or_null(result, row, AUDIT_COL_KEY_ID + i);
        if (*columns[i] == NULL && !PQgetisnull(result, row, AUDIT_COL_KEY_ID + i))
            return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    }
    return GQ_OK;
}

static enum gq_code read_page(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct audit_query *query = context;
    char since[PG_NUMBER_SIZE], limit[PG_NUMBER_SIZE]; /* one more tells has_more */
    const char *const values[] = {pg_number_text(query->since, since), query->starting_after,
                                  pg_number_text((int64_t)query->limit + 1, limit)};
    const struct pg_call call = {STORE_SQL_AUDIT_PAGE,   3, values, NULL, NULL,
                                 "reading the audit log"};
    enum gq_code code;
    PG_READ_PAGE(conn, &call, read_record, query->out, store_audit_page_free, code, err);
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
