/*
 * Faults around the real server: a database it cannot use at start, a
 * database locked by someone else while it saves, kill -9 in the middle of
 * a stream of saved quotes, and SIGTERM under load.
 *
 * - Start: a missing directory, a missing file without migrations, a file
 *   the server may only read, and a directory it cannot create the WAL in
 *   each stop it with exit 1 and a message naming the database. File modes
 *   do not bind root, so as root the server is run as user 65534 (nobody)
 *   for the read-only cases, and an immutable file (FS_IMMUTABLE_FL, what
 *   `chattr +i` sets) is tried as root too where the file system has it.
 * - Locked: another connection holds BEGIN EXCLUSIVE; saving and accepting
 *   answer 503 retry_later with Retry-After within the busy timeout and
 *   write nothing (not even the Idempotency-Key); once released, the same
 *   request succeeds as new.
 * - kill -9: threads save quotes as fast as they can; the server is killed
 *   mid-stream and restarted on the same database: PRAGMA integrity_check
 *   says ok, and every quote that was answered 201 reads back unchanged.
 *   (This is a process crash: the page cache survives it. A power cut is
 *   another matter, see synchronous=NORMAL in src/store/db.c.)
 * - SIGTERM under load: requests provably begun (their 100 Continue came)
 *   but whose bodies are still arriving, and client threads looping over
 *   keep-alive connections. After the signal no new connection is
 *   accepted, every begun request gets its complete, correct answer, the
 *   server's access log has exactly the requests the clients got answers
 *   to, and it exits 0. Saved quotes waiting for a held database when the
 *   signal comes are all written and answered 201 once it is released.
 * - Gone: the database's files deleted (rm), its WAL alone deleted, or the
 *   database renamed (mv)
 *   under a running server: saves answer 503 retry_later and store
 *   nothing, /readyz answers 503, the error log says so once; moved back,
 *   writes resume; a restart after rm logs that it created a new database.
 * - A full disk: saves fail, /readyz answers 503 at once (the cause in the
 *   log under the request id, not in the answer) and recovers.
 * - A new database, its -wal and -shm are mode 0600 whatever the umask.
 *
 * Every case starts servers of its own.
 */
#include <check.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/raw.h"
#include "support/server.h"
#include "support/suite.h"
#include "support/testdb.h"

#define JSON_TYPE "Content-Type: application/json"
#define ITEM "{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":90}"
#define EXAMPLE "{\"items\":[" ITEM "]}"
#define EXAMPLE_UNSAVED "{\"items\":[" ITEM "],\"save\":false}"
#define NOBODY 65534u

static long long count_quotes(struct server *server)
{
    return server_db_integer(server, "SELECT COUNT(*) FROM quotes", NULL);
}

static void expect_integrity(struct server *server)
{
    char *result = server_db_text(server, "PRAGMA integrity_check", NULL);
    ck_assert_str_eq(result, "ok");
    free(result);
}

/* Standard error contains `needle`; the message quotes it when not. */
static void expect_stderr_has(struct server *server, const char *needle)
{
    char *err = server_read(server, "stderr.log");
    ck_assert_msg(strstr(err, needle) != NULL, "standard error lacks \"%s\": %s", needle, err);
    free(err);
}

/* ---- the database at start ------------------------------------------------- */

/* A database migrated by a server that has then stopped. */
static void migrated_database(struct server *server)
{
    server_start(server, NULL);
    struct http_client *to = http_client_new(server->port);
    struct http_response *saved = http_post_json(to, "/quote", EXAMPLE);
    expect_status(saved, 201);
    http_response_free(saved);
    http_client_free(to);
    ck_assert_int_eq(server_stop(server), 0);
    /* A clean stop checkpoints and removes the WAL and the shared memory. */
    ck_assert_int_ne(access(server_path(server, "gpuquote.db-wal"), F_OK), 0);
    unlink(server->port_file);
}

/* Copies the source tree's migrations (both dialects' directories) into
 * `to`, a new directory, so that a migration added later needs no change
 * here. */
static void copy_migrations(const char *to)
{
    char from[PATH_MAX];
    snprintf(from, sizeof from, "%s/migrations", getenv("GPUQUOTE_SOURCE_DIR"));
    ck_assert_int_eq(mkdir(to, 0700), 0);
    suite_copy_tree(from, to, 0700, 0600);
}

/* The server's own copy of the migrations, with one more, `name`, that
 * runs `sql` (SQLite's: these tests are SQLite's); the copy's root is
 * written into `migrations`. */
static void migrations_with_one_more(struct server *server, const char *name, const char *sql,
                                     char migrations[SERVER_PATH_SIZE])
{
    snprintf(migrations, SERVER_PATH_SIZE, "%s", server_path(server, "migrations"));
    copy_migrations(migrations);
    char path[SERVER_PATH_SIZE + 64];
    snprintf(path, sizeof path, "%s/sqlite/%s", migrations, name);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(sql, file);
    ck_assert_int_eq(fclose(file), 0);
}

/* As root, file modes bind only once the server runs as another user: it
 * then needs to reach its directory (the temporary root is 0700). */
static void run_as_nobody_when_root(struct server *server)
{
    if (geteuid() != 0)
        return;
    server->run_as = NOBODY;
    ck_assert_int_eq(chmod(suite_temp_root(), 0711), 0);
}

START_TEST(test_faults_directory_missing)
{
    struct server server = {0};
    server_prepare(&server);
    char db[SERVER_PATH_SIZE];
    snprintf(db, sizeof db, "%s", server_path(&server, "no/such/dir/gpuquote.db"));
    const char *const args[] = {"--db", db, NULL};
    struct server_options options = {args, NULL, false};
    ck_assert_int_eq(server_run(&server, &options), 1);
    char expected[2 * SERVER_PATH_SIZE + 128];
    snprintf(expected, sizeof expected,
             "gpuquote: error: directory %s/no/such/dir of database %s does not exist (create "
             "it first)\n",
             server.dir, db);
    expect_stderr_has(&server, expected);
    ck_assert_int_ne(access(server.port_file, F_OK), 0);
    server_cleanup(&server);
}
END_TEST

