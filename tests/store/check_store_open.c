/*
 * Tests of opening the store and of its pool: the messages for a missing
 * file or directory and for a file that is not a database; every pooled
 * connection runs with WAL, synchronous=NORMAL, foreign keys and the busy
 * timeout; a thread waits for a connection when all are checked out; cached
 * statements are reused; ping and the writability check.
 *
 * This suite also uses the SQLite backend's private header
 * (store/sqlite/db.h) to look at the pool's connections.
 */
#include <check.h>
#include <ftw.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/backend.h"
#include "store/sqlite/db.h"
#include "store/store.h"
#include "store_fixture.h"

static char temp_dir[512];
static char db_path[600];

/* The SQLite backend's state behind a store. */
static struct sqlite_store *sqlite_of(struct store *store)
{
    return sqlite_store_of(store_backend(store));
}

/* ---- Fixture and helpers. ---- */

static void setup(void)
{
    make_temp_dir(temp_dir, "open");
    snprintf(db_path, sizeof db_path, "%s/test.db", temp_dir);
}

static void teardown(void)
{
    remove_temp_dir(temp_dir);
}

static struct store *open_ok(unsigned pool_size, int busy_timeout_ms)
{
    struct store_options options = {db_path, busy_timeout_ms, pool_size, true, false};
    struct store *store = NULL;
    struct gq_error err;
    ck_assert_msg(store_open(&options, &store, &err) == GQ_OK, "%s", err.message);
    return store;
}

