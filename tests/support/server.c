/*
 * Starting, watching and stopping the real gpuquote binary for one test
 * (or one test case), in a temporary directory of its own.
 *
 * The command line is built in the test process and the child only
 * redirects, changes directory and execs, so nothing unsafe runs between
 * fork() and exec(). Readiness is the port file (a whole line, so a half
 * written file is not read as a port) followed by a 200 from /healthz over
 * a raw socket, which keeps readiness polls out of the contract log.
 */
#include "support/server.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/raw.h"
#include "support/suite.h"

extern char **environ;

#define MAX_ARGS 96
#define MAX_ENV 2048
#define START_SECONDS 10.0
/* The server's own grace period for requests in flight is 10 s. */
#define STOP_SECONDS 15.0
#define POLL_MS 10

/* ---- the temporary directory ----------------------------------------- */

void server_prepare(struct server *server)
{
    if (server->dir[0] != '\0')
        return;
    snprintf(server->dir, sizeof server->dir, "%s/server-XXXXXX", suite_temp_root());
    ck_assert_msg(mkdtemp(server->dir) != NULL, "mkdtemp %s: %s", server->dir, strerror(errno));
    snprintf(server->db_path, sizeof server->db_path, "%s/gpuquote.db", server->dir);
    snprintf(server->port_file, sizeof server->port_file, "%s/port", server->dir);
    snprintf(server->stdout_path, sizeof server->stdout_path, "%s/stdout.log", server->dir);
    snprintf(server->stderr_path, sizeof server->stderr_path, "%s/stderr.log", server->dir);
}

const char *server_path(struct server *server, const char *name)
{
    static char paths[4][SERVER_PATH_SIZE];
    static unsigned next;
    char *path = paths[next++ % 4];
    int length = snprintf(path, SERVER_PATH_SIZE, "%s/%s", server->dir, name);
    ck_assert_msg(length > 0 && length < SERVER_PATH_SIZE, "path too long: %s", name);
    return path;
}

void server_cleanup(struct server *server)
{
    if (server->dir[0] == '\0')
        return;
    suite_remove_tree(server->dir);
    server->dir[0] = '\0';
}

char *server_read(struct server *server, const char *name)
{
    FILE *file = fopen(server_path(server, name), "r");
    size_t length = 0, capacity = 4096;
    char *text = malloc(capacity);
    ck_assert_ptr_nonnull(text);
    if (file != NULL) {
        size_t got;
        while ((got = fread(text + length, 1, capacity - length - 1, file)) > 0) {
            length += got;
            if (capacity - length - 1 == 0) {
                capacity *= 2;
                text = realloc(text, capacity);
                ck_assert_ptr_nonnull(text);
            }
        }
        fclose(file);
    }
    text[length] = '\0';
    return text;
}

bool server_wait_for_text(struct server *server, const char *name, const char *needle,
                          long timeout_ms)
{
    long long deadline = suite_now_ms() + timeout_ms;
    for (;;) {
        char *text = server_read(server, name);
        bool found = strstr(text, needle) != NULL;
        free(text);
        if (found)
            return true;
        if (suite_now_ms() > deadline)
            return false;
        suite_sleep_ms(POLL_MS);
    }
}

/* The last `keep` bytes of standard error, for failure messages. */
static const char *stderr_tail(struct server *server)
{
    static char tail[1024];
    char *text = server_read(server, "stderr.log");
    size_t length = strlen(text);
    size_t keep = sizeof tail - 1;
    snprintf(tail, sizeof tail, "%s", length > keep ? text + length - keep : text);
    free(text);
    return tail;
}

/* ---- the command line and the environment ---------------------------- */

struct command {
    char *argv[MAX_ARGS];
    int argc;
    char *envp[MAX_ENV];
    int envc;
    char *wrapper;   /* a copy of GPUQUOTE_WRAPPER that argv points into */
    unsigned run_as; /* user and group id to take before exec, 0: keep */
};

