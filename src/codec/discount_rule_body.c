/*
 * The body of a discount rule as a request gives it: a customer's own rule
 * (at the root of PUT /customers/{id}/discount-rules/{rule_id}, with a
 * validity window) and a promotion code's `discount` (without one) have
 * the same fields, checked the same way and reported under their own JSON
 * path. The caller names the rule and marks where it comes from.
 */
#include <string.h>

#include "codec/bodies.h"

#define RULE_SEGMENTS "individual, student, startup, enterprise"
#define RULE_BILLINGS "on_demand, monthly, quarterly, student, mixed"
enum { RULE_NAME_MAX = 500, RULE_BASIS_POINTS_MAX = 9999, RULE_QUANTITY_MAX = 10000 };
enum { RULE_PRIORITY_LIMIT = 1000000, RULE_FIELD_SIZE = 96 };

static enum gq_code read_name(json_t *body, const char *path, const char **name,
                              struct gq_error *err)
{
    enum gq_code code = fields_string(body, "name", path, true, name, err);
    if (code != GQ_OK || ((*name)[0] != '\0' && strlen(*name) <= RULE_NAME_MAX))
        return code;
    char field[RULE_FIELD_SIZE];
    fields_path(field, sizeof field, path, "name");
    return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_FIELD_TEXT_LENGTH, MSG_TEXT(field),
                       MSG_INT(1), MSG_INT(RULE_NAME_MAX));
}

static enum gq_code read_segment(json_t *body, const char *path, uint32_t *mask,
                                 struct gq_error *err)
{
    const char *text = NULL;
    enum customer_segment segment;
    enum gq_code code = fields_string(body, "segment", path, false, &text, err);
    *mask = SEGMENT_MASK_ALL;
    if (code == GQ_OK && text != NULL && !segment_parse(text, &segment))
        return fields_fail_one_of(path, "segment", RULE_SEGMENTS, err);
    if (code == GQ_OK && text != NULL)
        *mask = SEGMENT_BIT(segment);
    return code;
}

static enum gq_code read_billing(json_t *body, const char *path, uint32_t *mask,
                                 struct gq_error *err)
{
    const char *text = NULL;
    enum billing_mode mode;
    enum gq_code code = fields_string(body, "billing", path, false, &text, err);
    *mask = DISCOUNT_BILLING_ALL;
    if (code != GQ_OK || text == NULL)
        return code;
    if (strcmp(text, "mixed") == 0)
        *mask = DISCOUNT_BILLING_MIXED;
    else if (billing_mode_parse(text, &mode))
        *mask = BILLING_MODE_BIT(mode);
    else
        return fields_fail_one_of(path, "billing", RULE_BILLINGS, err);
    return GQ_OK;
}

/* Exactly one of basis_points and amount_off. */
static enum gq_code read_amount(json_t *body, const char *path, struct discount_rule *rule,
                                struct gq_error *err)
{
    bool percent = json_object_get(body, "basis_points") != NULL,
         fixed = json_object_get(body, "amount_off") != NULL;
    if (percent == fixed) {
        char field[RULE_FIELD_SIZE];
        fields_path(field, sizeof field, path, "basis_points");
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_FIELD_ONE_OF,
                           MSG_TEXT("the discount"), MSG_TEXT("basis_points, amount_off"));
    }
    rule->kind = percent ? DISCOUNT_PERCENT : DISCOUNT_FIXED;
    if (fixed)
        return fields_price(body, "amount_off", path, &rule->fixed_amount, err);
    int64_t basis_points = 0;
    enum gq_code code = fields_integer(body, "basis_points", path, true, 1, RULE_BASIS_POINTS_MAX,
                                       &basis_points, err);
    rule->basis_points = (int32_t)basis_points;
    return code;
}

static enum gq_code read_window(json_t *body, const char *path, struct discount_rule *rule,
                                struct gq_error *err)
{
    enum gq_code code = fields_time(body, "valid_from", path, false, &rule->valid_from, err);
    if (code == GQ_OK)
        code = fields_time(body, "valid_until", path, false, &rule->valid_until, err);
    if (code != GQ_OK || rule->valid_until == 0 || rule->valid_until > rule->valid_from)
        return code;
    char until[RULE_FIELD_SIZE], from[RULE_FIELD_SIZE];
    fields_path(until, sizeof until, path, "valid_until");
    fields_path(from, sizeof from, path, "valid_from");
    return gq_fail_msg(err, GQ_ERR_INVALID_VALIDITY, until, MSG_INVALID_VALIDITY, MSG_TEXT(until),
                       MSG_TEXT(from));
}

/* The fields from sku on, the window (when `windowed`) between the amount
 * and the priority. */
static enum gq_code read_terms(json_t *body, const char *path, bool windowed,
                               struct discount_rule *rule, struct gq_error *err)
{
    int64_t min_quantity = 1, priority = 100;
    const char *sku = NULL;
    enum gq_code code = fields_string(body, "sku", path, false, &sku, err);
    if (code == GQ_OK)
        code = fields_integer(body, "min_quantity", path, false, 1, RULE_QUANTITY_MAX,
                              &min_quantity, err);
    if (code == GQ_OK)
        code = read_amount(body, path, rule, err);
    if (code == GQ_OK && windowed)
        code = read_window(body, path, rule, err);
    if (code == GQ_OK)
        code = fields_integer(body, "priority", path, false, -RULE_PRIORITY_LIMIT,
                              RULE_PRIORITY_LIMIT, &priority, err);
    if (code == GQ_OK)
        code = fields_boolean(body, "stackable", path, false, &rule->stackable, err);
    rule->sku_id = (char *)sku;
    rule->min_quantity = (int32_t)min_quantity;
    rule->priority = (int32_t)priority;
    return code;
}

enum gq_code discount_rule_body_read(json_t *body, const char *path, bool windowed,
                                     struct discount_rule *rule, struct gq_error *err)
{
    static const char *const windowed_keys[] = {
        "name",       "segment",  "billing",   "sku",        "min_quantity", "basis_points",
        "amount_off", "priority", "stackable", "valid_from", "valid_until",  NULL};
    static const char *const plain_keys[] = {
        "name",         "segment",    "billing",  "sku",       "min_quantity",
        "basis_points", "amount_off", "priority", "stackable", NULL};
    const char *name = NULL;
    memset(rule, 0, sizeof *rule);
    enum gq_code code = fields_only(body, windowed ? windowed_keys : plain_keys, path, err);
    if (code == GQ_OK)
        code = read_name(body, path, &name, err);
    if (code == GQ_OK)
        code = read_segment(body, path, &rule->segment_mask, err);
    if (code == GQ_OK)
        code = read_billing(body, path, &rule->billing_mask, err);
    if (code == GQ_OK)
        code = read_terms(body, path, windowed, rule, err);
    rule->name = (char *)name;
    return code;
}