static long long pragma_value(struct sqlite_conn *conn, const char *sql)
{
    sqlite3_stmt *stmt;
    ck_assert_int_eq(sqlite3_prepare_v2(conn->db, sql, -1, &stmt, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
    long long value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
}

static void pragma_text(struct sqlite_conn *conn, const char *sql, char *out, size_t size)
{
    sqlite3_stmt *stmt;
    ck_assert_int_eq(sqlite3_prepare_v2(conn->db, sql, -1, &stmt, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
    snprintf(out, size, "%s", (const char *)sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
}

/* ---- Opening. ---- */

START_TEST(test_missing_file_without_create)
{
    struct store_options options = {db_path, 100, 1, false, false};
    struct store *store = (struct store *)1;
    struct gq_error err;
    ck_assert_int_eq(store_open(&options, &store, &err), GQ_ERR_NOT_READY);
    ck_assert_ptr_null(store);
    char expected[800];
    snprintf(expected, sizeof expected, "database %s does not exist (run 'gpuquote migrate')",
             db_path);
    ck_assert_str_eq(err.message, expected);
    struct stat info;
    ck_assert_int_ne(stat(db_path, &info), 0); /* not created */
}
END_TEST

START_TEST(test_missing_directory)
{
    char path[800], directory[700];
    snprintf(directory, sizeof directory, "%s/no-such-dir", temp_dir);
    snprintf(path, sizeof path, "%s/gpuquote.db", directory);
    struct store_options options = {path, 100, 1, true, false};
    struct store *store = NULL;
    struct gq_error err;
    ck_assert_int_eq(store_open(&options, &store, &err), GQ_ERR_NOT_READY);
    ck_assert_ptr_null(store);
    char expected[800];
    snprintf(expected, sizeof expected, "directory %s of database", directory);
    ck_assert_msg(strstr(err.message, expected) != NULL, "%s", err.message);
    ck_assert_ptr_nonnull(strstr(err.message, "does not exist"));
}
END_TEST

/* store_open's message, from a child process that runs as `nobody` when
 * this one is root (root may write anywhere). */
static void open_as_nobody(const char *path, char *message, size_t size)
{
    int pipe_fds[2];
    ck_assert_int_eq(pipe(pipe_fds), 0);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        close(pipe_fds[0]);
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(2);
        struct store_options options = {path, 100, 1, true, false};
        struct store *store = NULL;
        struct gq_error err;
        enum gq_code code = store_open(&options, &store, &err);
        if (code == GQ_OK)
            _exit(3);
        ssize_t written = write(pipe_fds[1], err.message, strlen(err.message));
        _exit(written > 0 ? 0 : 4);
    }
    close(pipe_fds[1]);
    ssize_t got = read(pipe_fds[0], message, size - 1);
    message[got > 0 ? got : 0] = '\0';
    close(pipe_fds[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d: %s", status,
                  message);
}

/* In WAL mode SQLite creates files beside the database, so a directory it
 * cannot write to is named, with the reason, before SQLite answers "unable
 * to open database file". Nothing is created. */
START_TEST(test_directory_not_writable)
{
    ck_assert_int_eq(chmod(temp_dir, 0555), 0);
    char message[1024];
    open_as_nobody(db_path, message, sizeof message);
    ck_assert_int_eq(chmod(temp_dir, 0700), 0);
    char expected[1200];
    snprintf(expected, sizeof expected, "directory %s of database %s is not writable", temp_dir,
             db_path);
    ck_assert_msg(strstr(message, expected) == message, "%s", message);
    ck_assert_ptr_nonnull(strstr(message, "-wal and -shm"));
    struct stat info;
    ck_assert_int_ne(stat(db_path, &info), 0);
}
END_TEST

START_TEST(test_not_a_database)
{
    FILE *file = fopen(db_path, "wb");
    ck_assert_ptr_nonnull(file);
    for (int i = 0; i < 200; i++)
        fputs("this is not an SQLite database\n", file);
    fclose(file);
    struct store_options options = {db_path, 100, 2, false, false};
    struct store *store = NULL;
    struct gq_error err;
    ck_assert_int_eq(store_open(&options, &store, &err), GQ_ERR_NOT_READY);
    ck_assert_ptr_null(store);
    ck_assert_msg(strstr(err.message, "not a database") != NULL, "%s", err.message);
}
END_TEST

START_TEST(test_pool_size_zero_is_refused)
{
    struct store_options options = {db_path, 100, 0, true, false};
    struct store *store = NULL;
    struct gq_error err;
    ck_assert_int_eq(store_open(&options, &store, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_ptr_null(store);
}
END_TEST

START_TEST(test_every_connection_is_configured)
{
    enum { POOL = 3 };
    struct store *store = open_ok(POOL, 1234);
    struct sqlite_conn *conns[POOL];
    for (int i = 0; i < POOL; i++)
        conns[i] = sqlite_db_checkout(sqlite_of(store));
    for (int i = 0; i < POOL; i++) {
        for (int j = 0; j < i; j++)
            ck_assert_ptr_ne(conns[i], conns[j]);
        char mode[16];
        pragma_text(conns[i], "PRAGMA journal_mode", mode, sizeof mode);
        ck_assert_str_eq(mode, "wal");
        ck_assert_int_eq(pragma_value(conns[i], "PRAGMA synchronous"), 1); /* NORMAL */
        ck_assert_int_eq(pragma_value(conns[i], "PRAGMA foreign_keys"), 1);
        ck_assert_int_eq(pragma_value(conns[i], "PRAGMA busy_timeout"), 1234);
    }
    for (int i = 0; i < POOL; i++)
        sqlite_db_checkin(sqlite_of(store), conns[i]);
    store_close(store);
}
END_TEST

START_TEST(test_existing_file_opens_without_create)
{
    store_close(open_ok(1, 100));
    struct store_options options = {db_path, 100, 2, false, false};
    struct store *store = NULL;
    struct gq_error err;
    ck_assert_int_eq(store_open(&options, &store, &err), GQ_OK);
    ck_assert_int_eq(store_ping(store, NULL), GQ_OK);
    store_close(store);
}
END_TEST

/* ---- The pool. ---- */

struct pinger {
    struct store *store;
    volatile int done; /* written by the thread, read after a sleep */
    enum gq_code code;
};

static void *ping_in_thread(void *argument)
{
    struct pinger *pinger = argument;
    pinger->code = store_ping(pinger->store, NULL);
    __atomic_store_n(&pinger->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

START_TEST(test_checkout_waits_for_a_free_connection)
{
    struct store *store = open_ok(1, 100);
    struct sqlite_conn *held = sqlite_db_checkout(sqlite_of(store));
    struct pinger pinger = {store, 0, GQ_ERR_INTERNAL};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, ping_in_thread, &pinger), 0);
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    ck_assert_int_eq(__atomic_load_n(&pinger.done, __ATOMIC_SEQ_CST), 0); /* still waiting */
    sqlite_db_checkin(sqlite_of(store), held);
    pthread_join(thread, NULL);
    ck_assert_int_eq(pinger.done, 1);
    ck_assert_int_eq(pinger.code, GQ_OK);
    store_close(store);
}
END_TEST

START_TEST(test_statements_are_cached_per_connection)
{
    static const char sql[] = "SELECT 42";
    struct store *store = open_ok(1, 100);
    struct sqlite_conn *conn = sqlite_db_checkout(sqlite_of(store));
    struct gq_error err;
    sqlite3_stmt *first = sqlite_db_cached(conn, sql, &err);
    ck_assert_ptr_nonnull(first);
    ck_assert_int_eq(sqlite3_step(first), SQLITE_ROW); /* left mid-result on purpose */
    sqlite_db_checkin(sqlite_of(store), conn);
    conn = sqlite_db_checkout(sqlite_of(store));
    ck_assert_ptr_eq(sqlite_db_cached(conn, sql, &err), first);
    ck_assert_int_eq(sqlite3_stmt_busy(first), 0); /* check-in reset it */
    ck_assert_int_eq(sqlite3_step(first), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(first, 0), 42);
    sqlite_db_done(first);
    sqlite_db_checkin(sqlite_of(store), conn);
    store_close(store);
}
END_TEST

START_TEST(test_checkin_rolls_back_an_open_transaction)
{
    struct store *store = open_ok(1, 100);
    struct sqlite_conn *conn = sqlite_db_checkout(sqlite_of(store));
    ck_assert_int_eq(sqlite3_exec(conn->db, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite_db_begin_write(conn, NULL), GQ_OK);
    ck_assert_int_eq(sqlite3_exec(conn->db, "INSERT INTO t VALUES (1)", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite_db_checkin(sqlite_of(store), conn); /* forgot to commit */
    conn = sqlite_db_checkout(sqlite_of(store));
    ck_assert_int_ne(sqlite3_get_autocommit(conn->db), 0);
    ck_assert_int_eq(pragma_value(conn, "SELECT count(*) FROM t"), 0);
    sqlite_db_checkin(sqlite_of(store), conn);
    store_close(store);
}
END_TEST

/* ---- Health. ---- */

START_TEST(test_ping_and_writable)
{
    struct store *store = open_ok(2, 50);
    struct gq_error err;
    ck_assert_int_eq(store_ping(store, NULL), GQ_OK);
    ck_assert_int_eq(store_check_writable(store, &err), GQ_OK);

    sqlite3 *holder;
    ck_assert_int_eq(sqlite3_open(db_path, &holder), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(holder, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    ck_assert_int_eq(store_check_writable(store, &err), GQ_ERR_NOT_READY);
    ck_assert_ptr_nonnull(strstr(err.message, "busy"));
    ck_assert_int_eq(store_ping(store, NULL), GQ_OK); /* reads still work */
    sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(holder);
    ck_assert_int_eq(store_check_writable(store, &err), GQ_OK);
    store_close(store);
}
END_TEST

static Suite *open_suite(void)
{
    Suite *suite = suite_create("store_open");
    TCase *open = tcase_create("open");
    tcase_add_checked_fixture(open, setup, teardown);
    tcase_add_test(open, test_missing_file_without_create);
    tcase_add_test(open, test_missing_directory);
    tcase_add_test(open, test_directory_not_writable);
    tcase_add_test(open, test_not_a_database);
    tcase_add_test(open, test_pool_size_zero_is_refused);
    tcase_add_test(open, test_every_connection_is_configured);
    tcase_add_test(open, test_existing_file_opens_without_create);
    suite_add_tcase(suite, open);

    TCase *pool = tcase_create("pool");
    tcase_add_checked_fixture(pool, setup, teardown);
    tcase_add_test(pool, test_checkout_waits_for_a_free_connection);
    tcase_add_test(pool, test_statements_are_cached_per_connection);
    tcase_add_test(pool, test_checkin_rolls_back_an_open_transaction);
    tcase_add_test(pool, test_ping_and_writable);
    suite_add_tcase(suite, pool);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(open_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
