/*
 * JSON renderings shared by several handlers: money as a decimal string,
 * hours as a number (as jansson values, for what is rendered once per
 * catalog), and a plan with a one-line summary a person can read (written
 * with the streaming writer, for responses rendered per request).
 */
#include <stdio.h>
#include <string.h>

#include "codec/bodies.h"
#include "core/plans.h"

char *render_dump(json_t *value)
{
    if (value == NULL)
        return NULL;
    char *text = json_dumps(value, JSON_COMPACT | JSON_REAL_PRECISION(12));
    json_decref(value);
    return text;
}

json_t *render_append(json_t *array, json_t *value)
{
    if (json_array_append_new(array, value) == 0)
        return array;
    json_decref(array);
    return NULL;
}

json_t *render_with_secret(json_t *body, const char *secret)
{
    if (body != NULL && json_object_set_new(body, "secret", json_string(secret)) != 0) {
        json_decref(body);
        body = NULL;
    }
    return body;
}

json_t *render_each(const void *items, size_t count, size_t size,
                    json_t *(*render)(const void *item))
{
    const char *item = items;
    json_t *array = json_array();
    for (size_t i = 0; array != NULL && i < count; i++)
        array = render_append(array, render(item + i * size));
    return array;
}

json_t *render_money(gq_money amount)
{
    char buf[MONEY_FORMAT_SIZE];
    return json_string(money_format(amount, buf));
}

/* The message that says one part: "1 quarter", "2 months", "10 days on
 * demand", "90 days at the student rate" (in Chinese "1 个季度", "10 天按需
 * 计费"), and the count it says. */
static enum gq_msg part_message(const struct plan_part *part, int32_t *count)
{
    switch (part->mode) {
    case BILLING_QUARTERLY:
        *count = part->blocks;
        return *count == 1 ? MSG_PLAN_QUARTER : MSG_PLAN_QUARTERS;
    case BILLING_MONTHLY:
        *count = part->blocks;
        return *count == 1 ? MSG_PLAN_MONTH : MSG_PLAN_MONTHS;
    case BILLING_STUDENT:
        *count = part->days;
        return *count == 1 ? MSG_PLAN_DAY_STUDENT : MSG_PLAN_DAYS_STUDENT;
    case BILLING_ON_DEMAND:
    case BILLING_MODE_COUNT:
        break;
    }
    *count = part->days;
    return *count == 1 ? MSG_PLAN_DAY_ON_DEMAND : MSG_PLAN_DAYS_ON_DEMAND;
}

/* "1 quarter + 10 days on demand": the parts' messages joined by " + ",
 * which reads the same in every language. Formatted by the message tables'
 * own formatter, without printf (it is on every quote's path). Parts are at
 * most three short phrases, so the buffer holds them; messages_format
 * still stops at its end. */
size_t render_plan_summary(const struct plan *plan, enum gq_lang lang, char *text, size_t size)
{
    size_t length = 0;
    if (size == 0)
        return 0;
    text[0] = '\0';
    for (int i = 0; i < plan->n_parts && length + 4 < size; i++) {
        if (i > 0) {
            memcpy(text + length, " + ", 4);
            length += 3;
        }
        int32_t count;
        enum gq_msg id = part_message(&plan->parts[i], &count);
        struct msg_arg arg = MSG_INT(count < 0 ? 0 : count);
        length += messages_format(lang, id, &arg, 1, text + length, size - length);
    }
    return length;
}

static void write_summary(struct jsonw *writer, const struct plan *plan, enum gq_lang lang)
{
    char text[192];
    render_plan_summary(plan, lang, text, sizeof text);
    jsonw_string(writer, text);
}

void render_bundle_alternative_summary(const struct catalog *catalog, const struct bundle *bundle,
                                       enum customer_segment segment, enum gq_lang lang, char *buf,
                                       size_t size)
{
    size_t length = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < bundle->n_items; i++) {
        const struct bundle_item *item = &bundle->items[i];
        struct plan plan;
        char summary[192], part[320];
        if (quote_bundle_item_plan(catalog, item, segment, &plan) != GQ_OK)
            continue;
        render_plan_summary(&plan, lang, summary, sizeof summary);
        const struct msg_arg args[] = {
            MSG_INT(item->quantity),
            MSG_CLAUSE(catalog_name(item->sku->text, lang, item->sku->name)),
            MSG_CLAUSE(summary),
        };
        size_t written = messages_format(
            lang, length > 0 ? MSG_BUNDLE_ALTERNATIVE_NEXT_ITEM : MSG_BUNDLE_ALTERNATIVE_ITEM, args,
            sizeof args / sizeof args[0], part, sizeof part);
        /* An item that does not fit whole is left out, with those after
         * it, never cut inside a character. */
        if (written + 1 >= sizeof part || length + written >= size)
            break;
        memcpy(buf + length, part, written + 1);
        length += written;
    }
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
    render_plan_in(writer, sku, plan, GQ_LANG_EN);
}

void render_plan_in(struct jsonw *writer, const struct sku *sku, const struct plan *plan,
                    enum gq_lang lang)
{
    jsonw_object_begin(writer);
    jsonw_key(writer, "summary");
    write_summary(writer, plan, lang);
    jsonw_key_money(writer, "amount_per_instance", plan->amount);
    jsonw_key(writer, "parts");
    jsonw_array_begin(writer);
    for (int i = 0; i < plan->n_parts; i++)
        write_part(writer, sku, &plan->parts[i]);
    jsonw_array_end(writer);
    jsonw_object_end(writer);
}