START_TEST(test_faults_file_missing_without_migrations)
{
    struct server server = {0};
    server_prepare(&server);
    const char *const env[] = {"GPUQUOTE_AUTO_MIGRATE=false", NULL};
    struct server_options options = {NULL, env, false};
    ck_assert_int_eq(server_run(&server, &options), 1);
    char expected[SERVER_PATH_SIZE + 128];
    snprintf(expected, sizeof expected,
             "gpuquote: error: database %s does not exist (run 'gpuquote migrate')\n",
             server.db_path);
    expect_stderr_has(&server, expected);
    ck_assert_int_ne(access(server.db_path, F_OK), 0); /* not created either */
    server_cleanup(&server);
}
END_TEST

/* A server told not to migrate (auto_migrate off) refuses a database
 * older than its migrations, naming the first it lacks, instead of serving
 * a schema its code does not know; migrating then serves it. */
START_TEST(test_faults_pending_migration_without_auto_migrate)
{
    struct server server = {0};
    migrated_database(&server);
    char migrations[SERVER_PATH_SIZE];
    migrations_with_one_more(&server, "9001_extra.sql", "CREATE TABLE extra (x INTEGER);\n",
                             migrations);

    const char *const args[] = {"--migrations", migrations, NULL};
    const char *const off[] = {"GPUQUOTE_AUTO_MIGRATE=false", NULL};
    struct server_options refused = {args, off, false};
    ck_assert_int_eq(server_run(&server, &refused), 1);
    char expected[SERVER_PATH_SIZE * 3];
    snprintf(
        expected, sizeof expected,
        "gpuquote: error: database %s lacks 1 migration of %s/sqlite (the first 9001_extra.sql): "
        "run 'gpuquote migrate', or serve with auto_migrate on\n",
        server.db_path, migrations);
    expect_stderr_has(&server, expected);
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT count(*) FROM sqlite_master WHERE name = 'extra'", NULL),
        0);

    struct server_options migrating = {args, NULL, false};
    server_start(&server, &migrating);
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT count(*) FROM sqlite_master WHERE name = 'extra'", NULL),
        1);
    server_finish(&server);
}
END_TEST

/* SIGTERM while a migration waits for the database (another process holds
 * it): the migration, one transaction, completes once the database is
 * free, and the server then stops instead of serving, exit 0. (Signals are
 * blocked from the start; before, this one was only seen once serving.) */
START_TEST(test_faults_sigterm_during_migration)
{
    struct server server = {0};
    migrated_database(&server);
    char migrations[SERVER_PATH_SIZE];
    migrations_with_one_more(&server, "9001_probe.sql", "CREATE TABLE probe (x INTEGER);\n",
                             migrations);

    sqlite3 *db = testdb_sqlite_hold(server.db_path);
    const char *const args[] = {"--migrations", migrations, NULL};
    const char *const env[] = {"GPUQUOTE_DB_BUSY_TIMEOUT_MS=60000", NULL};
    struct server_options options = {args, env, false};
    server_launch(&server, &options);
    /* Once it says so, its signals are blocked and it migrates: it waits for
     * the lock in its first migration. */
    char migrating[SERVER_PATH_SIZE + 32];
    snprintf(migrating, sizeof migrating, ": migrating from %s/sqlite\n", migrations);
    ck_assert(server_wait_for_text(&server, "stderr.log", migrating, suite_wait_ms(10)));
    server_signal(&server, SIGTERM);
    suite_sleep_ms(200);
    testdb_sqlite_release(db);

    ck_assert_int_eq(server_wait(&server, suite_wait_ms(20)), 0);
    expect_stderr_has(&server, "1 migration applied");
    expect_stderr_has(&server, "signal 15 during start-up: stopping before serving");
    char *err = server_read(&server, "stderr.log");
    const char *second_run = strstr(err, migrating);
    ck_assert_ptr_nonnull(second_run);
    ck_assert_msg(strstr(second_run, "listening on") == NULL, "it served: %s", err);
    free(err);
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT count(*) FROM sqlite_master WHERE name = 'probe'", NULL),
        1);
    server_cleanup(&server);
}
END_TEST

/* The file is read-only to the server; its directory is writable, so the
 * WAL and shared-memory files could be made: only the file itself stands in
 * the way. (SQLite opens such a file read-only without a word, and a write
 * transaction still begins on it: before the fix the server started, said
 * it was ready, and answered every saved quote with 500.) */
START_TEST(test_faults_file_read_only)
{
    struct server server = {0};
    migrated_database(&server);
    ck_assert_int_eq(chmod(server.db_path, 0444), 0);
    ck_assert_int_eq(chmod(server.dir, 0777), 0);
    run_as_nobody_when_root(&server);
    int status = server_run(&server, NULL);
    ck_assert_msg(status == 1, "exit status %d", status);
    char expected[SERVER_PATH_SIZE + 128];
    snprintf(expected, sizeof expected,
             "gpuquote: error: database is not writable: %s is read-only to this process\n",
             server.db_path);
    expect_stderr_has(&server, expected);
    ck_assert_int_ne(access(server.port_file, F_OK), 0);
    /* Refused before SQLite opened it: no -shm file left with the
     * database's read-only mode to break the next start. */
    char shm[SERVER_PATH_SIZE + 8];
    snprintf(shm, sizeof shm, "%s-shm", server.db_path);
    ck_assert_int_ne(access(shm, F_OK), 0);
    server.run_as = 0;
    ck_assert_int_eq(chmod(server.db_path, 0644), 0);
    ck_assert_int_eq(count_quotes(&server), 1);
    /* Writable again, it starts. */
    server_start(&server, NULL);
    ck_assert_int_eq(server_stop(&server), 0);
    server_cleanup(&server);
}
END_TEST

/* The file is writable, its directory is not: the WAL cannot be created,
 * and the message says so (SQLite's own is "attempt to write a readonly
 * database", about a file that is writable). */
START_TEST(test_faults_directory_read_only)
{
    struct server server = {0};
    migrated_database(&server);
    ck_assert_int_eq(chmod(server.db_path, 0666), 0);
    ck_assert_int_eq(chmod(server.dir, 0555), 0);
    run_as_nobody_when_root(&server);
    int status = server_run(&server, NULL);
    ck_assert_int_eq(chmod(server.dir, 0700), 0);
    ck_assert_msg(status == 1, "exit status %d", status);
    char expected[2 * SERVER_PATH_SIZE + 128];
    snprintf(expected, sizeof expected,
             "gpuquote: error: directory %s of database %s is not writable by this process",
             server.dir, server.db_path);
    expect_stderr_has(&server, expected);
    expect_stderr_has(&server, "SQLite creates the database's -wal and -shm files there\n");
    ck_assert_int_ne(access(server.port_file, F_OK), 0);
    server.run_as = 0;
    ck_assert_int_eq(count_quotes(&server), 1);
    server_cleanup(&server);
}
END_TEST

