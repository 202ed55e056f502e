/*
 * Configuration loading: one table of keys drives the built-in defaults, the
 * JSON file, the GPUQUOTE_* environment variables, the command-line flags and
 * the --help text, so a key cannot exist in one place and be missing in
 * another.
 *
 * The sources are applied in order of precedence (defaults, file,
 * environment, flags), each overwriting what the previous one set. Defaults
 * are written as text and go through the same strict parser as environment
 * variables, so the help text shows exactly the value the program starts
 * with. Every failure becomes GQ_ERR_INVALID_VALUE with one line that starts
 * with where the bad value came from ("GPUQUOTE_PORT: ...", "--threads: ...",
 * "config/gpuquote.json: port: ..."); everything allocated so far stays in
 * the struct gq_config, which config_free() releases in every case.
 */
#include "util/config.h"

#include "util/address.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <jansson.h>
#include <netdb.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum key_id {
    KEY_LISTEN,
    KEY_PORT,
    KEY_DATABASE,
    KEY_MIGRATIONS_DIR,
    KEY_AUTO_MIGRATE,
    KEY_THREADS,
    KEY_CONNECTION_LIMIT,
    KEY_PER_IP_CONNECTION_LIMIT,
    KEY_CONNECTION_TIMEOUT_SECONDS,
    KEY_REQUEST_TIMEOUT_SECONDS,
    KEY_RESPONSE_TIMEOUT_SECONDS,
    KEY_SHUTDOWN_GRACE_SECONDS,
    KEY_BODY_LIMIT_BYTES,
    KEY_QUOTE_EXPIRY_SECONDS,
    KEY_QUOTE_SWEEP_INTERVAL_MS,
    KEY_WEBHOOK_DISABLE_AFTER_SECONDS,
    KEY_IDEMPOTENCY_TTL_SECONDS,
    KEY_QUOTE_RETENTION_DAYS,
    KEY_ACCEPTED_QUOTE_RETENTION_DAYS,
    KEY_EVENT_RETENTION_DAYS,
    KEY_ANONYMOUS_QUOTE_RETENTION_DAYS,
    KEY_DB_BUSY_TIMEOUT_MS,
    KEY_ACCESS_LOG,
    KEY_CORS_ORIGINS,
    KEY_PORT_FILE,
    KEY_CATALOG_POLL_MS,
    KEY_CATALOG_LISTEN,
    KEY_WEB_DIR,
    KEY_RATE_LIMIT_KEYLESS_PER_SECOND,
    KEY_RATE_LIMIT_KEYLESS_BURST,
    KEY_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE,
    KEY_RATE_LIMIT_KEY_PER_SECOND,
    KEY_RATE_LIMIT_KEY_BURST,
    KEY_CLIENT_ADDRESS_HEADER,
    KEY_TRUSTED_PROXIES,
    KEY_KEYS_LAST_USED_SECONDS,
    KEY_BOOTSTRAP_KEY_FILE,
    KEY_SECRETS_KEY_FILE,
    KEY_SECRETS_KEY,
    KEY_METRICS_LISTEN,
    KEY_WEBHOOKS,
    KEY_WEBHOOKS_ALLOW_HTTP,
    KEY_WEBHOOKS_ALLOW_PRIVATE,
    KEY_WEBHOOK_RETRY_DIVISOR,
    KEY_WEBHOOK_TIMEOUT_MS,
    KEY_WEBHOOK_POLL_MS,
    KEY_SELLER_NAME,
    KEY_SELLER_ADDRESS,
    KEY_SELLER_PHONE,
    KEY_SELLER_EMAIL,
    KEY_SELLER_TAX_ID,
    KEY_SELLER_BANK,
    KEY_SELLER_ACCOUNT,
    KEY_COUNT,
    KEY_CONFIG = KEY_COUNT /* --config: names the file, is not a setting */
};

enum key_kind {
    KIND_STRING,          /* non-empty string */
    KIND_OPTIONAL_STRING, /* string; "" (or null in the file) unsets it */
    KIND_BOOL,
    KIND_INTEGER, /* range-checked, stored as `store` says */
    KIND_LIST     /* array of non-empty strings; comma list in text */
};

enum integer_store { STORE_NONE, STORE_U16, STORE_UNSIGNED, STORE_SIZE, STORE_I64, STORE_INT };

struct key_spec {
    const char *name; /* JSON key and err->field */
    const char *env;  /* environment variable */
    enum key_kind kind;
    enum integer_store store;
    size_t offset; /* of the field in struct gq_config */
    long long min, max;
    const char *default_text; /* parsed like an environment value */
    const char *help;
};

#define FIELD(member) offsetof(struct gq_config, member)

