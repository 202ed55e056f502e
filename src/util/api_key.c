/*
 * API keys (api_key.h): scopes by name, secret keys made from getrandom(2)
 * and encoded with nettle's base64url, hashed as SHA-256 in hex (util/digest.h).
 */
#include "util/api_key.h"

#include <nettle/base64.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "util/digest.h"

static const char *const scope_names[SCOPE_COUNT] = {
    "quotes:write", "quotes:read",    "quotes:accept",   "catalog:write",  "keys:write",
    "metrics:read", "webhooks:write", "customers:write", "customers:read", "customers:verify",
};

unsigned api_scope_at(size_t i)
{
    return i < SCOPE_COUNT ? 1u << i : SCOPE_NONE;
}

const char *api_scope_name(unsigned scope)
{
    for (size_t i = 0; i < SCOPE_COUNT; i++)
        if (scope == api_scope_at(i))
            return scope_names[i];
    return NULL;
}

unsigned api_scope_parse(const char *name)
{
    for (size_t i = 0; i < SCOPE_COUNT; i++)
        if (strcmp(name, scope_names[i]) == 0)
            return api_scope_at(i);
    return SCOPE_NONE;
}

char *api_scopes_format(unsigned scopes, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < SCOPE_COUNT; i++) {
        if (!(scopes & api_scope_at(i)))
            continue;
        int written = snprintf(out + used, size - used, "%s%s", used ? " " : "", scope_names[i]);
        if (written < 0 || (size_t)written >= size - used)
            break;
        used += (size_t)written;
    }
    return out;
}

bool api_scopes_parse(const char *text, unsigned *scopes, char *bad, size_t bad_size)
{
    *scopes = SCOPE_NONE;
    while (*text != '\0') {
        text += strspn(text, " ,");
        size_t length = strcspn(text, " ,");
        if (length == 0)
            break;
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(length < sizeof name - 1 ? length : 31), text);
        unsigned scope = length < sizeof name ? api_scope_parse(name) : SCOPE_NONE;
        if (scope == SCOPE_NONE) {
            snprintf(bad, bad_size, "%.*s", (int)length, text);
            return false;
        }
        *scopes |= scope;
        text += length;
    }
    return true;
}

bool api_key_generate(char key[API_KEY_SIZE])
{
    uint8_t random[API_KEY_RANDOM_BYTES];
    if (getrandom(random, sizeof random, 0) != (ssize_t)sizeof random) {
        key[0] = '\0';
        return false;
    }
    char encoded[BASE64_ENCODE_LENGTH(API_KEY_RANDOM_BYTES) + BASE64_ENCODE_FINAL_LENGTH];
    struct base64_encode_ctx context;
    base64url_encode_init(&context);
    size_t length = base64_encode_update(&context, encoded, sizeof random, random);
    length += base64_encode_final(&context, encoded + length);
    while (length > 0 && encoded[length - 1] == '=') /* no padding */
        length--;
    snprintf(key, API_KEY_SIZE, "%s%.*s", API_KEY_PREFIX, (int)length, encoded);
    memset(random, 0, sizeof random);
    return true;
}

static bool is_base64url(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

bool api_key_is_well_formed(const char *text, size_t length)
{
    size_t prefix = sizeof API_KEY_PREFIX - 1;
    if (length != API_KEY_LENGTH || strncmp(text, API_KEY_PREFIX, prefix) != 0)
        return false;
    for (size_t i = prefix; i < length; i++)
        if (!is_base64url(text[i]))
            return false;
    return true;
}

_Static_assert(API_KEY_HASH_SIZE == DIGEST_SHA256_HEX_SIZE, "a key's hash is its SHA-256 in hex");

void api_key_hash(const char *key, size_t length, char hash[API_KEY_HASH_SIZE])
{
    digest_sha256_hex(key, length, hash);
}

bool api_key_hash_equal(const char *a, const char *b)
{
    unsigned char difference = 0;
    for (size_t i = 0; i < API_KEY_HASH_SIZE - 1; i++)
        difference |= (unsigned char)(a[i] ^ b[i]);
    return difference == 0;
}
