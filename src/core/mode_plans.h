/*
 * Mode plans: the cheapest plan over any set of billing modes, where a mode
 * is data rather than one of a fixed list. An hourly mode charges a rate for
 * the time it bills each day of use (the usage rounded up to its increment,
 * and at least its minimum); a block mode sells block_days calendar days,
 * every hour of them, for one price. For a usage of H hours a day over D
 * days, mode_plan_cheapest() finds the cheapest mix of any number of blocks
 * of every length plus hourly time for the days the blocks leave, exactly,
 * in time linear in D and without allocating.
 *
 * The caller hands in the modes one SKU may be sold in to one customer,
 * each with that SKU's price: which modes a segment may use and which the
 * SKU is priced in is decided before. Amounts are per instance, as in
 * plans.h, whose `struct usage` (hours per day in thousandths) this module
 * shares.
 */
#ifndef GQ_CORE_MODE_PLANS_H
#define GQ_CORE_MODE_PLANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/messages.h"
#include "core/money.h"
#include "core/plans.h"

#define MODE_PLAN_MAX_MODES 16
#define MODE_PLAN_MAX_BLOCK_DAYS 3660
#define MODE_PLAN_SECONDS_PER_DAY 86400
/* Billed time is counted in tenths of a second: a thousandth of an hour
 * (3.6 s, the finest usage) and a second are both whole numbers of it. */
#define MODE_PLAN_DECISECONDS_PER_HOUR 36000

enum priced_mode_kind { PRICED_MODE_HOURLY, PRICED_MODE_BLOCK };

/* One billing mode with the price of one SKU in it. */
struct priced_mode {
    const char *id; /* "weekly" */
    enum priced_mode_kind kind;
    int32_t block_days;        /* block: 1 .. MODE_PLAN_MAX_BLOCK_DAYS */
    int32_t increment_seconds; /* hourly: 1 .. 86400, or 0: billed as used, to the
                                  thousandth of an hour (the seed's hourly modes) */
    int32_t minimum_seconds;   /* hourly: billed at least this on each day of use */
    gq_money price;            /* fen per hour (hourly) or per block; >= 0 */
    /* What a plan calls it, per language: for a block its unit, singular
     * and plural, with any measure word it takes ("week", "weeks"; "周",
     * "个季度"); for an hourly mode the words after the days it pays ("on
     * demand"; "按需"). NULL: the other number's, then English's. */
    const char *name_one[GQ_LANG_COUNT];
    const char *name_many[GQ_LANG_COUNT];
};

/* A plan: blocks longest first, then at most one hourly part. */
#define MODE_PLAN_MAX_PARTS MODE_PLAN_MAX_MODES

struct mode_plan_part {
    int mode;                   /* index in the modes the plan was found over */
    int32_t blocks;             /* blocks bought; 0 for the hourly part */
    int32_t days;               /* days of the usage this part covers */
    int64_t millihours;         /* hours of use it covers, in thousandths */
    int64_t billed_deciseconds; /* hourly: time billed, increments and minimums
                                   applied; block: 0 */
    gq_money amount;            /* per instance */
};

struct mode_plan {
    struct mode_plan_part parts[MODE_PLAN_MAX_PARTS];
    int n_parts;
    gq_money amount; /* the sum of the parts */
};

/* True when the mode's fields are within the ranges above. */
bool mode_plan_mode_is_valid(const struct priced_mode *mode);

/* The time an hourly mode bills for a day of `millihours_per_day` of use,
 * in tenths of a second: the use rounded up to the increment, and at least
 * the minimum (7.5 h at 3,600 s bills 8 h; at 60 s, 7.5 h). */
int64_t mode_plan_billed_deciseconds(const struct priced_mode *mode, int32_t millihours_per_day);

/* Prices the whole usage in modes[index] alone: an hourly mode bills every
 * day, a block mode buys ⌈days / block_days⌉ blocks.
 * Returns GQ_ERR_AMOUNT_TOO_LARGE when the amount exceeds MONEY_MAX. */
enum gq_code mode_plan_single(const struct priced_mode *modes, int index, const struct usage *usage,
                              struct mode_plan *out);

/* The minimum-cost cover of the usage's days by blocks of any of `modes`
 * (overlapping the end if that is cheaper) and the cheapest of its hourly
 * modes for the days they leave. Exact: a shortest path over the days,
 * O(days × block modes), costs compared in exact integers and the hourly
 * part rounded once. Ties go to fewer blocks. `n_modes` is at most
 * MODE_PLAN_MAX_MODES and every mode valid.
 * Returns GQ_ERR_NOT_ELIGIBLE when `n_modes` is 0, GQ_ERR_AMOUNT_TOO_LARGE
 * when the cheapest plan exceeds MONEY_MAX; *out is then empty. */
enum gq_code mode_plan_cheapest(const struct priced_mode *modes, int n_modes,
                                const struct usage *usage, struct mode_plan *out);

/* The hours per day of use above which one block of `block` costs less than
 * paying `hourly` for each of its days, in tenths of an hour rounded
 * half-up (180 = 18.0 h/day; above 240 the block never wins; 0 when the
 * hourly minimum alone costs more than the block). Increments count: at
 * 3,600 s a break-even of 7.7 h is 7.0 h, since 7.1 h bills 8 h.
 * Returns -1 unless `hourly` is hourly with a positive price and `block` a
 * block. */
int32_t mode_plan_break_even_tenths(const struct priced_mode *hourly,
                                    const struct priced_mode *block);

/* The break-even of every pair: out[i][j] is mode_plan_break_even_tenths
 * (modes[i], modes[j]), -1 where i is not hourly or j not a block. */
void mode_plan_break_evens(const struct priced_mode *modes, int n_modes,
                           int32_t out[MODE_PLAN_MAX_MODES][MODE_PLAN_MAX_MODES]);

/* Writes the plan in words, "1 quarter + 1 week + 3 days on demand" ("1 个
 * 季度 + 1 周 + 3 天按需"), from the names of the `modes` it was found over,
 * into `buf` (always NUL-terminated, cut to fit). Returns the length. */
size_t mode_plan_words(const struct mode_plan *plan, const struct priced_mode *modes,
                       enum gq_lang lang, char *buf, size_t size);

#endif
