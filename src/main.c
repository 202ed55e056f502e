/*
 * gpuquote: configuration, start-up, signals and shutdown — nothing else.
 *
 * Start-up: load the configuration; bind the port (so that a port in use
 * stops start-up before the database is touched); open (and, when asked,
 * create and migrate) the database; check it takes writes; load the
 * catalog into the first snapshot; start the catalog watch (which reloads
 * it when the database's price-list version changes) and the HTTP server.
 * Then the main thread waits for signals: SIGHUP reloads the catalog (the
 * old snapshot stays in use until the new one is ready, and if loading
 * fails it stays for good), SIGTERM and SIGINT stop accepting connections,
 * let requests in flight finish and exit 0.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/keys.h"
#include "document/quote_pdf.h"
#include "cli/secrets.h"
#include "codec/store_json.h"
#include "core/catalog.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/catalog_watch.h"
#include "http/server.h"
#include "http/snapshot.h"
#include "store/store.h"
#include "util/config.h"
#include "util/fd_limit.h"
#include "util/log.h"
#include "webhooks/sender.h"

extern char **environ;

static int fail(const struct gq_error *err)
{
    log_error("%s", err->message);
    return EXIT_FAILURE;
}

static int open_store(const struct gq_config *config, bool migrate, struct store **store)
{
    struct store_options options = {
        .database = config->database,
        .busy_timeout_ms = config->db_busy_timeout_ms,
        /* A connection for each HTTP thread, the group commit's writer and
         * the webhook sender. */
        .pool_size = config->threads + 2,
        .create = migrate,
        .listen = config->catalog_listen,
    };
    char database[512]; /* for the log: a password masked */
    store_describe_database(config->database, database, sizeof database);
    struct gq_error err;
    if (migrate && store_check_migrations(config->database, config->migrations_dir, &err) != GQ_OK)
        return fail(&err);
    bool missing = store_database_file_missing(config->database);
    store_set_render(&codec_store_render);
    if (store_open(&options, store, &err) != GQ_OK)
        return fail(&err);
    if (missing)
        log_warning("database %s did not exist: created a new, empty one (if one was there "
                    "before, it was deleted or moved: none of its quotes or keys are in this one)",
                    database);
    int applied = 0;
    if (migrate)
        log_info("database %s: migrating from %s/%s", database, config->migrations_dir,
                 store_backend_name(*store));
    if (migrate && store_migrate(*store, config->migrations_dir, &applied, &err) != GQ_OK)
        return fail(&err);
    if (migrate)
        log_info("database %s: %d migration%s applied", database, applied, applied == 1 ? "" : "s");
    int pending = 0;
    char oldest[128];
    /* Not migrating, the directory is only consulted: without it the
     * schema cannot be checked, which is no reason not to serve. */
    if (!migrate && store_pending_migrations(*store, config->migrations_dir, &pending, oldest,
                                             sizeof oldest, &err) != GQ_OK)
        log_warning("cannot check for pending migrations: %s", err.message);
    if (pending > 0) {
        log_error("database %s lacks %d migration%s of %s/%s (the first %s): run 'gpuquote "
                  "migrate', or serve with auto_migrate on",
                  database, pending, pending == 1 ? "" : "s", config->migrations_dir,
                  store_backend_name(*store), oldest);
        return EXIT_FAILURE;
    }
    int unknown = 0;
    char newest[128];
    if (migrate && store_unknown_migrations(*store, config->migrations_dir, &unknown, newest,
                                            sizeof newest, &err) != GQ_OK)
        return fail(&err);
    if (unknown > 0)
        log_warning("database %s: %d migration%s applied by a newer version (the newest %s) "
                    "%s no file in %s/%s; this version may not know the schema it serves from",
                    database, unknown, unknown == 1 ? "" : "s", newest,
                    unknown == 1 ? "has" : "have", config->migrations_dir,
                    store_backend_name(*store));
    return EXIT_SUCCESS;
}

static bool write_port_file(const char *path, uint16_t port)
{
    FILE *file = fopen(path, "w");
    if (file == NULL)
        return false;
    bool written = fprintf(file, "%u\n", (unsigned)port) > 0;
    return fclose(file) == 0 && written;
}

/* Raises the soft open-files limit to the hard one, and lowers
 * connection_limit (and per_ip_connection_limit with it) when the
 * connections would not fit beside the descriptors the server holds
 * otherwise: refusing a connection beats failing one with EMFILE. */