/* Sets or clears the immutable flag; false (errno set) when the file
 * system or the process cannot. */
static bool set_immutable(const char *path, bool on)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    int flags = 0;
    bool done = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    if (done) {
        flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
        done = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    }
    int saved = errno;
    close(fd);
    errno = saved;
    return done;
}

/* An immutable file, which even root cannot write, with the server run as
 * whoever runs the test. */
START_TEST(test_faults_file_immutable)
{
    struct server server = {0};
    migrated_database(&server);
    if (!set_immutable(server.db_path, true)) {
        fprintf(stderr, "test_faults_file_immutable: skipped, no immutable flag here (%s)\n",
                strerror(errno));
        server_cleanup(&server);
        return;
    }
    int status = server_run(&server, NULL);
    bool cleared = set_immutable(server.db_path, false);
    ck_assert_msg(cleared, "cannot clear the immutable flag of %s: %s", server.db_path,
                  strerror(errno));
    ck_assert_msg(status == 1, "exit status %d", status);
    char expected[SERVER_PATH_SIZE + 128];
    snprintf(expected, sizeof expected,
             "gpuquote: error: database is not writable: %s is read-only to this process\n",
             server.db_path);
    expect_stderr_has(&server, expected);
    ck_assert_int_eq(count_quotes(&server), 1);
    server_cleanup(&server);
}
END_TEST

/* ---- a database locked by another writer ------------------------------------ */

static struct http_response *post_keyed(struct http_client *to, const char *key, const char *body)
{
    char header[128];
    snprintf(header, sizeof header, "Idempotency-Key: %s", key);
    const char *const headers[] = {JSON_TYPE, header, NULL};
    return http_request(to, "POST", "/quote", headers, body);
}

static void expect_busy(struct http_response *response)
{
    expect_error(response, 503, "retry_later", NULL);
    ck_assert_str_eq(http_header(response, "retry-after"), "1");
    ck_assert_ptr_null(http_header(response, "location"));
}

