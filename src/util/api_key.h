/*
 * API keys and their scopes, as words and bytes: what a secret key looks
 * like, how it is made, how it is stored (never the secret: its SHA-256),
 * and the scopes a key may hold. Who holds which key is the store's
 * (api_keys); checking a request's key is the HTTP layer's (auth.c).
 *
 * A secret key is "gq_sk_" and 43 characters of base64url: 32 bytes (256
 * bits) from getrandom(2). Its first 12 characters ("gq_sk_" and 6 more)
 * are its visible prefix, kept in clear to recognise it in a list; the
 * key's id ("key_" and 32 hex digits) is what the API and the audit name.
 */
#ifndef GQ_UTIL_API_KEY_H
#define GQ_UTIL_API_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define API_KEY_PREFIX "gq_sk_"
#define API_KEY_RANDOM_BYTES 32
#define API_KEY_LENGTH (sizeof API_KEY_PREFIX - 1 + 43) /* 49 */
#define API_KEY_SIZE (API_KEY_LENGTH + 1)
#define API_KEY_VISIBLE 12   /* "gq_sk_" + 6 */
#define API_KEY_HASH_SIZE 65 /* SHA-256 in hex and NUL */
#define API_KEY_ID_PREFIX "key_"

/* One bit per scope. */
enum api_scope {
    SCOPE_NONE = 0,
    SCOPE_QUOTES_WRITE = 1u << 0,    /* save quotes for any segment */
    SCOPE_QUOTES_READ = 1u << 1,     /* list quotes and events */
    SCOPE_QUOTES_ACCEPT = 1u << 2,   /* accept and cancel quotes */
    SCOPE_CATALOG_WRITE = 1u << 3,   /* the admin API: price lists, audit */
    SCOPE_KEYS_WRITE = 1u << 4,      /* create, list and revoke keys */
    SCOPE_METRICS_READ = 1u << 5,    /* GET /metrics */
    SCOPE_WEBHOOKS_WRITE = 1u << 6,  /* webhook endpoints */
    SCOPE_CUSTOMERS_WRITE = 1u << 7, /* create, change and delete customers */
    SCOPE_CUSTOMERS_READ = 1u << 8,  /* read and list customers */
    SCOPE_CUSTOMERS_VERIFY = 1u << 9 /* verify customers' segments, and revoke that */
};

#define SCOPE_COUNT 10
#define SCOPE_ALL ((1u << SCOPE_COUNT) - 1u)

/* The scopes a key bound to one customer may hold: its own quotes and
 * events, nothing of the business's. */
#define SCOPE_CUSTOMER_KEY (SCOPE_QUOTES_WRITE | SCOPE_QUOTES_READ | SCOPE_QUOTES_ACCEPT)

/* "quotes:write" for one scope bit; NULL for anything else. */
const char *api_scope_name(unsigned scope);

/* The scope named `name`, or SCOPE_NONE. */
unsigned api_scope_parse(const char *name);

/* The i-th scope (0..SCOPE_COUNT-1), in the order of the enum. */
unsigned api_scope_at(size_t i);

/* "quotes:write quotes:read" for a set of scopes, in enum order, into
 * `out`; "" for none. Returns `out`. */
char *api_scopes_format(unsigned scopes, char *out, size_t size);

/* A set of scopes from names separated by spaces or commas; false (and
 * the first unknown name in `bad`) when one names no scope. */
bool api_scopes_parse(const char *text, unsigned *scopes, char *bad, size_t bad_size);

/* A new secret key into `key`; false when the kernel's random source
 * fails. */
bool api_key_generate(char key[API_KEY_SIZE]);

/* True when `text` has the shape of a secret key (prefix, length,
 * alphabet): anything else is refused without a lookup. */
bool api_key_is_well_formed(const char *text, size_t length);

/* The lower-case hex SHA-256 of the key's `length` bytes. */
void api_key_hash(const char *key, size_t length, char hash[API_KEY_HASH_SIZE]);

/* Compares two hashes in time that does not depend on where they differ. */
bool api_key_hash_equal(const char *a, const char *b);

#endif
