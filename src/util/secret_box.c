/*
 * Secrets sealed with a keyring (secret_box.h), on nettle's
 * ChaCha20-Poly1305 and base64 and the kernel's random source.
 */
#include "util/secret_box.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/base64.h>
#include <nettle/chacha-poly1305.h>
#include <nettle/memops.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define NONCE_BYTES CHACHA_POLY1305_NONCE_SIZE
#define TAG_BYTES CHACHA_POLY1305_DIGEST_SIZE
#define KEYRING_FILE_MAX 4096
#define PLAIN_MAX 128

void secret_keyring_clear(struct secret_keyring *ring)
{
    memset(ring, 0, sizeof *ring);
}

static bool is_id_character(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

/* Decodes base64 `text` of `length` into `out` (room `*size`); false when
 * it is not base64 or does not fit. */
static bool decode(const char *text, size_t length, uint8_t *out, size_t *size)
{
    uint8_t buffer[512];
    if (length == 0 || BASE64_DECODE_LENGTH(length) > sizeof buffer)
        return false;
    struct base64_decode_ctx ctx;
    base64_decode_init(&ctx);
    size_t done = sizeof buffer;
    bool ok = base64_decode_update(&ctx, &done, buffer, length, text) &&
              base64_decode_final(&ctx) && done <= *size;
    if (ok) {
        memcpy(out, buffer, done);
        *size = done;
    }
    memset(buffer, 0, sizeof buffer);
    return ok;
}

/* One "<id>:<base64>" entry of `length` into the ring. */
static bool add_entry(struct secret_keyring *ring, const char *entry, size_t length, char *why,
                      size_t why_size)
{
    size_t id_length = 0;
    while (id_length < length && is_id_character(entry[id_length]))
        id_length++;
    if (id_length == 0 || id_length >= SECRET_BOX_ID_SIZE || id_length == length ||
        entry[id_length] != ':') {
        snprintf(why, why_size,
                 "key %zu is not <id>:<base64 of 32 bytes> (an id is 1 to 32 "
                 "letters, digits, '-' or '_')",
                 ring->count + 1);
        return false;
    }
    if (ring->count == SECRET_BOX_KEYS_MAX) {
        snprintf(why, why_size, "more than %d keys", SECRET_BOX_KEYS_MAX);
        return false;
    }
    struct secret_box_key *key = &ring->keys[ring->count];
    memcpy(key->id, entry, id_length);
    key->id[id_length] = '\0';
    for (size_t i = 0; i < ring->count; i++)
        if (strcmp(ring->keys[i].id, key->id) == 0) {
            snprintf(why, why_size, "key id %s appears twice", key->id);
            return false;
        }
    size_t size = sizeof key->key;
    if (!decode(entry + id_length + 1, length - id_length - 1, key->key, &size) ||
        size != SECRET_BOX_KEY_BYTES) {
        snprintf(why, why_size, "key %s is not the base64 of %d bytes", key->id,
                 SECRET_BOX_KEY_BYTES);
        memset(key, 0, sizeof *key);
        return false;
    }
    ring->count++;
    return true;
}

bool secret_keyring_parse(const char *text, struct secret_keyring *ring, char *why, size_t why_size)
{
    secret_keyring_clear(ring);
    const char *at = text;
    while (*at != '\0') {
        at += strspn(at, " \t\r\n,");
        if (*at == '#') {
            at += strcspn(at, "\n");
            continue;
        }
        size_t length = strcspn(at, " \t\r\n,");
        if (length == 0)
            break;
        if (!add_entry(ring, at, length, why, why_size)) {
            secret_keyring_clear(ring);
            return false;
        }
        at += length;
    }
    if (ring->count == 0) {
        snprintf(why, why_size, "it holds no key");
        return false;
    }
    return true;
}

bool secret_keyring_load(const char *path, struct secret_keyring *ring, bool *missing, char *why,
                         size_t why_size)
{
    *missing = false;
    secret_keyring_clear(ring);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *missing = errno == ENOENT;
        snprintf(why, why_size, "cannot open %s: %s", path, strerror(errno));
        return false;
    }
    char text[KEYRING_FILE_MAX + 1];
    ssize_t got = read(fd, text, KEYRING_FILE_MAX + 1);
    close(fd);
    if (got < 0 || got > KEYRING_FILE_MAX) {
        snprintf(why, why_size, "cannot read %s (or it is over %d bytes)", path, KEYRING_FILE_MAX);
        return false;
    }
    text[got] = '\0';
    char reason[160];
    bool ok = secret_keyring_parse(text, ring, reason, sizeof reason);
    memset(text, 0, sizeof text);
    if (!ok)
        snprintf(why, why_size, "%s: %s", path, reason);
    return ok;
}

