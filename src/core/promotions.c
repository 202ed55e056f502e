/*
 * Whether a promotion code may be used, and whether it was: the checks of
 * promotions.h, each refusal worded in both languages with its reason.
 */
#include "core/promotions.h"

#include <stdio.h>
#include <string.h>

#include "core/messages.h"

enum { CODE_MIN = 3, CODE_MAX = 32 };

static enum gq_code refuse(struct gq_error *err, const char *reason, enum gq_code code)
{
    if (err != NULL)
        snprintf(err->state, sizeof err->state, "%s", reason);
    return code;
}

enum gq_code promotion_check(const struct promotion_terms *terms, int64_t now, struct gq_error *err)
{
    const char *field = "promotion_code";
    if (!terms->active)
        return refuse(err, "inactive",
                      gq_fail_msg(err, GQ_ERR_PROMOTION_CODE_INVALID, field, MSG_PROMO_INACTIVE,
                                  MSG_TEXT(terms->code)));
    if (terms->expires_at > 0 && terms->expires_at <= now)
        return refuse(err, "expired",
                      gq_fail_msg(err, GQ_ERR_PROMOTION_CODE_INVALID, field, MSG_PROMO_EXPIRED,
                                  MSG_TEXT(terms->code), MSG_TEXT(terms->expires_text)));
    if (terms->max_redemptions > 0 && terms->redemptions >= terms->max_redemptions)
        return refuse(err, "exhausted",
                      gq_fail_msg(err, GQ_ERR_PROMOTION_CODE_INVALID, field, MSG_PROMO_EXHAUSTED,
                                  MSG_TEXT(terms->code), MSG_INT(terms->redemptions)));
    if (terms->needs_customer)
        return refuse(err, "needs_customer",
                      gq_fail_msg(err, GQ_ERR_PROMOTION_CODE_INVALID, field,
                                  MSG_PROMO_NEEDS_CUSTOMER, MSG_TEXT(terms->code)));
    return GQ_OK;
}

static bool discounted_by(const struct discount_result *discounts, const struct discount_rule *rule)
{
    for (int i = 0; i < discounts->n_applied; i++)
        if (discounts->applied[i].rule == rule)
            return true;
    return false;
}

enum gq_code promotion_check_applied(const char *code, const struct discount_rule *rule,
                                     const struct quote_result *result, struct gq_error *err)
{
    for (size_t i = 0; i < result->n_items; i++)
        if (discounted_by(&result->items[i].billed->discounts, rule))
            return GQ_OK;
    return refuse(err, "not_applicable",
                  gq_fail_msg(err, GQ_ERR_PROMOTION_CODE_INVALID, "promotion_code",
                              MSG_PROMO_NOT_APPLICABLE, MSG_TEXT(code)));
}

bool promotion_code_normalize(const char *text, char out[33])
{
    size_t length = strlen(text);
    if (length < CODE_MIN || length > CODE_MAX)
        return false;
    for (size_t i = 0; i <= length; i++) {
        char c = text[i];
        out[i] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
    }
    return strspn(out, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == length;
}