static const struct key_spec keys[KEY_COUNT] = {
    [KEY_LISTEN] = {"listen", "GPUQUOTE_LISTEN", KIND_STRING, STORE_NONE, FIELD(listen), 0, 0,
                    "127.0.0.1", "address to bind"},
    [KEY_PORT] = {"port", "GPUQUOTE_PORT", KIND_INTEGER, STORE_U16, FIELD(port), 0, 65535, "8080",
                  "TCP port, 0..65535 (0 = any free port)"},
    [KEY_DATABASE] = {"database", "GPUQUOTE_DATABASE", KIND_STRING, STORE_NONE, FIELD(database), 0,
                      0, "data/gpuquote.db",
                      "SQLite database file, or a PostgreSQL connection string "
                      "(postgresql://... or key=value ...)"},
    [KEY_MIGRATIONS_DIR] = {"migrations_dir", "GPUQUOTE_MIGRATIONS_DIR", KIND_STRING, STORE_NONE,
                            FIELD(migrations_dir), 0, 0, "migrations",
                            "directory of NNNN_name.sql migrations"},
    [KEY_AUTO_MIGRATE] = {"auto_migrate", "GPUQUOTE_AUTO_MIGRATE", KIND_BOOL, STORE_NONE,
                          FIELD(auto_migrate), 0, 0, "true",
                          "serve applies pending migrations first (true/false/1/0)"},
    [KEY_THREADS] = {"threads", "GPUQUOTE_THREADS", KIND_INTEGER, STORE_UNSIGNED, FIELD(threads), 1,
                     64, "2", "HTTP worker threads, 1..64"},
    [KEY_CONNECTION_LIMIT] = {"connection_limit", "GPUQUOTE_CONNECTION_LIMIT", KIND_INTEGER,
                              STORE_UNSIGNED, FIELD(connection_limit), 1, 100000, "1024",
                              "open connections at once, 1..100000"},
    [KEY_PER_IP_CONNECTION_LIMIT] = {"per_ip_connection_limit", "GPUQUOTE_PER_IP_CONNECTION_LIMIT",
                                     KIND_INTEGER, STORE_UNSIGNED, FIELD(per_ip_connection_limit),
                                     0, 100000, "256",
                                     "connections from one address, 0..connection_limit "
                                     "(0 = no limit; unset: a quarter of connection_limit)"},
    [KEY_CONNECTION_TIMEOUT_SECONDS] = {"connection_timeout_seconds",
                                        "GPUQUOTE_CONNECTION_TIMEOUT_SECONDS", KIND_INTEGER,
                                        STORE_UNSIGNED, FIELD(connection_timeout_seconds), 1, 3600,
                                        "30", "idle connection timeout, 1..3600"},
    [KEY_REQUEST_TIMEOUT_SECONDS] = {"request_timeout_seconds", "GPUQUOTE_REQUEST_TIMEOUT_SECONDS",
                                     KIND_INTEGER, STORE_UNSIGNED, FIELD(request_timeout_seconds),
                                     1, 3600, "10",
                                     "deadline for a whole request, from its first line, 1..3600"},
    [KEY_RESPONSE_TIMEOUT_SECONDS] = {"response_timeout_seconds",
                                      "GPUQUOTE_RESPONSE_TIMEOUT_SECONDS", KIND_INTEGER,
                                      STORE_UNSIGNED, FIELD(response_timeout_seconds), 1, 3600,
                                      "60", "deadline for the client to take an answer, 1..3600"},
    [KEY_SHUTDOWN_GRACE_SECONDS] = {"shutdown_grace_seconds", "GPUQUOTE_SHUTDOWN_GRACE_SECONDS",
                                    KIND_INTEGER, STORE_UNSIGNED, FIELD(shutdown_grace_seconds), 1,
                                    600, "10",
                                    "SIGTERM waits this long for requests in flight, 1..600"},
    [KEY_BODY_LIMIT_BYTES] = {"body_limit_bytes", "GPUQUOTE_BODY_LIMIT_BYTES", KIND_INTEGER,
                              STORE_SIZE, FIELD(body_limit_bytes), 1024, 16777216, "65536",
                              "largest request body, 1024..16777216"},
    [KEY_QUOTE_EXPIRY_SECONDS] =
        {"quote_expiry_seconds", "GPUQUOTE_QUOTE_EXPIRY_SECONDS", KIND_INTEGER, STORE_I64,
         FIELD(quote_expiry_seconds), 60, 31536000, "604800",
         "seconds a stored quote stays open, 60..31536000 (default: 7 days)"},
    [KEY_QUOTE_SWEEP_INTERVAL_MS] =
        {"quote_sweep_interval_ms", "GPUQUOTE_QUOTE_SWEEP_INTERVAL_MS", KIND_INTEGER, STORE_INT,
         FIELD(quote_sweep_interval_ms), 50, 3600000, "1000",
         "the sweeper marks quotes expired and deletes old ones this often, 50..3600000"},
    [KEY_WEBHOOK_DISABLE_AFTER_SECONDS] =
        {"webhook_disable_after_seconds", "GPUQUOTE_WEBHOOK_DISABLE_AFTER_SECONDS", KIND_INTEGER,
         STORE_I64, FIELD(webhook_disable_after_seconds), 0, 31536000, "432000",
         "an endpoint whose deliveries have failed this long without a success is disabled "
         "(0: never; default: 5 days)"},
    [KEY_IDEMPOTENCY_TTL_SECONDS] =
        {"idempotency_ttl_seconds", "GPUQUOTE_IDEMPOTENCY_TTL_SECONDS", KIND_INTEGER, STORE_I64,
         FIELD(idempotency_ttl_seconds), 1, 31536000, "86400",
         "an Idempotency-Key replays its quote this long, then makes a new one, 1..31536000"},
    [KEY_QUOTE_RETENTION_DAYS] =
        {"quote_retention_days", "GPUQUOTE_QUOTE_RETENTION_DAYS", KIND_INTEGER, STORE_INT,
         FIELD(quote_retention_days), 0, 36500, "90",
         "canceled and expired quotes are deleted this many days after they ended (0: kept)"},
    [KEY_ACCEPTED_QUOTE_RETENTION_DAYS] =
        {"accepted_quote_retention_days", "GPUQUOTE_ACCEPTED_QUOTE_RETENTION_DAYS", KIND_INTEGER,
         STORE_INT, FIELD(accepted_quote_retention_days), 0, 36500, "0",
         "accepted quotes are deleted this many days after acceptance (0: kept)"},
    [KEY_EVENT_RETENTION_DAYS] =
        {"event_retention_days", "GPUQUOTE_EVENT_RETENTION_DAYS", KIND_INTEGER, STORE_INT,
         FIELD(event_retention_days), 1, 3650, "30",
         "events and their webhook deliveries are deleted this many days after, 1..3650"},
    [KEY_ANONYMOUS_QUOTE_RETENTION_DAYS] =
        {"anonymous_quote_retention_days", "GPUQUOTE_ANONYMOUS_QUOTE_RETENTION_DAYS", KIND_INTEGER,
         STORE_INT, FIELD(anonymous_quote_retention_days), 1, 3650, "7",
         "keyless callers' quotes are deleted this many days after they ended, 1..3650"},
    [KEY_DB_BUSY_TIMEOUT_MS] = {"db_busy_timeout_ms", "GPUQUOTE_DB_BUSY_TIMEOUT_MS", KIND_INTEGER,
                                STORE_INT, FIELD(db_busy_timeout_ms), 0, 60000, "2000",
                                "how long a write waits for a lock, 0..60000"},
    [KEY_ACCESS_LOG] = {"access_log", "GPUQUOTE_ACCESS_LOG", KIND_BOOL, STORE_NONE,
                        FIELD(access_log), 0, 0, "true",
                        "one JSON line per request on standard output"},
    [KEY_CORS_ORIGINS] = {"cors_origins", "GPUQUOTE_CORS_ORIGINS", KIND_LIST, STORE_NONE,
                          FIELD(cors_origins), 0, CONFIG_MAX_CORS_ORIGINS, "",
                          "allowed CORS origins, at most 16, \"*\" for any (comma list in "
                          "the environment)"},
    [KEY_PORT_FILE] = {"port_file", "GPUQUOTE_PORT_FILE", KIND_OPTIONAL_STRING, STORE_NONE,
                       FIELD(port_file), 0, 0, "",
                       "write the bound port to this file (null or empty = don't)"},
    [KEY_CATALOG_POLL_MS] = {"catalog_poll_ms", "GPUQUOTE_CATALOG_POLL_MS", KIND_INTEGER, STORE_INT,
                             FIELD(catalog_poll_ms), 50, 600000, "1000",
                             "how often the price-list version is checked, 50..600000"},
    [KEY_CATALOG_LISTEN] = {"catalog_listen", "GPUQUOTE_CATALOG_LISTEN", KIND_BOOL, STORE_NONE,
                            FIELD(catalog_listen), 0, 0, "true",
                            "PostgreSQL: LISTEN for catalog changes; false: the poll alone"},
    [KEY_WEB_DIR] = {"web_dir", "GPUQUOTE_WEB_DIR", KIND_OPTIONAL_STRING, STORE_NONE,
                     FIELD(web_dir), 0, 0, "",
                     "serve the storefront page from this directory, not the built-in copy"},
    [KEY_RATE_LIMIT_KEYLESS_PER_SECOND] = {"rate_limit_keyless_per_second",
                                           "GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND", KIND_INTEGER,
                                           STORE_UNSIGNED, FIELD(rate_limit_keyless_per_second), 0,
                                           1000000, "20",
                                           "calls without a key from one address a second, "
                                           "0..1000000 (0 = no limit)"},
    [KEY_RATE_LIMIT_KEYLESS_BURST] = {"rate_limit_keyless_burst",
                                      "GPUQUOTE_RATE_LIMIT_KEYLESS_BURST", KIND_INTEGER,
                                      STORE_UNSIGNED, FIELD(rate_limit_keyless_burst), 1, 1000000,
                                      "40", "of those, how many may come at once, 1..1000000"},
    [KEY_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE] =
        {"rate_limit_keyless_saves_per_minute", "GPUQUOTE_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE",
         KIND_INTEGER, STORE_UNSIGNED, FIELD(rate_limit_keyless_saves_per_minute), 0, 1000000, "10",
         "quotes saved without a key from one address a minute (0 = no limit)"},
    [KEY_RATE_LIMIT_KEY_PER_SECOND] = {"rate_limit_key_per_second",
                                       "GPUQUOTE_RATE_LIMIT_KEY_PER_SECOND", KIND_INTEGER,
                                       STORE_UNSIGNED, FIELD(rate_limit_key_per_second), 0, 1000000,
                                       "200",
                                       "calls with one key a second, 0..1000000 (0 = no limit)"},
    [KEY_RATE_LIMIT_KEY_BURST] = {"rate_limit_key_burst", "GPUQUOTE_RATE_LIMIT_KEY_BURST",
                                  KIND_INTEGER, STORE_UNSIGNED, FIELD(rate_limit_key_burst), 1,
                                  1000000, "400", "of those, how many may come at once"},
    [KEY_CLIENT_ADDRESS_HEADER] = {"client_address_header", "GPUQUOTE_CLIENT_ADDRESS_HEADER",
                                   KIND_OPTIONAL_STRING, STORE_NONE, FIELD(client_address_header),
                                   0, 0, "",
                                   "behind a proxy: the header that names the client "
                                   "(X-Forwarded-For), believed from trusted_proxies only"},
    [KEY_TRUSTED_PROXIES] = {"trusted_proxies", "GPUQUOTE_TRUSTED_PROXIES", KIND_OPTIONAL_STRING,
                             STORE_NONE, FIELD(trusted_proxies), 0, 0, "",
                             "addresses or prefixes (10.0.0.0/8) of the proxies whose "
                             "client_address_header is believed, comma-separated"},
    [KEY_KEYS_LAST_USED_SECONDS] = {"keys_last_used_seconds", "GPUQUOTE_KEYS_LAST_USED_SECONDS",
                                    KIND_INTEGER, STORE_INT, FIELD(keys_last_used_seconds), 1, 3600,
                                    "60", "how often keys' last use is written to the database"},
    [KEY_BOOTSTRAP_KEY_FILE] = {"bootstrap_key_file", "GPUQUOTE_BOOTSTRAP_KEY_FILE",
                                KIND_OPTIONAL_STRING, STORE_NONE, FIELD(bootstrap_key_file), 0, 0,
                                "",
                                "when the database has no key: make one with every scope and "
                                "write it here (mode 0600)"},
    [KEY_SECRETS_KEY_FILE] = {"secrets_key_file", "GPUQUOTE_SECRETS_KEY_FILE", KIND_OPTIONAL_STRING,
                              STORE_NONE, FIELD(secrets_key_file), 0, 0, "",
                              "keys (<id>:<base64 of 32 bytes>, the first seals) that keep webhook "
                              "secrets encrypted in the database; unset with SQLite: "
                              "<database>.secrets-key, made at first start"},
    [KEY_SECRETS_KEY] = {"secrets_key", "GPUQUOTE_SECRETS_KEY", KIND_OPTIONAL_STRING, STORE_NONE,
                         FIELD(secrets_key), 0, 0, "",
                         "the keys themselves, as in secrets_key_file (comma-separated); "
                         "wins over the file"},
    [KEY_METRICS_LISTEN] = {"metrics_listen", "GPUQUOTE_METRICS_LISTEN", KIND_OPTIONAL_STRING,
                            STORE_NONE, FIELD(metrics_listen), 0, 0, "",
                            "ADDRESS:PORT of a second listener serving GET /metrics alone, "
                            "without a key (127.0.0.1:9464); unset: none"},
    [KEY_WEBHOOKS] = {"webhooks", "GPUQUOTE_WEBHOOKS", KIND_BOOL, STORE_NONE, FIELD(webhooks), 0, 0,
                      "true", "send events to the webhook endpoints (false: store them only)"},
    [KEY_WEBHOOKS_ALLOW_HTTP] = {"webhooks_allow_http", "GPUQUOTE_WEBHOOKS_ALLOW_HTTP", KIND_BOOL,
                                 STORE_NONE, FIELD(webhooks_allow_http), 0, 0, "false",
                                 "webhook endpoints may be http:// URLs (tests); else https only"},
    [KEY_WEBHOOKS_ALLOW_PRIVATE] = {"webhooks_allow_private", "GPUQUOTE_WEBHOOKS_ALLOW_PRIVATE",
                                    KIND_BOOL, STORE_NONE, FIELD(webhooks_allow_private), 0, 0,
                                    "false",
                                    "webhooks may reach private, loopback and link-local "
                                    "addresses (tests); else refused"},
    [KEY_WEBHOOK_RETRY_DIVISOR] = {"webhook_retry_divisor", "GPUQUOTE_WEBHOOK_RETRY_DIVISOR",
                                   KIND_INTEGER, STORE_UNSIGNED, FIELD(webhook_retry_divisor), 1,
                                   1000000, "1",
                                   "the retry schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) "
                                   "divided by this, for tests"},
    [KEY_WEBHOOK_TIMEOUT_MS] = {"webhook_timeout_ms", "GPUQUOTE_WEBHOOK_TIMEOUT_MS", KIND_INTEGER,
                                STORE_INT, FIELD(webhook_timeout_ms), 100, 60000, "15000",
                                "how long a webhook endpoint has to answer 2xx; a delivery's "
                                "lease is twice this"},
    [KEY_WEBHOOK_POLL_MS] = {"webhook_poll_ms", "GPUQUOTE_WEBHOOK_POLL_MS", KIND_INTEGER, STORE_INT,
                             FIELD(webhook_poll_ms), 10, 600000, "1000",
                             "how often the sender looks for deliveries that are due, "
                             "10..600000 (at once for events written by this process)"},
    /* The seller printed on the quotation's PDF (GET /quote/{id}/pdf). */
    [KEY_SELLER_NAME] = {"seller_name", "GPUQUOTE_SELLER_NAME", KIND_OPTIONAL_STRING, STORE_NONE,
                         FIELD(seller.name), 0, 0, "",
                         "the seller's name on the quotation's PDF; unset: \"—\""},
    [KEY_SELLER_ADDRESS] = {"seller_address", "GPUQUOTE_SELLER_ADDRESS", KIND_OPTIONAL_STRING,
                            STORE_NONE, FIELD(seller.address), 0, 0, "",
                            "the seller's address on the quotation"},
    [KEY_SELLER_PHONE] = {"seller_phone", "GPUQUOTE_SELLER_PHONE", KIND_OPTIONAL_STRING, STORE_NONE,
                          FIELD(seller.phone), 0, 0, "",
                          "the seller's phone number on the quotation"},
    [KEY_SELLER_EMAIL] = {"seller_email", "GPUQUOTE_SELLER_EMAIL", KIND_OPTIONAL_STRING, STORE_NONE,
                          FIELD(seller.email), 0, 0, "",
                          "the seller's email address on the quotation"},
    [KEY_SELLER_TAX_ID] = {"seller_tax_id", "GPUQUOTE_SELLER_TAX_ID", KIND_OPTIONAL_STRING,
                           STORE_NONE, FIELD(seller.tax_id), 0, 0, "",
                           "the seller's tax id (unified social credit code) on the quotation"},
    [KEY_SELLER_BANK] = {"seller_bank", "GPUQUOTE_SELLER_BANK", KIND_OPTIONAL_STRING, STORE_NONE,
                         FIELD(seller.bank), 0, 0, "",
                         "the bank of the seller's account on the quotation"},
    [KEY_SELLER_ACCOUNT] = {"seller_account", "GPUQUOTE_SELLER_ACCOUNT", KIND_OPTIONAL_STRING,
                            STORE_NONE, FIELD(seller.account), 0, 0, "",
                            "the seller's bank account number on the quotation"},
};

