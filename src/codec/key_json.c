/*
 * API keys as JSON (key_json.h).
 */
#include "codec/key_json.h"

#include "util/api_key.h"
#include "util/clock.h"

static json_t *time_or_null(int64_t unix_seconds)
{
    char text[CLOCK_RFC3339_SIZE];
    return unix_seconds > 0 ? json_string(clock_format_rfc3339(unix_seconds, text)) : json_null();
}

static json_t *scopes_json(unsigned scopes)
{
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < SCOPE_COUNT; i++)
        if (scopes & api_scope_at(i))
            json_array_append_new(list, json_string(api_scope_name(api_scope_at(i))));
    return list;
}

json_t *key_json_render(const struct stored_key *key)
{
    json_t *customer = key->customer_id[0] != '\0' ? json_string(key->customer_id) : json_null();
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "id", key->id, "object",
                     "api_key", "name", key->name, "prefix", key->prefix, "scopes",
                     scopes_json(key->scopes), "customer", customer, "created_at",
                     time_or_null(key->created_at), "last_used_at", time_or_null(key->last_used_at),
                     "revoked_at", time_or_null(key->revoked_at));
}

char *key_json_change(const struct stored_key *before, const struct stored_key *after)
{
    json_t *change = json_pack("{s:o, s:o}", "old", before ? key_json_render(before) : json_null(),
                               "new", after ? key_json_render(after) : json_null());
    char *text = change != NULL ? json_dumps(change, JSON_COMPACT) : NULL;
    json_decref(change);
    return text;
}
