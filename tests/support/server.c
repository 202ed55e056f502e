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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/http.h"
#include "support/raw.h"
#include "support/suite.h"
#include "support/testdb.h"

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
    if (testdb_is_postgres())
        testdb_create(server->db_name, server->db_path);
    else
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
    testdb_drop(server->db_name);
    server->db_name[0] = '\0';
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

#define TAIL_LINES 40

/* The last TAIL_LINES lines of standard error (their last 4 KB), for
 * failure messages. */
static const char *stderr_tail(struct server *server)
{
    static char tail[4096];
    char *text = suite_file_tail(server->stderr_path, TAIL_LINES);
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
    char *wrapper;            /* a copy of GPUQUOTE_WRAPPER that argv points into */
    unsigned run_as;          /* user and group id to take before exec, 0: keep */
    struct rlimit open_files; /* set before exec when its hard limit is non-zero */
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

/* A server run as another user may not reach the checkout (a fresh clone
 * in a 0700 directory): it runs a copy of the binary and of the
 * migrations placed in its own directory, which the test makes reachable. */
static void copy_into_server_dir(struct server *server, const char *binary, char *binary_copy,
                                 const char *migrations, char *migrations_copy)
{
    snprintf(binary_copy, SERVER_PATH_SIZE, "%s", server_path(server, "gpuquote"));
    suite_copy_file(binary, binary_copy, 0755);
    snprintf(migrations_copy, SERVER_PATH_SIZE, "%s", server_path(server, "migrations"));
    suite_copy_tree(migrations, migrations_copy, 0755, 0644);
}

/* True when the test's own environment sets the variable of `entry`
 * ("NAME=value"). */
static bool env_names(const struct server_options *options, const char *entry)
{
    size_t length = strcspn(entry, "=") + 1;
    for (size_t i = 0; options != NULL && options->env != NULL && options->env[i]; i++)
        if (strncmp(options->env[i], entry, length) == 0)
            return true;
    return false;
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
        const char *defaults[] = {
            "--db",        server->db_path,   "--port",       "0",
            "--port-file", server->port_file, "--migrations", migrations_used};
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
    /* What every test server has unless the test says otherwise: a key
     * with every scope made at first start (the tests' admin_key), and no
     * rate limits (tests send hundreds of requests a second from one
     * address; check_keys tests the limits). */
    static char bootstrap[SERVER_PATH_SIZE + 40];
    snprintf(bootstrap, sizeof bootstrap, "GPUQUOTE_BOOTSTRAP_KEY_FILE=%s",
             server_path(server, "admin.key"));
    const char *defaults[] = {bootstrap, "GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND=0",
                              "GPUQUOTE_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE=0",
                              "GPUQUOTE_RATE_LIMIT_KEY_PER_SECOND=0"};
    for (size_t d = 0; d < sizeof defaults / sizeof defaults[0]; d++)
        if (!env_names(options, defaults[d]))
            add_env(command, defaults[d]);
    command->run_as = server->run_as;
    command->open_files = (struct rlimit){server->open_files_soft, server->open_files_hard};
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
    if (command->open_files.rlim_max != 0 && setrlimit(RLIMIT_NOFILE, &command->open_files) != 0)
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
    server_wait_ready(server);
}

/* The key the server wrote at its first start, if it did: every client of
 * its port then sends it (http_register_key). */
static void read_admin_key(struct server *server)
{
    char *text = server_read(server, "admin.key");
    text[strcspn(text, "\n")] = '\0';
    snprintf(server->admin_key, sizeof server->admin_key, "%s", text);
    free(text);
    if (server->admin_key[0] != '\0')
        http_register_key(server->port, server->admin_key);
}

void server_wait_ready(struct server *server)
{
    long long deadline = suite_now_ms() + suite_wait_ms(START_SECONDS);
    int status;
    for (;;) {
        if (reap(server, &status))
            ck_abort_msg("the server exited with status %d while starting: %s", status,
                         stderr_tail(server));
        if (server->port == 0)
            server->port = read_port(server);
        if (server->port != 0 && answers_healthz(server->port)) {
            read_admin_key(server);
            return;
        }
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
    char message[4200];
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

int server_db_exec(struct server *server, const char *sql, const char *param)
{
    return testdb_exec(server->db_path, sql, param);
}

long long server_db_integer(struct server *server, const char *sql, const char *param)
{
    return testdb_integer(server->db_path, sql, param);
}

char *server_db_text(struct server *server, const char *sql, const char *param)
{
    return testdb_text(server->db_path, sql, param);
}
