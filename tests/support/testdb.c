/*
 * Test databases on SQLite or PostgreSQL (testdb.h).
 */
#include "support/testdb.h"

#include <check.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool testdb_is_postgres(void)
{
    const char *backend = getenv("GPUQUOTE_TEST_BACKEND");
    return backend != NULL && strcmp(backend, "postgres") == 0;
}

const char *testdb_backend(void)
{
    return testdb_is_postgres() ? "postgres" : "sqlite";
}

static const char *server_url(void)
{
    const char *url = getenv("GPUQUOTE_TEST_POSTGRES");
    ck_assert_msg(url != NULL && url[0] != '\0',
                  "GPUQUOTE_TEST_BACKEND=postgres needs GPUQUOTE_TEST_POSTGRES, the URL of a "
                  "PostgreSQL server (make check starts one: scripts/postgres.sh)");
    return url;
}

static bool is_url(const char *database)
{
    return strncmp(database, "postgresql://", 13) == 0 || strncmp(database, "postgres://", 11) == 0;
}

static PGconn *connect_to(const char *url)
{
    PGconn *conn = PQconnectdb(url);
    ck_assert_msg(PQstatus(conn) == CONNECTION_OK, "connecting to %s: %s", url,
                  PQerrorMessage(conn));
    PQsetNoticeProcessor(conn, NULL, NULL);
    return conn;
}

/* The URL of the server with its path (the database) replaced by `name`. */
static void url_of(const char *name, char url[TESTDB_URL_SIZE])
{
    const char *base = server_url();
    const char *authority = strstr(base, "://") + 3;
    size_t prefix = (size_t)(authority - base) + strcspn(authority, "/?");
    const char *query = strchr(authority, '?');
    int length = snprintf(url, TESTDB_URL_SIZE, "%.*s/%s%s", (int)prefix, base, name,
                          query != NULL ? query : "");
    ck_assert(length > 0 && length < TESTDB_URL_SIZE);
}

void testdb_create(char name[TESTDB_NAME_SIZE], char url[TESTDB_URL_SIZE])
{
    static unsigned counter;
    snprintf(name, TESTDB_NAME_SIZE, "gq_test_%ld_%u", (long)getpid(), counter++);
    PGconn *conn = connect_to(server_url());
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s TEMPLATE template0", name);
    PGresult *result = PQexec(conn, sql);
    ck_assert_msg(PQresultStatus(result) == PGRES_COMMAND_OK, "%s: %s", sql,
                  PQresultErrorMessage(result));
    PQclear(result);
    PQfinish(conn);
    url_of(name, url);
}

void testdb_drop(const char *name)
{
    if (name == NULL || name[0] == '\0')
        return;
    PGconn *conn = connect_to(server_url());
    char sql[128];
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", name);
    PGresult *result = PQexec(conn, sql);
    ck_assert_msg(PQresultStatus(result) == PGRES_COMMAND_OK, "%s: %s", sql,
                  PQresultErrorMessage(result));
    PQclear(result);
    PQfinish(conn);
}

/* ---- PostgreSQL ---- */

/* `sql` with "?1" written "$1". */
static char *postgres_text(const char *sql)
{
    char *copy = strdup(sql);
    ck_assert_ptr_nonnull(copy);
    for (char *at = copy; (at = strstr(at, "?1")) != NULL; at += 2)
        at[0] = '$';
    return copy;
}

static PGresult *postgres_run(const char *url, const char *sql, const char *param, PGconn **conn)
{
    *conn = connect_to(url);
    char *text = postgres_text(sql);
    const char *const values[] = {param};
    PGresult *result =
        PQexecParams(*conn, text, param != NULL ? 1 : 0, NULL, values, NULL, NULL, 0);
    ExecStatusType status = PQresultStatus(result);
    ck_assert_msg(status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, "%s: %s", text,
                  PQresultErrorMessage(result));
    free(text);
    return result;
}

/* ---- SQLite ---- */

static sqlite3_stmt *sqlite_prepare(const char *path, sqlite3 **db, const char *sql,
                                    const char *param)
{
    ck_assert_int_eq(sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(*db, 5000);
    sqlite3_stmt *statement = NULL;
    int rc = sqlite3_prepare_v2(*db, sql, -1, &statement, NULL);
    ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(*db));
    if (param != NULL)
        ck_assert_int_eq(sqlite3_bind_text(statement, 1, param, -1, SQLITE_TRANSIENT), SQLITE_OK);
    return statement;
}

sqlite3 *testdb_sqlite_hold(const char *path)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    int rc = sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL);
    ck_assert_msg(rc == SQLITE_OK, "BEGIN EXCLUSIVE on %s: %s", path, sqlite3_errmsg(db));
    return db;
}

void testdb_sqlite_release(sqlite3 *db)
{
    ck_assert_int_eq(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
}

/* ---- Either ---- */

int testdb_exec(const char *database, const char *sql, const char *param)
{
    if (is_url(database)) {
        PGconn *conn;
        PGresult *result = postgres_run(database, sql, param, &conn);
        int changes = atoi(PQcmdTuples(result));
        PQclear(result);
        PQfinish(conn);
        return changes;
    }
    sqlite3 *db;
    sqlite3_stmt *statement = sqlite_prepare(database, &db, sql, param);
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW)
        continue;
    char message[256];
    snprintf(message, sizeof message, "%s", sqlite3_errmsg(db));
    int changes = sqlite3_changes(db);
    sqlite3_finalize(statement);
    sqlite3_close(db);
    ck_assert_msg(rc == SQLITE_DONE, "%s: %s", sql, message);
    return changes;
}

char *testdb_text(const char *database, const char *sql, const char *param)
{
    char *text;
    if (is_url(database)) {
        PGconn *conn;
        PGresult *result = postgres_run(database, sql, param, &conn);
        bool has_row = PQntuples(result) > 0;
        text = strdup(has_row && !PQgetisnull(result, 0, 0) ? PQgetvalue(result, 0, 0) : "");
        PQclear(result);
        PQfinish(conn);
        ck_assert_msg(has_row, "%s: no row", sql);
    } else {
        sqlite3 *db;
        sqlite3_stmt *statement = sqlite_prepare(database, &db, sql, param);
        int rc = sqlite3_step(statement);
        const unsigned char *value = rc == SQLITE_ROW ? sqlite3_column_text(statement, 0) : NULL;
        text = strdup(value != NULL ? (const char *)value : "");
        sqlite3_finalize(statement);
        sqlite3_close(db);
        ck_assert_msg(rc == SQLITE_ROW, "%s: no row", sql);
    }
    ck_assert_ptr_nonnull(text);
    return text;
}

long long testdb_integer(const char *database, const char *sql, const char *param)
{
    char *text = testdb_text(database, sql, param);
    char *end;
    long long value = strtoll(text, &end, 10); /* NULL ("") reads as 0 */
    ck_assert_msg(*end == '\0', "%s: '%s' is not an integer", sql, text);
    free(text);
    return value;
}