START_TEST(test_faults_locked_while_saving)
{
    struct server server = {0};
    const char *const env[] = {"GPUQUOTE_DB_BUSY_TIMEOUT_MS=100", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    struct http_client *to = http_client_new(server.port);
    struct http_response *first = http_post_json(to, "/quote", EXAMPLE);
    expect_status(first, 201);
    char accept_path[96];
    snprintf(accept_path, sizeof accept_path, "/quote/%s/accept", json_str(first->json, "id"));

    sqlite3 *db = testdb_sqlite_hold(server.db_path);
    const char *key = "locked-once";
    const char *body = "{\"items\":[{\"sku\":\"v100-32g-x4\",\"hours_per_day\":12,\"days\":60}]}";
    long long started = suite_now_ms();
    struct http_response *busy = post_keyed(to, key, body);
    long long waited = suite_now_ms() - started;
    expect_busy(busy);
    expect_str(busy->json, "error.message", "database is busy, retry");
    ck_assert_msg(waited < suite_wait_ms(1.5), "503 after %lld ms (busy timeout 100 ms)", waited);
    http_response_free(busy);
    busy = http_post_json(to, "/quote", EXAMPLE);
    expect_busy(busy);
    http_response_free(busy);
    busy = http_request(to, "POST", accept_path, NULL, NULL);
    expect_busy(busy);
    http_response_free(busy);
    /* Nothing was written meanwhile; readers are not blocked (WAL). */
    ck_assert_int_eq(count_quotes(&server), 1);
    ck_assert_int_eq(server_db_integer(&server,
                                       "SELECT COUNT(*) FROM quotes WHERE status = 'open' AND "
                                       "accepted_at IS NULL",
                                       NULL),
                     1);
    testdb_sqlite_release(db);

    /* The same keyed request now: a new quote, not a replay of anything. */
    struct http_response *saved = post_keyed(to, key, body);
    expect_status(saved, 201);
    ck_assert_ptr_null(http_header(saved, "idempotent-replayed"));
    expect_str(saved->json, "total", "6969.60");
    ck_assert_int_eq(count_quotes(&server), 2);
    struct http_response *again = post_keyed(to, key, body);
    expect_status(again, 201);
    ck_assert_str_eq(http_header(again, "idempotent-replayed"), "true");
    expect_str(again->json, "id", json_str(saved->json, "id"));
    http_response_free(again);
    struct http_response *accepted = http_request(to, "POST", accept_path, NULL, NULL);
    expect_status(accepted, 200);
    expect_str(accepted->json, "status", "accepted");
    http_response_free(accepted);
    ck_assert_int_eq(count_quotes(&server), 2);
    expect_integrity(&server);

    http_response_free(saved);
    http_response_free(first);
    http_client_free(to);
    server_finish(&server);
}
END_TEST

/* ---- kill -9 during a stream of saved quotes -------------------------------- */

/* http_describe() for client threads: expect.h's text helpers share a
 * static ring of buffers, so threads write into their own. */
static void describe(const struct http_response *response, char *out, size_t size)
{
    if (response->status == 0)
        snprintf(out, size, "no response (%s)", response->error);
    else
        snprintf(out, size, "HTTP %ld, body %.200s", response->status, response->body);
}

/* The string at `path`, or NULL: json_str() without the shared ring. */
static const char *string_at(json_t *root, const char *path)
{
    return json_string_value(json_at(root, path));
}

#define SAVERS 3
#define SAVES_MAX 4096

struct saved_quote {
    char id[48];
    char *body; /* the 201 response */
};

struct saver {
    pthread_t thread;
    int number;
    uint16_t port;
    atomic_int *progress;
    struct saved_quote saved[SAVES_MAX];
    int n_saved;
    long unexpected_status; /* a status other than 201, 0 when none */
    char unexpected[300];
    int final_curl_code; /* how the last request failed */
};

static void *save_until_killed(void *context)
{
    struct saver *saver = context;
    struct http_client *to = http_client_new(saver->port);
    for (int i = 0; saver->n_saved < SAVES_MAX; i++) {
        char body[160];
        snprintf(body, sizeof body,
                 "{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":%d,\"days\":%d}]}",
                 1 + saver->number, 1 + i % 3650);
        struct http_response *response = http_post_json(to, "/quote", body);
        if (response->status == 0) {
            saver->final_curl_code = response->curl_code;
            http_response_free(response);
            break;
        }
        const char *id = string_at(response->json, "id");
        if (response->status != 201 || id == NULL) {
            saver->unexpected_status = response->status;
            describe(response, saver->unexpected, sizeof saver->unexpected);
            http_response_free(response);
            break;
        }
        struct saved_quote *quote = &saver->saved[saver->n_saved++];
        snprintf(quote->id, sizeof quote->id, "%s", id);
        quote->body = response->body;
        response->body = NULL;
        http_response_free(response);
        atomic_fetch_add(saver->progress, 1);
    }
    http_client_free(to);
    return NULL;
}

/* Waits until *counter reaches `target`; false when it does not in time. */
static bool wait_for_count(atomic_int *counter, int target, long timeout_ms)
{
    long long deadline = suite_now_ms() + timeout_ms;
    while (atomic_load(counter) < target) {
        if (suite_now_ms() > deadline)
            return false;
        suite_sleep_ms(5);
    }
    return true;
}

START_TEST(test_faults_kill_during_saves)
{
    struct server server = {0};
    server_start(&server, NULL);
    static struct saver savers[SAVERS];
    atomic_int progress = 0;
    for (int i = 0; i < SAVERS; i++) {
        memset(&savers[i], 0, sizeof savers[i]);
        savers[i].number = i;
        savers[i].port = server.port;
        savers[i].progress = &progress;
        ck_assert_int_eq(pthread_create(&savers[i].thread, NULL, save_until_killed, &savers[i]), 0);
    }
    /* Mid-stream: well after the first saves, while all still run. */
    bool streaming = wait_for_count(&progress, 60, suite_wait_ms(10));
    int killed = server_kill(&server);
    for (int i = 0; i < SAVERS; i++)
        pthread_join(savers[i].thread, NULL);
    ck_assert_msg(streaming, "only %d quotes saved before the deadline", atomic_load(&progress));
    ck_assert_int_eq(killed, 128 + SIGKILL);

    int answered = 0;
    for (int i = 0; i < SAVERS; i++) {
        ck_assert_msg(savers[i].unexpected_status == 0, "saver %d: %s", i, savers[i].unexpected);
        ck_assert_msg(savers[i].n_saved < SAVES_MAX, "saver %d never saw the kill", i);
        ck_assert_msg(savers[i].final_curl_code != 0, "saver %d stopped without an error", i);
        answered += savers[i].n_saved;
    }

    /* The same database, a new process: it recovers the WAL itself. */
    server_start(&server, NULL);
    expect_integrity(&server);
    ck_assert_int_ge(count_quotes(&server), answered);
    struct http_client *to = http_client_new(server.port);
    for (int i = 0; i < SAVERS; i++) {
        for (int j = 0; j < savers[i].n_saved; j++) {
            struct saved_quote *quote = &savers[i].saved[j];
            char path[96];
            snprintf(path, sizeof path, "/quote/%s", quote->id);
            struct http_response *read = http_get(to, path);
            ck_assert_msg(read->status == 200, "quote %s (saver %d, #%d) after the restart: %s",
                          quote->id, i, j, http_describe(read));
            json_t *created = json_loads(quote->body, 0, NULL);
            ck_assert_ptr_nonnull(created);
            ck_assert_msg(json_equal(read->json, created), "quote %s read back as %s, created %s",
                          quote->id, read->body, quote->body);
            json_decref(created);
            http_response_free(read);
            free(quote->body);
        }
    }
    /* And it goes on saving. */
    struct http_response *saved = http_post_json(to, "/quote", EXAMPLE);
    expect_status(saved, 201);
    expect_str(saved->json, "total", "1641.60");
    http_response_free(saved);
    http_client_free(to);
    server_finish(&server);
}
END_TEST

/* ---- SIGTERM under load ------------------------------------------------------- */

#define LOADERS 4
#define SLOW 6

struct loader {
    pthread_t thread;
    int number;
    uint16_t port;
    atomic_int *progress;
    int answered;     /* complete, correct responses */
    char wrong[400];  /* the first wrong response, "" when none */
    int failures;     /* requests without a response */
    int failure_code; /* libcurl's code for the last of them */
};

/* GET /catalog, an unsaved and a saved quote, round and round over one
 * keep-alive connection, until a request gets no response. */
static void *load_until_refused(void *context)
{
    struct loader *loader = context;
    struct http_client *to = http_client_new(loader->port);
    for (int i = 0;; i++) {
        struct http_response *response;
        const char *want_total = NULL;
        long want = 200;
        switch (i % 3) {
        case 0:
            response = http_get(to, "/catalog");
            break;
        case 1:
            response = http_post_json(to, "/quote", EXAMPLE_UNSAVED);
            want_total = "1641.60";
            break;
        default:
            response = http_post_json(to, "/quote", EXAMPLE);
            want_total = "1641.60";
            want = 201;
            break;
        }
        if (response->status == 0) {
            loader->failures++;
            loader->failure_code = response->curl_code;
            http_response_free(response);
            break;
        }
        bool right = response->status == want && response->json != NULL;
        const char *total = string_at(response->json, "total");
        if (right && want_total != NULL)
            right = total != NULL && strcmp(total, want_total) == 0;
        if (right && want_total == NULL)
            right = json_count(response->json, "skus") == 5;
        if (!right && loader->wrong[0] == '\0') {
            char text[360];
            describe(response, text, sizeof text);
            snprintf(loader->wrong, sizeof loader->wrong, "request %d: %s", i, text);
        }
        loader->answered += right;
        http_response_free(response);
        atomic_fetch_add(loader->progress, 1);
        if (!right)
            break;
    }
    http_client_free(to);
    return NULL;
}

struct slow_request {
    const char *path;
    const char *body;
    int status;
    const char *path_to_total; /* where the expected figure is */
    const char *total;
    int fd;
};

static int count_lines_without(const char *text, const char *unwanted, const char *needle)
{
    int count = 0;
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        char copy[2048];
        snprintf(copy, sizeof copy, "%.*s", (int)length, line);
        if (strstr(copy, unwanted) == NULL && (needle == NULL || strstr(copy, needle) != NULL))
            count++;
        line += length + (end != NULL);
    }
    return count;
}

