/*
 * The PostgreSQL backend's catalog: each CATALOG_QUERY_* of backend.h in
 * PostgreSQL's dialect, run in one REPEATABLE READ READ ONLY transaction
 * (one snapshot for the whole catalog) and handed row by row to the
 * neutral loader (catalog_load.c); the price-list version for the poller;
 * and the wait for a change.
 *
 * The wait listens on the channel gpuquote_catalog, on which every change
 * to a catalog table announces itself (the triggers of
 * migrations/postgres/0001), on a connection of its own: a NOTIFY ends the
 * wait at once, so a price change reaches every replica within a few
 * milliseconds. The notice is only a hint: the poller asks for the version
 * after every wait, so a lost notice (a dropped connection, a database that
 * has no LISTEN, `catalog_listen` off) costs at most one poll interval.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres/pg.h"
#include "store/queries.h"

/* ---- A row of a text result, as the loader reads it. ---- */

struct result_row {
    const PGresult *result;
    int row;
};

static const struct result_row *result_row_of(const struct store_row *row)
{
    return row->impl;
}

static bool row_is_null(const struct store_row *row, int column)
{
    const struct result_row *at = result_row_of(row);
    return PQgetisnull(at->result, at->row, column) != 0;
}

static const char *row_text(const struct store_row *row, int column)
{
    const struct result_row *at = result_row_of(row);
    return row_is_null(row, column) ? NULL : PQgetvalue(at->result, at->row, column);
}

static int64_t row_integer(const struct store_row *row, int column)
{
    const char *text = row_text(row, column);
    return text != NULL ? strtoll(text, NULL, 10) : 0;
}

static double row_real(const struct store_row *row, int column)
{
    const char *text = row_text(row, column);
    return text != NULL ? strtod(text, NULL) : 0.0;
}

static const struct store_row_ops row_ops = {row_is_null, row_text, row_integer, row_real};

/* ---- Reading. ---- */

static enum gq_code check_schema(struct pg_conn *conn, struct gq_error *err)
{
    PGresult *result = PQexec(conn->conn, "SELECT to_regclass('price_list') IS NOT NULL");
    enum gq_code code = GQ_OK;
    if (PQresultStatus(result) != PGRES_TUPLES_OK)
        code = pg_fail(conn, result, "reading the catalog", err);
    else if (strcmp(PQgetvalue(result, 0, 0), "t") != 0)
        code = gq_fail(err, GQ_ERR_NOT_READY, NULL,
                       "the database has no catalog (run 'gpuquote migrate')");
    PQclear(result);
    return code;
}

static enum gq_code run_query(struct pg_conn *conn, enum catalog_query query,
                              struct catalog_reader *reader, struct gq_error *err)
{
    PGresult *result = PQexec(conn->conn, store_catalog_tables[query].sql);
    if (PQresultStatus(result) != PGRES_TUPLES_OK) {
        enum gq_code code = pg_fail(conn, result, "reading the catalog", err);
        PQclear(result);
        return code;
    }
    struct result_row at = {result, 0};
    struct store_row row = {&row_ops, &at};
    enum gq_code code = GQ_OK;
    for (at.row = 0; code == GQ_OK && at.row < PQntuples(result); at.row++)
        code = reader->row(reader, query, &row, err);
    PQclear(result);
    return code == GQ_OK ? reader->end(reader, query, err) : code;
}

static enum gq_code read_all(struct pg_conn *conn, void *context, struct gq_error *err)
{
    struct catalog_reader *reader = context;
    enum gq_code code = pg_command(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                                   PGRES_COMMAND_OK, "reading the catalog", err);
    if (code == GQ_OK)
        code = check_schema(conn, err);
    for (int query = 0; code == GQ_OK && query < CATALOG_QUERY_COUNT; query++)
        code = run_query(conn, (enum catalog_query)query, reader, err);
    if (code == GQ_OK)
        code = pg_command(conn, "COMMIT", PGRES_COMMAND_OK, "reading the catalog", err);
    return code;
}

/* A run that failed halfway leaves rows in the loader: the loader must
 * start afresh, so a lost connection is not run again here (the caller's
 * next reload is). */
enum gq_code pg_read_catalog(struct store_backend *backend, struct catalog_reader *reader,
                             struct gq_error *err)
{
    struct pg_store *store = pg_store_of(backend);
    struct pg_conn *conn = pg_checkout(store, err);
    if (conn == NULL)
        return GQ_ERR_RETRY_LATER;
    enum gq_code code = read_all(conn, reader, err);
    pg_checkin(store, conn);
    return code;
}

static enum gq_code read_version(struct pg_conn *conn, void *context, struct gq_error *err)
{
    int64_t *version = context;
    PGresult *result = pg_execute(conn, PG_PRICE_LIST_VERSION, NULL, NULL, NULL, 0, err);
    enum gq_code code = result != NULL ? GQ_OK : (err != NULL ? err->code : GQ_ERR_INTERNAL);
    if (result != NULL && PQntuples(result) == 1)
        *version = strtoll(PQgetvalue(result, 0, 0), NULL, 10);
    else if (result != NULL)
        code = gq_fail(err, GQ_ERR_NOT_READY, NULL, "the database has no price list");
    PQclear(result);
    return code;
}

enum gq_code pg_price_list_version(struct store_backend *backend, int64_t *version,
                                   struct gq_error *err)
{
    return pg_run(pg_store_of(backend), read_version, version, err);
}

/* ---- Waiting for a change. ---- */

/* Connects the listener and sends LISTEN, unless done; false when it
 * cannot now (the next wait tries again, at most once a second). */
static bool start_listening(struct pg_store *store)
{
    struct pg_conn *listener = &store->listener;
    if (pg_connect(listener, NULL) != GQ_OK)
        return false;
    if (store->listening)
        return true;
    if (pg_command(listener, "LISTEN gpuquote_catalog", PGRES_COMMAND_OK, "listening", NULL) !=
        GQ_OK) {
        pg_disconnect(listener);
        return false;
    }
    store->listening = true;
    return true;
}

/* Drops the notices libpq holds (the poller asks for the version itself);
 * true when there was one. */
static bool take_notices(PGconn *connection)
{
    bool any = false;
    PGnotify *notice;
    while ((notice = PQnotifies(connection)) != NULL) {
        PQfreemem(notice);
        any = true;
    }
    return any;
}

/* Reads what arrived on the listener and drops its notices. */
static void drain_notices(struct pg_store *store)
{
    PGconn *connection = store->listener.conn;
    if (!PQconsumeInput(connection) || PQstatus(connection) != CONNECTION_OK) {
        pg_disconnect(&store->listener);
        return;
    }
    take_notices(connection);
}

void pg_wait_for_catalog_change(struct store_backend *backend, int timeout_ms, int wake_fd)
{
    struct pg_store *store = pg_store_of(backend);
    struct pollfd fds[2] = {{.fd = wake_fd, .events = POLLIN}, {.fd = -1, .events = POLLIN}};
    if (store->listen && start_listening(store)) {
        /* Checking the connection read what had come: a notice may wait in
         * libpq already, with nothing left on the socket to wake poll(). */
        if (take_notices(store->listener.conn))
            return;
        fds[1].fd = PQsocket(store->listener.conn);
    }
    if (poll(fds, 2, timeout_ms) > 0 && (fds[1].revents & (POLLIN | POLLERR | POLLHUP)) &&
        store->listener.conn != NULL)
        drain_notices(store);
}
