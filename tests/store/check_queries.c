/*
 * The SQL both backends share (store/queries.h): the rewrite of `?N` into
 * PostgreSQL's `$N`, and every shared statement prepared on a migrated
 * database of each backend, its columns named as the catalog's tables name
 * them (the loader reads them by those positions) and its parameters
 * numbered 1..n (an activation binds a row's values in column order).
 * The condition of which endpoints take an event, in each dialect.
 * SQLite always; PostgreSQL too when GPUQUOTE_TEST_BACKEND=postgres.
 */
#include <check.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/queries.h"
#include "store/store.h"
#include "store_fixture.h"
#include "support/testdb.h"

/* ---- The rewrite. ---- */

static const struct rewrite_case {
    const char *shared;
    const char *postgres;
} rewrites[] = {
    {"SELECT 1", "SELECT 1"},
    {"WHERE id = ?1", "WHERE id = $1"},
    {"VALUES (?1, ?2, ?10, ?12)", "VALUES ($1, $2, $10, $12)"},
    {"WHERE a = '?1' AND b = ?2", "WHERE a = '?1' AND b = $2"},
    {"WHERE a = 'it''s ?1' AND b = ?3", "WHERE a = 'it''s ?1' AND b = $3"},
    {"SELECT \"odd?1\" FROM t WHERE c = ?1", "SELECT \"odd?1\" FROM t WHERE c = $1"},
    {"WHERE a ? 'key'", "WHERE a ? 'key'"}, /* PostgreSQL's jsonb operator, not a parameter */
};

START_TEST(rewrites_numbered_parameters_only)
{
    const struct rewrite_case *c = &rewrites[_i];
    char *sql = store_sql_for_postgres(c->shared);
    ck_assert_ptr_nonnull(sql);
    ck_assert_str_eq(sql, c->postgres);
    free(sql);
}
END_TEST

/* The highest ?N of a shared text, and whether each of 1..N appears. */
static int highest_parameter(const char *sql)
{
    int highest = 0;
    for (const char *at = strchr(sql, '?'); at != NULL; at = strchr(at + 1, '?')) {
        int n = atoi(at + 1);
        highest = n > highest ? n : highest;
    }
    return highest;
}

START_TEST(every_write_is_numbered_in_column_order)
{
    for (int table = 0; table < CATALOG_WRITE_COUNT; table++) {
        const struct store_catalog_table *read =
            &store_catalog_tables[store_catalog_written_query[table]];
        const char *sql = store_catalog_write_sql[table];
        ck_assert_int_eq(highest_parameter(sql), (int)strlen(read->types));
        char *postgres = store_sql_for_postgres(sql);
        ck_assert_ptr_nonnull(postgres);
        ck_assert_msg(strchr(postgres, '?') == NULL, "%s", postgres);
        ck_assert_ptr_nonnull(strstr(postgres, "$1,"));
        free(postgres);
    }
}
END_TEST

/* ---- SQLite. ---- */

static char temp_dir[512];
static char database[TESTDB_URL_SIZE];
static char pg_name[TESTDB_NAME_SIZE];

static void migrate(void)
{
    struct store_options options = {database, 2000, 1, true, false};
    struct store *store = NULL;
    struct gq_error err;
    ck_assert_msg(store_open(&options, &store, &err) == GQ_OK, "%s", err.message);
    ck_assert_msg(store_migrate(store, source_migrations(), NULL, &err) == GQ_OK, "%s",
                  err.message);
    store_close(store);
}

static void setup_sqlite(void)
{
    make_temp_dir(temp_dir, "queries");
    snprintf(database, sizeof database, "%.400s/test.db", temp_dir);
    pg_name[0] = '\0';
    migrate();
}

static void teardown(void)
{
    testdb_drop(pg_name);
    remove_temp_dir(temp_dir);
}

static sqlite3_stmt *sqlite_prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *stmt = NULL;
    ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
    return stmt;
}