#undef FIELD

struct flag_spec {
    const char *name;
    enum key_id key;
    const char *metavar;
};

static const struct flag_spec flags[] = {
    {"--config", KEY_CONFIG, "PATH"},
    {"--listen", KEY_LISTEN, "ADDR"},
    {"--port", KEY_PORT, "N"},
    {"--db", KEY_DATABASE, "PATH"},
    {"--threads", KEY_THREADS, "N"},
    {"--migrations", KEY_MIGRATIONS_DIR, "DIR"},
    {"--port-file", KEY_PORT_FILE, "PATH"},
};

#define FLAG_COUNT (sizeof flags / sizeof flags[0])

/* Where a value came from. A file names the key after itself
 * ("gq.json: port: ..."); a variable or a flag stands for its key. */
enum source_layer { LAYER_DEFAULT, LAYER_FILE, LAYER_ENVIRONMENT, LAYER_FLAG }; /* later wins */

struct source {
    const char *label;
    enum source_layer layer;
};

struct loader {
    struct gq_config *config;
    struct gq_error *err;
    struct source origin[KEY_COUNT]; /* label NULL = still the default */
    const char *config_path;         /* from --config, NULL when absent */
    enum config_command command;
};

/* ---- errors ------------------------------------------------------------ */

/* Keeps the message one line whatever the bad value contained. */
static void flatten_message(struct gq_error *err)
{
    if (err == NULL)
        return;
    for (char *c = err->message; *c != '\0'; c++) {
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    }
}