START_TEST(test_faults_sigterm_under_load)
{
    struct server server = {0};
    server_start(&server, NULL);
    struct slow_request slow[SLOW] = {
        {"/quote", EXAMPLE, 201, "total", "1641.60", -1},
        {"/quote", "{\"items\":[{\"sku\":\"v100-32g-x4\",\"hours_per_day\":12,\"days\":60}]}", 201,
         "total", "6969.60", -1},
        {"/quote", EXAMPLE_UNSAVED, 200, "total", "1641.60", -1},
        {"/quote",
         "{\"customer\":{\"segment\":\"student\"},\"items\":[{\"sku\":\"v100-16g-x1\","
         "\"hours_per_day\":8,\"days\":90,\"billing\":\"student\"}],\"save\":false}",
         200, "total", "1080.00", -1},
        {"/recommend",
         "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"precision\":\"int8\"}}", 200,
         "recommendations[0].total", "1231.00", -1},
        {"/recommend",
         "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"precision\":\"int8\"}}", 200,
         "recommendations[0].sku", "v100-16g-x1", -1},
    };
    /* The slow requests begin: headers, "100 Continue" back (the server
     * has taken the request), ten bytes of body. */
    for (int i = 0; i < SLOW; i++) {
        slow[i].fd = raw_connect(server.port);
        ck_assert_int_ge(slow[i].fd, 0);
        char headers[384];
        snprintf(headers, sizeof headers,
                 "POST %s HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                 "Authorization: Bearer %s\r\n" /* as an order system calls */
                 "Expect: 100-continue\r\nContent-Length: %zu\r\n\r\n",
                 slow[i].path, server.admin_key, strlen(slow[i].body));
        ck_assert(raw_send(slow[i].fd, headers, strlen(headers)));
        char *interim = raw_read_response(slow[i].fd, suite_wait_ms(5), false, NULL);
        ck_assert_msg(interim != NULL && raw_status(interim) == 100, "slow %d: %s", i,
                      interim ? interim : "no 100 Continue");
        free(interim);
        ck_assert(raw_send(slow[i].fd, slow[i].body, 10));
    }

    static struct loader loaders[LOADERS];
    atomic_int progress = 0;
    for (int i = 0; i < LOADERS; i++) {
        memset(&loaders[i], 0, sizeof loaders[i]);
        loaders[i].number = i;
        loaders[i].port = server.port;
        loaders[i].progress = &progress;
        ck_assert_int_eq(pthread_create(&loaders[i].thread, NULL, load_until_refused, &loaders[i]),
                         0);
    }
    bool loaded = wait_for_count(&progress, 30, suite_wait_ms(10));

    long long signalled = suite_now_ms();
    server_signal(&server, SIGTERM);
    ck_assert(server_wait_for_text(&server, "stderr.log", "signal 15: finishing requests in flight",
                                   suite_wait_ms(5)));
    bool refused = raw_connections_refused(server.port, suite_wait_ms(2));

    /* The rest of every slow body, a few bytes at a time, then the answers. */
    for (int i = 0; i < SLOW; i++) {
        size_t rest = strlen(slow[i].body) - 10;
        ck_assert_uint_eq(raw_trickle(slow[i].fd, slow[i].body + 10, rest, 16, 20), rest);
    }
    for (int i = 0; i < SLOW; i++) {
        char *text = raw_read_response(slow[i].fd, suite_wait_ms(10), true, NULL);
        ck_assert_msg(text != NULL, "slow %d (%s): no answer", i, slow[i].path);
        ck_assert_msg(raw_status(text) == slow[i].status, "slow %d: %.300s", i, text);
        json_t *json = json_loads(raw_body(text), 0, NULL);
        ck_assert_msg(json != NULL, "slow %d: a body that is not JSON: %.300s", i, text);
        expect_str(json, slow[i].path_to_total, slow[i].total);
        json_decref(json);
        free(text);
        close(slow[i].fd);
    }

    for (int i = 0; i < LOADERS; i++)
        pthread_join(loaders[i].thread, NULL);
    int status = server_wait(&server, suite_wait_ms(15));
    long long stopped_after = suite_now_ms() - signalled;
    ck_assert_msg(loaded, "only %d requests before the deadline", atomic_load(&progress));
    ck_assert_msg(refused, "connections are still accepted after SIGTERM");
    ck_assert_msg(status == 0, "exit status %d", status);
    int answered = SLOW;
    for (int i = 0; i < LOADERS; i++) {
        ck_assert_msg(loaders[i].wrong[0] == '\0', "loader %d: %s", i, loaders[i].wrong);
        /* It stopped for want of a connection, not with an answer cut short. */
        ck_assert_msg(loaders[i].failure_code != CURLE_PARTIAL_FILE &&
                          loaders[i].failure_code != CURLE_OPERATION_TIMEDOUT,
                      "loader %d: libcurl error %d", i, loaders[i].failure_code);
        answered += loaders[i].answered;
    }
    /* Every request the server began, it answered, and the answer arrived:
     * the access log has one line per response received (the readiness
     * probes aside), none without a status. */
    char *log = server_read(&server, "stdout.log");
    int logged = count_lines_without(log, "/healthz", "\"method\"");
    for (const char *dropped = strstr(log, "{\"dropped_log_lines\":"); dropped != NULL;
         dropped = strstr(dropped + 1, "{\"dropped_log_lines\":"))
        logged += atoi(dropped + strlen("{\"dropped_log_lines\":")); /* none expected */
    int unanswered = count_lines_without(log, "/healthz", "\"status\":0,");
    free(log);
    ck_assert_msg(unanswered == 0, "%d requests were cut off", unanswered);
    ck_assert_msg(logged == answered, "the server logged %d requests, the clients got %d answers",
                  logged, answered);
    expect_stderr_has(&server, "gpuquote: info: stopped");
    /* Well within the 10-second grace: keep-alive clients do not hold it. */
    ck_assert_msg(stopped_after < suite_wait_ms(8), "stopped %lld ms after SIGTERM", stopped_after);
    server_cleanup(&server);
}
END_TEST

/* Holds the server's database from another connection, sends `count`
 * saves of EXAMPLE on connections of their own (into `fds`), and returns
 * once the server has taken each in: they now wait for the store. Returns
 * the holding connection (ROLLBACK it to let them through). */
