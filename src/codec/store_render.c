/*
 * The store's renderer (store.h, struct store_render): the JSON of
 * store_json.h as compact text, in the order the API writes it, which is
 * what the events carry.
 */
#include <jansson.h>
#include <stdlib.h>

#include "codec/store_json.h"

static char *compact(json_t *value)
{
    char *text = value != NULL ? json_dumps(value, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(value);
    return text;
}

static char *quote_text(const struct stored_quote *quote, int64_t now)
{
    return compact(codec_quote_json(quote, now));
}

static char *endpoint_text(const struct stored_endpoint *endpoint)
{
    return compact(codec_endpoint_json(endpoint));
}

static char *price_list_text(const struct price_list_info *info)
{
    return compact(codec_price_list_json(info));
}

const struct store_render codec_store_render = {quote_text, endpoint_text, price_list_text};