static enum gq_code fail_line(struct gq_error *err, const char *field, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static enum gq_code fail_line(struct gq_error *err, const char *field, const char *format, ...)
{
    char line[sizeof err->message];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    gq_fail(err, GQ_ERR_INVALID_VALUE, field, "%s", line);
    flatten_message(err);
    return GQ_ERR_INVALID_VALUE;
}

/* "SOURCE: problem" or, for a file, "FILE: key: problem". */
static enum gq_code fail_value(struct loader *ld, const struct key_spec *key, struct source src,
                               const char *format, ...) __attribute__((format(printf, 4, 5)));

static enum gq_code fail_value(struct loader *ld, const struct key_spec *key, struct source src,
                               const char *format, ...)
{
    char problem[sizeof ld->err->message];
    va_list args;
    va_start(args, format);
    vsnprintf(problem, sizeof problem, format, args);
    va_end(args);
    if (src.layer == LAYER_FILE)
        return fail_line(ld->err, key->name, "%s: %s: %s", src.label, key->name, problem);
    return fail_line(ld->err, key->name, "%s: %s", src.label, problem);
}

static enum gq_code fail_no_memory(struct loader *ld)
{
    return gq_fail(ld->err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
}

/* ---- storing values ---------------------------------------------------- */

static void *field_of(struct gq_config *config, const struct key_spec *key)
{
    return (char *)config + key->offset;
}

static enum gq_code store_string(struct loader *ld, const struct key_spec *key, const char *text)
{
    char **slot = field_of(ld->config, key);
    char *copy = NULL;
    if (text != NULL && (copy = strdup(text)) == NULL)
        return fail_no_memory(ld);
    free(*slot);
    *slot = copy;
    return GQ_OK;
}

static void store_integer(struct gq_config *config, const struct key_spec *key, long long value)
{
    void *slot = field_of(config, key);
    switch (key->store) {
    case STORE_U16:
        *(uint16_t *)slot = (uint16_t)value;
        break;
    case STORE_UNSIGNED:
        *(unsigned *)slot = (unsigned)value;
        break;
    case STORE_SIZE:
        *(size_t *)slot = (size_t)value;
        break;
    case STORE_I64:
        *(int64_t *)slot = (int64_t)value;
        break;
    case STORE_INT:
        *(int *)slot = (int)value;
        break;
    case STORE_NONE:
        assert(key->store != STORE_NONE); /* every integer key has a store */
        break;
    }
}

static enum gq_code check_and_store_integer(struct loader *ld, const struct key_spec *key,
                                            struct source src, long long value)
{
    if (value < key->min || value > key->max)
        return fail_value(ld, key, src, "%lld is out of range %lld..%lld", value, key->min,
                          key->max);
    store_integer(ld->config, key, value);
    return GQ_OK;
}

static void clear_list(struct gq_config *config)
{
    for (size_t i = 0; i < config->n_cors_origins; i++) {
        free(config->cors_origins[i]);
        config->cors_origins[i] = NULL;
    }
    config->n_cors_origins = 0;
}

/* ---- origins as browsers serialise them (RFC 6454, 6.2) ----------------- */

static bool is_lower(char c)
{
    return c >= 'a' && c <= 'z';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool are_digits(const char *text, size_t length)
{
    for (size_t i = 0; i < length; i++)
        if (!is_digit(text[i]))
            return false;
    return length > 0;
}

/* RFC 3986's ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), in lower case: a
 * browser lower-cases the scheme. chrome-extension, moz-extension,
 * capacitor and tauri are schemes too. */
static bool is_scheme(const char *text, size_t length)
{
    if (length == 0 || !is_lower(text[0]))
        return false;
    for (size_t i = 1; i < length; i++) {
        char c = text[i];
        if (!is_lower(c) && !is_digit(c) && c != '+' && c != '-' && c != '.')
            return false;
    }
    return true;
}

/* A decimal number as a browser prints one, with no leading zero, at most
 * `max`; false for anything else. */
static bool parse_plain_number(const char *text, size_t length, size_t max_digits, long max,
                               long *value)
{
    if (!are_digits(text, length) || length > max_digits || (length > 1 && text[0] == '0'))
        return false;
    long number = 0;
    for (size_t i = 0; i < length; i++)
        number = number * 10 + (text[i] - '0');
    *value = number;
    return number <= max;
}

/* Dotted-quad IPv4, the only form a browser prints ("127.0.0.1", never
 * "127.1" or "127.000.0.1"). */
static bool is_ipv4(const char *text, size_t length)
{
    size_t start = 0, parts = 0;
    for (size_t i = 0; i <= length; i++) {
        if (i < length && text[i] != '.')
            continue;
        long octet;
        if (++parts > 4 || !parse_plain_number(text + start, i - start, 3, 255, &octet))
            return false;
        start = i + 1;
    }
    return parts == 4;
}

/* A host name in lower case: labels of letters, digits, '-' and '_', with
 * at most a trailing '.'. A name whose last label is a number is an IPv4
 * address to a browser, which prints it as one. */
static bool is_host_name(const char *text, size_t length)
{
    size_t end = length > 1 && text[length - 1] == '.' ? length - 1 : length;
    size_t label = 0;
    for (size_t i = 0; i <= end; i++) {
        if (i < end && text[i] != '.') {
            char c = text[i];
            if (!is_lower(c) && !is_digit(c) && c != '-' && c != '_')
                return false;
            continue;
        }
        if (i == label)
            return false; /* an empty label */
        if (i == end && are_digits(text + label, i - label))
            return is_ipv4(text, length);
        label = i + 1;
    }
    return true;
}

/* An IPv6 address as the URL Standard serialises it: lower-case hex pieces
 * without leading zeros, the first longest run of two or more zero pieces
 * as "::", no embedded IPv4. */
static void format_ipv6(const unsigned char bytes[16], char out[INET6_ADDRSTRLEN])
{
    unsigned pieces[8];
    int run_start = -1, run_length = 1;
    for (int i = 0; i < 8; i++)
        pieces[i] = (unsigned)bytes[2 * i] << 8 | bytes[2 * i + 1];
    for (int i = 0; i < 8; i++) {
        int j = i;
        while (j < 8 && pieces[j] == 0)
            j++;
        if (j - i > run_length) {
            run_start = i;
            run_length = j - i;
        }
    }
    size_t used = 0;
    for (int i = 0; i < 8; i++) {
        if (i == run_start) {
            used +=
                (size_t)snprintf(out + used, INET6_ADDRSTRLEN - used, "%s", i == 0 ? "::" : ":");
            i += run_length - 1;
        } else
            used += (size_t)snprintf(out + used, INET6_ADDRSTRLEN - used, "%x%s", pieces[i],
                                     i < 7 ? ":" : "");
    }
}

/* "[...]" around an IPv6 address printed exactly as format_ipv6() does. */
static bool is_ipv6_literal(const char *text, size_t length)
{
    char address[INET6_ADDRSTRLEN], canonical[INET6_ADDRSTRLEN];
    unsigned char bytes[16];
    if (length < 4 || text[0] != '[' || text[length - 1] != ']' || length - 2 >= sizeof address)
        return false;
    memcpy(address, text + 1, length - 2);
    address[length - 2] = '\0';
    if (inet_pton(AF_INET6, address, bytes) != 1)
        return false;
    format_ipv6(bytes, canonical);
    return strcmp(address, canonical) == 0;
}

/* The port a browser leaves out of an origin with this scheme, or 0. */
static long default_port(const char *scheme, size_t length)
{
    static const struct {
        const char *scheme;
        long port;
    } defaults[] = {{"http", 80}, {"https", 443}, {"ws", 80}, {"wss", 443}, {"ftp", 21}};
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (strlen(defaults[i].scheme) == length && memcmp(defaults[i].scheme, scheme, length) == 0)
            return defaults[i].port;
    return 0;
}

/* How long the host at the start of an authority is: through "]" for an
 * IPv6 literal, else up to the first ':' (a host name has none). */
static size_t measure_host(const char *authority, size_t length)
{
    const char *bracket = length > 0 && authority[0] == '[' ? memchr(authority, ']', length) : NULL;
    if (bracket != NULL)
        return (size_t)(bracket - authority) + 1;
    const char *colon = memchr(authority, ':', length);
    return colon != NULL ? (size_t)(colon - authority) : length;
}

static bool is_host(const char *text, size_t length)
{
    if (length > 0 && text[0] == '[')
        return is_ipv6_literal(text, length);
    return is_host_name(text, length);
}

/* ":" and a port as a browser prints it: 1..65535 with no leading zero,
 * and never the scheme's default, which it leaves out. */
static bool is_port_suffix(const char *text, size_t length, long default_value)
{
    long port;
    return length > 1 && text[0] == ':' &&
           parse_plain_number(text + 1, length - 1, 5, 65535, &port) && port >= 1 &&
           port != default_value;
}

/* True for "*" and for an origin exactly as a browser sends it in `Origin`:
 * scheme "://" host [":" port], the host a name, a dotted quad or a
 * bracketed IPv6 address, all in lower case, with no path, not even "/".
 * Anything else could never match. */
static bool is_origin(const char *text, size_t length)
{
    if (length == 1 && text[0] == '*')
        return true;
    const char *separator = memmem(text, length, "://", 3);
    if (separator == NULL)
        return false;
    size_t scheme = (size_t)(separator - text);
    const char *authority = separator + 3;
    size_t rest = length - scheme - 3;
    size_t host = measure_host(authority, rest);
    if (!is_scheme(text, scheme) || !is_host(authority, host))
        return false;
    return host == rest ||
           is_port_suffix(authority + host, rest - host, default_port(text, scheme));
}

/* Appends `length` bytes of `text` to the CORS list. */
static enum gq_code append_list(struct loader *ld, const struct key_spec *key, struct source src,
                                const char *text, size_t length)
{
    struct gq_config *config = ld->config;
    if (length == 0)
        return fail_value(ld, key, src, "an origin is empty");
    if (!is_origin(text, length))
        return fail_value(ld, key, src,
                          "'%.*s' is not an origin as browsers send it: \"*\" or "
                          "scheme://host[:port] in lower case, the port 1..65535 and not the "
                          "scheme's default, with no path (not even \"/\")",
                          (int)(length < 100 ? length : 100), text);
    if (config->n_cors_origins == CONFIG_MAX_CORS_ORIGINS)
        return fail_value(ld, key, src, "more than %d origins", CONFIG_MAX_CORS_ORIGINS);
    char *copy = strndup(text, length);
    if (copy == NULL)
        return fail_no_memory(ld);
    config->cors_origins[config->n_cors_origins++] = copy;
    return GQ_OK;
}

/* ---- text values: defaults, environment, flags -------------------------- */

static enum gq_code parse_text_integer(struct loader *ld, const struct key_spec *key,
                                       struct source src, const char *text)
{
    /* strtoll alone accepts " 8" and "+8"; a setting is digits only. */
    bool starts_well = text[0] == '-' || (text[0] >= '0' && text[0] <= '9');
    char *end = NULL;
    errno = 0;
    long long value = starts_well ? strtoll(text, &end, 10) : 0;
    if (!starts_well || end == text || *end != '\0')
        return fail_value(ld, key, src, "\"%s\" is not an integer", text);
    if (errno == ERANGE)
        return fail_value(ld, key, src, "%s is out of range %lld..%lld", text, key->min, key->max);
    return check_and_store_integer(ld, key, src, value);
}

static enum gq_code parse_text_bool(struct loader *ld, const struct key_spec *key,
                                    struct source src, const char *text)
{
    bool *slot = field_of(ld->config, key);
    if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
        *slot = true;
    else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
        *slot = false;
    else
        return fail_value(ld, key, src, "\"%s\" is not a boolean (true, false, 1 or 0)", text);
    return GQ_OK;
}

/* "a, b,c" -> three origins; "" -> none. Spaces around an origin are
 * dropped. */
static enum gq_code parse_text_list(struct loader *ld, const struct key_spec *key,
                                    struct source src, const char *text)
{
    clear_list(ld->config);
    if (text[0] == '\0')
        return GQ_OK;
    for (const char *item = text;; item++) {
        size_t length = strcspn(item, ",");
        const char *next = item + length;
        while (length > 0 && *item == ' ')
            item++, length--;
        while (length > 0 && item[length - 1] == ' ')
            length--;
        enum gq_code code = append_list(ld, key, src, item, length);
        if (code != GQ_OK || *next == '\0')
            return code;
        item = next;
    }
}

static enum gq_code parse_text(struct loader *ld, enum key_id id, struct source src,
                               const char *text)
{
    const struct key_spec *key = &keys[id];
    ld->origin[id] = src;
    switch (key->kind) {
    case KIND_STRING:
        if (text[0] == '\0')
            return fail_value(ld, key, src, "must not be empty");
        return store_string(ld, key, text);
    case KIND_OPTIONAL_STRING:
        return store_string(ld, key, text[0] == '\0' ? NULL : text);
    case KIND_BOOL:
        return parse_text_bool(ld, key, src, text);
    case KIND_INTEGER:
        return parse_text_integer(ld, key, src, text);
    case KIND_LIST:
        return parse_text_list(ld, key, src, text);
    }
    return GQ_OK;
}

/* ---- JSON values: the file ---------------------------------------------- */

static const char *json_type_phrase(const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a real number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "something else";
}

static enum gq_code fail_type(struct loader *ld, const struct key_spec *key, struct source src,
                              const char *expected, const json_t *value)
{
    return fail_value(ld, key, src, "expected %s, got %s", expected, json_type_phrase(value));
}

static enum gq_code parse_json_list(struct loader *ld, const struct key_spec *key,
                                    struct source src, const json_t *value)
{
    const char *expected = "an array of strings";
    if (!json_is_array(value))
        return fail_type(ld, key, src, expected, value);
    clear_list(ld->config);
    size_t index;
    const json_t *item;
    json_array_foreach(value, index, item)
    {
        if (!json_is_string(item))
            return fail_type(ld, key, src, expected, item);
        enum gq_code code =
            append_list(ld, key, src, json_string_value(item), json_string_length(item));
        if (code != GQ_OK)
            return code;
    }
    return GQ_OK;
}

static enum gq_code parse_json_string(struct loader *ld, const struct key_spec *key,
                                      struct source src, const json_t *value)
{
    if (key->kind == KIND_OPTIONAL_STRING && json_is_null(value))
        return store_string(ld, key, NULL);
    if (!json_is_string(value))
        return fail_type(ld, key, src,
                         key->kind == KIND_OPTIONAL_STRING ? "a string or null" : "a string",
                         value);
    const char *text = json_string_value(value);
    if (text[0] == '\0' && key->kind == KIND_STRING)
        return fail_value(ld, key, src, "must not be empty");
    return store_string(ld, key, text[0] == '\0' ? NULL : text);
}

static enum gq_code parse_json(struct loader *ld, enum key_id id, struct source src,
                               const json_t *value)
{
    const struct key_spec *key = &keys[id];
    /* A null number in a file is the key left unset: its default, or the
     * value derived from other keys (per_ip_connection_limit's share),
     * which the shipped file can name without fixing a figure. */
    if (json_is_null(value) && key->kind == KIND_INTEGER)
        return GQ_OK;
    /* A null number in a file is the key left unset: its default, or the
     * value derived from other keys (per_ip_connection_limit's share),
     * which the shipped file can name without fixing a figure. */
    if (json_is_null(value) && key->kind == KIND_INTEGER)
        return GQ_OK;
    ld->origin[id] = src;
    switch (key->kind) {
    case KIND_STRING:
    case KIND_OPTIONAL_STRING:
        return parse_json_string(ld, key, src, value);
    case KIND_BOOL:
        if (!json_is_boolean(value))
            return fail_type(ld, key, src, "true or false", value);
        *(bool *)field_of(ld->config, key) = json_is_true(value);
        return GQ_OK;
    case KIND_INTEGER:
        if (!json_is_integer(value))
            return fail_type(ld, key, src, "an integer", value);
        return check_and_store_integer(ld, key, src, json_integer_value(value));
    case KIND_LIST:
        return parse_json_list(ld, key, src, value);
    }
    return GQ_OK;
}

static int find_key(const char *name)
{
    for (int id = 0; id < KEY_COUNT; id++) {
        if (strcmp(keys[id].name, name) == 0)
            return id;
    }
    return -1;
}

static enum gq_code apply_object(struct loader *ld, const char *path, json_t *root)
{
    struct source src = {path, LAYER_FILE};
    if (!json_is_object(root))
        return fail_line(ld->err, "config", "%s: expected a JSON object, got %s", path,
                         json_type_phrase(root));
    const char *name;
    json_t *value;
    json_object_foreach(root, name, value)
    {
        int id = find_key(name);
        if (id < 0)
            return fail_line(ld->err, name, "%s: unknown key \"%s\"", path, name);
        enum gq_code code = parse_json(ld, (enum key_id)id, src, value);
        if (code != GQ_OK)
            return code;
    }
    return GQ_OK;
}

/* `named_by` is the flag or variable that named the file, NULL for the
 * default file (whose absence is not an error). */
static enum gq_code apply_file(struct loader *ld, const char *path, const char *named_by)
{
    if (named_by == NULL && access(path, F_OK) != 0)
        return GQ_OK;
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return fail_line(ld->err, "config", "%s: %s: %s", named_by ? named_by : path, path,
                         strerror(errno));
    struct stat info;
    if (fstat(fileno(file), &info) == 0 && S_ISDIR(info.st_mode)) { /* fopen allows it */
        fclose(file);
        return fail_line(ld->err, "config", "%s: %s: %s", named_by ? named_by : path, path,
                         strerror(EISDIR));
    }
    json_error_t jerr;
    json_t *root = json_loadf(file, JSON_REJECT_DUPLICATES, &jerr);
    fclose(file);
    if (root == NULL)
        return fail_line(ld->err, "config", "%s:%d:%d: %s", path, jerr.line, jerr.column,
                         jerr.text);
    enum gq_code code = apply_object(ld, path, root);
    json_decref(root);
    return code;
}

/* ---- environment -------------------------------------------------------- */

/* Like getenv(), on an explicit environment; NULL when absent. */
static const char *lookup_env(char **envp, const char *name)
{
    size_t length = strlen(name);
    for (char **entry = envp; entry != NULL && *entry != NULL; entry++) {
        if (strncmp(*entry, name, length) == 0 && (*entry)[length] == '=')
            return *entry + length + 1;
    }
    return NULL;
}

/* True when `entry` ("NAME=value") sets one of the configuration's
 * variables, GPUQUOTE_CONFIG included. */
static bool is_known_variable(const char *entry)
{
    size_t length = strcspn(entry, "=");
    if (length == strlen("GPUQUOTE_CONFIG") && strncmp(entry, "GPUQUOTE_CONFIG", length) == 0)
        return true;
    for (int id = 0; id < KEY_COUNT; id++) {
        if (strlen(keys[id].env) == length && strncmp(entry, keys[id].env, length) == 0)
            return true;
    }
    return false;
}

const char *config_next_unknown_variable(char **envp, size_t *position)
{
    for (; envp != NULL && envp[*position] != NULL; (*position)++) {
        const char *entry = envp[*position];
        if (strncmp(entry, "GPUQUOTE_", strlen("GPUQUOTE_")) == 0 && !is_known_variable(entry)) {
            (*position)++;
            return entry;
        }
    }
    return NULL;
}

static enum gq_code apply_env(struct loader *ld, char **envp)
{
    for (int id = 0; id < KEY_COUNT; id++) {
        const char *text = lookup_env(envp, keys[id].env);
        if (text == NULL)
            continue;
        struct source src = {keys[id].env, LAYER_ENVIRONMENT};
        enum gq_code code = parse_text(ld, (enum key_id)id, src, text);
        if (code != GQ_OK)
            return code;
    }
    return GQ_OK;
}

/* ---- command line ------------------------------------------------------- */

static const struct flag_spec *find_flag(const char *arg, size_t name_length)
{
    for (size_t i = 0; i < FLAG_COUNT; i++) {
        if (strlen(flags[i].name) == name_length && strncmp(flags[i].name, arg, name_length) == 0)
            return &flags[i];
    }
    return NULL;
}

static bool is_switch(const char *arg, const char *short_name, const char *long_name)
{
    return strcmp(arg, short_name) == 0 || strcmp(arg, long_name) == 0;
}

/* "--port --db x" is a missing value, not a port called "--db"; a single
 * dash may start a value ("--port -1" is then out of range). */
static bool looks_like_option(const char *arg)
{
    return strncmp(arg, "--", 2) == 0 || strcmp(arg, "-h") == 0 || strcmp(arg, "-V") == 0;
}

static enum gq_code parse_command(struct loader *ld, const char *arg)
{
    if (strcmp(arg, "serve") == 0)
        ld->command = CONFIG_COMMAND_SERVE;
    else if (strcmp(arg, "migrate") == 0)
        ld->command = CONFIG_COMMAND_MIGRATE;
    else if (strcmp(arg, "keys") == 0)
        ld->command = CONFIG_COMMAND_KEYS;
    else
        return fail_line(ld->err, "", "unknown command \"%s\" (serve, migrate or keys)", arg);
    return GQ_OK;
}

/* One flag with its value, at argv[*index]; advances *index past what it
 * used. With `apply` false only the syntax is checked and --config kept. */
static enum gq_code scan_flag(struct loader *ld, int argc, char **argv, int *index, bool apply)
{
    const char *arg = argv[*index];
    const char *equals = strchr(arg, '=');
    size_t name_length = equals ? (size_t)(equals - arg) : strlen(arg);
    const struct flag_spec *flag = find_flag(arg, name_length);
    if (flag == NULL)
        return fail_line(ld->err, "", "unknown option %.*s", (int)name_length, arg);
    const char *value = equals ? equals + 1 : NULL;
    if (value == NULL) {
        if (*index + 1 >= argc || looks_like_option(argv[*index + 1]))
            return fail_line(ld->err, flag->key == KEY_CONFIG ? "config" : keys[flag->key].name,
                             "%s: missing value", flag->name);
        value = argv[++*index];
    }
    if (flag->key == KEY_CONFIG) {
        ld->config_path = value;
        return GQ_OK;
    }
    struct source src = {flag->name, LAYER_FLAG};
    return apply ? parse_text(ld, flag->key, src, value) : GQ_OK;
}

int config_flag_words(const char *arg)
{
    const char *equals = strchr(arg, '=');
    size_t name_length = equals ? (size_t)(equals - arg) : strlen(arg);
    if (strncmp(arg, "--", 2) != 0 || find_flag(arg, name_length) == NULL)
        return 0;
    return equals ? 1 : 2;
}

/* What follows "keys" is the keys command's own (src/cli/keys.c), except
 * the server's flags, which work there as before the command ("keys create
 * --db PATH"). The keys command's own options all take a value. */
static enum gq_code scan_keys_args(struct loader *ld, int argc, char **argv, bool apply)
{
    ld->config->command_argc = argc - 2;
    ld->config->command_argv = argv + 2;
    for (int i = 2; i < argc; i++) {
        if (config_flag_words(argv[i]) > 0) {
            enum gq_code code = scan_flag(ld, argc, argv, &i, apply);
            if (code != GQ_OK)
                return code;
        } else if (strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i], "--help") != 0) {
            i++;
        }
    }
    return GQ_OK;
}

static enum gq_code scan_args(struct loader *ld, int argc, char **argv, bool apply)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (i == 2 && ld->command == CONFIG_COMMAND_KEYS)
            return scan_keys_args(ld, argc, argv, apply);
        enum gq_code code = GQ_OK;
        if (is_switch(arg, "-h", "--help"))
            ld->command = CONFIG_COMMAND_HELP;
        else if (is_switch(arg, "-V", "--version"))
            ld->command = CONFIG_COMMAND_VERSION;
        else if (arg[0] == '-')
            code = scan_flag(ld, argc, argv, &i, apply);
        else if (i == 1 && !apply)
            code = parse_command(ld, arg);
        else if (i != 1)
            code = fail_line(ld->err, "", "unexpected argument \"%s\"", arg);
        if (code != GQ_OK)
            return code;
    }
    return GQ_OK;
}

