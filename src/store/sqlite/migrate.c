/*
 * The SQLite backend's migration history: schema_migrations (version,
 * name, checksum, applied_at), and one migration applied with its row in
 * one BEGIN IMMEDIATE transaction. Each pending version is looked up again
 * inside its transaction, under SQLite's write lock, so two processes
 * migrating at once apply it once. Migration files run with
 * sqlite3_exec(), foreign keys on. (The files themselves: migrations.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/sqlite/db.h"

static bool has_history(struct sqlite_conn *conn)
{
    return sqlite3_table_column_metadata(conn->db, "main", "schema_migrations", NULL, NULL, NULL,
                                         NULL, NULL, NULL) == SQLITE_OK;
}

static enum gq_code append_recorded(struct migration_history *history, sqlite3_stmt *stmt,
                                    struct gq_error *err)
{
    struct recorded_migration *items =
        realloc(history->items, (history->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading schema_migrations");
    history->items = items;
    struct recorded_migration *recorded = &items[history->count++];
    const unsigned char *name = sqlite3_column_text(stmt, MIGRATION_COL_NAME);
    const unsigned char *checksum = sqlite3_column_text(stmt, MIGRATION_COL_CHECKSUM);
    recorded->version = sqlite3_column_int(stmt, MIGRATION_COL_VERSION);
    snprintf(recorded->name, sizeof recorded->name, "%s", name ? (const char *)name : "?");
    snprintf(recorded->checksum, sizeof recorded->checksum, "%s",
             checksum ? (const char *)checksum : "?");
    return GQ_OK;
}

enum gq_code sqlite_read_history(struct store_backend *backend, struct migration_history *out,
                                 struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    out->items = NULL;
    out->count = 0;
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    enum gq_code code = GQ_OK;
    /* A database never migrated has no history: every file is pending. */
    sqlite3_stmt *stmt =
        has_history(conn) ? sqlite_db_prepare(conn, sqlite_sql(STORE_SQL_MIGRATIONS), err) : NULL;
    if (has_history(conn) && stmt == NULL)
        code = err != NULL ? err->code : GQ_ERR_INTERNAL;
    int rc = SQLITE_DONE;
    while (code == GQ_OK && stmt != NULL && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        code = append_recorded(out, stmt, err);
    if (code == GQ_OK && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "reading schema_migrations", err);
    sqlite3_finalize(stmt);
    sqlite_db_checkin(store, conn);
    if (code != GQ_OK)
        store_migration_history_free(out);
    return code;
}

/* Copies the recorded checksum of `version` into `out`, "" when the version
 * is not recorded. */
static enum gq_code find_recorded(struct sqlite_conn *conn, int version, char out[65],
                                  struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_prepare(conn, sqlite_sql(STORE_SQL_MIGRATION_CHECKSUM), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_int(stmt, 1, version);
    int rc = sqlite3_step(stmt);
    out[0] = '\0';
    if (rc == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text(stmt, 0);
        snprintf(out, 65, "%s", text != NULL ? (const char *)text : "?");
    }
    enum gq_code code = GQ_OK;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        code = sqlite_db_fail(conn, rc, "reading schema_migrations", err);
    sqlite3_finalize(stmt);
    return code;
}

static enum gq_code record_migration(struct sqlite_conn *conn, const struct migration *migration,
                                     struct gq_error *err)
{
    sqlite3_stmt *stmt = sqlite_db_prepare(conn, sqlite_sql(STORE_SQL_MIGRATION_RECORD), err);
    if (stmt == NULL)
        return err != NULL ? err->code : GQ_ERR_INTERNAL;
    sqlite3_bind_int(stmt, 1, migration->version);
    sqlite3_bind_text(stmt, 2, migration->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, migration->checksum, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 4, (sqlite3_int64)time(NULL));
    int rc = sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE)
        return sqlite_db_fail(conn, rc, "recording a migration", err);
    return GQ_OK;
}

/* Runs `sql` (several statements); `what` names it in an error. */
static enum gq_code execute(struct sqlite_conn *conn, const char *sql, const char *what,
                            struct gq_error *err)
{
    char *message = NULL;
    int rc = sqlite3_exec(conn->db, sql, NULL, NULL, &message);
    if (rc == SQLITE_OK)
        return GQ_OK;
    enum gq_code code;
    if (sqlite_db_is_busy(rc))
        code = gq_fail(err, GQ_ERR_RETRY_LATER, NULL, "%s: database is busy, retry", what);
    else
        code = gq_fail(err, GQ_ERR_INTERNAL, NULL, "%s failed: %s", what,
                       message != NULL ? message : sqlite3_errstr(rc));
    sqlite3_free(message);
    return code;
}

/* Inside the write transaction: applies and records, unless another
 * process recorded it meanwhile. */
static enum gq_code apply_locked(struct sqlite_conn *conn, const struct migration *migration,
                                 bool *applied, struct gq_error *err)
{
    char name[160];
    snprintf(name, sizeof name, "migration %s", migration->name);
    enum gq_code code =
        execute(conn, sqlite_sql(STORE_SQL_MIGRATIONS_CREATE), "creating schema_migrations", err);
    char recorded[65];
    if (code == GQ_OK)
        code = find_recorded(conn, migration->version, recorded, err);
    if (code != GQ_OK)
        return code;
    if (recorded[0] != '\0')
        return store_migration_check_recorded(migration, recorded, err);
    code = execute(conn, migration->sql, name, err);
    if (code == GQ_OK)
        code = record_migration(conn, migration, err);
    if (code == GQ_OK)
        *applied = true;
    return code;
}

enum gq_code sqlite_apply_migration(struct store_backend *backend,
                                    const struct migration *migration, bool *applied,
                                    struct gq_error *err)
{
    struct sqlite_store *store = sqlite_store_of(backend);
    *applied = false;
    struct sqlite_conn *conn = sqlite_db_checkout(store);
    enum gq_code code = sqlite_db_begin_write(conn, err);
    if (code == GQ_OK)
        code = apply_locked(conn, migration, applied, err);
    if (code == GQ_OK)
        code = sqlite_db_commit(conn, err);
    if (code != GQ_OK)
        *applied = false;
    sqlite_db_end(conn);
    sqlite_db_checkin(store, conn);
    return code;
}
