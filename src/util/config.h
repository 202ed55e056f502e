/*
 * Configuration: built-in defaults, overridden by config/gpuquote.json (or
 * the file named by --config / GPUQUOTE_CONFIG), overridden by GPUQUOTE_*
 * environment variables, overridden by command-line flags.
 *
 * Every key of the JSON file has one environment variable, GPUQUOTE_ and the
 * key in upper case (GPUQUOTE_PORT, GPUQUOTE_CORS_ORIGINS as a comma list).
 * A bad value anywhere is reported as one line naming the key and the
 * problem; main() prints it and exits 2.
 */
#ifndef GQ_UTIL_CONFIG_H
#define GQ_UTIL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "core/error.h"

#define CONFIG_DEFAULT_PATH "config/gpuquote.json"
#define CONFIG_MAX_CORS_ORIGINS 16

enum config_command {
    CONFIG_COMMAND_SERVE,   /* default: migrate (when auto_migrate) and serve */
    CONFIG_COMMAND_MIGRATE, /* `gpuquote migrate`: apply migrations, exit */
    CONFIG_COMMAND_KEYS,    /* `gpuquote keys ...`: manage API keys, exit */
    CONFIG_COMMAND_HELP,    /* --help */
    CONFIG_COMMAND_VERSION  /* --version */
};

struct secret_keyring;

struct gq_config {
    char *listen;         /* address to bind, "127.0.0.1" */
    uint16_t port;        /* 0 = an ephemeral port (tests) */
    char *database;       /* "data/gpuquote.db", or a libpq connection string */
    char *migrations_dir; /* "migrations" */
    bool auto_migrate;    /* serve applies pending migrations first */
    unsigned threads;     /* libmicrohttpd thread pool size, 1..64 */
    unsigned connection_limit;
    unsigned per_ip_connection_limit;      /* 0 = no per-IP limit */
    bool per_ip_connection_limit_is_share; /* unset: connection_limit / CONFIG_PER_IP_SHARE */
    unsigned connection_timeout_seconds;   /* idle keep-alive timeout */
    unsigned request_timeout_seconds;      /* whole-body deadline */
    unsigned response_timeout_seconds;     /* the client takes an answer within this */
    unsigned shutdown_grace_seconds;       /* SIGTERM waits this long for requests */
    size_t body_limit_bytes;
    int64_t quote_expiry_seconds;
    int quote_sweep_interval_ms;        /* the sweeper's period */
    int64_t idempotency_ttl_seconds;    /* a key replays its quote this long */
    int quote_retention_days;           /* ended quotes kept this long; 0: for good */
    int accepted_quote_retention_days;  /* accepted ones; 0: for good */
    int event_retention_days;           /* events and their deliveries kept this long */
    int anonymous_quote_retention_days; /* keyless callers' quotes, after they ended */
    int db_busy_timeout_ms;
    bool access_log;
    char *cors_origins[CONFIG_MAX_CORS_ORIGINS]; /* "*" allows any */
    size_t n_cors_origins;
    char *port_file;     /* when set, the bound port is written here (tests) */
    int catalog_poll_ms; /* the poller checks the price-list version this often */
    bool catalog_listen; /* PostgreSQL: a NOTIFY wakes the poller at once */
    char *web_dir;       /* when set, GET / and /static/ read files from here (web/ of the
                            checkout, for working on the page); else the copy built in */
    unsigned rate_limit_keyless_per_second; /* 0: none */
    unsigned rate_limit_keyless_burst;
    unsigned rate_limit_keyless_saves_per_minute;
    unsigned rate_limit_key_per_second;
    unsigned rate_limit_key_burst;
    char *client_address_header; /* NULL: the peer's address is the client's */
    char *trusted_proxies;       /* comma list of addresses and prefixes; NULL: none */
    int keys_last_used_seconds;
    char *bootstrap_key_file;    /* NULL: no key is made at first start */
    char *secrets_key_file;      /* NULL: <database>.secrets-key with SQLite, else none */
    char *secrets_key;           /* the keyring's text itself; NULL: secrets_key_file's */
    char *metrics_listen;        /* "127.0.0.1:9464": GET /metrics without a key; NULL: none */
    bool webhooks;               /* the sender runs */
    bool webhooks_allow_http;    /* http:// endpoints (tests) */
    bool webhooks_allow_private; /* private and loopback targets (tests) */
    unsigned webhook_retry_divisor;
    int webhook_timeout_ms;
    int webhook_poll_ms;
    int64_t webhook_disable_after_seconds; /* failing this long disables an endpoint; 0: never */
    /* The seller printed on the quotation's PDF; NULL members are unset. */
    struct {
        char *name, *address, *phone, *email, *tax_id, *bank, *account;
    } seller;
    /* `gpuquote keys ...`: the words after "keys" (not owned). */
    int command_argc;
    char **command_argv;
    /* Loaded at start from secrets_key(_file) (main.c), not a setting. */
    const struct secret_keyring *secrets_keyring;
};

/* Fills *out from defaults, file, environment (`envp`, NULL-terminated) and
 * `argv`. On a bad value returns GQ_ERR_INVALID_VALUE with err->field set to
 * the key ("port") and err->message to one line ("port: 70000 is out of
 * range 0..65535"). The caller frees *out with config_free() in every case. */
enum gq_code config_load(struct gq_config *out, enum config_command *command, int argc, char **argv,
                         char **envp, struct gq_error *err);

void config_free(struct gq_config *config);

/* How many words of the command line the server's flag `arg` takes: 2
 * ("--db PATH"), 1 ("--db=PATH"), or 0 when `arg` is no such flag. */
int config_flag_words(const char *arg);

/* The next entry of `envp` ("NAME=value"), from envp[*position] on, whose
 * name starts with GPUQUOTE_ but sets nothing: a misspelling such as
 * GPUQUOTE_PROT would otherwise be ignored in silence. NULL when there is
 * none left; start with *position = 0. */
const char *config_next_unknown_variable(char **envp, size_t *position);

/* Writes the --help text. */
void config_print_usage(FILE *stream);

/* Reads `listen` as a numeric IPv4 or IPv6 address (a scope such as
 * fe80::1%eth0 too), with `port`, into *out; false when it is not one.
 * config_load() refuses such a `listen`; the server binds what this gives. */
bool config_listen_address(const char *listen, uint16_t port, struct sockaddr_storage *out);

/* Reads "ADDRESS:PORT" ("127.0.0.1:9464", "[::1]:9464"; port 0: any free
 * one) into *out; false when it is not one. */
bool config_metrics_address(const char *text, struct sockaddr_storage *out);

/* The share of connection_limit one address may hold when
 * per_ip_connection_limit is not set: one in CONFIG_PER_IP_SHARE. */
#define CONFIG_PER_IP_SHARE 4u

#endif