static void add_arg(struct command *command, const char *arg)
{
    ck_assert_msg(command->argc < MAX_ARGS - 1, "too many arguments");
    command->argv[command->argc++] = (char *)arg;
    command->argv[command->argc] = NULL;
}

static void add_env(struct command *command, const char *entry)
{
    ck_assert_msg(command->envc < MAX_ENV - 1, "too many environment variables");
    command->envp[command->envc++] = (char *)entry;
    command->envp[command->envc] = NULL;
}

static const char *required_env(const char *name)
{
    const char *value = getenv(name);
    ck_assert_msg(value != NULL && value[0] != '\0',
                  "%s is not set (run through `make check`, or set GPUQUOTE_BIN and "
                  "GPUQUOTE_SOURCE_DIR)",
                  name);
    return value;
}

/* Copies `from` to `to` with `mode`; fails the test on any error. */
static void copy_file(const char *from, const char *to, mode_t mode)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    ck_assert_msg(in >= 0, "%s: %s", from, strerror(errno));
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    ck_assert_msg(out >= 0, "%s: %s", to, strerror(errno));
    char buffer[65536];
    ssize_t got;
    while ((got = read(in, buffer, sizeof buffer)) > 0)
        ck_assert_msg(write(out, buffer, (size_t)got) == got, "%s: %s", to, strerror(errno));
    ck_assert_msg(got == 0, "%s: %s", from, strerror(errno));
    close(in);
    ck_assert_int_eq(fchmod(out, mode), 0);
    ck_assert_int_eq(close(out), 0);
}

/* A server run as another user may not reach the checkout (a fresh clone
 * in a 0700 directory): it runs a copy of the binary and of the
 * migrations placed in its own directory, which the test makes reachable. */
static void copy_into_server_dir(struct server *server, const char *binary, char *binary_copy,
                                 const char *migrations, char *migrations_copy)
{
    snprintf(binary_copy, SERVER_PATH_SIZE, "%s", server_path(server, "gpuquote"));
    copy_file(binary, binary_copy, 0755);
    snprintf(migrations_copy, SERVER_PATH_SIZE, "%s", server_path(server, "migrations"));
    ck_assert(mkdir(migrations_copy, 0755) == 0 || errno == EEXIST);
    DIR *directory = opendir(migrations);
    ck_assert_msg(directory != NULL, "%s: %s", migrations, strerror(errno));
    for (struct dirent *entry; (entry = readdir(directory)) != NULL;) {
        if (entry->d_name[0] == '.')
            continue;
        char from[PATH_MAX], to[PATH_MAX];
        snprintf(from, sizeof from, "%s/%s", migrations, entry->d_name);
        snprintf(to, sizeof to, "%s/%s", migrations_copy, entry->d_name);
        copy_file(from, to, 0644);
    }
    closedir(directory);
}

