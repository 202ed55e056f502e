/*
 * What a price list must be to be sold from, beyond the catalog's own
 * invariants (catalog_validate()): the business's rules on prices and
 * windows, checked on a draft after every edit and before it is published.
 * Pure C, like the rest of the core.
 */
#ifndef GQ_CORE_PRICE_LIST_H
#define GQ_CORE_PRICE_LIST_H

#include "core/catalog.h"
#include "core/error.h"

/* The highest price a list may hold, one ceiling for every price (an hour,
 * a month, a quarter, a bundle, a fixed discount): 100,000,000.00 yuan.
 * Far above any real price (a year of a thousand GPUs at 10.00 an hour is
 * 87,600,000.00), yet it catches a price typed with a few digits too
 * many. It keeps the quote engine's products of a price small: a price
 * times its blocks (at most 122 months) or a bundle's hours (8760) is at
 * most 8.76e13 fen, 10^5 times below INT64_MAX, and the hourly charge is
 * computed in 128 bits. */
#define PRICE_LIST_PRICE_MAX ((gq_money)10000000000LL)

/* GQ_OK, or the first rule `catalog` breaks, with `err` naming it:
 * GQ_ERR_PRICE_NOT_POSITIVE (a price of zero or less), GQ_ERR_OUT_OF_RANGE
 * (a SKU's or a bundle's price above PRICE_LIST_PRICE_MAX),
 * GQ_ERR_PRICE_ABOVE_HOURLY (a block mode's price above block_hours times
 * the SKU's on-demand rate: monthly above 720 h, quarterly above 2160 h;
 * nobody would buy the block), GQ_ERR_INVALID_VALIDITY (a discount rule or
 * a bundle whose end is not after its start). */
enum gq_code price_list_check(const struct catalog *catalog, struct gq_error *err);

/* The same rule for one window: GQ_OK when either end is open (0) or
 * valid_until > valid_from. */
bool price_list_window_ok(int64_t valid_from, int64_t valid_until);

#endif
