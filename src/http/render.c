/*
 * JSON renderings shared by several handlers: money as a decimal string,
 * hours as a number (as jansson values, for what is rendered once per
 * catalog), and a plan with a one-line summary a person can read (written
 * with the streaming writer, for responses rendered per request).
 */
#include <stdio.h>
#include <string.h>

#include "core/plans.h"
#include "http/bodies.h"
#include "util/decimal.h"

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

/* A plan's summary, built without printf (it is on every quote's path).
 * Parts are at most three short phrases, so the buffer cannot overflow;
 * text_add still stops at its end. */
struct summary {
    char text[128];
    size_t length;
};

static void text_add(struct summary *summary, const char *words)
{
    size_t length = strlen(words);
    if (summary->length + length >= sizeof summary->text)
        return;
    memcpy(summary->text + summary->length, words, length + 1);
    summary->length += length;
}

static void text_add_count(struct summary *summary, int32_t count, const char *singular,
                           const char *plural)
{
    char digits[DECIMAL_DIGITS_SIZE + 1];
    digits[DECIMAL_DIGITS_SIZE] = '\0';
    text_add(summary, digits + decimal_format(count < 0 ? 0 : (uint64_t)count, digits));
    text_add(summary, count == 1 ? singular : plural);
}

/* "1 quarter", "2 months", "10 days on demand", "90 days at the student rate". */
static void describe_part(struct summary *summary, const struct plan_part *part)
{
    switch (part->mode) {
    case BILLING_QUARTERLY:
        text_add_count(summary, part->blocks, " quarter", " quarters");
        return;
    case BILLING_MONTHLY:
        text_add_count(summary, part->blocks, " month", " months");
        return;
    case BILLING_STUDENT:
        text_add_count(summary, part->days, " day", " days");
        text_add(summary, " at the student rate");
        return;
    case BILLING_ON_DEMAND:
    case BILLING_MODE_COUNT:
        break;
    }
    text_add_count(summary, part->days, " day", " days");
    text_add(summary, " on demand");
}

/* "1 quarter + 10 days on demand". */
static void write_summary(struct jsonw *writer, const struct plan *plan)
{
    struct summary summary = {.length = 0};
    summary.text[0] = '\0';
    for (int i = 0; i < plan->n_parts; i++) {
        if (i > 0)
            text_add(&summary, " + ");
        describe_part(&summary, &plan->parts[i]);
    }
    jsonw_string(writer, summary.text);
}

static void write_part(struct jsonw *writer, const struct sku *sku, const struct plan_part *part)
{
    jsonw_object_begin(writer);
    jsonw_key_string(writer, "billing", billing_mode_id(part->mode));
    if (billing_mode_is_hourly(part->mode))
        jsonw_key_fixed(writer, "units", part->millihours, 3);
    else
        jsonw_key_integer(writer, "units", part->blocks);
    jsonw_key_string(writer, "unit", billing_mode_unit(part->mode));
    jsonw_key_money(writer, "unit_price", sku->price[part->mode]);
    jsonw_key_integer(writer, "days", part->days);
    jsonw_key_fixed(writer, "hours", part->millihours, 3);
    jsonw_key_money(writer, "amount", part->amount);
    jsonw_object_end(writer);
}

void render_plan(struct jsonw *writer, const struct sku *sku, const struct plan *plan)
{
    jsonw_object_begin(writer);
    jsonw_key(writer, "summary");
    write_summary(writer, plan);
    jsonw_key_money(writer, "amount_per_instance", plan->amount);
    jsonw_key(writer, "parts");
    jsonw_array_begin(writer);
    for (int i = 0; i < plan->n_parts; i++)
        write_part(writer, sku, &plan->parts[i]);
    jsonw_array_end(writer);
    jsonw_object_end(writer);
}