START_TEST(sqlite_reads_name_their_columns)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(database, &db), SQLITE_OK);
    for (int query = 0; query < CATALOG_QUERY_COUNT; query++) {
        const struct store_catalog_table *table = &store_catalog_tables[query];
        sqlite3_stmt *stmt = sqlite_prepare(db, table->sql);
        ck_assert_int_eq(sqlite3_column_count(stmt), (int)strlen(table->types));
        for (int column = 0; column < sqlite3_column_count(stmt); column++)
            ck_assert_str_eq(sqlite3_column_name(stmt, column), table->columns[column]);
        ck_assert_int_eq(sqlite3_bind_parameter_count(stmt), 0);
        sqlite3_finalize(stmt);
    }
    sqlite3_close(db);
}
END_TEST

START_TEST(sqlite_writes_take_numbered_parameters)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(database, &db), SQLITE_OK);
    for (int table = 0; table < CATALOG_WRITE_COUNT; table++) {
        sqlite3_stmt *stmt = sqlite_prepare(db, store_catalog_write_sql[table]);
        int n = (int)strlen(store_catalog_tables[store_catalog_written_query[table]].types);
        ck_assert_int_eq(sqlite3_bind_parameter_count(stmt), n);
        for (int i = 1; i <= n; i++) {
            char name[16];
            snprintf(name, sizeof name, "?%d", i);
            ck_assert_str_eq(sqlite3_bind_parameter_name(stmt, i), name);
        }
        sqlite3_finalize(stmt);
    }
    for (int i = 0; i < STORE_CATALOG_CLEAR_COUNT; i++)
        sqlite3_finalize(sqlite_prepare(db, store_catalog_clear_sql[i]));
    sqlite3_close(db);
}
END_TEST

/* Each statement has one shared text or both dialects' own. */
START_TEST(every_statement_has_a_text_per_dialect)
{
    for (int id = 0; id < STORE_SQL_COUNT; id++) {
        const struct store_sql_text *text = &store_sql[id];
        if (text->shared != NULL)
            ck_assert_msg(text->sqlite == NULL && text->postgres == NULL, "statement %d", id);
        else
            ck_assert_msg(text->sqlite != NULL && text->postgres != NULL, "statement %d", id);
    }
}
END_TEST

static const char *sqlite_text(int id)
{
    return store_sql[id].shared != NULL ? store_sql[id].shared : store_sql[id].sqlite;
}

/* Every parameter numbered (?N), none named: a `$1` would be a name. */
START_TEST(sqlite_statements_take_numbered_parameters)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(database, &db), SQLITE_OK);
    for (int id = 0; id < STORE_SQL_COUNT; id++) {
        sqlite3_stmt *stmt = sqlite_prepare(db, sqlite_text(id));
        int n = sqlite3_bind_parameter_count(stmt);
        ck_assert_int_eq(n, highest_parameter(sqlite_text(id)));
        for (int i = 1; i <= n; i++) {
            char name[16];
            snprintf(name, sizeof name, "?%d", i);
            const char *bound = sqlite3_bind_parameter_name(stmt, i);
            ck_assert_str_eq(bound != NULL ? bound : name, name); /* NULL: a number unused */
        }
        sqlite3_finalize(stmt);
    }
    sqlite3_close(db);
}
END_TEST

/* The quote's, keys' and audit log's columns: each enum's name for a
 * column is that column in the SELECT. */