/* The wrapper's words (split on spaces), then the binary and its arguments. */
static void build_command(struct server *server, const struct server_options *options,
                          struct command *command)
{
    static char migrations[SERVER_PATH_SIZE];
    memset(command, 0, sizeof *command);
    const char *wrapper = getenv("GPUQUOTE_WRAPPER");
    if (wrapper != NULL && wrapper[0] != '\0') {
        command->wrapper = strdup(wrapper);
        ck_assert_ptr_nonnull(command->wrapper);
        char *save = NULL;
        for (char *word = strtok_r(command->wrapper, " ", &save); word != NULL;
             word = strtok_r(NULL, " ", &save))
            add_arg(command, word);
    }
    /* Absolute paths: the server runs in its own directory. */
    static char binary[PATH_MAX], source[PATH_MAX];
    const char *named = required_env("GPUQUOTE_BIN");
    ck_assert_msg(strchr(named, '/') == NULL || realpath(named, binary) != NULL, "%s: %s", named,
                  strerror(errno));
    static char binary_copy[SERVER_PATH_SIZE], migrations_copy[SERVER_PATH_SIZE];
    named = strchr(named, '/') == NULL ? named : binary;
    const char *source_dir = required_env("GPUQUOTE_SOURCE_DIR");
    ck_assert_msg(realpath(source_dir, source) != NULL, "%s: %s", source_dir, strerror(errno));
    snprintf(migrations, sizeof migrations, "%.*s/migrations",
             (int)(sizeof migrations - sizeof "/migrations"), source);
    const char *migrations_used = migrations;
    if (server->run_as != 0) {
        copy_into_server_dir(server, named, binary_copy, migrations, migrations_copy);
        named = binary_copy;
        migrations_used = migrations_copy;
    }
    add_arg(command, named);
    bool bare = options != NULL && options->bare;
    if (!bare) {
        const char *defaults[] = {"--db",        server->db_path,   "--port",       "0",
                                  "--port-file", server->port_file, "--migrations",
                                  migrations_used};
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
            add_arg(command, defaults[i]);
    }
    for (size_t i = 0; options != NULL && options->args != NULL && options->args[i]; i++)
        add_arg(command, options->args[i]);
    /* The test's environment without GPUQUOTE_*, then the test's own. */
    for (char **entry = environ; *entry != NULL; entry++)
        if (strncmp(*entry, "GPUQUOTE_", 9) != 0)
            add_env(command, *entry);
    for (size_t i = 0; options != NULL && options->env != NULL && options->env[i]; i++)
        add_env(command, options->env[i]);
    command->run_as = server->run_as;
}

/* In the child: nothing but system calls until exec. */
static void exec_child(struct server *server, struct command *command)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    int in = open("/dev/null", O_RDONLY);
    int out = open(server->stdout_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    int err = open(server->stderr_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
        chdir(server->dir) != 0)
        _exit(126);
    if (command->run_as != 0 &&
        (setgroups(0, NULL) != 0 || setgid(command->run_as) != 0 || setuid(command->run_as) != 0))
        _exit(126);
    execvpe(command->argv[0], command->argv, command->envp);
    _exit(127);
}

static void spawn(struct server *server, const struct server_options *options)
{
    ck_assert_msg(server->pid == 0, "the server is already running");
    server_prepare(server);
    unlink(server->port_file);
    struct command command;
    build_command(server, options, &command);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0)
        exec_child(server, &command);
    setpgid(pid, pid); /* as the child does: whichever runs first */
    free(command.wrapper);
    server->pid = pid;
    server->port = 0;
}

/* ---- waiting ------------------------------------------------------------ */

