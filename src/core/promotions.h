/*
 * Promotion codes: whether a code may be used now, and whether a priced
 * quote used it. A code gives one discount rule (discounts.h) that competes
 * with the price list's rules like one of them; what stands in the way of
 * using it is a GQ_ERR_PROMOTION_CODE_INVALID whose state names the reason.
 */
#ifndef GQ_CORE_PROMOTIONS_H
#define GQ_CORE_PROMOTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/quote.h"

/* A code's terms as the store holds them; 0 means none for expires_at and
 * max_redemptions. */
struct promotion_terms {
    const char *code;
    bool active;
    int64_t expires_at;
    const char *expires_text; /* expires_at in RFC 3339, for the message */
    int64_t max_redemptions;
    int64_t redemptions;
    bool needs_customer; /* a per-customer limit or first-time-only */
};

/* GQ_OK when the code may price a quote at `now`; else
 * GQ_ERR_PROMOTION_CODE_INVALID with err->state "inactive", "expired",
 * "exhausted" or "needs_customer" (checked in that order). */
enum gq_code promotion_check(const struct promotion_terms *terms, int64_t now,
                             struct gq_error *err);

/* GQ_OK when `rule` discounts at least one item of `result` as billed;
 * else GQ_ERR_PROMOTION_CODE_INVALID, state "not_applicable". */
enum gq_code promotion_check_applied(const char *code, const struct discount_rule *rule,
                                     const struct quote_result *result, struct gq_error *err);

/* "A-Z0-9_-", 3 to 32 characters, after upper-casing `text` into `out`
 * (33 bytes); false when it is not such a code. */
bool promotion_code_normalize(const char *text, char out[33]);

#endif
