/*
 * What every fuzz target shares: the check that stops a run on a broken
 * invariant, and the catalog the targets price against.
 *
 * The harnesses (tests/fuzz/fuzz_*.c) and the regression suites
 * (tests/core/check_fuzz_regressions.c, tests/bodies/check_fuzz_regressions.c)
 * both replay an input through the replay_*.h functions, so a crash the
 * fuzzer found is replayed by the suites along exactly the same path.
 *
 * FUZZ_CHECK prints what failed and aborts: libFuzzer reports the abort as
 * a crash and keeps the input; under Check the forked test dies on the
 * signal and is reported as failed.
 */
#ifndef GQ_TESTS_FUZZ_H
#define GQ_TESTS_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "core/discounts.h"
#include "core/fixture_catalog.h"

#define FUZZ_CHECK(condition)                                                                      \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition);      \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The fixed "now" of every replay (2026-01-31): runs are deterministic, and
 * the catalog's dated rules and bundles fall on both sides of it. */
#define FUZZ_NOW ((int64_t)1769817600)
#define FUZZ_YESTERDAY (FUZZ_NOW - 86400)
#define FUZZ_TOMORROW (FUZZ_NOW + 86400)

/* The seed's five SKUs and two more, sorted by id: four T4s over PCIe with
 * an on-demand price only (the ineligible and not-offered paths), and a
 * V100 priced near MONEY_MAX (the amount-too-large paths). */
static const struct fixture_sku fuzz_skus[] = {
    {"t4-16g-x1", "T4 16GB × 1", FIXTURE_T4_16G, 1, 990, 535000, 1432100, 650, 4.0},
    {"t4-16g-x4", "T4 16GB × 4", FIXTURE_T4_16G, 4, 3960, 0, 0, 0, 0.0},
    {"v100-16g-x1", "V100 16GB × 1", FIXTURE_V100_16G, 1, 228, 123100, 330500, 150, 2.5},
    {"v100-16g-x2", "V100 16GB × 2", FIXTURE_V100_16G, 2, 428, 231100, 619900, 280, 5.0},
    {"v100-32g-x4", "V100 32GB × 4", FIXTURE_V100_32G, 4, 968, 522700, 1401800, 638, 16.0},
    {"v100-32g-x8", "V100 32GB × 8", FIXTURE_V100_32G, 8, 1928, 1041100, 2790700, 1268, 32.0},
    {"zz-v100-32g-x1", "V100 32GB × 1, priced at the limit", FIXTURE_V100_32G, 1, MONEY_MAX / 1000,
     MONEY_MAX / 2, MONEY_MAX, 0, 0.0},
};

static inline void fuzz_add_bundle(struct catalog *catalog, const char *id, gq_money list_price,
                                   gq_money price, uint32_t segments, int64_t valid_until)
{
    struct bundle *bundles =
        realloc(catalog->bundles, (catalog->n_bundles + 1) * sizeof *catalog->bundles);
    if (bundles == NULL) {
        fprintf(stderr, "fuzz: out of memory\n");
        abort();
    }
    catalog->bundles = bundles;
    struct bundle *bundle = &bundles[catalog->n_bundles++];
    memset(bundle, 0, sizeof *bundle);
    bundle->id = fixture_strdup(id);
    bundle->name = fixture_strdup(id);
    bundle->description = fixture_strdup(id);
    bundle->list_price = list_price;
    bundle->price = price;
    bundle->segment_mask = segments;
    bundle->valid_until = valid_until;
}

/* Adds an item to the last bundle added; the SKU must exist. */
static inline void fuzz_add_bundle_item(struct catalog *catalog, const char *sku, int32_t quantity,
                                        int32_t hours)
{
    struct bundle *bundle = &catalog->bundles[catalog->n_bundles - 1];
    struct bundle_item *items = realloc(bundle->items, (bundle->n_items + 1) * sizeof *items);
    const struct sku *found = catalog_find_sku(catalog, sku);
    if (items == NULL || found == NULL) {
        fprintf(stderr, "fuzz: cannot add %s to bundle %s\n", sku, bundle->id);
        abort();
    }
    bundle->items = items;
    items[bundle->n_items++] = (struct bundle_item){found, quantity, hours};
}

/* Rules of every kind: stackable and exclusive, percentage and fixed, per
 * SKU, per billing (the mixed bit included), by quantity, expired and not
 * yet valid, and more stackable ones for students than a line keeps
 * (DISCOUNT_MAX_APPLIED). */
