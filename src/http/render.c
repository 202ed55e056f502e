/*
 * JSON renderings shared by several handlers: money as a decimal string,
 * hours as a number, and a plan with a one-line summary a person can read.
 */
#include <stdio.h>
#include <string.h>

#include "core/plans.h"
#include "http/bodies.h"

char *render_dump(json_t *value)
{
    if (value == NULL)
        return NULL;
    char *text = json_dumps(value, JSON_COMPACT | JSON_REAL_PRECISION(12));
    json_decref(value);
    return text;
}

json_t *render_money(gq_money amount)
{
    char buf[MONEY_FORMAT_SIZE];
    return json_string(money_format(amount, buf));
}

json_t *render_hours(int64_t millihours)
{
    return json_real((double)millihours / USAGE_MILLIHOURS_PER_HOUR);
}

const char *render_plan_billing(const struct plan *plan)
{
    return plan_is_mixed(plan) ? "mixed" : billing_mode_id(plan->parts[0].mode);
}

static const char *plural(int32_t count)
{
    return count == 1 ? "" : "s";
}

/* "1 quarter", "2 months", "10 days on demand", "90 days at the student rate". */
static int describe_part(const struct plan_part *part, char *buf, size_t size)
{
    switch (part->mode) {
    case BILLING_QUARTERLY:
        return snprintf(buf, size, "%d quarter%s", (int)part->blocks, plural(part->blocks));
    case BILLING_MONTHLY:
        return snprintf(buf, size, "%d month%s", (int)part->blocks, plural(part->blocks));
    case BILLING_STUDENT:
        return snprintf(buf, size, "%d day%s at the student rate", (int)part->days,
                        plural(part->days));
    case BILLING_ON_DEMAND:
    case BILLING_MODE_COUNT:
        break;
    }
    return snprintf(buf, size, "%d day%s on demand", (int)part->days, plural(part->days));
}

static json_t *render_summary(const struct plan *plan)
{
    char summary[160] = "";
    size_t used = 0;
    for (int i = 0; i < plan->n_parts && used < sizeof summary; i++) {
        if (i > 0)
            used += (size_t)snprintf(summary + used, sizeof summary - used, " + ");
        if (used < sizeof summary)
            used += (size_t)describe_part(&plan->parts[i], summary + used, sizeof summary - used);
    }
    return json_string(summary);
}

static json_t *render_part(const struct sku *sku, const struct plan_part *part)
{
    bool hourly = billing_mode_is_hourly(part->mode);
    return json_pack("{s:s, s:o, s:s, s:o, s:i, s:o, s:o}", "billing", billing_mode_id(part->mode),
                     "units", hourly ? render_hours(part->millihours) : json_integer(part->blocks),
                     "unit", billing_mode_unit(part->mode), "unit_price",
                     render_money(sku->price[part->mode]), "days", (int)part->days, "hours",
                     render_hours(part->millihours), "amount", render_money(part->amount));
}

json_t *render_plan(const struct sku *sku, const struct plan *plan)
{
    json_t *parts = json_array();
    for (int i = 0; parts != NULL && i < plan->n_parts; i++)
        if (json_array_append_new(parts, render_part(sku, &plan->parts[i])) != 0) {
            json_decref(parts);
            parts = NULL;
        }
    return json_pack("{s:o, s:o, s:o}", "summary", render_summary(plan), "amount_per_instance",
                     render_money(plan->amount), "parts", parts);
}
