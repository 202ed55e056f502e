/*
 * API keys from the command line (keys.h). A key made here is audited like
 * one made through the API, with "command line" as its client and no key
 * as its author. The secret is printed once, on standard output, and never
 * stored.
 */
#include "cli/keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec/key_json.h"
#include "store/store.h"
#include "util/api_key.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/log.h"
#include "util/utf8.h"

/* Room for a key's name with every byte escaped ("\\x1b": four bytes). */
#define NAME_PRINT_SIZE (4 * 100 + 1)

static void usage(FILE *stream)
{
    char scopes[160];
    api_scopes_format(SCOPE_ALL, scopes, sizeof scopes);
    fprintf(stream,
            "usage: gpuquote keys create --name NAME --scope SCOPE [--scope SCOPE ...]\n"
            "       gpuquote keys list\n"
            "       gpuquote keys revoke KEY_ID\n"
            "the server's options work here too (--db PATH, --config PATH, ...)\n"
            "scopes: %s\n",
            scopes);
}

static int fail_usage(const char *why)
{
    fprintf(stderr, "gpuquote: error: %s\n", why);
    usage(stderr);
    return 2;
}

/* The words of the keys command, the server's flags left out (config.c
 * has applied them), in `words`, which holds `argc` entries. An option of
 * the keys command keeps its value, whatever the value looks like, as
 * config.c reads them. */
static int own_words(int argc, char **argv, char **words)
{
    int count = 0;
    for (int i = 0; i < argc; i++) {
        int skip = config_flag_words(argv[i]);
        if (skip > 0) {
            i += skip - 1;
            continue;
        }
        words[count++] = argv[i];
        if (strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i], "--help") != 0 && i + 1 < argc)
            words[count++] = argv[++i];
    }
    return count;
}

/* Reads `create`'s options into *name and *scopes; -1 when they are good,
 * else the exit status after saying why. */
static int parse_create(int argc, char **argv, const char **name, unsigned *scopes)
{
    *name = NULL;
    *scopes = SCOPE_NONE;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            return fail_usage("an option lacks its value");
        if (strcmp(argv[i], "--name") == 0) {
            *name = argv[++i];
        } else if (strcmp(argv[i], "--scope") == 0) {
            unsigned more;
            char bad[32] = "";
            const char *text = argv[++i];
            if (!api_scopes_parse(text, &more, bad, sizeof bad) || more == SCOPE_NONE) {
                char why[96];
                snprintf(why, sizeof why, "--scope: '%.40s' is not a scope",
                         bad[0] != '\0' ? bad : text);
                return fail_usage(why);
            }
            *scopes |= more;
        } else {
            return fail_usage("unknown option");
        }
    }
    if (*name == NULL || (*name)[0] == '\0' || strlen(*name) > 100)
        return fail_usage("--name NAME (1 to 100 bytes) is required");
    size_t offset;
    uint32_t control;
    if (utf8_find_control(*name, &offset, &control))
        return fail_usage("--name must not contain control or bidirectional formatting characters");
    if (*scopes == SCOPE_NONE)
        return fail_usage("at least one --scope is required");
    return -1;
}

/* Creates the key and its audit line; prints the secret to `out`. */
static enum gq_code create_key(struct store *store, const char *name, unsigned scopes,
                               const char *client, struct stored_key *key,
                               char secret[API_KEY_SIZE], struct gq_error *err)
{
    enum gq_code code = store_key_new(name, scopes, clock_now_seconds(), key, secret, err);
    if (code != GQ_OK)
        return code;
    char *change = key_json_change(NULL, key);
    struct audit_entry audit = {.client = client,
                                .action = "key.create",
                                .target = key->id,
                                .change = change != NULL ? change : "{}"};
    code = store_key_create(store, key, &audit, err);
    free(change);
    return code;
}

static int run_create(struct store *store, int argc, char **argv)
{
    const char *name;
    unsigned scopes;
    int refused = parse_create(argc, argv, &name, &scopes);
    if (refused >= 0)
        return refused;
    struct stored_key key;
    char secret[API_KEY_SIZE];
    struct gq_error err;
    if (create_key(store, name, scopes, "command line", &key, secret, &err) != GQ_OK) {
        log_error("%s", err.message);
        return 1;
    }
    char text[160], shown[NAME_PRINT_SIZE];
    printf("%s\n", secret);
    fprintf(stderr, "gpuquote: created %s (%s), scopes %s; the key above is shown only now\n",
            key.id, utf8_escape_controls(key.name, shown, sizeof shown),
            api_scopes_format(key.scopes, text, sizeof text));
    memset(secret, 0, sizeof secret);
    return 0;
}

