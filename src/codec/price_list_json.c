/*
 * A price list as the admin API shows it and price_list.published carries
 * it: its version, state and times, without its document.
 */
#include <jansson.h>

#include "codec/store_json.h"
#include "util/clock.h"

static json_t *time_or_null(int64_t unix_seconds)
{
    char text[CLOCK_RFC3339_SIZE];
    return unix_seconds > 0 ? json_string(clock_format_rfc3339(unix_seconds, text)) : json_null();
}

json_t *codec_price_list_json(const struct price_list_info *info)
{
    return json_pack("{s:s, s:I, s:s, s:o, s:o, s:o, s:o, s:o}", "object", "price_list", "version",
                     (json_int_t)info->version, "state", price_list_state_name(info->state),
                     "based_on", info->based_on ? json_integer(info->based_on) : json_null(),
                     "created_at", time_or_null(info->created_at), "effective_at",
                     time_or_null(info->effective_at), "published_at",
                     time_or_null(info->published_at), "superseded_at",
                     time_or_null(info->superseded_at));
}