/* ---- putting it together ------------------------------------------------ */

static enum gq_code apply_defaults(struct loader *ld)
{
    struct source src = {"default", LAYER_DEFAULT};
    for (int id = 0; id < KEY_COUNT; id++) {
        enum gq_code code = parse_text(ld, (enum key_id)id, src, keys[id].default_text);
        assert(code != GQ_ERR_INVALID_VALUE && "a default breaks its own key's rules");
        if (code != GQ_OK)
            return code;
        ld->origin[id].label = NULL;
    }
    return GQ_OK;
}

/* The one rule between two keys: an unset per-IP limit is a share of the
 * connection limit; one set on a lower layer follows a smaller connection
 * limit down; one set on the same layer or above must fit under it. */
static enum gq_code check_per_ip_limit(struct loader *ld)
{
    struct gq_config *config = ld->config;
    struct source src = ld->origin[KEY_PER_IP_CONNECTION_LIMIT];
    if (src.label == NULL) {
        unsigned share = config->connection_limit / CONFIG_PER_IP_SHARE;
        config->per_ip_connection_limit = share > 0 ? share : 1;
        config->per_ip_connection_limit_is_share = true;
        return GQ_OK;
    }
    if (config->per_ip_connection_limit <= config->connection_limit)
        return GQ_OK;
    /* Set on a layer below the one that lowered connection_limit (a file's
     * 512 under GPUQUOTE_CONNECTION_LIMIT=100), it follows the connection
     * limit down. Set on the same layer or above, the two contradict each
     * other. */
    struct source limit_src = ld->origin[KEY_CONNECTION_LIMIT];
    if (limit_src.label != NULL && src.layer < limit_src.layer) {
        config->per_ip_connection_limit = config->connection_limit;
        return GQ_OK;
    }
    return fail_value(ld, &keys[KEY_PER_IP_CONNECTION_LIMIT], src,
                      "%u is out of range 0..%u (connection_limit)",
                      config->per_ip_connection_limit, config->connection_limit);
}