static void fit_open_files(struct gq_config *config)
{
    uint64_t limit = fd_limit_raise();
    unsigned reserved = fd_limit_reserved(config, config->webhooks ? WEBHOOK_SENDER_BATCH : 0);
    unsigned asked = config->connection_limit, asked_per_ip = config->per_ip_connection_limit;
    if (!fd_limit_fit(config, limit, reserved))
        return;
    char per_ip[96] = "";
    if (config->per_ip_connection_limit != asked_per_ip)
        snprintf(per_ip, sizeof per_ip, ", per_ip_connection_limit from %u to %u", asked_per_ip,
                 config->per_ip_connection_limit);
    log_warning("open files: the limit of %llu descriptors, less the %u the server needs besides "
                "connections, leaves %u: connection_limit lowered from %u to %u%s (raise the "
                "hard limit, ulimit -Hn or systemd's LimitNOFILE, to serve more)",
                (unsigned long long)limit, reserved, config->connection_limit, asked,
                config->connection_limit, per_ip);
}

/* Blocks until SIGTERM or SIGINT, reloading the catalog on SIGHUP. */
static void wait_for_shutdown(struct app *app, const sigset_t *signals)
{
    for (;;) {
        int signal_number;
        if (sigwait(signals, &signal_number) != 0)
            continue;
        if (signal_number == SIGHUP) {
            snapshot_reload(app);
            continue;
        }
        log_info("signal %d: finishing requests in flight", signal_number);
        return;
    }
}

/* The threads serve() starts, in the order it starts them; each that did
 * not start is NULL, and is stopped (in the reverse order) as a no-op. */
struct serving {
    struct catalog_watch *watch;
    struct webhook_sender *sender;
    struct quote_sweeper *sweeper;
    struct http_server *server;
};

/* Starts the access log's writer, the catalog watch, the webhook sender
 * (when enabled) and the quote sweeper. False, with the failure logged,
 * when one cannot start; those already started are in `serving`. */
static bool start_background(struct app *app, struct serving *serving)
{
    const struct gq_config *config = app->config;
    if (log_start(STDOUT_FILENO, config->access_log) != 0) {
        log_error("cannot start the access log");
        return false;
    }
    if ((serving->watch = catalog_watch_start(app)) == NULL) {
        log_error("cannot start the catalog watch thread");
        return false;
    }
    if (config->webhooks && (serving->sender = webhook_sender_start(config, app->store)) == NULL) {
        log_error("cannot start the webhook sender");
        return false;
    }
    if ((serving->sweeper = quote_sweeper_start(app->store, config)) == NULL) {
        log_error("cannot start the quote sweeper");
        return false;
    }
    return true;
}

/* Stops what start_background() and http_server_start() started, the
 * last started first: the server lets requests in flight finish before
 * the threads they hand work to go. */
static void stop_serving(struct serving *serving, int grace_ms)
{
    http_server_stop(serving->server, grace_ms);
    quote_sweeper_stop(serving->sweeper);
    webhook_sender_stop(serving->sender);
    catalog_watch_stop(serving->watch);
    log_stop();
}

/* Starts the server on `listener` (which it owns from here) and announces
 * it. False, with the failure logged, when it cannot serve. */
static bool start_server(struct app *app, int listener, struct serving *serving)
{
    const struct gq_config *config = app->config;
    struct gq_error err;
    if ((serving->server = http_server_start(app, listener, &err)) == NULL) {
        fail(&err);
        return false;
    }
    uint16_t port = http_server_port(serving->server);
    /* Whoever asked for the port file waits for it: serving on a port it
     * never learns would leave it waiting for good. */
    if (config->port_file != NULL && !write_port_file(config->port_file, port)) {
        log_error("cannot write the port to %s: %s", config->port_file, strerror(errno));
        return false;
    }
    log_info("listening on %s port %u: the storefront page is http://%s%s%s:%u/", config->listen,
             (unsigned)port, strchr(config->listen, ':') ? "[" : "", config->listen,
             strchr(config->listen, ':') ? "]" : "", (unsigned)port);
    return true;
}

/* Serves on `listener` (which it closes) until SIGTERM or SIGINT. */
static int serve(struct app *app, int listener, const sigset_t *signals)
{
    struct gq_error err;
    if (store_check_writable(app->store, &err) != GQ_OK) {
        close(listener);
        return fail(&err);
    }
    if (!snapshot_reload(app) || !cli_keys_bootstrap(app->config, app->store) || !auth_start(app)) {
        close(listener);
        return EXIT_FAILURE;
    }
    struct serving serving = {0};
    bool started = start_background(app, &serving);
    if (!started)
        close(listener);
    else
        started = start_server(app, listener, &serving);
    if (started)
        wait_for_shutdown(app, signals);
    stop_serving(&serving, (int)app->config->shutdown_grace_seconds * 1000);
    if (!started)
        return EXIT_FAILURE;
    log_info("stopped");
    return EXIT_SUCCESS;
}