static const struct named_column {
    const char *sql;
    int index;
    const char *name;
} named_columns[] = {
    {"SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes", QUOTE_COL_ID, "id"},
    {"SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes", QUOTE_COL_RESPONSE_JSON, "response_json"},
    {"SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes", QUOTE_COL_CREATED_AT, "created_at"},
    {"SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes", QUOTE_COL_RESPONSE_SIZE, "response_size"},
    {"SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes", QUOTE_COL_EXPIRED_AT, "expired_at"},
    {"SELECT " STORE_SQL_QUOTE_COLUMNS " FROM quotes", QUOTE_COL_ACCEPTANCE, "acceptance"},
    {"SELECT " STORE_SQL_KEY_COLUMNS " FROM api_keys", KEY_COL_SCOPES, "scopes"},
    {"SELECT " STORE_SQL_KEY_COLUMNS " FROM api_keys", KEY_COL_REVOKED_AT, "revoked_at"},
    {"SELECT " STORE_SQL_AUDIT_COLUMNS " FROM audit_log", AUDIT_COL_KEY_ID, "key_id"},
    {"SELECT " STORE_SQL_AUDIT_COLUMNS " FROM audit_log", AUDIT_COL_CHANGE, "change"},
    {"SELECT " STORE_SQL_MIGRATION_COLUMNS " FROM schema_migrations", MIGRATION_COL_VERSION,
     "version"},
    {"SELECT " STORE_SQL_MIGRATION_COLUMNS " FROM schema_migrations", MIGRATION_COL_CHECKSUM,
     "checksum"},
};

START_TEST(sqlite_columns_are_where_their_names_say)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(database, &db), SQLITE_OK);
    sqlite3_stmt *quotes = sqlite_prepare(db, named_columns[0].sql);
    ck_assert_int_eq(sqlite3_column_count(quotes), QUOTE_COL_COUNT);
    sqlite3_finalize(quotes);
    for (size_t i = 0; i < sizeof named_columns / sizeof named_columns[0]; i++) {
        sqlite3_stmt *stmt = sqlite_prepare(db, named_columns[i].sql);
        ck_assert_str_eq(sqlite3_column_name(stmt, named_columns[i].index), named_columns[i].name);
        ck_assert_int_eq(sqlite3_column_count(stmt) - 1 >= named_columns[i].index, 1);
        sqlite3_finalize(stmt);
    }
    sqlite3_close(db);
}
END_TEST

/* The statements of store_sql read by column name: each enum's name for a
 * column is that column in the statement, in both dialects. */
static const struct statement_column {
    enum store_sql id;
    int index;
    const char *name;
} statement_columns[] = {
    {STORE_SQL_MIGRATIONS, MIGRATION_COL_CHECKSUM, "checksum"},
    {STORE_SQL_EVENTS_PAGE, EVENT_COL_CREATED_AT, "created_at"},
    {STORE_SQL_EVENTS_PAGE, EVENT_COL_BODY, "body"},
    {STORE_SQL_ATTEMPTS, ATTEMPT_COL_DURATION_MS, "duration_ms"},
    {STORE_SQL_ATTEMPTS, ATTEMPT_COL_ERROR, "error"},
    {STORE_SQL_DELIVERIES_CLAIM, CLAIMED_COL_ATTEMPTS, "attempts"},
    {STORE_SQL_DELIVERIES_CLAIM, CLAIMED_COL_SECRET, "secret"},
    {STORE_SQL_DELIVERIES_CLAIM, CLAIMED_COL_BODY, "body"},
    {STORE_SQL_DELIVERIES_CLAIM, CLAIMED_COL_ENDPOINT_ID, "id"},
    {STORE_SQL_QUOTE_BY_KEY, QUOTE_COL_IDEMPOTENCY_KEY, "idempotency_key"},
    {STORE_SQL_ENDPOINTS, ENDPOINT_COL_ENABLED, "enabled"},
    {STORE_SQL_ENDPOINTS, ENDPOINT_COL_UPDATED_AT, "updated_at"},
    {STORE_SQL_ENDPOINT_DISABLE, ENDPOINT_COL_DESCRIPTION, "description"},
    {STORE_SQL_DELIVERIES_PAGE, DELIVERY_COL_STATUS, "status"},
    {STORE_SQL_DELIVERIES_PAGE, DELIVERY_COL_CREATED_AT, "created_at"},
};

START_TEST(sqlite_statement_columns_are_where_their_names_say)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(database, &db), SQLITE_OK);
    const struct statement_column *c = &statement_columns[_i];
    sqlite3_stmt *stmt = sqlite_prepare(db, sqlite_text(c->id));
    ck_assert_int_gt(sqlite3_column_count(stmt), c->index);
    ck_assert_str_eq(sqlite3_column_name(stmt, c->index), c->name);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}
