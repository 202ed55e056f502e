/*
 * Tests of config_load(): the defaults, each source overriding the one
 * before it (file < environment < flags), both flag forms, the commands, the
 * CORS list, and every error path with its exact one-line message and field.
 *
 * Each test runs in a fresh temporary directory (so a config/gpuquote.json
 * in the working tree never leaks in) and passes its environment as an
 * explicit array; the process environment is never touched.
 */
#include "util/config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARGS 8

static char temp_dir[] = "/tmp/gq-check-config-XXXXXX";
static char source_dir[PATH_MAX];
static int saved_cwd = -1;

/* ---- fixture and helpers -------------------------------------------- */

/* The tail of the message that refuses an origin. */
#define ORIGIN_RULE                                                                                \
    "\"*\" or scheme://host[:port] in lower case, the port 1..65535 and not the scheme's "         \
    "default, with no path (not even \"/\")"

static void enter_temp_dir(void)
{
    const char *from_env = getenv("GPUQUOTE_SOURCE_DIR");
    if (from_env != NULL)
        snprintf(source_dir, sizeof source_dir, "%s", from_env);
    else
        ck_assert_ptr_nonnull(getcwd(source_dir, sizeof source_dir));
    strcpy(temp_dir, "/tmp/gq-check-config-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(temp_dir));
    saved_cwd = open(".", O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(saved_cwd, 0);
    ck_assert_int_eq(chdir(temp_dir), 0);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void leave_temp_dir(void)
{
    ck_assert_int_eq(fchdir(saved_cwd), 0);
    close(saved_cwd);
    ck_assert_int_eq(nftw(temp_dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
}

static void write_file(const char *path, const char *text)
{
    if (strchr(path, '/') != NULL)
        ck_assert(mkdir("config", 0755) == 0 || errno == EEXIST);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    ck_assert_int_ge(fputs(text, file), 0);
    ck_assert_int_eq(fclose(file), 0);
}

static int count_args(char **argv)
{
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    return argc;
}

/* config_load() with a NULL-terminated argv; checks the error is cleared on
 * success. */
static enum gq_code load(struct gq_config *config, enum config_command *command, char **argv,
                         char **envp, struct gq_error *err)
{
    enum gq_code code = config_load(config, command, count_args(argv), argv, envp, err);
    if (code == GQ_OK) {
        ck_assert_int_eq(err->code, GQ_OK);
        ck_assert_str_eq(err->message, "");
    }
    return code;
}

static void assert_defaults(const struct gq_config *c)
{
    ck_assert_str_eq(c->listen, "127.0.0.1");
    ck_assert_uint_eq(c->port, 8080);
    ck_assert_str_eq(c->database, "data/gpuquote.db");
    ck_assert_str_eq(c->migrations_dir, "migrations");
    ck_assert(c->auto_migrate);
    ck_assert_uint_eq(c->threads, 2);
    ck_assert_uint_eq(c->connection_limit, 1024);
    ck_assert_uint_eq(c->per_ip_connection_limit, 256);
    ck_assert_uint_eq(c->connection_timeout_seconds, 30);
    ck_assert_uint_eq(c->request_timeout_seconds, 10);
    ck_assert_uint_eq(c->response_timeout_seconds, 60);
    ck_assert_uint_eq(c->shutdown_grace_seconds, 10);
    ck_assert_uint_eq(c->body_limit_bytes, 65536);
    ck_assert_int_eq(c->quote_expiry_seconds, 604800);
    ck_assert_int_eq(c->db_busy_timeout_ms, 2000);
    ck_assert(c->access_log);
    ck_assert_uint_eq(c->n_cors_origins, 0);
    ck_assert_ptr_null(c->cors_origins[0]);
    ck_assert_ptr_null(c->port_file);
    ck_assert_ptr_null(c->web_dir);
    ck_assert_ptr_null(c->metrics_listen);
    ck_assert_ptr_null(c->secrets_key_file);
    ck_assert_ptr_null(c->secrets_key);
    ck_assert(c->webhooks);
    ck_assert(!c->webhooks_allow_http);
    ck_assert(!c->webhooks_allow_private);
    ck_assert_uint_eq(c->webhook_retry_divisor, 1);
    ck_assert_int_eq(c->webhook_timeout_ms, 15000);
    ck_assert_int_eq(c->webhook_poll_ms, 1000);
    ck_assert_int_eq(c->event_retention_days, 30);
    ck_assert_int_eq(c->anonymous_quote_retention_days, 7);
}

/* Every key set away from its default, by the file and by the environment. */
static const char every_key_file[] =
    "{\"listen\": \"0.0.0.0\", \"port\": 9000, \"database\": \"/var/gq.db\",\n"
    " \"migrations_dir\": \"/usr/share/gq\", \"auto_migrate\": false, \"threads\": 8,\n"
    " \"connection_limit\": 4096, \"per_ip_connection_limit\": 0,\n"
    " \"connection_timeout_seconds\": 60, \"request_timeout_seconds\": 5,\n"
    " \"shutdown_grace_seconds\": 30,\n"
    " \"body_limit_bytes\": 1024, \"quote_expiry_seconds\": 60, \"db_busy_timeout_ms\": 0,\n"
    " \"access_log\": false, \"cors_origins\": [\"https://shop.example\", \"*\"],\n"
    " \"port_file\": \"run/port\"}\n";

static char *every_key_env[] = {"GPUQUOTE_LISTEN=0.0.0.0",
                                "GPUQUOTE_PORT=9000",
                                "GPUQUOTE_DATABASE=/var/gq.db",
                                "GPUQUOTE_MIGRATIONS_DIR=/usr/share/gq",
                                "GPUQUOTE_AUTO_MIGRATE=false",
                                "GPUQUOTE_THREADS=8",
                                "GPUQUOTE_CONNECTION_LIMIT=4096",
                                "GPUQUOTE_PER_IP_CONNECTION_LIMIT=0",
                                "GPUQUOTE_CONNECTION_TIMEOUT_SECONDS=60",
                                "GPUQUOTE_REQUEST_TIMEOUT_SECONDS=5",
                                "GPUQUOTE_SHUTDOWN_GRACE_SECONDS=30",
                                "GPUQUOTE_BODY_LIMIT_BYTES=1024",
                                "GPUQUOTE_QUOTE_EXPIRY_SECONDS=60",
                                "GPUQUOTE_DB_BUSY_TIMEOUT_MS=0",
                                "GPUQUOTE_ACCESS_LOG=0",
                                "GPUQUOTE_CORS_ORIGINS=https://shop.example, *",
                                "GPUQUOTE_PORT_FILE=run/port",
                                NULL};

static void assert_every_key_changed(const struct gq_config *c)
{
    ck_assert_str_eq(c->listen, "0.0.0.0");
    ck_assert_uint_eq(c->port, 9000);
    ck_assert_str_eq(c->database, "/var/gq.db");
    ck_assert_str_eq(c->migrations_dir, "/usr/share/gq");
    ck_assert(!c->auto_migrate);
    ck_assert_uint_eq(c->threads, 8);
    ck_assert_uint_eq(c->connection_limit, 4096);
    ck_assert_uint_eq(c->per_ip_connection_limit, 0);
    ck_assert_uint_eq(c->connection_timeout_seconds, 60);
    ck_assert_uint_eq(c->request_timeout_seconds, 5);
    ck_assert_uint_eq(c->shutdown_grace_seconds, 30);
    ck_assert_uint_eq(c->body_limit_bytes, 1024);
    ck_assert_int_eq(c->quote_expiry_seconds, 60);
    ck_assert_int_eq(c->db_busy_timeout_ms, 0);
    ck_assert(!c->access_log);
    ck_assert_uint_eq(c->n_cors_origins, 2);
    ck_assert_str_eq(c->cors_origins[0], "https://shop.example");
    ck_assert_str_eq(c->cors_origins[1], "*");
    ck_assert_str_eq(c->port_file, "run/port");
}

/* ---- sources and precedence ------------------------------------------ */

START_TEST(test_defaults_without_file)
{
    struct gq_config c;
    enum config_command command = CONFIG_COMMAND_HELP;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {NULL};
    ck_assert_int_eq(load(&c, &command, argv, envp, &err), GQ_OK);
    ck_assert_int_eq(command, CONFIG_COMMAND_SERVE);
    assert_defaults(&c);
    config_free(&c);
}
END_TEST

START_TEST(test_null_environment_and_empty_argv)
{
    struct gq_config c;
    enum config_command command;
    struct gq_error err;
    ck_assert_int_eq(config_load(&c, &command, 0, NULL, NULL, &err), GQ_OK);
    ck_assert_int_eq(command, CONFIG_COMMAND_SERVE);
    assert_defaults(&c);
    config_free(&c);
}
END_TEST

/* metrics_listen in the forms it takes; the address it names. */
/* After "keys", the server's flags still set their keys (in either form),
 * and the keys command is handed every word after "keys"; its own options
 * and their values are left alone, even a value that names a flag. */
START_TEST(test_keys_command_takes_the_server_flags)
{
    char *argv[] = {"gpuquote",       "keys",        "create",  "--name",
                    "--db as a name", "--db",        "keys.db", "--scope",
                    "quotes:read",    "--port=9000", NULL};
    char *envp[] = {NULL};
    struct gq_config c;
    enum config_command command;
    struct gq_error err;
    ck_assert_int_eq(load(&c, &command, argv, envp, &err), GQ_OK);
    ck_assert_int_eq(command, CONFIG_COMMAND_KEYS);
    ck_assert_str_eq(c.database, "keys.db");
    ck_assert_int_eq(c.port, 9000);
    ck_assert_int_eq(c.command_argc, 8);
    ck_assert_str_eq(c.command_argv[0], "create");
    ck_assert_int_eq(config_flag_words("--db"), 2);
    ck_assert_int_eq(config_flag_words("--db=x"), 1);
    ck_assert_int_eq(config_flag_words("--name"), 0);
    ck_assert_int_eq(config_flag_words("create"), 0);
    config_free(&c);
}
END_TEST

START_TEST(test_metrics_listen_forms)
{
    struct sockaddr_storage address;
    ck_assert(config_metrics_address("127.0.0.1:9464", &address));
    ck_assert_int_eq(address.ss_family, AF_INET);
    ck_assert_uint_eq(ntohs(((struct sockaddr_in *)&address)->sin_port), 9464);
    ck_assert(config_metrics_address("[::1]:0", &address));
    ck_assert_int_eq(address.ss_family, AF_INET6);
    ck_assert(config_metrics_address("0.0.0.0:65535", &address));
    ck_assert(!config_metrics_address("127.0.0.1:", &address));
    ck_assert(!config_metrics_address(":9464", &address));
    ck_assert(!config_metrics_address("127.0.0.1:+9", &address));
    ck_assert(!config_metrics_address("[::1:9464", &address));
    ck_assert(!config_metrics_address(NULL, &address));
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {"GPUQUOTE_METRICS_LISTEN=[::1]:9464", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_str_eq(c.metrics_listen, "[::1]:9464");
    config_free(&c);
}
END_TEST

START_TEST(test_shipped_file_holds_every_default)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/config/gpuquote.json", source_dir);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    ck_assert_msg(root != NULL, "%s: %s", path, jerr.text);
    ck_assert_uint_eq(json_object_size(root), 53);
    json_decref(root);

    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config", path, NULL};
    char *envp[] = {NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    assert_defaults(&c);
    config_free(&c);
}
END_TEST

/* The seller of the quotation's PDF: the sample file sets every member,
 * the environment wins over it, and unset members stay NULL. */
START_TEST(test_seller_from_sample_and_environment)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/config/seller.sample.json", source_dir);
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config", path, NULL};
    char *envp[] = {"GPUQUOTE_SELLER_PHONE=400-800-8888", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_str_eq(c.seller.name, "杭州云算科技有限公司");
    ck_assert_str_eq(c.seller.tax_id, "91330106MA27XK1Q3D");
    ck_assert_str_eq(c.seller.bank, "招商银行杭州分行");
    ck_assert_str_eq(c.seller.account, "5719 0312 3456 789");
    ck_assert_str_eq(c.seller.phone, "400-800-8888");
    config_free(&c);
    char *bare[] = {"gpuquote", NULL};
    char *none[] = {NULL};
    ck_assert_int_eq(load(&c, NULL, bare, none, &err), GQ_OK);
    ck_assert_ptr_null(c.seller.name);
    ck_assert_ptr_null(c.seller.account);
    config_free(&c);
}
END_TEST

START_TEST(test_default_file_is_read_when_present)
{
    write_file("config/gpuquote.json", "{\"port\": 9001, \"threads\": 3}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.port, 9001);
    ck_assert_uint_eq(c.threads, 3);
    ck_assert_str_eq(c.listen, "127.0.0.1");
    config_free(&c);
}
END_TEST

/* A null number in a file leaves the key unset: its default, or the share
 * an unset per_ip_connection_limit takes of connection_limit. */
START_TEST(test_null_in_a_file_is_the_default)
{
    write_file("gq.json", "{\"connection_limit\": 100, \"per_ip_connection_limit\": null, "
                          "\"threads\": null, \"metrics_listen\": null}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config", "gq.json", NULL};
    char *envp[] = {NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.connection_limit, 100);
    ck_assert_uint_eq(c.per_ip_connection_limit, 25);
    ck_assert(c.per_ip_connection_limit_is_share);
    ck_assert_uint_eq(c.threads, 2);
    ck_assert_ptr_null(c.metrics_listen);
    config_free(&c);
}
END_TEST

START_TEST(test_file_sets_every_key)
{
    write_file("gq.json", every_key_file);
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config", "gq.json", NULL};
    char *envp[] = {NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    assert_every_key_changed(&c);
    config_free(&c);
}
END_TEST

START_TEST(test_environment_sets_every_key)
{
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, every_key_env, &err), GQ_OK);
    assert_every_key_changed(&c);
    config_free(&c);
}
END_TEST

START_TEST(test_environment_overrides_file)
{
    write_file("gq.json", "{\"port\": 9000, \"threads\": 4, \"listen\": \"0.0.0.0\"}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {"GPUQUOTE_CONFIG=gq.json", "GPUQUOTE_PORT=9100", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.port, 9100);              /* environment */
    ck_assert_uint_eq(c.threads, 4);              /* file */
    ck_assert_str_eq(c.listen, "0.0.0.0");        /* file */
    ck_assert_uint_eq(c.body_limit_bytes, 65536); /* default */
    config_free(&c);
}
END_TEST

START_TEST(test_flags_override_environment)
{
    write_file("gq.json", "{\"port\": 9000, \"threads\": 4, \"database\": \"file.db\"}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config", "gq.json", "--port", "9200", NULL};
    char *envp[] = {"GPUQUOTE_PORT=9100", "GPUQUOTE_THREADS=6", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.port, 9200);                  /* flag */
    ck_assert_uint_eq(c.threads, 6);                  /* environment */
    ck_assert_str_eq(c.database, "file.db");          /* file */
    ck_assert_str_eq(c.migrations_dir, "migrations"); /* default */
    config_free(&c);
}
END_TEST

START_TEST(test_config_flag_beats_config_variable)
{
    write_file("flag.json", "{\"port\": 1}");
    write_file("env.json", "{\"port\": 2}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config=flag.json", NULL};
    char *envp[] = {"GPUQUOTE_CONFIG=env.json", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.port, 1);
    config_free(&c);
}
END_TEST

START_TEST(test_config_variable_beats_default_file)
{
    write_file("config/gpuquote.json", "{\"port\": 1}");
    write_file("env.json", "{\"port\": 2}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {"GPUQUOTE_CONFIG=env.json", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.port, 2);
    config_free(&c);
}
END_TEST

START_TEST(test_unrelated_variables_are_ignored)
{
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {"GPUQUOTE_BIN=/x/gpuquote", "GPUQUOTE_PORTS=1",   "PORT=1", "GPUQUOTE_PORT",
                    "GPUQUOTE_PORT=7000",       "GPUQUOTE_PORT=7001", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.port, 7000); /* the first, as getenv() would */
    config_free(&c);
}
END_TEST

/* Unknown GPUQUOTE_* variables are named, in order, for a warning; every
 * key's own variable, GPUQUOTE_CONFIG and other prefixes are not. */
START_TEST(test_unknown_variables_are_named)
{
    char *envp[] = {"GPUQUOTE_BIN=/x/gpuquote",
                    "GPUQUOTE_PORTS=1",
                    "PORT=1",
                    "GPUQUOTE_PORT",
                    "GPUQUOTE_CONFIG=c.json",
                    "GPUQUOTE_PROT=7000",
                    "gpuquote_port=1",
                    "GPUQUOTE_=1",
                    NULL};
    size_t position = 0;
    ck_assert_str_eq(config_next_unknown_variable(envp, &position), "GPUQUOTE_BIN=/x/gpuquote");
    ck_assert_str_eq(config_next_unknown_variable(envp, &position), "GPUQUOTE_PORTS=1");
    ck_assert_str_eq(config_next_unknown_variable(envp, &position), "GPUQUOTE_PROT=7000");
    ck_assert_str_eq(config_next_unknown_variable(envp, &position), "GPUQUOTE_=1");
    ck_assert_ptr_null(config_next_unknown_variable(envp, &position));
    ck_assert_ptr_null(config_next_unknown_variable(envp, &position));
    position = 0;
    ck_assert_ptr_null(config_next_unknown_variable(every_key_env, &position));
    position = 0;
    ck_assert_ptr_null(config_next_unknown_variable(NULL, &position));
}
END_TEST

/* Each flag in both forms sets its key. */
static const struct flag_case {
    const char *flag;
    const char *value;
} flag_cases[] = {
    {"--listen", "::1"}, {"--port", "0"},           {"--db", "/tmp/q.db"},
    {"--threads", "64"}, {"--migrations", "m/sql"}, {"--port-file", "/tmp/port"},
};

static const char *flag_target(const struct gq_config *c, size_t index, char number[32])
{
    switch (index) {
    case 0:
        return c->listen;
    case 1:
        snprintf(number, 32, "%u", (unsigned)c->port);
        return number;
    case 2:
        return c->database;
    case 3:
        snprintf(number, 32, "%u", c->threads);
        return number;
    case 4:
        return c->migrations_dir;
    default:
        return c->port_file;
    }
}

START_TEST(test_flag_forms)
{
    const struct flag_case *fc = &flag_cases[_i / 2];
    char joined[64];
    snprintf(joined, sizeof joined, "%s=%s", fc->flag, fc->value);
    char *separate[] = {"gpuquote", (char *)fc->flag, (char *)fc->value, NULL};
    char *equals[] = {"gpuquote", joined, NULL};
    char *envp[] = {NULL};
    struct gq_config c;
    struct gq_error err;
    ck_assert_int_eq(load(&c, NULL, _i % 2 ? equals : separate, envp, &err), GQ_OK);
    char number[32];
    ck_assert_str_eq(flag_target(&c, (size_t)_i / 2, number), fc->value);
    config_free(&c);
}
END_TEST

/* ---- commands ------------------------------------------------------- */

static const struct command_case {
    const char *argv[MAX_ARGS];
    enum config_command command;
} command_cases[] = {
    {{"gpuquote", NULL}, CONFIG_COMMAND_SERVE},
    {{"gpuquote", "serve", NULL}, CONFIG_COMMAND_SERVE},
    {{"gpuquote", "migrate", NULL}, CONFIG_COMMAND_MIGRATE},
    {{"gpuquote", "migrate", "--db", "x.db", NULL}, CONFIG_COMMAND_MIGRATE},
    {{"gpuquote", "--help", NULL}, CONFIG_COMMAND_HELP},
    {{"gpuquote", "-h", NULL}, CONFIG_COMMAND_HELP},
    {{"gpuquote", "migrate", "--port", "1", "-h", NULL}, CONFIG_COMMAND_HELP},
    {{"gpuquote", "--version", NULL}, CONFIG_COMMAND_VERSION},
    {{"gpuquote", "-V", NULL}, CONFIG_COMMAND_VERSION},
};

START_TEST(test_commands)
{
    const struct command_case *cc = &command_cases[_i];
    char *argv[MAX_ARGS] = {NULL};
    for (int i = 0; cc->argv[i] != NULL; i++)
        argv[i] = (char *)cc->argv[i];
    char *envp[] = {NULL};
    struct gq_config c;
    enum config_command command = (enum config_command)99; /* none of them */
    struct gq_error err;
    ck_assert_int_eq(load(&c, &command, argv, envp, &err), GQ_OK);
    ck_assert_int_eq(command, cc->command);
    config_free(&c);
}
END_TEST

START_TEST(test_help_ignores_a_broken_file_and_environment)
{
    write_file("config/gpuquote.json", "{ not json");
    struct gq_config c;
    enum config_command command;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--help", NULL};
    char *envp[] = {"GPUQUOTE_PORT=80x", NULL};
    ck_assert_int_eq(load(&c, &command, argv, envp, &err), GQ_OK);
    ck_assert_int_eq(command, CONFIG_COMMAND_HELP);
    assert_defaults(&c);
    config_free(&c);
}
END_TEST

/* ---- particular keys ------------------------------------------------- */

START_TEST(test_cors_origins_from_file)
{
    write_file("gq.json", "{\"cors_origins\": [\"https://a.example\", \"https://b.example\","
                          " \"http://localhost:3000\"]}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config", "gq.json", NULL};
    char *envp[] = {NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.n_cors_origins, 3);
    ck_assert_str_eq(c.cors_origins[0], "https://a.example");
    ck_assert_str_eq(c.cors_origins[1], "https://b.example");
    ck_assert_str_eq(c.cors_origins[2], "http://localhost:3000");
    ck_assert_ptr_null(c.cors_origins[3]);
    config_free(&c);
}
END_TEST

START_TEST(test_cors_origins_from_environment_replace_file)
{
    write_file("gq.json", "{\"cors_origins\": [\"https://a.example\", \"https://b.example\"]}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config", "gq.json", NULL};
    char *envp[] = {"GPUQUOTE_CORS_ORIGINS= https://c.example ,*", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.n_cors_origins, 2);
    ck_assert_str_eq(c.cors_origins[0], "https://c.example");
    ck_assert_str_eq(c.cors_origins[1], "*");
    ck_assert_ptr_null(c.cors_origins[2]);
    config_free(&c);
}
END_TEST

START_TEST(test_empty_cors_variable_clears_file_list)
{
    write_file("gq.json", "{\"cors_origins\": [\"https://a.example\"]}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config", "gq.json", NULL};
    char *envp[] = {"GPUQUOTE_CORS_ORIGINS=", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.n_cors_origins, 0);
    ck_assert_ptr_null(c.cors_origins[0]);
    config_free(&c);
}
END_TEST

/* Ports and IPv6 hosts are part of an origin. */
START_TEST(test_cors_origins_with_ports_and_ipv6_hosts)
{
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {"GPUQUOTE_CORS_ORIGINS=http://localhost:3000,https://[::1]:8443", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.n_cors_origins, 2);
    ck_assert_str_eq(c.cors_origins[0], "http://localhost:3000");
    ck_assert_str_eq(c.cors_origins[1], "https://[::1]:8443");
    config_free(&c);
}
END_TEST

/* Origins exactly as browsers send them (RFC 6454, 6.2), extensions' and
 * app shells' schemes included. */
static const char *const browser_origins[] = {
    "chrome-extension://abcdefghijklmnop",
    "moz-extension://2b8e0f4a-5c1d-4e7f-9a3b-6d2c1e0f8a7b",
    "capacitor://localhost",
    "tauri://localhost",
    "coap+tcp://a.example",
    "x.y-z://a.example",
    "http://a:1",
    "http://a:65535",
    "http://a:443",
    "https://a:80",
    "https://a.example.",
    "http://my_host.local:8080",
    "http://127.0.0.1:8080",
    "http://0.0.0.0",
    "http://255.255.255.255",
    "http://[2001:db8::1]",
    "http://[1:0:0:2::3]",
    "http://[1::2:0:0:3:4]",
    "http://[::]:9",
};

START_TEST(test_cors_origins_browsers_send)
{
    char variable[128];
    snprintf(variable, sizeof variable, "GPUQUOTE_CORS_ORIGINS=%s", browser_origins[_i]);
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {variable, NULL};
    ck_assert_msg(load(&c, NULL, argv, envp, &err) == GQ_OK, "%s: %s", browser_origins[_i],
                  err.message);
    ck_assert_uint_eq(c.n_cors_origins, 1);
    ck_assert_str_eq(c.cors_origins[0], browser_origins[_i]);
    config_free(&c);
}
END_TEST

/* What no browser sends in `Origin`: each would never match, so each is a
 * configuration error naming the key. */
static const char *const never_sent_origins[] = {
    /* Ports: none after ':', out of range, a leading zero, the default. */
    "http://a:",
    "http://a:99999",
    "http://a:65536",
    "http://a:0",
    "http://a:080",
    "http://a:80",
    "https://a:443",
    "ws://a:80",
    /* Schemes: upper case, a digit first, none, a character outside RFC 3986's. */
    "HTTP://a",
    "1http://a",
    "://a",
    "chrome_extension://a",
    /* Host names: none, an empty label, upper case, user info, a query. */
    "http://",
    "http://:8080",
    "http://a..b",
    "http://.a",
    "tauri://Localhost",
    "http://user@a",
    "http://a?",
    /* A last label that is a number makes an IPv4 address, which browsers
     * print as a dotted quad: http://1 is sent as http://0.0.0.1. */
    "http://1",
    "http://a.1",
    "http://127.1",
    "http://127.0.0.01",
    "http://256.0.0.1",
    "http://127.0.0.1.",
    /* IPv6: unclosed, trailing text, an empty port, and forms browsers never
     * print (they print [::1], [::ffff:102:304], [1:0:0:2::3], [1::2:0:0:3:4]). */
    "http://[::1",
    "http://[::1]x",
    "http://[::1]:",
    "http://[0:0:0:0:0:0:0:1]",
    "http://[::FFFF:1]",
    "http://[::ffff:1.2.3.4]",
    "http://[1::2:0:0:0:3]",
    "http://[1:0:0:2::3:4]",
    "http://[fe80::1%25eth0]",
    /* A path, even "/". */
    "chrome-extension://abcdefghijklmnop/",
};

START_TEST(test_cors_origins_browsers_never_send)
{
    const char *origin = never_sent_origins[_i];
    char variable[128], expected[512];
    snprintf(variable, sizeof variable, "GPUQUOTE_CORS_ORIGINS=%s", origin);
    snprintf(expected, sizeof expected,
             "GPUQUOTE_CORS_ORIGINS: '%s' is not an origin as browsers send it: " ORIGIN_RULE,
             origin);
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {variable, NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_str_eq(err.message, expected);
    ck_assert_str_eq(err.field, "cors_origins");
    config_free(&c);
}
END_TEST

START_TEST(test_sixteen_cors_origins_fit)
{
    char list[256] = "";
    for (int i = 0; i < CONFIG_MAX_CORS_ORIGINS; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%shttp://o%d", i ? "," : "", i);
    char variable[300];
    snprintf(variable, sizeof variable, "GPUQUOTE_CORS_ORIGINS=%s", list);
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {variable, NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.n_cors_origins, 16);
    ck_assert_str_eq(c.cors_origins[0], "http://o0");
    ck_assert_str_eq(c.cors_origins[15], "http://o15");
    config_free(&c);
}
END_TEST

START_TEST(test_port_file_unset_by_null_and_empty)
{
    write_file("gq.json", "{\"port_file\": null}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config", "gq.json", "--port-file", "p1", NULL};
    char *set_env[] = {NULL};
    ck_assert_int_eq(load(&c, NULL, argv, set_env, &err), GQ_OK);
    ck_assert_str_eq(c.port_file, "p1");
    config_free(&c);

    char *argv_file_only[] = {"gpuquote", "--config", "gq.json", NULL};
    char *unset_env[] = {"GPUQUOTE_PORT_FILE=", NULL};
    write_file("gq.json", "{\"port_file\": \"p2\"}");
    ck_assert_int_eq(load(&c, NULL, argv_file_only, set_env, &err), GQ_OK);
    ck_assert_str_eq(c.port_file, "p2");
    config_free(&c);
    ck_assert_int_eq(load(&c, NULL, argv_file_only, unset_env, &err), GQ_OK);
    ck_assert_ptr_null(c.port_file);
    config_free(&c);
}
END_TEST

static const struct bool_case {
    const char *text;
    bool value;
} bool_cases[] = {{"true", true}, {"1", true}, {"false", false}, {"0", false}};

START_TEST(test_boolean_variables)
{
    char auto_migrate[64], access_log[64];
    snprintf(auto_migrate, sizeof auto_migrate, "GPUQUOTE_AUTO_MIGRATE=%s", bool_cases[_i].text);
    snprintf(access_log, sizeof access_log, "GPUQUOTE_ACCESS_LOG=%s", bool_cases[_i].text);
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {auto_migrate, access_log, NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_int_eq(c.auto_migrate, bool_cases[_i].value);
    ck_assert_int_eq(c.access_log, bool_cases[_i].value);
    config_free(&c);
}
END_TEST

/* Unset, the per-IP limit is a quarter of the connection limit, whatever
 * that is (at least one); set, it is what was set. */
START_TEST(test_per_ip_default_is_a_share_of_connection_limit)
{
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *envp[] = {"GPUQUOTE_CONNECTION_LIMIT=100", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.connection_limit, 100);
    ck_assert_uint_eq(c.per_ip_connection_limit, 25);
    config_free(&c);

    char *larger[] = {"GPUQUOTE_CONNECTION_LIMIT=4096", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, larger, &err), GQ_OK);
    ck_assert_uint_eq(c.per_ip_connection_limit, 1024);
    config_free(&c);

    char *tiny[] = {"GPUQUOTE_CONNECTION_LIMIT=3", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, tiny, &err), GQ_OK);
    ck_assert_uint_eq(c.per_ip_connection_limit, 1);
    config_free(&c);

    char *set[] = {"GPUQUOTE_CONNECTION_LIMIT=4096", "GPUQUOTE_PER_IP_CONNECTION_LIMIT=4096", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, set, &err), GQ_OK);
    ck_assert_uint_eq(c.per_ip_connection_limit, 4096);
    config_free(&c);
}
END_TEST

/* A file that sets per_ip_connection_limit to 512: lowering
 * connection_limit in the environment takes the per-IP limit down with
 * it. */
START_TEST(test_per_ip_from_a_lower_layer_follows_connection_limit)
{
    write_file("gq.json", "{\"per_ip_connection_limit\": 512}");
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", "--config", "gq.json", NULL};
    char *envp[] = {"GPUQUOTE_CONNECTION_LIMIT=100", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_OK);
    ck_assert_uint_eq(c.connection_limit, 100);
    ck_assert_uint_eq(c.per_ip_connection_limit, 100);
    config_free(&c);

    /* Set on the layer that lowers the limit, or above it: a contradiction. */
    char *both[] = {"GPUQUOTE_CONNECTION_LIMIT=100", "GPUQUOTE_PER_IP_CONNECTION_LIMIT=200", NULL};
    char *plain[] = {"gpuquote", NULL};
    ck_assert_int_eq(load(&c, NULL, plain, both, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_str_eq(err.message, "GPUQUOTE_PER_IP_CONNECTION_LIMIT: 200 is out of range 0..100 "
                                  "(connection_limit)");
    config_free(&c);
}
END_TEST

START_TEST(test_range_bounds_are_accepted)
{
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    char *low[] = {"GPUQUOTE_PORT=0",
                   "GPUQUOTE_THREADS=1",
                   "GPUQUOTE_CONNECTION_LIMIT=1",
                   "GPUQUOTE_PER_IP_CONNECTION_LIMIT=0",
                   "GPUQUOTE_CONNECTION_TIMEOUT_SECONDS=1",
                   "GPUQUOTE_REQUEST_TIMEOUT_SECONDS=1",
                   "GPUQUOTE_SHUTDOWN_GRACE_SECONDS=1",
                   "GPUQUOTE_BODY_LIMIT_BYTES=1024",
                   "GPUQUOTE_QUOTE_EXPIRY_SECONDS=60",
                   "GPUQUOTE_DB_BUSY_TIMEOUT_MS=0",
                   "GPUQUOTE_EVENT_RETENTION_DAYS=1",
                   "GPUQUOTE_ANONYMOUS_QUOTE_RETENTION_DAYS=1",
                   NULL};
    ck_assert_int_eq(load(&c, NULL, argv, low, &err), GQ_OK);
    ck_assert_uint_eq(c.port, 0);
    ck_assert_uint_eq(c.threads, 1);
    ck_assert_uint_eq(c.connection_limit, 1);
    ck_assert_uint_eq(c.per_ip_connection_limit, 0);
    ck_assert_uint_eq(c.connection_timeout_seconds, 1);
    ck_assert_uint_eq(c.request_timeout_seconds, 1);
    ck_assert_uint_eq(c.shutdown_grace_seconds, 1);
    ck_assert_uint_eq(c.body_limit_bytes, 1024);
    ck_assert_int_eq(c.quote_expiry_seconds, 60);
    ck_assert_int_eq(c.db_busy_timeout_ms, 0);
    ck_assert_int_eq(c.event_retention_days, 1);
    ck_assert_int_eq(c.anonymous_quote_retention_days, 1);
    config_free(&c);

    char *high[] = {"GPUQUOTE_PORT=65535",
                    "GPUQUOTE_THREADS=64",
                    "GPUQUOTE_CONNECTION_LIMIT=100000",
                    "GPUQUOTE_PER_IP_CONNECTION_LIMIT=100000",
                    "GPUQUOTE_CONNECTION_TIMEOUT_SECONDS=3600",
                    "GPUQUOTE_REQUEST_TIMEOUT_SECONDS=3600",
                    "GPUQUOTE_SHUTDOWN_GRACE_SECONDS=600",
                    "GPUQUOTE_BODY_LIMIT_BYTES=16777216",
                    "GPUQUOTE_QUOTE_EXPIRY_SECONDS=31536000",
                    "GPUQUOTE_DB_BUSY_TIMEOUT_MS=60000",
                    "GPUQUOTE_EVENT_RETENTION_DAYS=3650",
                    "GPUQUOTE_ANONYMOUS_QUOTE_RETENTION_DAYS=3650",
                    NULL};
    ck_assert_int_eq(load(&c, NULL, argv, high, &err), GQ_OK);
    ck_assert_uint_eq(c.port, 65535);
    ck_assert_uint_eq(c.threads, 64);
    ck_assert_uint_eq(c.connection_limit, 100000);
    ck_assert_uint_eq(c.per_ip_connection_limit, 100000);
    ck_assert_uint_eq(c.connection_timeout_seconds, 3600);
    ck_assert_uint_eq(c.request_timeout_seconds, 3600);
    ck_assert_uint_eq(c.shutdown_grace_seconds, 600);
    ck_assert_uint_eq(c.body_limit_bytes, 16777216);
    ck_assert_int_eq(c.quote_expiry_seconds, 31536000);
    ck_assert_int_eq(c.db_busy_timeout_ms, 60000);
    ck_assert_int_eq(c.event_retention_days, 3650);
    ck_assert_int_eq(c.anonymous_quote_retention_days, 3650);
    config_free(&c);
}
END_TEST

/* ---- errors --------------------------------------------------------- */

/* `file`, when set, is written to `file_name` ("gq.json" unless given);
 * the message and field are exact. */
static const struct error_case {
    const char *file;
    const char *file_name;
    const char *argv[MAX_ARGS];
    const char *envp[4];
    const char *field;
    const char *message;
} error_cases[] = {
    /* The file as a whole. */
    {"{\"port\": 80,}\n",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "config",
     "gq.json:1:13: string or '}' expected near '}'"},
    {"{\"port\": 80",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "config",
     "gq.json:1:11: '}' expected near end of file"},
    {"{\"port\": 1, \"port\": 2}\n",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "config",
     "gq.json:1:18: duplicate object key near '\"port\"'"},
    {"[]",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "config",
     "gq.json: expected a JSON object, got an array"},
    {"{\"port\": 1}",
     NULL,
     {"--config", "nope.json"},
     {NULL},
     "config",
     "--config: nope.json: No such file or directory"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_CONFIG=nope.json"},
     "config",
     "GPUQUOTE_CONFIG: nope.json: No such file or directory"},
    {"{\"port\": 70000}",
     "config/gpuquote.json",
     {NULL},
     {NULL},
     "port",
     "config/gpuquote.json: port: 70000 is out of range 0..65535"},
    /* Keys and types in the file. */
    {"{\"prot\": 80}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "prot",
     "gq.json: unknown key \"prot\""},
    {"{\"port\": \"80\"}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "port",
     "gq.json: port: expected an integer, got a string"},
    {"{\"threads\": 2.5}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "threads",
     "gq.json: threads: expected an integer, got a real number"},
    {"{\"access_log\": \"yes\"}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "access_log",
     "gq.json: access_log: expected true or false, got a string"},
    {"{\"listen\": 80}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "listen",
     "gq.json: listen: expected a string, got an integer"},
    {"{\"database\": \"\"}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "database",
     "gq.json: database: must not be empty"},
    {"{\"migrations_dir\": null}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "migrations_dir",
     "gq.json: migrations_dir: expected a string, got null"},
    {"{\"port_file\": false}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "port_file",
     "gq.json: port_file: expected a string or null, got a boolean"},
    {"{\"cors_origins\": \"*\"}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "cors_origins",
     "gq.json: cors_origins: expected an array of strings, got a string"},
    {"{\"cors_origins\": [\"https://a.example\", 1]}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "cors_origins",
     "gq.json: cors_origins: expected an array of strings, got an integer"},
    {"{\"cors_origins\": [\"https://a.example\", \"\"]}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "cors_origins",
     "gq.json: cors_origins: an origin is empty"},
    {"{\"cors_origins\": [\"http://o1\",\"http://o2\",\"http://o3\",\"http://o4\","
     "\"http://o5\",\"http://o6\",\"http://o7\",\"http://o8\",\"http://o9\",\"http://o10\","
     "\"http://o11\",\"http://o12\",\"http://o13\",\"http://o14\",\"http://o15\","
     "\"http://o16\",\"http://o17\"]}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "cors_origins",
     "gq.json: cors_origins: more than 16 origins"},
    /* Origins a browser never sends: they would never match. */
    {"{\"cors_origins\": [\"https://a.example/\"]}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "cors_origins",
     "gq.json: cors_origins: 'https://a.example/' is not an origin as browsers send "
     "it: " ORIGIN_RULE},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_CORS_ORIGINS=https://shop.example,a.example"},
     "cors_origins",
     "GPUQUOTE_CORS_ORIGINS: 'a.example' is not an origin as browsers send it: " ORIGIN_RULE},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_CORS_ORIGINS=https://Shop.example"},
     "cors_origins",
     "GPUQUOTE_CORS_ORIGINS: 'https://Shop.example' is not an origin as browsers send "
     "it: " ORIGIN_RULE},
    /* Ranges in the file, at each bound. */
    {"{\"port\": -1}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "port",
     "gq.json: port: -1 is out of range 0..65535"},
    {"{\"threads\": 0}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "threads",
     "gq.json: threads: 0 is out of range 1..64"},
    {"{\"threads\": 65}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "threads",
     "gq.json: threads: 65 is out of range 1..64"},
    {"{\"connection_limit\": 0}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "connection_limit",
     "gq.json: connection_limit: 0 is out of range 1..100000"},
    {"{\"connection_limit\": 100001}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "connection_limit",
     "gq.json: connection_limit: 100001 is out of range 1..100000"},
    {"{\"per_ip_connection_limit\": -1}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "per_ip_connection_limit",
     "gq.json: per_ip_connection_limit: -1 is out of range 0..100000"},
    {"{\"connection_limit\": 100, \"per_ip_connection_limit\": 200}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "per_ip_connection_limit",
     "gq.json: per_ip_connection_limit: 200 is out of range 0..100 (connection_limit)"},
    {"{\"connection_timeout_seconds\": 0}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "connection_timeout_seconds",
     "gq.json: connection_timeout_seconds: 0 is out of range 1..3600"},
    {"{\"request_timeout_seconds\": 3601}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "request_timeout_seconds",
     "gq.json: request_timeout_seconds: 3601 is out of range 1..3600"},
    {"{\"shutdown_grace_seconds\": 0}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "shutdown_grace_seconds",
     "gq.json: shutdown_grace_seconds: 0 is out of range 1..600"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_SHUTDOWN_GRACE_SECONDS=601"},
     "shutdown_grace_seconds",
     "GPUQUOTE_SHUTDOWN_GRACE_SECONDS: 601 is out of range 1..600"},
    {"{\"body_limit_bytes\": 1023}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "body_limit_bytes",
     "gq.json: body_limit_bytes: 1023 is out of range 1024..16777216"},
    {"{\"body_limit_bytes\": 16777217}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "body_limit_bytes",
     "gq.json: body_limit_bytes: 16777217 is out of range 1024..16777216"},
    {"{\"quote_expiry_seconds\": 59}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "quote_expiry_seconds",
     "gq.json: quote_expiry_seconds: 59 is out of range 60..31536000"},
    {"{\"quote_expiry_seconds\": 31536001}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "quote_expiry_seconds",
     "gq.json: quote_expiry_seconds: 31536001 is out of range 60..31536000"},
    {"{\"db_busy_timeout_ms\": 60001}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "db_busy_timeout_ms",
     "gq.json: db_busy_timeout_ms: 60001 is out of range 0..60000"},
    {"{\"event_retention_days\": 0}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "event_retention_days",
     "gq.json: event_retention_days: 0 is out of range 1..3650"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_EVENT_RETENTION_DAYS=3651"},
     "event_retention_days",
     "GPUQUOTE_EVENT_RETENTION_DAYS: 3651 is out of range 1..3650"},
    {"{\"anonymous_quote_retention_days\": 0}",
     NULL,
     {"--config", "gq.json"},
     {NULL},
     "anonymous_quote_retention_days",
     "gq.json: anonymous_quote_retention_days: 0 is out of range 1..3650"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_ANONYMOUS_QUOTE_RETENTION_DAYS=3651"},
     "anonymous_quote_retention_days",
     "GPUQUOTE_ANONYMOUS_QUOTE_RETENTION_DAYS: 3651 is out of range 1..3650"},
    /* The environment. */
    {NULL, NULL, {NULL}, {"GPUQUOTE_PORT=80x"}, "port", "GPUQUOTE_PORT: \"80x\" is not an integer"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_THREADS="},
     "threads",
     "GPUQUOTE_THREADS: \"\" is not an integer"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_THREADS= 8"},
     "threads",
     "GPUQUOTE_THREADS: \" 8\" is not an integer"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_THREADS=+8"},
     "threads",
     "GPUQUOTE_THREADS: \"+8\" is not an integer"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_PORT=0x50"},
     "port",
     "GPUQUOTE_PORT: \"0x50\" is not an integer"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_PORT=8\n0"},
     "port",
     "GPUQUOTE_PORT: \"8?0\" is not an integer"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_PORT=99999999999999999999"},
     "port",
     "GPUQUOTE_PORT: 99999999999999999999 is out of range 0..65535"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_THREADS=65"},
     "threads",
     "GPUQUOTE_THREADS: 65 is out of range 1..64"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_ACCESS_LOG=yes"},
     "access_log",
     "GPUQUOTE_ACCESS_LOG: \"yes\" is not a boolean (true, false, 1 or 0)"},
    {NULL, NULL, {NULL}, {"GPUQUOTE_LISTEN="}, "listen", "GPUQUOTE_LISTEN: must not be empty"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_CORS_ORIGINS=https://a.example,,https://b.example"},
     "cors_origins",
     "GPUQUOTE_CORS_ORIGINS: an origin is empty"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_CORS_ORIGINS=https://a.example,"},
     "cors_origins",
     "GPUQUOTE_CORS_ORIGINS: an origin is empty"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_PER_IP_CONNECTION_LIMIT=2000"},
     "per_ip_connection_limit",
     "GPUQUOTE_PER_IP_CONNECTION_LIMIT: 2000 is out of range 0..1024 (connection_limit)"},
    /* Flags. */
    {NULL, NULL, {"--threads", "0"}, {NULL}, "threads", "--threads: 0 is out of range 1..64"},
    {NULL, NULL, {"--port=80x"}, {NULL}, "port", "--port: \"80x\" is not an integer"},
    {NULL, NULL, {"--port", "-1"}, {NULL}, "port", "--port: -1 is out of range 0..65535"},
    {NULL, NULL, {"--listen="}, {NULL}, "listen", "--listen: must not be empty"},
    {NULL,
     NULL,
     {"--listen", "nope"},
     {NULL},
     "listen",
     "--listen: 'nope' is not a numeric IPv4 or IPv6 address"},
    {NULL,
     NULL,
     {"--listen", "localhost"},
     {NULL},
     "listen",
     "--listen: 'localhost' is not a numeric IPv4 or IPv6 address"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_LISTEN=127.0.0.256"},
     "listen",
     "GPUQUOTE_LISTEN: '127.0.0.256' is not a numeric IPv4 or IPv6 address"},
    {NULL, NULL, {"--frobnicate"}, {NULL}, "", "unknown option --frobnicate"},
    {NULL, NULL, {"--frobnicate=1"}, {NULL}, "", "unknown option --frobnicate"},
    {NULL, NULL, {"-x"}, {NULL}, "", "unknown option -x"},
    {NULL, NULL, {"--port"}, {NULL}, "port", "--port: missing value"},
    {NULL, NULL, {"--db", "--port", "1"}, {NULL}, "database", "--db: missing value"},
    {NULL, NULL, {"--threads", "-h"}, {NULL}, "threads", "--threads: missing value"},
    {NULL, NULL, {"--config"}, {NULL}, "config", "--config: missing value"},
    {NULL, NULL, {"frob"}, {NULL}, "", "unknown command \"frob\" (serve, migrate or keys)"},
    {NULL, NULL, {"migrate", "serve"}, {NULL}, "", "unexpected argument \"serve\""},
    {NULL, NULL, {"--port", "1", "migrate"}, {NULL}, "", "unexpected argument \"migrate\""},
    /* The flag's error comes first; the flag wins over the variable. */
    {NULL, NULL, {"--frobnicate"}, {"GPUQUOTE_PORT=80x"}, "", "unknown option --frobnicate"},
    {NULL,
     NULL,
     {"--port", "70000"},
     {"GPUQUOTE_PORT=1"},
     "port",
     "--port: 70000 is out of range 0..65535"},
    /* metrics_listen: a numeric ADDRESS:PORT. */
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_METRICS_LISTEN=9464"},
     "metrics_listen",
     "GPUQUOTE_METRICS_LISTEN: '9464' is not a numeric ADDRESS:PORT (127.0.0.1:9464, [::1]:9464)"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_METRICS_LISTEN=localhost:9464"},
     "metrics_listen",
     "GPUQUOTE_METRICS_LISTEN: 'localhost:9464' is not a numeric ADDRESS:PORT (127.0.0.1:9464, "
     "[::1]:9464)"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_METRICS_LISTEN=127.0.0.1:70000"},
     "metrics_listen",
     "GPUQUOTE_METRICS_LISTEN: '127.0.0.1:70000' is not a numeric ADDRESS:PORT (127.0.0.1:9464, "
     "[::1]:9464)"},
    {NULL,
     NULL,
     {NULL},
     {"GPUQUOTE_METRICS_LISTEN=::1:9464"},
     "metrics_listen",
     "GPUQUOTE_METRICS_LISTEN: '::1:9464' is not a numeric ADDRESS:PORT (127.0.0.1:9464, "
     "[::1]:9464)"},
};

#define N_ERROR_CASES ((int)(sizeof error_cases / sizeof error_cases[0]))

START_TEST(test_errors)
{
    const struct error_case *ec = &error_cases[_i];
    if (ec->file != NULL)
        write_file(ec->file_name ? ec->file_name : "gq.json", ec->file);
    char *argv[MAX_ARGS + 1] = {"gpuquote"};
    for (int i = 0; i < MAX_ARGS && ec->argv[i] != NULL; i++)
        argv[i + 1] = (char *)ec->argv[i];
    char *envp[5] = {NULL};
    for (int i = 0; i < 4 && ec->envp[i] != NULL; i++)
        envp[i] = (char *)ec->envp[i];
    struct gq_config c;
    struct gq_error err;
    ck_assert_int_eq(load(&c, NULL, argv, envp, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_int_eq(err.code, GQ_ERR_INVALID_VALUE);
    ck_assert_str_eq(err.message, ec->message);
    ck_assert_str_eq(err.field, ec->field);
    config_free(&c);
    ck_assert_ptr_null(c.listen);
    ck_assert_uint_eq(c.n_cors_origins, 0);
}
END_TEST

START_TEST(test_free_is_safe_twice_and_on_zero)
{
    struct gq_config zero = {0};
    config_free(&zero);
    config_free(NULL);
    struct gq_config c;
    struct gq_error err;
    char *argv[] = {"gpuquote", NULL};
    ck_assert_int_eq(load(&c, NULL, argv, every_key_env, &err), GQ_OK);
    config_free(&c);
    config_free(&c);
    ck_assert_ptr_null(c.database);
    ck_assert_ptr_null(c.port_file);
    ck_assert_ptr_null(c.cors_origins[0]);
}
END_TEST

START_TEST(test_error_without_error_struct)
{
    struct gq_config c;
    char *argv[] = {"gpuquote", "--threads", "0", NULL};
    char *envp[] = {NULL};
    ck_assert_int_eq(config_load(&c, NULL, 3, argv, envp, NULL), GQ_ERR_INVALID_VALUE);
    config_free(&c);
}
END_TEST

/* ---- usage ---------------------------------------------------------- */

START_TEST(test_usage_lists_every_flag_variable_and_default)
{
    char *text = NULL;
    size_t length = 0;
    FILE *stream = open_memstream(&text, &length);
    ck_assert_ptr_nonnull(stream);
    config_print_usage(stream);
    ck_assert_int_eq(fclose(stream), 0);
    static const char *const expected[] = {
        "Usage: gpuquote [serve | migrate] [options]\n",
        ("  --config PATH          configuration file (also GPUQUOTE_CONFIG); default\n"
         "                         config/gpuquote.json when it exists\n"),
        "  --listen ADDR          sets listen\n",
        "  --port N               sets port\n",
        "  --db PATH              sets database\n",
        "  --threads N            sets threads\n",
        "  --migrations DIR       sets migrations_dir\n",
        "  --port-file PATH       sets port_file\n",
        "  -h, --help             print this help and exit\n",
        "  -V, --version          print the version and exit\n",
        "  listen                      GPUQUOTE_LISTEN                       127.0.0.1\n",
        "  port                        GPUQUOTE_PORT                         8080\n",
        "  database                    GPUQUOTE_DATABASE                     data/gpuquote.db\n",
        "  migrations_dir              GPUQUOTE_MIGRATIONS_DIR               migrations\n",
        "  auto_migrate                GPUQUOTE_AUTO_MIGRATE                 true\n",
        "  threads                     GPUQUOTE_THREADS                      2\n",
        "  connection_limit            GPUQUOTE_CONNECTION_LIMIT             1024\n",
        "  per_ip_connection_limit     GPUQUOTE_PER_IP_CONNECTION_LIMIT      256\n",
        "  connection_timeout_seconds  GPUQUOTE_CONNECTION_TIMEOUT_SECONDS   30\n",
        "  request_timeout_seconds     GPUQUOTE_REQUEST_TIMEOUT_SECONDS      10\n",
        "  shutdown_grace_seconds      GPUQUOTE_SHUTDOWN_GRACE_SECONDS       10\n",
        "  body_limit_bytes            GPUQUOTE_BODY_LIMIT_BYTES             65536\n",
        "  quote_expiry_seconds        GPUQUOTE_QUOTE_EXPIRY_SECONDS         604800\n",
        "  db_busy_timeout_ms          GPUQUOTE_DB_BUSY_TIMEOUT_MS           2000\n",
        "  access_log                  GPUQUOTE_ACCESS_LOG                   true\n",
        "  cors_origins                GPUQUOTE_CORS_ORIGINS                 (none)\n",
        "  port_file                   GPUQUOTE_PORT_FILE                    (unset)\n",
        "  web_dir                     GPUQUOTE_WEB_DIR                      (unset)\n",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        ck_assert_msg(strstr(text, expected[i]) != NULL, "usage lacks \"%s\"", expected[i]);
    free(text);
}
END_TEST

static Suite *config_suite(void)
{
    Suite *suite = suite_create("config");

    TCase *sources = tcase_create("sources");
    tcase_add_checked_fixture(sources, enter_temp_dir, leave_temp_dir);
    tcase_add_test(sources, test_defaults_without_file);
    tcase_add_test(sources, test_null_environment_and_empty_argv);
    tcase_add_test(sources, test_keys_command_takes_the_server_flags);
    tcase_add_test(sources, test_shipped_file_holds_every_default);
    tcase_add_test(sources, test_seller_from_sample_and_environment);
    tcase_add_test(sources, test_default_file_is_read_when_present);
    tcase_add_test(sources, test_null_in_a_file_is_the_default);
    tcase_add_test(sources, test_file_sets_every_key);
    tcase_add_test(sources, test_environment_sets_every_key);
    tcase_add_test(sources, test_environment_overrides_file);
    tcase_add_test(sources, test_flags_override_environment);
    tcase_add_test(sources, test_config_flag_beats_config_variable);
    tcase_add_test(sources, test_config_variable_beats_default_file);
    tcase_add_test(sources, test_unrelated_variables_are_ignored);
    tcase_add_test(sources, test_unknown_variables_are_named);
    tcase_add_loop_test(sources, test_flag_forms, 0,
                        (int)(2 * sizeof flag_cases / sizeof flag_cases[0]));
    suite_add_tcase(suite, sources);

    TCase *commands = tcase_create("commands");
    tcase_add_checked_fixture(commands, enter_temp_dir, leave_temp_dir);
    tcase_add_loop_test(commands, test_commands, 0,
                        (int)(sizeof command_cases / sizeof command_cases[0]));
    tcase_add_test(commands, test_help_ignores_a_broken_file_and_environment);
    tcase_add_test(commands, test_usage_lists_every_flag_variable_and_default);
    suite_add_tcase(suite, commands);

    TCase *keys = tcase_create("keys");
    tcase_add_checked_fixture(keys, enter_temp_dir, leave_temp_dir);
    tcase_add_test(keys, test_cors_origins_from_file);
    tcase_add_test(keys, test_cors_origins_from_environment_replace_file);
    tcase_add_test(keys, test_empty_cors_variable_clears_file_list);
    tcase_add_test(keys, test_sixteen_cors_origins_fit);
    tcase_add_test(keys, test_cors_origins_with_ports_and_ipv6_hosts);
    tcase_add_loop_test(keys, test_cors_origins_browsers_send, 0,
                        (int)(sizeof browser_origins / sizeof browser_origins[0]));
    tcase_add_loop_test(keys, test_cors_origins_browsers_never_send, 0,
                        (int)(sizeof never_sent_origins / sizeof never_sent_origins[0]));
    tcase_add_test(keys, test_port_file_unset_by_null_and_empty);
    tcase_add_loop_test(keys, test_boolean_variables, 0,
                        (int)(sizeof bool_cases / sizeof bool_cases[0]));
    tcase_add_test(keys, test_per_ip_default_is_a_share_of_connection_limit);
    tcase_add_test(keys, test_per_ip_from_a_lower_layer_follows_connection_limit);
    tcase_add_test(keys, test_range_bounds_are_accepted);
    tcase_add_test(keys, test_free_is_safe_twice_and_on_zero);
    suite_add_tcase(suite, keys);

    TCase *errors = tcase_create("errors");
    tcase_add_checked_fixture(errors, enter_temp_dir, leave_temp_dir);
    tcase_add_loop_test(errors, test_errors, 0, N_ERROR_CASES);
    tcase_add_test(errors, test_metrics_listen_forms);
    tcase_add_test(errors, test_error_without_error_struct);
    suite_add_tcase(suite, errors);

    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(config_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