static sqlite3 *send_saves_behind_a_held_database(struct server *server, int *fds, int count)
{
    sqlite3 *db = testdb_sqlite_hold(server->db_path);
    char request[512];
    snprintf(request, sizeof request,
             "POST /quote HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n\r\n%s",
             strlen(EXAMPLE), EXAMPLE);
    for (int i = 0; i < count; i++) {
        fds[i] = raw_connect(server->port);
        ck_assert_int_ge(fds[i], 0);
        ck_assert(raw_send(fds[i], request, strlen(request)));
    }
    /* Each request taken in before the caller signals, however slow the
     * server (valgrind): one that has not begun by then is refused, by
     * design. */
    for (int i = 0; i < count; i++)
        ck_assert_msg(raw_wait_until_read(fds[i], suite_wait_ms(10)), "save %d: not read", i);
    /* Nothing can be answered while the database is held. */
    ck_assert_ptr_null(raw_read_response(fds[0], 300, true, NULL));
    return db;
}

static void send_sigterm(struct server *server)
{
    server_signal(server, SIGTERM);
    ck_assert(server_wait_for_text(server, "stderr.log", "signal 15: finishing requests in flight",
                                   suite_wait_ms(5)));
}

static void release_database(sqlite3 *db)
{
    testdb_sqlite_release(db);
}

/* SIGTERM while saved quotes wait for the store (their connections are
 * suspended until the writer thread has committed them): another connection
 * holds the database, three saves queue behind it, the signal comes, the
 * database is released; each gets its 201, each is in the database, and the
 * server exits 0. */