END_TEST

/* Which endpoints take an event: the list's own types and " * ", never a
 * type that is only part of one listed. */
static const struct takes_case {
    const char *events;
    const char *type;
    int takes;
} takes_cases[] = {
    {" quote.created quote.accepted ", "quote.created", 1},
    {" quote.created quote.accepted ", "quote.accepted", 1},
    {" quote.created quote.accepted ", "quote.create", 0},
    {" quote.created quote.accepted ", "created", 0},
    {" quote.accepted ", "quote.created", 0},
    {" * ", "price_list.published", 1},
};

#define TAKES_COUNT (int)(sizeof takes_cases / sizeof takes_cases[0])

START_TEST(sqlite_endpoint_takes_its_types)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    sqlite3_stmt *stmt =
        sqlite_prepare(db, "SELECT " STORE_SQL_ENDPOINT_TAKES("instr", "?1", "?2"));
    for (int i = 0; i < TAKES_COUNT; i++) {
        sqlite3_bind_text(stmt, 1, takes_cases[i].events, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, takes_cases[i].type, -1, SQLITE_STATIC);
        ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
        ck_assert_msg(sqlite3_column_int(stmt, 0) == takes_cases[i].takes, "%s in '%s'",
                      takes_cases[i].type, takes_cases[i].events);
        sqlite3_reset(stmt);
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}
END_TEST

/* ---- PostgreSQL. ---- */

static void setup_postgres(void)
{
    make_temp_dir(temp_dir, "queries");
    testdb_create(pg_name, database);
    migrate();
}

/* `shared` rewritten and prepared; its description, the caller's. */
static PGresult *pg_describe(PGconn *conn, const char *shared)
{
    char *sql = store_sql_for_postgres(shared);
    ck_assert_ptr_nonnull(sql);
    PGresult *prepared = PQprepare(conn, "", sql, 0, NULL);
    ck_assert_msg(PQresultStatus(prepared) == PGRES_COMMAND_OK, "%s: %s", sql,
                  PQresultErrorMessage(prepared));
    PQclear(prepared);
    free(sql);
    PGresult *described = PQdescribePrepared(conn, "");
    ck_assert_int_eq(PQresultStatus(described), PGRES_COMMAND_OK);
    return described;
}

START_TEST(postgres_accepts_every_shared_statement)
{
    PGconn *conn = PQconnectdb(database);
    ck_assert_msg(PQstatus(conn) == CONNECTION_OK, "%s", PQerrorMessage(conn));
    for (int query = 0; query < CATALOG_QUERY_COUNT; query++) {
        const struct store_catalog_table *table = &store_catalog_tables[query];
        PGresult *described = pg_describe(conn, table->sql);
        ck_assert_int_eq(PQnfields(described), (int)strlen(table->types));
        for (int column = 0; column < PQnfields(described); column++)
            ck_assert_str_eq(PQfname(described, column), table->columns[column]);
        PQclear(described);
    }
    for (int table = 0; table < CATALOG_WRITE_COUNT; table++) {
        PGresult *described = pg_describe(conn, store_catalog_write_sql[table]);
        ck_assert_int_eq(
            PQnparams(described),
            (int)strlen(store_catalog_tables[store_catalog_written_query[table]].types));
        PQclear(described);
    }
    for (int i = 0; i < STORE_CATALOG_CLEAR_COUNT; i++)
        PQclear(pg_describe(conn, store_catalog_clear_sql[i]));
    PQfinish(conn);
}
END_TEST

