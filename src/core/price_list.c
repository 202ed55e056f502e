/*
 * The rules a price list is checked against before it is saved (see
 * price_list.h).
 */
#include "core/price_list.h"

#include <stdio.h>

bool price_list_window_ok(int64_t valid_from, int64_t valid_until)
{
    return valid_from == 0 || valid_until == 0 || valid_until > valid_from;
}

/* A block's price must not exceed its hours at the on-demand rate. */
static enum gq_code check_block_price(const struct catalog *catalog, const struct sku *sku,
                                      enum billing_mode mode, struct gq_error *err)
{
    int32_t hours = catalog->modes[mode].block_hours;
    if (hours <= 0 || !sku->priced[mode] || !sku->priced[BILLING_ON_DEMAND])
        return GQ_OK;
    gq_money cap;
    if (!money_mul(sku->price[BILLING_ON_DEMAND], hours, &cap))
        return GQ_OK; /* a cap beyond MONEY_MAX: no price can be above it */
    if (sku->price[mode] <= cap)
        return GQ_OK;
    char price[MONEY_FORMAT_SIZE], limit[MONEY_FORMAT_SIZE], field[96];
    snprintf(field, sizeof field, "prices.%s", billing_mode_id(mode));
    return gq_fail_msg(err, GQ_ERR_PRICE_ABOVE_HOURLY, field, MSG_PRICE_ABOVE_HOURLY,
                       MSG_TEXT(billing_mode_id(mode)), MSG_TEXT_CUT(sku->id, 64),
                       MSG_TEXT(money_format(sku->price[mode], price)),
                       MSG_TEXT(money_format(cap, limit)));
}

static enum gq_code fail_above_ceiling(const char *field, gq_money price, struct gq_error *err)
{
    char text[MONEY_FORMAT_SIZE], most[MONEY_FORMAT_SIZE];
    return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_PRICE_ABOVE_CEILING, MSG_TEXT(field),
                       MSG_TEXT(money_format(price, text)),
                       MSG_TEXT(money_format(PRICE_LIST_PRICE_MAX, most)));
}

static enum gq_code check_sku(const struct catalog *catalog, const struct sku *sku,
                              struct gq_error *err)
{
    for (int mode = 0; mode < BILLING_MODE_COUNT; mode++) {
        char field[96];
        snprintf(field, sizeof field, "prices.%s", billing_mode_id((enum billing_mode)mode));
        if (sku->priced[mode] && sku->price[mode] <= 0)
            return gq_fail_msg(err, GQ_ERR_PRICE_NOT_POSITIVE, field, MSG_PRICE_NOT_POSITIVE,
                               MSG_TEXT(field));
        if (sku->priced[mode] && sku->price[mode] > PRICE_LIST_PRICE_MAX)
            return fail_above_ceiling(field, sku->price[mode], err);
        enum gq_code code = check_block_price(catalog, sku, (enum billing_mode)mode, err);
        if (code != GQ_OK)
            return code;
    }
    return GQ_OK;
}

enum gq_code price_list_check(const struct catalog *catalog, struct gq_error *err)
{
    for (size_t i = 0; i < catalog->n_skus; i++) {
        enum gq_code code = check_sku(catalog, &catalog->skus[i], err);
        if (code != GQ_OK)
            return code;
    }
    for (size_t i = 0; i < catalog->n_rules; i++)
        if (!price_list_window_ok(catalog->rules[i].valid_from, catalog->rules[i].valid_until))
            return gq_fail_msg(err, GQ_ERR_INVALID_VALIDITY, "valid_until", MSG_INVALID_VALIDITY,
                               MSG_TEXT("valid_until"), MSG_TEXT("valid_from"));
    for (size_t i = 0; i < catalog->n_bundles; i++)
        if (!price_list_window_ok(catalog->bundles[i].valid_from, catalog->bundles[i].valid_until))
            return gq_fail_msg(err, GQ_ERR_INVALID_VALIDITY, "valid_until", MSG_INVALID_VALIDITY,
                               MSG_TEXT("valid_until"), MSG_TEXT("valid_from"));
    for (size_t i = 0; i < catalog->n_bundles; i++)
        if (catalog->bundles[i].price <= 0 || catalog->bundles[i].list_price <= 0)
            return gq_fail_msg(err, GQ_ERR_PRICE_NOT_POSITIVE, "price", MSG_PRICE_NOT_POSITIVE,
                               MSG_TEXT("price"));
    for (size_t i = 0; i < catalog->n_bundles; i++) {
        const struct bundle *bundle = &catalog->bundles[i];
        if (bundle->price > PRICE_LIST_PRICE_MAX || bundle->list_price > PRICE_LIST_PRICE_MAX)
            return bundle->price > PRICE_LIST_PRICE_MAX
                       ? fail_above_ceiling("price", bundle->price, err)
                       : fail_above_ceiling("list_price", bundle->list_price, err);
    }
    return GQ_OK;
}
