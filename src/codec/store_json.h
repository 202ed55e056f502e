/*
 * The store's records as the API shows them: a stored quote at a moment,
 * a webhook endpoint without its secret, a price list without its
 * document. The handlers answer with these, and the store puts the same
 * bytes in the events it makes inside its transactions, through
 * codec_store_render (store_set_render()): the store stores what it is
 * given and knows nothing of the API's shapes.
 */
#ifndef GQ_CODEC_STORE_JSON_H
#define GQ_CODEC_STORE_JSON_H

#include <jansson.h>
#include <stdint.h>

#include "store/store.h"

/* The quote as the API returns it at `now` (GET /quote/{id}): its stored
 * text with its status and status_transitions, its acceptance once
 * accepted, its reason once canceled. A new reference; NULL when the
 * stored text is not a JSON object or memory runs out. */
json_t *codec_quote_json(const struct stored_quote *quote, int64_t now);

/* The endpoint: {"id", "object", "url", "description", "events",
 * "enabled", "created_at", "updated_at"}. A new reference; NULL when
 * memory runs out. */
json_t *codec_endpoint_json(const struct stored_endpoint *endpoint);

/* The list as the API shows it and price_list.published carries it:
 * {"object": "price_list", "version", "state", "based_on", "created_at",
 * "effective_at", "published_at", "superseded_at"} (times in RFC 3339 or
 * null). A new reference; NULL when memory runs out. */
json_t *codec_price_list_json(const struct price_list_info *info);

/* The three above as compact text, for the store's events. */
extern const struct store_render codec_store_render;

#endif