START_TEST(postgres_statement_columns_are_where_their_names_say)
{
    PGconn *conn = PQconnectdb(database);
    ck_assert_msg(PQstatus(conn) == CONNECTION_OK, "%s", PQerrorMessage(conn));
    const struct statement_column *c = &statement_columns[_i];
    const struct store_sql_text *text = &store_sql[c->id];
    PGresult *described = pg_describe(conn, text->shared != NULL ? text->shared : text->postgres);
    ck_assert_int_gt(PQnfields(described), c->index);
    ck_assert_str_eq(PQfname(described, c->index), c->name);
    PQclear(described);
    PQfinish(conn);
}
END_TEST

/* A shared statement takes as many parameters in both dialects. */
START_TEST(postgres_accepts_every_statement)
{
    PGconn *conn = PQconnectdb(database);
    ck_assert_msg(PQstatus(conn) == CONNECTION_OK, "%s", PQerrorMessage(conn));
    for (int id = 0; id < STORE_SQL_COUNT; id++) {
        const struct store_sql_text *text = &store_sql[id];
        PGresult *described;
        if (text->shared != NULL) {
            described = pg_describe(conn, text->shared);
            ck_assert_int_eq(PQnparams(described), highest_parameter(text->shared));
        } else {
            described = pg_describe(conn, text->postgres);
        }
        PQclear(described);
    }
    PQfinish(conn);
}
END_TEST

START_TEST(postgres_endpoint_takes_its_types)
{
    PGconn *conn = PQconnectdb(database);
    ck_assert_msg(PQstatus(conn) == CONNECTION_OK, "%s", PQerrorMessage(conn));
    for (int i = 0; i < TAKES_COUNT; i++) {
        const char *const values[] = {takes_cases[i].events, takes_cases[i].type};
        PGresult *result =
            PQexecParams(conn, "SELECT " STORE_SQL_ENDPOINT_TAKES("strpos", "$1::text", "$2::text"),
                         2, NULL, values, NULL, NULL, 0);
        ck_assert_int_eq(PQresultStatus(result), PGRES_TUPLES_OK);
        ck_assert_msg(strcmp(PQgetvalue(result, 0, 0), takes_cases[i].takes ? "t" : "f") == 0,
                      "%s in '%s'", takes_cases[i].type, takes_cases[i].events);
        PQclear(result);
    }
    PQfinish(conn);
}
END_TEST

static Suite *queries_suite(void)
{
    Suite *suite = suite_create("queries");
    TCase *rewrite = tcase_create("rewrite");
    tcase_add_loop_test(rewrite, rewrites_numbered_parameters_only, 0,
                        (int)(sizeof rewrites / sizeof rewrites[0]));
    tcase_add_test(rewrite, every_write_is_numbered_in_column_order);
    tcase_add_test(rewrite, every_statement_has_a_text_per_dialect);
    suite_add_tcase(suite, rewrite);
    TCase *sqlite = tcase_create("sqlite");
    tcase_add_checked_fixture(sqlite, setup_sqlite, teardown);
    tcase_add_test(sqlite, sqlite_reads_name_their_columns);
    tcase_add_test(sqlite, sqlite_writes_take_numbered_parameters);
    tcase_add_test(sqlite, sqlite_statements_take_numbered_parameters);
    tcase_add_test(sqlite, sqlite_columns_are_where_their_names_say);
    tcase_add_test(sqlite, sqlite_endpoint_takes_its_types);
    tcase_add_loop_test(sqlite, sqlite_statement_columns_are_where_their_names_say, 0,
                        (int)(sizeof statement_columns / sizeof statement_columns[0]));
    suite_add_tcase(suite, sqlite);
    if (testdb_is_postgres()) {
        TCase *postgres = tcase_create("postgres");
        tcase_add_checked_fixture(postgres, setup_postgres, teardown);
        tcase_add_test(postgres, postgres_accepts_every_shared_statement);
        tcase_add_test(postgres, postgres_accepts_every_statement);
        tcase_add_test(postgres, postgres_endpoint_takes_its_types);
        tcase_add_loop_test(postgres, postgres_statement_columns_are_where_their_names_say, 0,
                            (int)(sizeof statement_columns / sizeof statement_columns[0]));
        suite_add_tcase(suite, postgres);
    }
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(queries_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
