/*
 * A webhook endpoint as the API shows it (GET /webhook_endpoints and the
 * object of webhook_endpoint.disabled): never its secret, its event types
 * as a list.
 */
#include <jansson.h>
#include <string.h>

#include "codec/store_json.h"
#include "util/clock.h"

static json_t *time_json(int64_t unix_seconds)
{
    char text[CLOCK_RFC3339_SIZE];
    return json_string(clock_format_rfc3339(unix_seconds, text));
}

/* " quote.created quote.accepted " as ["quote.created", "quote.accepted"]. */
static json_t *events_json(const char *events)
{
    json_t *list = json_array();
    const char *c = events != NULL ? events : "";
    while (list != NULL && *c != '\0') {
        c += strspn(c, " ");
        size_t length = strcspn(c, " ");
        if (length > 0 && json_array_append_new(list, json_stringn(c, length)) != 0) {
            json_decref(list);
            return NULL;
        }
        c += length;
    }
    return list;
}

json_t *codec_endpoint_json(const struct stored_endpoint *endpoint)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:b, s:o, s:o}", "id", endpoint->id, "object",
                     "webhook_endpoint", "url", endpoint->url ? endpoint->url : "", "description",
                     endpoint->description ? endpoint->description : "", "events",
                     events_json(endpoint->events), "enabled", endpoint->enabled, "created_at",
                     time_json(endpoint->created_at), "updated_at",
                     time_json(endpoint->updated_at));
}