START_TEST(test_faults_sigterm_while_saves_wait_for_the_store)
{
    enum { WAITING = 3 };
    struct server server = {0};
    const char *const env[] = {"GPUQUOTE_DB_BUSY_TIMEOUT_MS=8000", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    int fds[WAITING];
    sqlite3 *db = send_saves_behind_a_held_database(&server, fds, WAITING);
    send_sigterm(&server);
    release_database(db);

    for (int i = 0; i < WAITING; i++) {
        char *text = raw_read_response(fds[i], suite_wait_ms(10), true, NULL);
        ck_assert_msg(text != NULL, "save %d: no answer", i);
        ck_assert_msg(raw_status(text) == 201, "save %d: %.300s", i, text);
        json_t *json = json_loads(raw_body(text), 0, NULL);
        ck_assert_ptr_nonnull(json);
        expect_str(json, "total", "1641.60");
        char query[160];
        snprintf(query, sizeof query, "SELECT COUNT(*) FROM quotes WHERE id = '%s'",
                 json_str(json, "id"));
        json_decref(json);
        free(text);
        close(fds[i]);
        ck_assert_int_eq(server_db_integer(&server, query, NULL), 1);
    }
    ck_assert_int_eq(server_wait(&server, suite_wait_ms(15)), 0);
    ck_assert_int_eq(count_quotes(&server), WAITING);
    expect_integrity(&server);
    expect_stderr_has(&server, "gpuquote: info: stopped");
    server_cleanup(&server);
}
END_TEST

/* The same, but the database stays held past the shutdown grace (1 s
 * here): the saves still get their 201 once the store has committed them,
 * before the daemon stops. (It once stopped as soon as the store had
 * handed the quotes back, before their answers were sent: committed quotes
 * answered with a closed connection.) */
START_TEST(test_faults_saves_held_past_the_grace_are_answered)
{
    enum { WAITING = 8 };
    struct server server = {0};
    const char *const env[] = {"GPUQUOTE_DB_BUSY_TIMEOUT_MS=8000",
                               "GPUQUOTE_SHUTDOWN_GRACE_SECONDS=1", NULL};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    int fds[WAITING];
    sqlite3 *db = send_saves_behind_a_held_database(&server, fds, WAITING);
    send_sigterm(&server);
    usleep(1500 * 1000); /* past the grace: the server now waits for the store alone */
    release_database(db);

    for (int i = 0; i < WAITING; i++) {
        char *text = raw_read_response(fds[i], suite_wait_ms(10), true, NULL);
        ck_assert_msg(text != NULL, "save %d: no answer", i);
        ck_assert_msg(raw_status(text) == 201, "save %d: %.300s", i, text);
        free(text);
        close(fds[i]);
    }
    ck_assert_int_eq(server_wait(&server, suite_wait_ms(15)), 0);
    ck_assert_int_eq(count_quotes(&server), WAITING);
    char *log = server_read(&server, "stdout.log");
    int unanswered = count_lines_without(log, "/healthz", "\"status\":0,");
    free(log);
    ck_assert_int_eq(unanswered, 0);
    server_cleanup(&server);
}
END_TEST

/* ---- the database's files taken away under a running server --------------- */

/* How many times `needle` is in the server's error log. */
static int count_in_log(struct server *server, const char *needle)
{
    char *log = server_read(server, "stderr.log");
    int found = 0;
    for (const char *at = strstr(log, needle); at != NULL; at = strstr(at + 1, needle))
        found++;
    free(log);
    return found;
}

/* The error log has a line holding both `first` and `second`. */
static void expect_log_line_with(struct server *server, const char *first, const char *second)
{
    char *log = server_read(server, "stderr.log");
    bool found = false;
    for (char *line = strtok(log, "\n"); line != NULL && !found; line = strtok(NULL, "\n"))
        found = strstr(line, first) != NULL && strstr(line, second) != NULL;
    if (!found) {
        char *again = server_read(server, "stderr.log");
        ck_abort_msg("no line of the error log has \"%s\" and \"%s\": %s", first, second, again);
    }
    free(log);
}

/* An answer for anyone: it names no file of the server, no SQL. */
static void expect_no_detail(struct server *server, const struct http_response *response)
{
    const char *message = json_str(response->json, "error.message");
    ck_assert_msg(strstr(message, server->dir) == NULL && strstr(message, ".db") == NULL &&
                      strstr(message, "COMMIT") == NULL && strstr(message, "disk") == NULL,
                  "the answer tells: %s", message);
}

/* The database has gone from its path: a save is refused with 503
 * retry_later (the cause in the log under its request id), nothing is
 * stored, /readyz answers 503, and the error is logged once. */
static void expect_writes_refused(struct server *server, struct http_client *to)
{
    for (int i = 0; i < 3; i++) {
        struct http_response *saved = http_post_json(to, "/quote", EXAMPLE);
        expect_error(saved, 503, "retry_later", NULL);
        ck_assert_str_eq(http_header(saved, "retry-after"), "1");
        expect_no_detail(server, saved);
        expect_log_line_with(server, http_header(saved, "x-request-id"),
                             "was deleted, renamed or replaced while the server runs");
        http_response_free(saved);
    }
    struct http_response *ready = http_get(to, "/readyz");
    expect_error(ready, 503, "not_ready", NULL);
    expect_no_detail(server, ready);
    http_response_free(ready);
    ck_assert_int_eq(count_in_log(server, "writes are refused"), 1);
}

static void save_one(struct http_client *to)
{
    struct http_response *saved = http_post_json(to, "/quote", EXAMPLE);
    expect_status(saved, 201);
    http_response_free(saved);
}

/* rm gpuquote.db*: no save is acknowledged any more; a restart says that
 * it created a new database. */
START_TEST(test_faults_database_deleted_refuses_writes)
{
    struct server server = {0};
    server_start(&server, NULL);
    struct http_client *to = http_client_new(server.port);
    save_one(to);
    static const char *const files[] = {"gpuquote.db", "gpuquote.db-wal", "gpuquote.db-shm"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        ck_assert_int_eq(unlink(server_path(&server, files[i])), 0);
    expect_writes_refused(&server, to);
    http_client_free(to);
    ck_assert_int_eq(server_stop(&server), 0);
    int created = count_in_log(&server, "did not exist: created a new, empty one");
    unlink(server.port_file);
    unlink(server_path(&server, "admin.key"));
    server_start(&server, NULL);
    ck_assert_int_eq(count_in_log(&server, "did not exist: created a new, empty one"), created + 1);
    ck_assert_int_eq(count_quotes(&server), 0);
    server_finish(&server);
}
END_TEST

/* rm gpuquote.db-wal alone: the quotes committed since the last
 * checkpoint are in that file, and so would every new one be. */
START_TEST(test_faults_wal_deleted_refuses_writes)
{
    struct server server = {0};
    server_start(&server, NULL);
    struct http_client *to = http_client_new(server.port);
    save_one(to);
    ck_assert_int_eq(unlink(server_path(&server, "gpuquote.db-wal")), 0);
    expect_writes_refused(&server, to);
    http_client_free(to);
    server_finish(&server);
}
END_TEST

/* mv gpuquote.db elsewhere: writes are refused; moved back, they resume. */
START_TEST(test_faults_database_renamed_refuses_writes)
{
    struct server server = {0};
    server_start(&server, NULL);
    struct http_client *to = http_client_new(server.port);
    save_one(to);
    char moved[SERVER_PATH_SIZE];
    snprintf(moved, sizeof moved, "%s", server_path(&server, "moved.db"));
    ck_assert_int_eq(rename(server.db_path, moved), 0);
    expect_writes_refused(&server, to);
    ck_assert_int_eq(rename(moved, server.db_path), 0);
    long status = 0;
    for (long waited = 0; waited < suite_wait_ms(3000) && status != 200; waited += 100) {
        struct http_response *ready = http_get(to, "/readyz");
        status = ready->status;
        http_response_free(ready);
        if (status != 200)
            usleep(100 * 1000);
    }
    ck_assert_int_eq(status, 200);
    save_one(to);
    expect_stderr_has(&server, "is back at its path: writes resume");
    http_client_free(to);
    ck_assert_int_eq(count_quotes(&server), 2);
    server_finish(&server);
}
END_TEST

/* A new database, its WAL and its shared memory are the owner's alone,
 * whatever the umask the server was started with; the start says that it
 * created the database. */
START_TEST(test_faults_new_database_files_are_private)
{
    struct server server = {0};
    mode_t old_mask = umask(022);
    server_start(&server, NULL);
    umask(old_mask);
    struct http_client *to = http_client_new(server.port);
    save_one(to);
    http_client_free(to);
    static const char *const files[] = {"gpuquote.db", "gpuquote.db-wal", "gpuquote.db-shm",
                                        "admin.key"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        struct stat info;
        ck_assert_int_eq(stat(server_path(&server, files[i]), &info), 0);
        ck_assert_msg((info.st_mode & 0777) == 0600, "%s has mode %03o", files[i],
                      (unsigned)(info.st_mode & 0777));
    }
    expect_stderr_has(&server, "did not exist: created a new, empty one");
    server_finish(&server);
}
END_TEST

/* ---- a full disk: saves fail, /readyz says so, and both recover ----------- */

/* Fills the file system of `directory` with one file; returns its path. */
static void fill(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ck_assert_int_ge(fd, 0);
    static char block[64 * 1024];
    while (write(fd, block, sizeof block) > 0)
        ;
    ck_assert_int_eq(errno, ENOSPC);
    close(fd);
}

/* Polls the server's error log until `needle` appears `count` times. */
static bool wait_for_log_count(struct server *server, const char *needle, int count)
{
    for (long waited = 0; waited < suite_wait_ms(5); waited += 20) {
        char *log = server_read(server, "stderr.log");
        int found = 0;
        for (const char *at = strstr(log, needle); at != NULL; at = strstr(at + 1, needle))
            found++;
        free(log);
        if (found >= count)
            return true;
        usleep(20 * 1000);
    }
    return false;
}

/* The database on a 4 MB tmpfs, filled up once the server runs: a save
 * fails (500), /readyz answers 503 at once (the cause in the log, not in
 * the answer), so that traffic goes elsewhere; once space is freed, a
 * probe write succeeds and both recover.
 * Needs root and a mountable tmpfs; skipped otherwise. */
START_TEST(test_faults_full_disk_makes_the_server_unready)
{
    struct server server = {0};
    server_prepare(&server);
    char small[SERVER_PATH_SIZE - 16];
    snprintf(small, sizeof small, "%s", server_path(&server, "small"));
    ck_assert_int_eq(mkdir(small, 0700), 0);
    /* In a mount namespace of this test's own (the server it starts shares
     * it): the tmpfs goes away with the test's processes, even if it fails. */
    if (geteuid() != 0 || unshare(CLONE_NEWNS) != 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", small, "tmpfs", 0, "size=4m") != 0) {
        fprintf(stderr,
                "test_faults_full_disk_makes_the_server_unready: skipped, cannot mount "
                "a tmpfs here (%s)\n",
                strerror(errno));
        server_cleanup(&server);
        return;
    }
    snprintf(server.db_path, sizeof server.db_path, "%s/gpuquote.db", small);
    server_start(&server, NULL);
    struct http_client *to = http_client_new(server.port);
    struct http_response *ready = http_get(to, "/readyz");
    expect_status(ready, 200);
    http_response_free(ready);
    /* A quote accepted while there is room, to accept again later. */
    struct http_response *first = http_post_json(to, "/quote", EXAMPLE);
    expect_status(first, 201);
    char accept_path[96];
    snprintf(accept_path, sizeof accept_path, "/quote/%s/accept", json_str(first->json, "id"));
    http_response_free(first);
    struct http_response *accepted = http_request(to, "POST", accept_path, NULL, NULL);
    expect_status(accepted, 200);
    http_response_free(accepted);

    char filler[SERVER_PATH_SIZE + 16];
    snprintf(filler, sizeof filler, "%s/filler", small);
    fill(filler);
    long status = 0;
    for (int i = 0; i < 400 && status != 500; i++) {
        struct http_response *saved = http_post_json(to, "/quote", EXAMPLE);
        status = saved->status;
        http_response_free(saved);
    }
    ck_assert_int_eq(status, 500);
    /* At once, though /readyz answered 200 less than a second ago; it
     * says what to do, and the log has the cause under its request id. */
    ready = http_get(to, "/readyz");
    expect_error(ready, 503, "not_ready", NULL);
    expect_no_detail(&server, ready);
    ck_assert_str_eq(http_header(ready, "retry-after"), "1");
    expect_log_line_with(&server, http_header(ready, "x-request-id"),
                         "the database cannot be written: ");
    expect_log_line_with(&server, http_header(ready, "x-request-id"), "disk is full");
    http_response_free(ready);

    /* A catalog reload reads the database and commits no write: it must
     * not pass for one that reached the disk. (Each wait outlives the
     * outcome /readyz keeps for a second.) */
    server_signal(&server, SIGHUP);
    ck_assert(wait_for_log_count(&server, "catalog loaded: price list version 1", 2));
    usleep(1100 * 1000);
    ready = http_get(to, "/readyz");
    expect_error(ready, 503, "not_ready", NULL);
    http_response_free(ready);
    /* Nor may a write transaction that changes nothing: accepting the
     * accepted quote again is refused and proves nothing. */
    accepted = http_request(to, "POST", accept_path, NULL, NULL);
    expect_error(accepted, 409, "quote_not_open", NULL);
    http_response_free(accepted);
    usleep(1100 * 1000);
    ready = http_get(to, "/readyz");
    expect_error(ready, 503, "not_ready", NULL);
    http_response_free(ready);

    ck_assert_int_eq(unlink(filler), 0);
    usleep(1100 * 1000);
    ready = http_get(to, "/readyz");
    expect_status(ready, 200);
    http_response_free(ready);
    struct http_response *saved = http_post_json(to, "/quote", EXAMPLE);
    expect_status(saved, 201);
    http_response_free(saved);
    http_client_free(to);
    ck_assert_int_eq(server_stop(&server), 0);
    ck_assert_int_eq(umount(small), 0);
    server_cleanup(&server);
}
END_TEST

/* A PostgreSQL database that cannot be reached, named with secrets that
 * the old masking showed (sslpassword, an unknown PASSWORD option) or that
 * libpq's own message showed (a password holding '@'): the server fails to
 * start and its log names none of them. */
static const char *const unreachable_databases[][3] = {
    {"host=127.0.0.1 port=1 user=gq password=PlainPw7 sslpassword=SslSecret1 dbname=gqt",
     "SslSecret1", "PlainPw7"},
    {"postgresql://gq:Multi@Secret9@127.0.0.1:1/gqt", "Secret9", "Multi"},
    {"host=127.0.0.1 port=1 PASSWORD=Upper1Secret", "Upper1Secret", "Upper1Secret"},
};

START_TEST(test_faults_database_secrets_not_logged)
{
    struct server server = {0};
    server_prepare(&server);
    const char *const args[] = {"--db", unreachable_databases[_i][0], NULL};
    struct server_options options = {args, NULL, false};
    ck_assert_int_eq(server_run(&server, &options), 1);
    char *err = server_read(&server, "stderr.log");
    ck_assert_msg(strstr(err, "error") != NULL, "no error logged: %s", err);
    for (int i = 1; i < 3; i++)
        ck_assert_msg(strstr(err, unreachable_databases[_i][i]) == NULL, "the log shows %s: %s",
                      unreachable_databases[_i][i], err);
    free(err);
    server_cleanup(&server);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_faults");

    TCase *start = tcase_create("start");
    suite_set_timeout(start, 20);
    tcase_add_test(start, test_faults_directory_missing);
    tcase_add_test(start, test_faults_file_missing_without_migrations);
    tcase_add_test(start, test_faults_file_read_only);
    tcase_add_test(start, test_faults_directory_read_only);
    tcase_add_test(start, test_faults_file_immutable);
    tcase_add_test(start, test_faults_sigterm_during_migration);
    tcase_add_test(start, test_faults_pending_migration_without_auto_migrate);
    tcase_add_loop_test(start, test_faults_database_secrets_not_logged, 0,
                        sizeof unreachable_databases / sizeof unreachable_databases[0]);
    suite_add_tcase(suite, start);

    TCase *locked = tcase_create("locked");
    suite_set_timeout(locked, 20);
    tcase_add_test(locked, test_faults_locked_while_saving);
    tcase_add_test(locked, test_faults_saves_held_past_the_grace_are_answered);
    tcase_add_test(locked, test_faults_full_disk_makes_the_server_unready);
    tcase_add_test(locked, test_faults_database_deleted_refuses_writes);
    tcase_add_test(locked, test_faults_database_renamed_refuses_writes);
    tcase_add_test(locked, test_faults_wal_deleted_refuses_writes);
    tcase_add_test(locked, test_faults_new_database_files_are_private);
    suite_add_tcase(suite, locked);

    TCase *crash = tcase_create("crash");
    suite_set_timeout(crash, 30);
    tcase_add_test(crash, test_faults_kill_during_saves);
    suite_add_tcase(suite, crash);

    TCase *shutdown = tcase_create("shutdown");
    suite_set_timeout(shutdown, 30);
    tcase_add_test(shutdown, test_faults_sigterm_under_load);
    tcase_add_test(shutdown, test_faults_sigterm_while_saves_wait_for_the_store);
    suite_add_tcase(suite, shutdown);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
