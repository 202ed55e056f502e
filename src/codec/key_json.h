/*
 * An API key as JSON (key_json.c): as the admin API shows it, and as an
 * audit line records its change. Neither holds the secret nor its hash.
 * The admin handler and the command line (`gpuquote keys`) both write
 * these, so they live here, without libmicrohttpd.
 */
#ifndef GQ_CODEC_KEY_JSON_H
#define GQ_CODEC_KEY_JSON_H

#include <jansson.h>

#include "store/store.h"

/* {"id", "object": "api_key", "name", "prefix", "scopes", "customer"
 * (its id, or null for a key of no customer), "created_at",
 * "last_used_at", "revoked_at"}. NULL when memory runs out. */
json_t *key_json_render(const struct stored_key *key);

/* The audit's change of a key: {"old": ..., "new": ...}, NULL standing
 * for no key, as JSON text the caller frees; NULL when memory runs out. */
char *key_json_change(const struct stored_key *before, const struct stored_key *after);

#endif