bool config_listen_address(const char *listen, uint16_t port, struct sockaddr_storage *out)
{
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_PASSIVE, .ai_socktype = SOCK_STREAM};
    struct addrinfo *found = NULL;
    char service[8];
    snprintf(service, sizeof service, "%u", (unsigned)port);
    if (getaddrinfo(listen, service, &hints, &found) != 0 || found == NULL)
        return false;
    memset(out, 0, sizeof *out);
    memcpy(out, found->ai_addr, found->ai_addrlen);
    freeaddrinfo(found);
    return true;
}

/* The listen address is numeric (no name to resolve at start-up): checked
 * here, so that a typo is a configuration error (exit 2) found before the
 * database is touched. */
static enum gq_code check_listen_address(struct loader *ld)
{
    struct sockaddr_storage address;
    const char *listen = ld->config->listen;
    if (config_listen_address(listen, ld->config->port, &address))
        return GQ_OK;
    return fail_value(ld, &keys[KEY_LISTEN], ld->origin[KEY_LISTEN],
                      "'%s' is not a numeric IPv4 or IPv6 address", listen);
}

bool config_metrics_address(const char *text, struct sockaddr_storage *out)
{
    const char *colon = text != NULL ? strrchr(text, ':') : NULL;
    if (colon == NULL || colon == text || colon[1] == '\0')
        return false;
    char *end;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (*end != '\0' || port > 65535 || colon[1] < '0' || colon[1] > '9')
        return false;
    char host[INET6_ADDRSTRLEN + 16];
    size_t length = (size_t)(colon - text);
    bool bracketed = text[0] == '[' && colon[-1] == ']'; /* "[::1]:9464" */
    if (bracketed) {
        text++;
        length -= 2;
    }
    /* "::1:9464" could be read two ways: an IPv6 address goes in brackets. */
    if (length == 0 || length >= sizeof host || (!bracketed && memchr(text, ':', length) != NULL))
        return false;
    memcpy(host, text, length);
    host[length] = '\0';
    return config_listen_address(host, (uint16_t)port, out);
}

