/*
 * The database a test's server runs on, whichever backend the run is for:
 * GPUQUOTE_TEST_BACKEND=postgres runs the integration suites against the
 * PostgreSQL server named by GPUQUOTE_TEST_POSTGRES (a libpq URI of its
 * maintenance database, which `make check` starts: scripts/postgres.sh);
 * anything else, or nothing, against SQLite files. On PostgreSQL each
 * server gets a database of its own, created empty and dropped with it.
 *
 * Statements given to testdb_exec() and its siblings are written once for
 * both dialects, with `?1` for the one parameter (turned into `$1` for
 * PostgreSQL). Every failure fails the test.
 */
#ifndef GQ_TESTS_SUPPORT_TESTDB_H
#define GQ_TESTS_SUPPORT_TESTDB_H

#include <stdbool.h>
#include <stddef.h>

#define TESTDB_NAME_SIZE 64
#define TESTDB_URL_SIZE 512

/* True when this run is for PostgreSQL. A run for PostgreSQL without
 * GPUQUOTE_TEST_POSTGRES fails the test that asks. */
bool testdb_is_postgres(void);

/* "sqlite" or "postgres", for messages. */
const char *testdb_backend(void);

/* PostgreSQL: creates an empty database, its name into `name` and its URL
 * into `url`. */
void testdb_create(char name[TESTDB_NAME_SIZE], char url[TESTDB_URL_SIZE]);

/* PostgreSQL: drops the database (its connections are ended first). A name
 * of "" does nothing. */
void testdb_drop(const char *name);

/* Runs `sql` on `database` (a path or a URL) with `param` (may be NULL)
 * bound to ?1; returns the number of rows changed. */
int testdb_exec(const char *database, const char *sql, const char *param);

/* The first column of the first row, as an integer or as text (NULL reads
 * as ""; the caller frees the text); fails the test when there is no row. */
long long testdb_integer(const char *database, const char *sql, const char *param);
char *testdb_text(const char *database, const char *sql, const char *param);

/* SQLite: another writer holding the file at `path` (BEGIN EXCLUSIVE) until
 * testdb_sqlite_release(). It waits up to 5 s for the lock, as the server's
 * own background work (the expiry sweeper, the catalog watch) may hold one
 * for a moment. */
struct sqlite3 *testdb_sqlite_hold(const char *path);
void testdb_sqlite_release(struct sqlite3 *db);

#endif
