/*
 * Secrets kept encrypted at rest (a webhook's signing secret in the
 * database), so that a copy of the database alone does not sign anything.
 * A keyring holds one or more 32-byte keys, each with an id: the first
 * seals, every one opens, which is how a key is rotated (a new key is added
 * after the old one, then moved first, then the old one removed once every
 * row is sealed anew). A sealed secret reads
 * "whsec_v1:<key id>:<base64 of nonce, ciphertext and tag>", ChaCha20-Poly1305
 * with a random 12-byte nonce per secret and the row's id as associated
 * data (a sealed secret copied to another row does not open).
 *
 * The keyring's text, in a file or a setting: entries "<id>:<base64 of 32
 * bytes>", separated by newlines, commas or spaces; '#' starts a comment
 * line. Ids are 1 to 32 letters, digits, '-' or '_'.
 */
#ifndef GQ_UTIL_SECRET_BOX_H
#define GQ_UTIL_SECRET_BOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SECRET_BOX_KEYS_MAX 8
#define SECRET_BOX_KEY_BYTES 32
#define SECRET_BOX_ID_SIZE 33
/* "whsec_" first, so that the webhook_endpoints.secret column's CHECK
 * (it starts so) holds for sealed and clear secrets alike; ':' is not
 * base64, so a sealed secret never passes for a clear one, nor signs. */
#define SECRET_BOX_PREFIX "whsec_v1:"
#define SECRET_BOX_SEALED_SIZE 256 /* room for a sealed webhook secret */

struct secret_box_key {
    char id[SECRET_BOX_ID_SIZE];
    uint8_t key[SECRET_BOX_KEY_BYTES];
};

struct secret_keyring {
    struct secret_box_key keys[SECRET_BOX_KEYS_MAX];
    size_t count; /* 0: none configured */
};

/* Reads the keyring's text into `ring`; false with the reason in `why`
 * (which never holds key material) when it is malformed, has no key, or
 * repeats an id. */
bool secret_keyring_parse(const char *text, struct secret_keyring *ring, char *why,
                          size_t why_size);

/* Reads the keyring from the file at `path`; false with the reason in
 * `why` (missing is ENOENT in *missing, so the caller may make one). */
bool secret_keyring_load(const char *path, struct secret_keyring *ring, bool *missing, char *why,
                         size_t why_size);

/* Makes a file at `path` (mode 0600, never replacing one) holding a new
 * random key of id `id`, and loads it into `ring`; false with `why`. */
bool secret_keyring_create(const char *path, const char *id, struct secret_keyring *ring, char *why,
                           size_t why_size);

/* Wipes the keys. */
void secret_keyring_clear(struct secret_keyring *ring);

/* True when `stored` is a sealed secret (else a clear one, as stored
 * before keys existed); its key id into `id` when it is. */
bool secret_box_is_sealed(const char *stored, char id[SECRET_BOX_ID_SIZE]);

/* Seals `plain` for the row `row_id` with the keyring's first key into
 * `out`; false when the ring is empty, `out` too small or the random
 * source fails. */
bool secret_box_seal(const struct secret_keyring *ring, const char *row_id, const char *plain,
                     char *out, size_t out_size);

enum secret_box_open {
    SECRET_BOX_OPENED,
    SECRET_BOX_CLEAR,       /* not sealed: copied as it is */
    SECRET_BOX_UNKNOWN_KEY, /* sealed with a key the ring lacks */
    SECRET_BOX_BAD,         /* malformed, or it does not verify (a wrong key, another row) */
};

/* Opens `stored` of the row `row_id` into `out` (a clear secret is copied
 * as it is). */
enum secret_box_open secret_box_open(const struct secret_keyring *ring, const char *row_id,
                                     const char *stored, char *out, size_t out_size);

#endif