/* metrics_listen is ADDRESS:PORT: checked here, as listen is. */
static enum gq_code check_metrics_listen(struct loader *ld)
{
    struct sockaddr_storage address;
    const char *text = ld->config->metrics_listen;
    if (text == NULL || config_metrics_address(text, &address))
        return GQ_OK;
    return fail_value(ld, &keys[KEY_METRICS_LISTEN], ld->origin[KEY_METRICS_LISTEN],
                      "'%s' is not a numeric ADDRESS:PORT (127.0.0.1:9464, [::1]:9464)", text);
}

/* trusted_proxies holds addresses and prefixes only: a typo would
 * otherwise trust no proxy, or one too many. */
static enum gq_code check_trusted_proxies(struct loader *ld)
{
    struct address_prefix prefixes[ADDRESS_PREFIXES_MAX];
    size_t count;
    char bad[64];
    if (address_prefixes_parse(ld->config->trusted_proxies, prefixes, &count, bad, sizeof bad))
        return GQ_OK;
    return fail_value(ld, &keys[KEY_TRUSTED_PROXIES], ld->origin[KEY_TRUSTED_PROXIES],
                      "'%s' is not an address or a prefix (10.0.0.0/8), or more than %d are "
                      "given",
                      bad, ADDRESS_PREFIXES_MAX);
}