static int decode_status(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

/* True once the child has exited, with its status in *status. */
static bool reap(struct server *server, int *status)
{
    int raw;
    pid_t done = waitpid(server->pid, &raw, WNOHANG);
    if (done != server->pid)
        return false;
    server->pid = 0;
    *status = decode_status(raw);
    return true;
}

int server_wait(struct server *server, long timeout_ms)
{
    if (server->pid == 0)
        return 0;
    long long deadline = suite_now_ms() + timeout_ms;
    int status;
    while (!reap(server, &status)) {
        if (suite_now_ms() > deadline) {
            kill(-server->pid, SIGKILL); /* its group: a wrapper's children too */
            waitpid(server->pid, NULL, 0);
            server->pid = 0;
            return -1;
        }
        suite_sleep_ms(POLL_MS);
    }
    return status;
}

/* The port from a complete port file, or 0. */
static uint16_t read_port(const struct server *server)
{
    FILE *file = fopen(server->port_file, "r");
    if (file == NULL)
        return 0;
    char line[32] = "";
    bool complete = fgets(line, sizeof line, file) != NULL && strchr(line, '\n') != NULL;
    fclose(file);
    char *end;
    long port = complete ? strtol(line, &end, 10) : 0;
    return port > 0 && port <= 65535 && *end == '\n' ? (uint16_t)port : 0;
}

static bool answers_healthz(uint16_t port)
{
    char *response = raw_exchange(port,
                                  "GET /healthz HTTP/1.1\r\nHost: test\r\n"
                                  "Connection: close\r\n\r\n",
                                  1000);
    bool ok = response != NULL && raw_status(response) == 200;
    free(response);
    return ok;
}

void server_start(struct server *server, const struct server_options *options)
{
    spawn(server, options);
    long long deadline = suite_now_ms() + suite_wait_ms(START_SECONDS);
    int status;
    for (;;) {
        if (reap(server, &status))
            ck_abort_msg("the server exited with status %d while starting: %s", status,
                         stderr_tail(server));
        if (server->port == 0)
            server->port = read_port(server);
        if (server->port != 0 && answers_healthz(server->port))
            return;
        if (suite_now_ms() > deadline) {
            server_kill(server);
            ck_abort_msg("the server was not ready within %ld ms (port %u): %s",
                         suite_wait_ms(START_SECONDS), (unsigned)server->port, stderr_tail(server));
        }
        suite_sleep_ms(POLL_MS);
    }
}

void server_launch(struct server *server, const struct server_options *options)
{
    spawn(server, options);
}

int server_run(struct server *server, const struct server_options *options)
{
    spawn(server, options);
    return server_wait(server, suite_wait_ms(START_SECONDS));
}

void server_signal(struct server *server, int signal_number)
{
    ck_assert_msg(server->pid != 0, "the server is not running");
    ck_assert_int_eq(kill(server->pid, signal_number), 0);
}

int server_stop(struct server *server)
{
    if (server->pid == 0)
        return 0;
    kill(server->pid, SIGTERM);
    return server_wait(server, suite_wait_ms(STOP_SECONDS));
}

int server_kill(struct server *server)
{
    if (server->pid == 0)
        return 0;
    kill(-server->pid, SIGKILL);
    return server_wait(server, suite_wait_ms(STOP_SECONDS));
}

void server_finish(struct server *server)
{
    int status = server_stop(server);
    const char *tail = status != 0 ? stderr_tail(server) : "";
    char message[1100];
    snprintf(message, sizeof message, "%s", tail);
    server_cleanup(server);
    ck_assert_msg(status == 0, "the server exited with status %d: %s", status, message);
}

void server_finish_shared(struct server *server)
{
    int status = server_stop(server);
    if (status != 0)
        suite_record_failure("the shared server exited with status %d: %s", status,
                             stderr_tail(server));
    server_cleanup(server);
}

/* ---- the database --------------------------------------------------------- */

static sqlite3_stmt *prepare(struct server *server, sqlite3 **db, const char *sql,
                             const char *param)
{
    ck_assert_int_eq(sqlite3_open_v2(server->db_path, db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(*db, 5000);
    sqlite3_stmt *statement = NULL;
    int rc = sqlite3_prepare_v2(*db, sql, -1, &statement, NULL);
    ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(*db));
    if (param != NULL)
        ck_assert_int_eq(sqlite3_bind_text(statement, 1, param, -1, SQLITE_TRANSIENT), SQLITE_OK);
    return statement;
}

int server_db_exec(struct server *server, const char *sql, const char *param)
{
    sqlite3 *db;
    sqlite3_stmt *statement = prepare(server, &db, sql, param);
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

long long server_db_integer(struct server *server, const char *sql, const char *param)
{
    sqlite3 *db;
    sqlite3_stmt *statement = prepare(server, &db, sql, param);
    int rc = sqlite3_step(statement);
    long long value = rc == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    sqlite3_finalize(statement);
    sqlite3_close(db);
    ck_assert_msg(rc == SQLITE_ROW, "%s: no row", sql);
    return value;
}

char *server_db_text(struct server *server, const char *sql, const char *param)
{
    sqlite3 *db;
    sqlite3_stmt *statement = prepare(server, &db, sql, param);
    int rc = sqlite3_step(statement);
    const unsigned char *value = rc == SQLITE_ROW ? sqlite3_column_text(statement, 0) : NULL;
    char *text = strdup(value != NULL ? (const char *)value : "");
    sqlite3_finalize(statement);
    sqlite3_close(db);
    ck_assert_msg(rc == SQLITE_ROW, "%s: no row", sql);
    ck_assert_ptr_nonnull(text);
    return text;
}
