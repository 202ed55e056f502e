/*
 * The server under test: the real gpuquote binary ($GPUQUOTE_BIN, prefixed
 * by the words of $GPUQUOTE_WRAPPER such as "valgrind --quiet ..."),
 * started in a fresh temporary directory (under suite_temp_root()) that
 * holds its database (on PostgreSQL runs, a database of its own on the
 * test server instead: testdb.h), its port file and its captured standard
 * output (the access log) and standard error, on an ephemeral port with
 * the migrations of $GPUQUOTE_SOURCE_DIR.
 *
 * The server runs in its temporary directory (so no config/gpuquote.json is
 * picked up by accident) with every GPUQUOTE_* variable of the test's own
 * environment removed; a test adds arguments and variables explicitly. It
 * dies with the test process (PR_SET_PDEATHSIG), so a test that times out
 * leaves no server behind. Signals go to the process started, so a wrapper
 * must run the server in that same process, as valgrind does; it leads a
 * process group of its own, which SIGKILL takes whole.
 *
 * Failures to start are Check assertion failures that quote the server's
 * standard error.
 */
#ifndef GQ_TESTS_SUPPORT_SERVER_H
#define GQ_TESTS_SUPPORT_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SERVER_DIR_SIZE 256
#define SERVER_PATH_SIZE 512

struct server {
    pid_t pid; /* 0 when not running */
    uint16_t port;
    char dir[SERVER_DIR_SIZE];      /* the temporary directory; "" before server_prepare() */
    char db_path[SERVER_PATH_SIZE]; /* a file, or on PostgreSQL the database's URL (testdb.h) */
    char db_name[64];               /* PostgreSQL: the database made for this server */
    /* The key with every scope the server made at its first start
     * (bootstrap_key_file), "" when it made none; clients of the server's
     * port send it unless made keyless (http.h). */
    char admin_key[64];
    char port_file[SERVER_PATH_SIZE];
    char stdout_path[SERVER_PATH_SIZE];
    char stderr_path[SERVER_PATH_SIZE];
    unsigned run_as; /* set before starting: non-zero runs the server as this user and group
                        id, so that file modes hold for it as root (the test must be root,
                        and the directory reachable by that user) */
    /* Set before starting: non-zero starts the server with these soft and
     * hard RLIMIT_NOFILE (the hard one may only go down). */
    unsigned open_files_soft, open_files_hard;
};

struct server_options {
    const char *const *args; /* extra arguments, NULL-terminated; may be NULL */
    const char *const *env;  /* extra "NAME=value", NULL-terminated; may be NULL */
    bool bare;               /* only `args`: no --db, --port, --port-file, --migrations */
};

/* Creates the temporary directory (once): for a test that writes a file,
 * such as a configuration, before starting the server. */
void server_prepare(struct server *server);

/* A path inside the server's directory, in a buffer of SERVER_PATH_SIZE
 * rotated over a few calls. */
const char *server_path(struct server *server, const char *name);

/* Starts the server and waits (10 s, × 10 when GPUQUOTE_SLOW) until it has
 * written its port and answers GET /healthz with 200. `options` may be NULL.
 * Fails the test when it exits or does not become ready in time. */
void server_start(struct server *server, const struct server_options *options);

/* Waits, as server_start() does, until a server launched with
 * server_launch() answers: several started at once. */
void server_wait_ready(struct server *server);

/* Starts the binary and returns at once, for a test that acts while it
 * starts; server_wait() or server_stop() reaps it. */
void server_launch(struct server *server, const struct server_options *options);

/* Runs the binary to completion (for --help, --version and refusals to
 * start) and returns its exit status as server_stop() does. Output lands
 * in the directory's stdout.log and stderr.log. */
int server_run(struct server *server, const struct server_options *options);

/* Sends `signal_number` to the running server. */
void server_signal(struct server *server, int signal_number);

/* Sends SIGTERM and waits for the exit. Returns the exit status, 128 + the
 * signal when killed by one, or -1 when it did not exit in time (it is then
 * killed with SIGKILL). 0 when not running. */
int server_stop(struct server *server);

/* SIGKILL and reap; returns what server_stop() would. */
int server_kill(struct server *server);

/* Waits for the running server to exit by itself, as server_stop() does
 * after its signal. */
int server_wait(struct server *server, long timeout_ms);

/* Removes the temporary directory and everything in it. Stops nothing: call
 * it after the server has exited. Safe to call twice. */
void server_cleanup(struct server *server);

/* server_stop, server_cleanup, then asserts the exit status was 0 (the
 * message quotes standard error). For checked teardowns and tests. */
void server_finish(struct server *server);

/* The same for a server shared by a test case (unchecked fixture): a
 * non-zero exit is recorded with suite_record_failure(). */
void server_finish_shared(struct server *server);

/* The whole of a file of the server's directory ("stdout.log",
 * "stderr.log"), NUL-terminated; the caller frees it. "" when missing. */
char *server_read(struct server *server, const char *name);

/* Polls a file of the server's directory until it contains `needle`, for
 * up to `timeout_ms`. Returns whether it did. */
bool server_wait_for_text(struct server *server, const char *name, const char *needle,
                          long timeout_ms);

/* Runs `sql` on the server's database through a connection of its own
 * (busy timeout 5 s), with `param` (may be NULL) bound to ?1, on SQLite or
 * PostgreSQL as the run is for (testdb.h): write it for both. Fails the
 * test on any error. Returns the number of rows changed. */
int server_db_exec(struct server *server, const char *sql, const char *param);

/* The first column of the first row of `sql` as an integer; fails the
 * test when there is no row. */
long long server_db_integer(struct server *server, const char *sql, const char *param);

/* The first column of the first row of `sql` as text (NULL reads as ""),
 * for the caller to free; fails the test when there is no row. */
char *server_db_text(struct server *server, const char *sql, const char *param);

#endif