bool secret_keyring_create(const char *path, const char *id, struct secret_keyring *ring, char *why,
                           size_t why_size)
{
    uint8_t key[SECRET_BOX_KEY_BYTES];
    if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key) {
        snprintf(why, why_size, "the random source failed");
        return false;
    }
    char text[SECRET_BOX_ID_SIZE + BASE64_ENCODE_RAW_LENGTH(SECRET_BOX_KEY_BYTES) + 4];
    size_t id_length = strlen(id);
    memcpy(text, id, id_length);
    text[id_length] = ':';
    base64_encode_raw(text + id_length + 1, sizeof key, key);
    size_t length = id_length + 1 + BASE64_ENCODE_RAW_LENGTH(sizeof key);
    text[length++] = '\n';
    text[length] = '\0';
    memset(key, 0, sizeof key);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    bool written = fd >= 0 && fchmod(fd, 0600) == 0 && write(fd, text, length) == (ssize_t)length;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0)
        written = false;
    bool parsed = written && secret_keyring_parse(text, ring, why, why_size);
    memset(text, 0, sizeof text);
    if (!written) {
        snprintf(why, why_size, "cannot write %s: %s", path, strerror(saved));
        if (fd >= 0)
            unlink(path);
    }
    return parsed;
}

bool secret_box_is_sealed(const char *stored, char id[SECRET_BOX_ID_SIZE])
{
    size_t prefix = strlen(SECRET_BOX_PREFIX);
    if (strncmp(stored, SECRET_BOX_PREFIX, prefix) != 0)
        return false;
    const char *start = stored + prefix;
    size_t length = strcspn(start, ":");
    if (length == 0 || length >= SECRET_BOX_ID_SIZE || start[length] != ':')
        return false;
    memcpy(id, start, length);
    id[length] = '\0';
    return true;
}

static void start(struct chacha_poly1305_ctx *ctx, const struct secret_box_key *key,
                  const uint8_t nonce[NONCE_BYTES], const char *row_id)
{
    chacha_poly1305_set_key(ctx, key->key);
    chacha_poly1305_set_nonce(ctx, nonce);
    chacha_poly1305_update(ctx, strlen(row_id), (const uint8_t *)row_id);
}

bool secret_box_seal(const struct secret_keyring *ring, const char *row_id, const char *plain,
                     char *out, size_t out_size)
{
    size_t length = strlen(plain);
    if (ring->count == 0 || length > PLAIN_MAX)
        return false;
    const struct secret_box_key *key = &ring->keys[0];
    uint8_t sealed[NONCE_BYTES + PLAIN_MAX + TAG_BYTES];
    size_t sealed_length = NONCE_BYTES + length + TAG_BYTES;
    size_t needed = strlen(SECRET_BOX_PREFIX) + strlen(key->id) + 1 +
                    BASE64_ENCODE_RAW_LENGTH(sealed_length) + 1;
    if (needed > out_size || getrandom(sealed, NONCE_BYTES, 0) != NONCE_BYTES)
        return false;
    struct chacha_poly1305_ctx ctx;
    start(&ctx, key, sealed, row_id);
    chacha_poly1305_encrypt(&ctx, length, sealed + NONCE_BYTES, (const uint8_t *)plain);
    chacha_poly1305_digest(&ctx, TAG_BYTES, sealed + NONCE_BYTES + length);
    memset(&ctx, 0, sizeof ctx);
    int n = snprintf(out, out_size, "%s%s:", SECRET_BOX_PREFIX, key->id);
    base64_encode_raw(out + n, sealed_length, sealed);
    out[(size_t)n + BASE64_ENCODE_RAW_LENGTH(sealed_length)] = '\0';
    return true;
}

static const struct secret_box_key *find_key(const struct secret_keyring *ring, const char *id)
{
    for (size_t i = 0; i < ring->count; i++)
        if (strcmp(ring->keys[i].id, id) == 0)
            return &ring->keys[i];
    return NULL;
}

enum secret_box_open secret_box_open(const struct secret_keyring *ring, const char *row_id,
                                     const char *stored, char *out, size_t out_size)
{
    char id[SECRET_BOX_ID_SIZE];
    out[0] = '\0';
    if (!secret_box_is_sealed(stored, id)) {
        if (strlen(stored) >= out_size)
            return SECRET_BOX_BAD;
        memcpy(out, stored, strlen(stored) + 1);
        return SECRET_BOX_CLEAR;
    }
    const struct secret_box_key *key = find_key(ring, id);
    if (key == NULL)
        return SECRET_BOX_UNKNOWN_KEY;
    const char *text = stored + strlen(SECRET_BOX_PREFIX) + strlen(id) + 1;
    uint8_t sealed[NONCE_BYTES + PLAIN_MAX + TAG_BYTES];
    size_t size = sizeof sealed;
    if (!decode(text, strlen(text), sealed, &size) || size < NONCE_BYTES + TAG_BYTES)
        return SECRET_BOX_BAD;
    size_t length = size - NONCE_BYTES - TAG_BYTES;
    if (length >= out_size)
        return SECRET_BOX_BAD;
    struct chacha_poly1305_ctx ctx;
    start(&ctx, key, sealed, row_id);
    chacha_poly1305_decrypt(&ctx, length, (uint8_t *)out, sealed + NONCE_BYTES);
    uint8_t tag[TAG_BYTES];
    chacha_poly1305_digest(&ctx, TAG_BYTES, tag);
    memset(&ctx, 0, sizeof ctx);
    bool verified = memeql_sec(tag, sealed + NONCE_BYTES + length, TAG_BYTES);
    if (!verified) {
        memset(out, 0, length);
        return SECRET_BOX_BAD;
    }
    out[length] = '\0';
    return SECRET_BOX_OPENED;
}
