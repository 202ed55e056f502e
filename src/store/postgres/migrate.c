/*
 * The PostgreSQL backend's migration history: schema_migrations (version,
 * name, checksum, applied_at), and one migration applied with its row in
 * one transaction. The transaction first takes an advisory lock, so that
 * replicas starting at once (or a migration Job and a replica) apply each
 * migration once: the second waits, then finds it recorded. A migration
 * file is sent whole as one simple query, inside that transaction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/postgres/pg.h"

/* The advisory lock's key: any number no other user of the database takes. */
#define MIGRATION_LOCK "7302019"

static enum gq_code append_recorded(struct migration_history *history, const PGresult *result,
                                    int row, struct gq_error *err)
{
    struct recorded_migration *items =
        realloc(history->items, (history->count + 1) * sizeof *items);
    if (items == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory reading schema_migrations");
    history->items = items;
    struct recorded_migration *recorded = &items[history->count++];
    recorded->version = atoi(PQgetvalue(result, row, MIGRATION_COL_VERSION));
    snprintf(recorded->name, sizeof recorded->name, "%s",
             PQgetvalue(result, row, MIGRATION_COL_NAME));
    snprintf(recorded->checksum, sizeof recorded->checksum, "%s",
             PQgetvalue(result, row, MIGRATION_COL_CHECKSUM));
    return GQ_OK;
}

enum gq_code pg_read_history(struct store_backend *backend, struct migration_history *out,
                             struct gq_error *err)
{
    struct pg_store *store = pg_store_of(backend);
    out->items = NULL;
    out->count = 0;
    struct pg_conn *conn = pg_checkout(store, err);
    if (conn == NULL)
        return GQ_ERR_NOT_READY;
    /* A database never migrated has no history: every file is pending. */
    PGresult *result = PQexec(conn->conn, pg_sql(conn, STORE_SQL_MIGRATIONS));
    enum gq_code code = GQ_OK;
    if (PQresultStatus(result) == PGRES_FATAL_ERROR && strcmp(pg_state(result), "42P01") == 0)
        code = GQ_OK; /* undefined_table: never migrated */
    else if (PQresultStatus(result) != PGRES_TUPLES_OK)
        code = pg_fail(conn, result, "reading schema_migrations", err);
    else
        for (int row = 0; code == GQ_OK && row < PQntuples(result); row++)
            code = append_recorded(out, result, row, err);
    PQclear(result);
    pg_checkin(store, conn);
    if (code != GQ_OK)
        store_migration_history_free(out);
    return code;
}

/* The recorded checksum of `version` into `out`, "" when not recorded. */
static enum gq_code find_recorded(struct pg_conn *conn, int version, char out[65],
                                  struct gq_error *err)
{
    char number[16];
    snprintf(number, sizeof number, "%d", version);
    const char *const values[] = {number};
    PGresult *result = PQexecParams(conn->conn, pg_sql(conn, STORE_SQL_MIGRATION_CHECKSUM), 1, NULL,
                                    values, NULL, NULL, 0);
    enum gq_code code = GQ_OK;
    out[0] = '\0';
    if (PQresultStatus(result) != PGRES_TUPLES_OK)
        code = pg_fail(conn, result, "reading schema_migrations", err);
    else if (PQntuples(result) == 1)
        snprintf(out, 65, "%s", PQgetvalue(result, 0, 0));
    PQclear(result);
    return code;
}

static enum gq_code record_migration(struct pg_conn *conn, const struct migration *migration,
                                     struct gq_error *err)
{
    char version[16], applied_at[24];
    snprintf(version, sizeof version, "%d", migration->version);
    snprintf(applied_at, sizeof applied_at, "%lld", (long long)time(NULL));
    const char *const values[] = {version, migration->name, migration->checksum, applied_at};
    PGresult *result = PQexecParams(conn->conn, pg_sql(conn, STORE_SQL_MIGRATION_RECORD), 4, NULL,
                                    values, NULL, NULL, 0);
    enum gq_code code = GQ_OK;
    if (PQresultStatus(result) != PGRES_COMMAND_OK)
        code = pg_fail(conn, result, "recording a migration", err);
    PQclear(result);
    return code;
}

/* The migration's own statements; the last one's result is what libpq
 * returns, and any failure stops them. */
static enum gq_code execute_migration(struct pg_conn *conn, const struct migration *migration,
                                      struct gq_error *err)
{
    PGresult *result = PQexec(conn->conn, migration->sql);
    ExecStatusType status = PQresultStatus(result);
    enum gq_code code = GQ_OK;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY) {
        char what[160];
        snprintf(what, sizeof what, "migration %s failed", migration->name);
        code = pg_fail(conn, result, what, err);
    }
    PQclear(result);
    return code;
}

/* Inside the transaction, holding the lock. */
static enum gq_code apply_locked(struct pg_conn *conn, const struct migration *migration,
                                 bool *applied, struct gq_error *err)
{
    enum gq_code code = pg_command(conn, pg_sql(conn, STORE_SQL_MIGRATIONS_CREATE),
                                   PGRES_COMMAND_OK, "creating schema_migrations", err);
    char recorded[65] = "";
    if (code == GQ_OK)
        code = find_recorded(conn, migration->version, recorded, err);
    if (code != GQ_OK)
        return code;
    if (recorded[0] != '\0')
        return store_migration_check_recorded(migration, recorded, err);
    code = execute_migration(conn, migration, err);
    if (code == GQ_OK)
        code = record_migration(conn, migration, err);
    if (code == GQ_OK)
        *applied = true;
    return code;
}

enum gq_code pg_apply_migration(struct store_backend *backend, const struct migration *migration,
                                bool *applied, struct gq_error *err)
{
    struct pg_store *store = pg_store_of(backend);
    *applied = false;
    struct pg_conn *conn = pg_checkout(store, err);
    if (conn == NULL)
        return GQ_ERR_NOT_READY;
    enum gq_code code = pg_command(conn, "BEGIN", PGRES_COMMAND_OK, "beginning a migration", err);
    if (code == GQ_OK)
        code = pg_command(conn, "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")", PGRES_TUPLES_OK,
                          "waiting for other migrations", err);
    if (code == GQ_OK)
        code = apply_locked(conn, migration, applied, err);
    if (code == GQ_OK)
        code = pg_command(conn, "COMMIT", PGRES_COMMAND_OK, "committing a migration", err);
    if (code != GQ_OK)
        *applied = false;
    pg_checkin(store, conn); /* rolls back what failed */
    return code;
}
