/*
 * A PostgreSQL connection string as it may be shown: described with
 * libpq's own parser (PQconninfoParse), every option libpq marks secret
 * (dispchar "*": password, sslpassword, and any it adds) shown as "***",
 * and a message of libpq's with each secret value taken out. A string libpq
 * cannot parse is shown as nothing of itself, since its parse errors quote
 * it. The userinfo of a URI counts as secret up to its last '@' too: libpq
 * splits "user:pass@word@host" at the first '@' and would name "word@host"
 * as the host.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/backend.h"

#define SECRETS_MAX 16
#define MASK "***"

struct secrets {
    char *values[SECRETS_MAX];
    size_t count;
};

static void add_secret(struct secrets *secrets, const char *value, size_t length)
{
    if (length == 0 || secrets->count == SECRETS_MAX)
        return;
    char *copy = strndup(value, length);
    if (copy != NULL)
        secrets->values[secrets->count++] = copy;
}

static void free_secrets(struct secrets *secrets)
{
    for (size_t i = 0; i < secrets->count; i++) {
        memset(secrets->values[i], 0, strlen(secrets->values[i]));
        free(secrets->values[i]);
    }
    secrets->count = 0;
}

static bool is_uri(const char *conninfo)
{
    return strncmp(conninfo, "postgresql://", 13) == 0 || strncmp(conninfo, "postgres://", 11) == 0;
}

/* The password of a URI's userinfo as written (to its authority's last
 * '@'), and each '@'-separated piece of it. */
static void add_uri_password(struct secrets *secrets, const char *uri)
{
    const char *authority = strstr(uri, "://") + 3;
    const char *end = authority + strcspn(authority, "/?");
    const char *at = NULL;
    for (const char *c = authority; c < end; c++)
        if (*c == '@')
            at = c;
    const char *colon = at != NULL ? memchr(authority, ':', (size_t)(at - authority)) : NULL;
    if (colon == NULL)
        return;
    const char *password = colon + 1;
    add_secret(secrets, password, (size_t)(at - password));
    while (password < at) {
        size_t piece = strcspn(password, "@");
        if (password + piece > at)
            piece = (size_t)(at - password);
        add_secret(secrets, password, piece);
        password += piece + 1;
    }
}

/* libpq's reason for refusing a string when it names an option keyword
 * only ('invalid connection option "x"'), which is not secret; else "". */
static void keyword_reason(const char *error, char *out, size_t size)
{
    static const char prefix[] = "invalid connection option \"";
    out[0] = '\0';
    if (error == NULL || strncmp(error, prefix, sizeof prefix - 1) != 0)
        return;
    const char *keyword = error + sizeof prefix - 1;
    size_t length = strspn(keyword, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_");
    if (length > 0 && length < 64 && keyword[length] == '"')
        snprintf(out, size, "invalid connection option \"%.*s\"", (int)length, keyword);
}

/* The parsed options (NULL when libpq cannot parse the string, with what
 * of its reason may be shown in `reason`) and every secret value into
 * `secrets`. */
static PQconninfoOption *parse(const char *conninfo, struct secrets *secrets, char *reason,
                               size_t reason_size)
{
    char *error = NULL;
    PQconninfoOption *options = PQconninfoParse(conninfo, &error);
    keyword_reason(error, reason, reason_size);
    PQfreemem(error); /* it may quote the string */
    if (options == NULL)
        return NULL;
    for (const PQconninfoOption *option = options; option->keyword != NULL; option++)
        if (option->val != NULL && option->dispchar != NULL && option->dispchar[0] == '*')
            add_secret(secrets, option->val, strlen(option->val));
    if (is_uri(conninfo))
        add_uri_password(secrets, conninfo);
    return options;
}

/* `text` into `out` with every occurrence of each secret, longest first
 * where they overlap, replaced by MASK. */
static void mask_into(const struct secrets *secrets, const char *text, char *out, size_t size)
{
    size_t used = 0;
    while (*text != '\0' && used + 1 < size) {
        size_t longest = 0;
        for (size_t i = 0; i < secrets->count; i++) {
            size_t length = strlen(secrets->values[i]);
            if (length > longest && strncmp(text, secrets->values[i], length) == 0)
                longest = length;
        }
        if (longest > 0) {
            size_t room = size - 1 - used, n = strlen(MASK) < room ? strlen(MASK) : room;
            memcpy(out + used, MASK, n);
            used += n;
            text += longest;
        } else {
            out[used++] = *text++;
        }
    }
    out[used] = '\0';
}

void postgres_describe_database(const char *conninfo, char *out, size_t size)
{
    struct secrets secrets = {.count = 0};
    char reason[128];
    PQconninfoOption *options = parse(conninfo, &secrets, reason, sizeof reason);
    if (options == NULL) {
        snprintf(out, size, "(a PostgreSQL connection string libpq cannot parse)");
        return;
    }
    char plain[1024];
    size_t used = 0;
    plain[0] = '\0';
    for (const PQconninfoOption *option = options; option->keyword != NULL; option++) {
        if (option->val == NULL || option->val[0] == '\0' || used >= sizeof plain)
            continue;
        bool secret = option->dispchar != NULL && option->dispchar[0] == '*';
        int n = snprintf(plain + used, sizeof plain - used, "%s%s=%s", used > 0 ? " " : "",
                         option->keyword, secret ? MASK : option->val);
        used += n > 0 ? (size_t)n : 0;
    }
    PQconninfoFree(options);
    mask_into(&secrets, plain, out, size);
    memset(plain, 0, sizeof plain);
    free_secrets(&secrets);
}

void postgres_mask_message(const char *conninfo, const char *message, char *out, size_t size)
{
    struct secrets secrets = {.count = 0};
    char reason[128];
    PQconninfoOption *options = parse(conninfo, &secrets, reason, sizeof reason);
    if (options == NULL && reason[0] != '\0')
        snprintf(out, size, "%s", reason);
    else if (options == NULL)
        snprintf(out, size,
                 "the connection string cannot be parsed (libpq's reason withheld: it "
                 "quotes the string)");
    else
        mask_into(&secrets, message, out, size);
    PQconninfoFree(options);
    free_secrets(&secrets);
}