static inline void fuzz_add_rules(struct catalog *catalog)
{
    fixture_add_percent_rule(catalog, "startup-10", SEGMENT_BIT(SEGMENT_STARTUP),
                             DISCOUNT_BILLING_ALL, NULL, 1, 1000);
    struct discount_rule *rule =
        fixture_add_percent_rule(catalog, "enterprise-volume", SEGMENT_BIT(SEGMENT_ENTERPRISE),
                                 DISCOUNT_BILLING_ALL, NULL, 4, 1500);
    rule->stackable = false;
    rule = fixture_add_percent_rule(catalog, "v100-blocks-fixed", SEGMENT_MASK_ALL,
                                    (1u << BILLING_MONTHLY) | (1u << BILLING_QUARTERLY),
                                    "v100-16g-x1", 1, 1);
    rule->kind = DISCOUNT_FIXED;
    rule->fixed_amount = 50000;
    rule->priority = -1;
    rule = fixture_add_percent_rule(catalog, "enterprise-fixed", SEGMENT_BIT(SEGMENT_ENTERPRISE),
                                    DISCOUNT_BILLING_ALL, NULL, 1, 1);
    rule->kind = DISCOUNT_FIXED;
    rule->fixed_amount = 2000000;
    rule->stackable = false;
    fixture_add_percent_rule(catalog, "mixed-5", SEGMENT_MASK_ALL, DISCOUNT_BILLING_MIXED, NULL, 1,
                             500);
    rule = fixture_add_percent_rule(catalog, "expired-50", SEGMENT_MASK_ALL, DISCOUNT_BILLING_ALL,
                                    NULL, 1, 5000);
    rule->valid_until = FUZZ_YESTERDAY;
    rule = fixture_add_percent_rule(catalog, "future-50", SEGMENT_MASK_ALL, DISCOUNT_BILLING_ALL,
                                    NULL, 1, 5000);
    rule->valid_from = FUZZ_TOMORROW;
    rule = fixture_add_percent_rule(catalog, "whole-line", SEGMENT_BIT(SEGMENT_STARTUP),
                                    1u << BILLING_QUARTERLY, "t4-16g-x1", 10, 10000);
    rule->stackable = false;
    for (int i = 0; i < DISCOUNT_MAX_APPLIED + 2; i++) {
        char id[32];
        snprintf(id, sizeof id, "student-%d", i);
        rule = fixture_add_percent_rule(catalog, id, SEGMENT_BIT(SEGMENT_STUDENT),
                                        DISCOUNT_BILLING_ALL, NULL, 1 + i % 3, 100 + 37 * i);
        rule->priority = (i * 7) % 5;
    }
}

/* The catalog every target runs against: the seed's figures plus the
 * SKUs, rules and bundles above, valid as the store would load it. Aborts
 * when it is not (a fuzz run against an impossible catalog proves nothing).
 * Free with catalog_free(). */
static inline struct catalog *fuzz_catalog_new(void)
{
    struct catalog *catalog =
        fixture_catalog_from(fuzz_skus, sizeof fuzz_skus / sizeof fuzz_skus[0]);
    catalog->skus[1].interconnect = INTERCONNECT_PCIE;
    fuzz_add_rules(catalog);
    /* The seed's contents; hours that are not whole days; more days than a
     * usage holds (no alternative). */
    fuzz_add_bundle(catalog, "training-starter-monthly", 164200, 123100, SEGMENT_MASK_ALL, 0);
    fuzz_add_bundle_item(catalog, "v100-16g-x1", 1, 720);
    fuzz_add_bundle(catalog, "enterprise-inference-quarterly", 8484500, 5729300,
                    SEGMENT_BIT(SEGMENT_ENTERPRISE), 0);
    fuzz_add_bundle_item(catalog, "t4-16g-x1", 4, 2160);
    fuzz_add_bundle(catalog, "expired-bundle", 1000, 900, SEGMENT_MASK_ALL, FUZZ_YESTERDAY);
    fuzz_add_bundle_item(catalog, "v100-16g-x1", 2, 29);
    fuzz_add_bundle(catalog, "limit-bundle", MONEY_MAX, MONEY_MAX, SEGMENT_MASK_ALL, 0);
    fuzz_add_bundle_item(catalog, "v100-16g-x1", 1, 87840);
    struct gq_error err;
    if (catalog_validate(catalog, &err) != GQ_OK) {
        fprintf(stderr, "fuzz: invalid catalog: %s\n", err.message);
        abort();
    }
    return catalog;
}

#endif