static enum gq_code load_sources(struct loader *ld, int argc, char **argv, char **envp)
{
    enum gq_code code = apply_defaults(ld);
    if (code == GQ_OK)
        code = scan_args(ld, argc, argv, false);
    if (code != GQ_OK || ld->command == CONFIG_COMMAND_HELP ||
        ld->command == CONFIG_COMMAND_VERSION)
        return code;
    const char *env_path = lookup_env(envp, "GPUQUOTE_CONFIG");
    if (ld->config_path != NULL)
        code = apply_file(ld, ld->config_path, "--config");
    else if (env_path != NULL)
        code = apply_file(ld, env_path, "GPUQUOTE_CONFIG");
    else
        code = apply_file(ld, CONFIG_DEFAULT_PATH, NULL);
    if (code == GQ_OK)
        code = apply_env(ld, envp);
    if (code == GQ_OK)
        code = scan_args(ld, argc, argv, true);
    if (code == GQ_OK)
        code = check_per_ip_limit(ld);
    if (code == GQ_OK)
        code = check_listen_address(ld);
    if (code == GQ_OK)
        code = check_trusted_proxies(ld);
    if (code == GQ_OK)
        code = check_metrics_listen(ld);
    return code;
}

/* Fills *out from defaults, the file, `envp` and `argv` (see config.h).
 * `command` and `err` may be NULL. On failure returns GQ_ERR_INVALID_VALUE
 * (or GQ_ERR_NO_MEMORY) with err filled; *out holds whatever was loaded so
 * far and must be released with config_free() in every case. On --help and
 * --version neither the file nor the environment is read. */
enum gq_code config_load(struct gq_config *out, enum config_command *command, int argc, char **argv,
                         char **envp, struct gq_error *err)
{
    assert(out != NULL);
    assert(argc == 0 || argv != NULL);
    memset(out, 0, sizeof *out);
    gq_error_clear(err);
    struct loader ld = {.config = out, .err = err, .command = CONFIG_COMMAND_SERVE};
    enum gq_code code = load_sources(&ld, argc, argv, envp);
    if (command != NULL)
        *command = ld.command;
    return code;
}

/* Releases every string of `config` and leaves it empty; safe on a config
 * that config_load() filled only in part, on a zeroed one, twice, and on
 * NULL. */
void config_free(struct gq_config *config)
{
    if (config == NULL)
        return;
    for (int id = 0; id < KEY_COUNT; id++) {
        if (keys[id].kind == KIND_STRING || keys[id].kind == KIND_OPTIONAL_STRING) {
            char **slot = field_of(config, &keys[id]);
            free(*slot);
            *slot = NULL;
        }
    }
    clear_list(config);
}

static void print_flags(FILE *stream)
{
    for (size_t i = 0; i < FLAG_COUNT; i++) {
        char usage[40];
        snprintf(usage, sizeof usage, "%s %s", flags[i].name, flags[i].metavar);
        if (flags[i].key == KEY_CONFIG)
            fprintf(stream, "  %-22s %s\n  %-22s %s\n", usage,
                    "configuration file (also GPUQUOTE_CONFIG); default", "",
                    CONFIG_DEFAULT_PATH " when it exists");
        else
            fprintf(stream, "  %-22s sets %s\n", usage, keys[flags[i].key].name);
    }
    fprintf(stream, "  %-22s %s\n", "-h, --help", "print this help and exit");
    fprintf(stream, "  %-22s %s\n", "-V, --version", "print the version and exit");
}

static void print_keys(FILE *stream)
{
    for (int id = 0; id < KEY_COUNT; id++) {
        const struct key_spec *key = &keys[id];
        const char *shown = key->default_text[0] != '\0' ? key->default_text
                            : key->kind == KIND_LIST     ? "(none)"
                                                         : "(unset)";
        fprintf(stream, "  %-27s %-37s %s\n      %s\n", key->name, key->env, shown, key->help);
    }
}

/* Writes the --help text to `stream`: the commands, every flag, and every
 * setting with its environment variable and default. */
void config_print_usage(FILE *stream)
{
    fputs("Usage: gpuquote [serve | migrate] [options]\n"
          "       gpuquote keys create|list|revoke ... [options]\n"
          "\n"
          "Commands:\n"
          "  serve                  apply pending migrations (when auto_migrate) and serve;\n"
          "                         the default\n"
          "  migrate                apply pending migrations and exit\n"
          "  keys                   make, list and revoke API keys ('gpuquote keys --help')\n"
          "\n"
          "Options (--flag VALUE or --flag=VALUE):\n",
          stream);
    print_flags(stream);
    fputs("\n"
          "Settings: the key in the configuration file, its environment variable and its\n"
          "default. Flags override the environment, which overrides the file, which\n"
          "overrides the defaults.\n"
          "\n"
          "  key                         environment variable                  default\n",
          stream);
    print_keys(stream);
}