/* Signals are handled by the main thread alone, synchronously: block them
 * before any thread starts so every thread inherits the mask. */
static void block_signals(sigset_t *signals)
{
    sigemptyset(signals);
    sigaddset(signals, SIGTERM);
    sigaddset(signals, SIGINT);
    sigaddset(signals, SIGHUP);
    pthread_sigmask(SIG_BLOCK, signals, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* The SIGTERM or SIGINT that came while the database was opened and
 * migrated, or 0. Signals are blocked from the start (so that every thread
 * inherits the mask) and only waited for once serving; one that came during
 * a long migration is taken here, once the migrations, each a transaction,
 * are done: the process then stops instead of serving. */
static int stop_requested_at_start(void)
{
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    struct timespec no_wait = {0, 0};
    int signal_number = sigtimedwait(&stop, NULL, &no_wait);
    return signal_number > 0 ? signal_number : 0;
}

int main(int argc, char **argv)
{
    struct gq_config config;
    enum config_command command;
    struct gq_error err;
    umask(077); /* the database, its -wal and -shm, the key file: the owner's alone */
    if (config_load(&config, &command, argc, argv, environ, &err) != GQ_OK) {
        fprintf(stderr, "gpuquote: error: %s\n", err.message);
        config_free(&config);
        return 2;
    }
    if (command == CONFIG_COMMAND_HELP || command == CONFIG_COMMAND_VERSION) {
        if (command == CONFIG_COMMAND_HELP)
            config_print_usage(stdout);
        else
            printf("gpuquote %s\n", GQ_VERSION);
        config_free(&config);
        return EXIT_SUCCESS;
    }
    int keys_status = command == CONFIG_COMMAND_KEYS ? cli_keys_check(&config) : -1;
    if (keys_status >= 0) { /* usage, or a wrong command line: no database needed */
        config_free(&config);
        return keys_status;
    }
    size_t position = 0;
    const char *unknown;
    while ((unknown = config_next_unknown_variable(environ, &position)) != NULL)
        log_warning("environment variable %.*s is not a configuration key: ignored",
                    (int)strcspn(unknown, "="), unknown);
    sigset_t signals;
    block_signals(&signals);
    int listener = -1;
    if (command == CONFIG_COMMAND_SERVE && (listener = http_listener_bind(&config, &err)) < 0) {
        config_free(&config);
        return fail(&err);
    }
    struct app app = {.config = &config};
    pthread_mutex_init(&app.snapshot_lock, NULL);
    pthread_mutex_init(&app.reload_lock, NULL);
    pthread_mutex_init(&app.keyring_lock, NULL);
    pthread_mutex_init(&app.keys_reload_lock, NULL);
    bool migrate = command == CONFIG_COMMAND_MIGRATE || config.auto_migrate;
    int status = open_store(&config, migrate, &app.store);
    struct secret_keyring secrets;
    secret_keyring_clear(&secrets);
    if (status == EXIT_SUCCESS && command != CONFIG_COMMAND_KEYS &&
        !cli_secrets_prepare(&config, app.store, &secrets))
        status = EXIT_FAILURE;
    int stop_signal = stop_requested_at_start();
    if (stop_signal != 0)
        log_info("signal %d during start-up: stopping%s", stop_signal,
                 command == CONFIG_COMMAND_SERVE ? " before serving" : "");
    if (stop_signal == 0 && status == EXIT_SUCCESS && command == CONFIG_COMMAND_SERVE) {
        fit_open_files(&config); /* once start-up has nothing left to refuse */
        status = serve(&app, listener, &signals);
    } else if (listener >= 0)
        close(listener);
    if (stop_signal == 0 && status == EXIT_SUCCESS && command == CONFIG_COMMAND_KEYS)
        status = cli_keys(&config, app.store);
    auth_stop(&app);
    snapshot_publish(&app, NULL);
    store_close(app.store);
    document_quote_pdf_shutdown();
    pthread_mutex_destroy(&app.snapshot_lock);
    pthread_mutex_destroy(&app.reload_lock);
    pthread_mutex_destroy(&app.keyring_lock);
    pthread_mutex_destroy(&app.keys_reload_lock);
    secret_keyring_clear(&secrets);
    config_free(&config);
    return status;
}