static int run_list(struct store *store)
{
    struct key_list list = {0};
    struct gq_error err;
    if (store_keys_read(store, true, &list, &err) != GQ_OK) {
        log_error("%s", err.message);
        return 1;
    }
    printf("%-36s %-12s %-20s %-20s %-20s %-36s %s\n", "ID", "PREFIX", "CREATED", "LAST USED",
           "REVOKED", "CUSTOMER", "NAME / SCOPES");
    for (size_t i = 0; i < list.count; i++) {
        const struct stored_key *key = &list.items[i];
        char created[CLOCK_RFC3339_SIZE], used[CLOCK_RFC3339_SIZE], revoked[CLOCK_RFC3339_SIZE];
        char scopes[160], name[NAME_PRINT_SIZE];
        /* A name stored before names were checked may hold anything: it is
         * shown escaped, never obeyed by the terminal. */
        printf("%-36s %-12s %-20s %-20s %-20s %-36s %s / %s\n", key->id, key->prefix,
               clock_format_rfc3339(key->created_at, created),
               key->last_used_at ? clock_format_rfc3339(key->last_used_at, used) : "-",
               key->revoked_at ? clock_format_rfc3339(key->revoked_at, revoked) : "-",
               key->customer_id[0] != '\0' ? key->customer_id : "-",
               utf8_escape_controls(key->name, name, sizeof name),
               api_scopes_format(key->scopes, scopes, sizeof scopes));
    }
    store_key_list_free(&list);
    return 0;
}

/* Revokes the key `id` (check_words() has seen it is the one word after
 * "revoke"). */
static int run_revoke(struct store *store, const char *id)
{
    struct stored_key before, after;
    struct gq_error err;
    if (store_key_get(store, id, &before, &err) != GQ_OK) {
        log_error("%s", err.message);
        return 1;
    }
    after = before;
    int64_t now = clock_now_seconds();
    after.revoked_at = before.revoked_at ? before.revoked_at : now;
    char *change = key_json_change(&before, &after);
    struct audit_entry audit = {.client = "command line",
                                .action = "key.revoke",
                                .target = before.id,
                                .change = change != NULL ? change : "{}"};
    bool was_revoked = false;
    enum gq_code code = store_key_revoke(store, before.id, now, &audit, &after, &was_revoked, &err);
    free(change);
    if (code != GQ_OK) {
        log_error("%s", err.message);
        return 1;
    }
    char when[CLOCK_RFC3339_SIZE];
    fprintf(stderr, "gpuquote: %s %s at %s\n", after.id,
            was_revoked ? "was revoked already," : "revoked",
            clock_format_rfc3339(after.revoked_at, when));
    return 0;
}

/* The command line checked before the database is opened: -1 when it
 * names an action on the store, else the exit status after printing the
 * usage or what is wrong. */
static int check_words(int argc, char **argv)
{
    if (argc < 1) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0 ||
        strcmp(argv[0], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[0], "create") == 0) {
        const char *name;
        unsigned scopes;
        return parse_create(argc, argv, &name, &scopes);
    }
    if (strcmp(argv[0], "list") == 0)
        return argc == 1 ? -1 : fail_usage("list takes no argument");
    if (strcmp(argv[0], "revoke") == 0)
        return argc == 2 ? -1 : fail_usage("revoke takes one key id");
    return fail_usage("unknown keys command");
}

int cli_keys_check(const struct gq_config *config)
{
    char **words = calloc((size_t)config->command_argc + 1, sizeof *words);
    if (words == NULL) {
        log_error("out of memory");
        return 1;
    }
    int status = check_words(own_words(config->command_argc, config->command_argv, words), words);
    free(words);
    return status;
}

int cli_keys(const struct gq_config *config, struct store *store)
{
    char **argv = calloc((size_t)config->command_argc + 1, sizeof *argv);
    if (argv == NULL) {
        log_error("out of memory");
        return 1;
    }
    int argc = own_words(config->command_argc, config->command_argv, argv);
    int status = check_words(argc, argv);
    if (status < 0 && strcmp(argv[0], "create") == 0)
        status = run_create(store, argc, argv);
    else if (status < 0 && strcmp(argv[0], "list") == 0)
        status = run_list(store);
    else if (status < 0)
        status = run_revoke(store, argv[1]);
    free(argv);
    return status;
}

/* Writes `secret` and a newline to `path`, created with mode 0600 (or
 * replaced, kept 0600). */
static bool write_secret(const char *path, const char *secret)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return false;
    size_t length = strlen(secret);
    bool written = fchmod(fd, 0600) == 0 && write(fd, secret, length) == (ssize_t)length &&
                   write(fd, "\n", 1) == 1;
    return close(fd) == 0 && written;
}

bool cli_keys_bootstrap(const struct gq_config *config, struct store *store)
{
    if (config->bootstrap_key_file == NULL)
        return true;
    struct key_list list = {0};
    struct gq_error err;
    if (store_keys_read(store, true, &list, &err) != GQ_OK) {
        log_error("%s", err.message);
        return false;
    }
    size_t count = list.count;
    store_key_list_free(&list);
    if (count > 0)
        return true; /* keys exist: none is made */
    struct stored_key key;
    char secret[API_KEY_SIZE];
    if (create_key(store, "local administrator (first start)", SCOPE_ALL, "first start", &key,
                   secret, &err) != GQ_OK) {
        log_error("%s", err.message);
        return false;
    }
    bool written = write_secret(config->bootstrap_key_file, secret);
    memset(secret, 0, sizeof secret);
    if (!written) {
        log_error("cannot write the first key to %s: %s (revoke %s)", config->bootstrap_key_file,
                  strerror(errno), key.id);
        return false;
    }
    log_info("the database had no API key: %s, with every scope, is in %s (mode 0600)", key.id,
             config->bootstrap_key_file);
    return true;
}
