/*
 * Mode plans: single-mode prices, the exact cheapest cover of a usage's days
 * by any set of block and hourly modes, break-even usage, and a plan in
 * words.
 *
 * The cheapest cover is a shortest path over the days. Every day of use
 * costs the same by the hour (the cheapest hourly mode's billed day), so
 * cost[d], the least that covers the first d days, is the least of
 * cost[d - 1] plus an hourly day and, for each block mode, cost[max(0,
 * d - block_days)] plus a block: a block may run past the last day. That is
 * O(days × block modes) in fixed arrays. Two prunings keep it short
 * without changing the answer: a block dearer than its days by the hour
 * never helps (the hours are as cheap and commit to nothing), nor does one
 * no longer and no cheaper than another; with no block left the plan is
 * every day by the hour.
 *
 * Costs are compared exactly as integers in units of 1/Q fen, where Q is
 * the smallest count per hour that makes the hourly day whole (at most
 * 3,600: billed time is whole seconds or whole thousandths of an hour), so
 * a cost of up to MONEY_MAX fits in 64 bits; anything dearer is held at a
 * cap, since such a plan cannot be sold. The hourly part is rounded to the
 * fen once, at the end (money_scale).
 */
#include "core/mode_plans.h"

#include <assert.h>
#include <string.h>

__extension__ typedef __int128 wide;

#define DECISECONDS_PER_MILLIHOUR 36
#define DECISECONDS_PER_SECOND 10
/* Above every cost of a plan that can be sold; twice it still fits. */
#define COST_CAP ((int64_t)MONEY_MAX * 3600 + 1)
#define STEP_HOURLY UINT8_MAX

bool mode_plan_mode_is_valid(const struct priced_mode *mode)
{
    if (mode->price < 0 || mode->price > MONEY_MAX)
        return false;
    if (mode->kind == PRICED_MODE_BLOCK)
        return mode->block_days >= 1 && mode->block_days <= MODE_PLAN_MAX_BLOCK_DAYS;
    return mode->kind == PRICED_MODE_HOURLY && mode->increment_seconds >= 0 &&
           mode->increment_seconds <= MODE_PLAN_SECONDS_PER_DAY && mode->minimum_seconds >= 0 &&
           mode->minimum_seconds <= MODE_PLAN_SECONDS_PER_DAY;
}

int64_t mode_plan_billed_deciseconds(const struct priced_mode *mode, int32_t millihours_per_day)
{
    assert(mode->kind == PRICED_MODE_HOURLY);
    int64_t billed = (int64_t)millihours_per_day * DECISECONDS_PER_MILLIHOUR;
    if (mode->increment_seconds > 0) {
        int64_t step = (int64_t)mode->increment_seconds * DECISECONDS_PER_SECOND;
        billed = (billed + step - 1) / step * step;
    }
    int64_t minimum = (int64_t)mode->minimum_seconds * DECISECONDS_PER_SECOND;
    return billed < minimum ? minimum : billed;
}

/* ---- parts ----------------------------------------------------------- */

static enum gq_code add_part(struct mode_plan *plan, const struct mode_plan_part *part)
{
    assert(plan->n_parts < MODE_PLAN_MAX_PARTS);
    if (part->amount > MONEY_MAX || !money_add(plan->amount, part->amount, &plan->amount) ||
        plan->amount > MONEY_MAX)
        return GQ_ERR_AMOUNT_TOO_LARGE;
    plan->parts[plan->n_parts++] = *part;
    return GQ_OK;
}

static enum gq_code add_hourly_part(const struct priced_mode *modes, int index, int32_t days,
                                    const struct usage *usage, struct mode_plan *plan)
{
    struct mode_plan_part part = {
        .mode = index,
        .days = days,
        .millihours = (int64_t)days * usage->millihours_per_day,
        .billed_deciseconds =
            days * mode_plan_billed_deciseconds(&modes[index], usage->millihours_per_day),
    };
    if (!money_scale(modes[index].price, part.billed_deciseconds, MODE_PLAN_DECISECONDS_PER_HOUR,
                     &part.amount))
        return GQ_ERR_AMOUNT_TOO_LARGE;
    return add_part(plan, &part);
}

static enum gq_code add_block_part(const struct priced_mode *modes, int index, int32_t blocks,
                                   int32_t days, const struct usage *usage, struct mode_plan *plan)
{
    struct mode_plan_part part = {
        .mode = index,
        .blocks = blocks,
        .days = days,
        .millihours = (int64_t)days * usage->millihours_per_day,
    };
    if (!money_mul(modes[index].price, blocks, &part.amount))
        return GQ_ERR_AMOUNT_TOO_LARGE;
    return add_part(plan, &part);
}

enum gq_code mode_plan_single(const struct priced_mode *modes, int index, const struct usage *usage,
                              struct mode_plan *out)
{
    assert(usage_is_valid(usage) && mode_plan_mode_is_valid(&modes[index]));
    *out = (struct mode_plan){0};
    if (modes[index].kind == PRICED_MODE_HOURLY)
        return add_hourly_part(modes, index, usage->days, usage, out);
    int32_t block_days = modes[index].block_days;
    int32_t blocks = (usage->days + block_days - 1) / block_days;
    return add_block_part(modes, index, blocks, usage->days, usage, out);
}

/* ---- the steps of the search ----------------------------------------- */

/* What one step of the path costs, in units of 1/Q fen. */
struct steps {
    int hourly;         /* index of the cheapest hourly mode, or -1 */
    int64_t hourly_day; /* a day of use by the hour */
    int n_blocks;       /* block modes worth trying, longest first */
    int block[MODE_PLAN_MAX_MODES];
    int32_t block_days[MODE_PLAN_MAX_MODES];
    int64_t block_cost[MODE_PLAN_MAX_MODES];
};

static int64_t capped(wide cost)
{
    return cost > COST_CAP ? COST_CAP : (int64_t)cost;
}

static int64_t add_capped(int64_t a, int64_t b)
{
    int64_t sum = a + b; /* both at most COST_CAP: no overflow */
    return sum > COST_CAP ? COST_CAP : sum;
}

static int64_t greatest_common_divisor(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t rest = a % b;
        a = b;
        b = rest;
    }
    return a;
}

/* The hourly mode whose day of this usage costs least (the first of
 * equals), or -1; *billed is the time it bills a day. */
static int cheapest_hourly(const struct priced_mode *modes, int n_modes, int32_t millihours,
                           int64_t *billed)
{
    int best = -1;
    wide best_cost = 0;
    for (int i = 0; i < n_modes; i++) {
        if (modes[i].kind != PRICED_MODE_HOURLY)
            continue;
        int64_t time = mode_plan_billed_deciseconds(&modes[i], millihours);
        wide cost = (wide)modes[i].price * time;
        if (best < 0 || cost < best_cost) {
            best = i;
            best_cost = cost;
            *billed = time;
        }
    }
    return best;
}

/* True when block mode j makes block mode i useless: as long and no
 * dearer (the first of two equal ones is kept). */
static bool block_dominated(int n, int i, const int32_t *days, const int64_t *cost)
{
    for (int j = 0; j < n; j++) {
        if (j == i || days[j] < days[i] || cost[j] > cost[i])
            continue;
        if (days[j] > days[i] || cost[j] < cost[i] || j < i)
            return true;
    }
    return false;
}

/* Keeps the block modes worth trying, sorted longest first (stable). */
static void keep_useful_blocks(const struct priced_mode *modes, int n_modes, int64_t units_per_fen,
                               struct steps *steps)
{
    int index[MODE_PLAN_MAX_MODES], n = 0;
    int32_t days[MODE_PLAN_MAX_MODES];
    int64_t cost[MODE_PLAN_MAX_MODES];
    for (int i = 0; i < n_modes; i++) {
        if (modes[i].kind != PRICED_MODE_BLOCK)
            continue;
        index[n] = i;
        days[n] = modes[i].block_days;
        cost[n] = capped((wide)modes[i].price * units_per_fen);
        n++;
    }
    steps->n_blocks = 0;
    for (int i = 0; i < n; i++) {
        bool dearer_than_hours =
            steps->hourly >= 0 && (wide)cost[i] >= (wide)days[i] * steps->hourly_day;
        if (dearer_than_hours || block_dominated(n, i, days, cost))
            continue;
        int k = steps->n_blocks++;
        while (k > 0 && steps->block_days[k - 1] < days[i]) {
            steps->block[k] = steps->block[k - 1];
            steps->block_days[k] = steps->block_days[k - 1];
            steps->block_cost[k] = steps->block_cost[k - 1];
            k--;
        }
        steps->block[k] = index[i];
        steps->block_days[k] = days[i];
        steps->block_cost[k] = cost[i];
    }
}

static void find_steps(const struct priced_mode *modes, int n_modes, const struct usage *usage,
                       struct steps *steps)
{
    int64_t billed = 0, units_per_fen = 1;
    steps->hourly = cheapest_hourly(modes, n_modes, usage->millihours_per_day, &billed);
    steps->hourly_day = 0;
    if (steps->hourly >= 0) {
        /* Q: the day's price × billed ÷ 36,000 fen, whole in units of 1/Q. */
        int64_t common = greatest_common_divisor(billed, MODE_PLAN_DECISECONDS_PER_HOUR);
        units_per_fen = MODE_PLAN_DECISECONDS_PER_HOUR / common;
        steps->hourly_day = capped((wide)modes[steps->hourly].price * (billed / common));
    }
    keep_useful_blocks(modes, n_modes, units_per_fen, steps);
}

/* ---- the search ------------------------------------------------------ */

/* The cheapest cover of the first d days, its block count (for ties), and
 * the step that reaches it: a block's position in `steps`, or STEP_HOURLY. */
struct day_table {
    int64_t cost[USAGE_MAX_DAYS + 1];
    int16_t blocks[USAGE_MAX_DAYS + 1];
    uint8_t step[USAGE_MAX_DAYS + 1];
};

static void fill_day_table(const struct steps *steps, int32_t days, struct day_table *table)
{
    table->cost[0] = 0;
    table->blocks[0] = 0;
    for (int32_t d = 1; d <= days; d++) {
        int64_t best = INT64_MAX;
        int best_blocks = 0;
        uint8_t best_step = STEP_HOURLY;
        if (steps->hourly >= 0) {
            best = add_capped(table->cost[d - 1], steps->hourly_day);
            best_blocks = table->blocks[d - 1];
        }
        for (int k = 0; k < steps->n_blocks; k++) {
            int32_t from = d > steps->block_days[k] ? d - steps->block_days[k] : 0;
            int64_t cost = add_capped(table->cost[from], steps->block_cost[k]);
            int blocks = table->blocks[from] + 1;
            if (cost < best || (cost == best && blocks < best_blocks)) {
                best = cost;
                best_blocks = blocks;
                best_step = (uint8_t)k;
            }
        }
        table->cost[d] = best;
        table->blocks[d] = (int16_t)best_blocks;
        table->step[d] = best_step;
    }
}

/* Walks the table back from the last day: blocks bought per step, and the
 * days left to the hourly mode. */
static int32_t count_steps(const struct steps *steps, const struct day_table *table, int32_t days,
                           int32_t blocks[MODE_PLAN_MAX_MODES])
{
    int32_t hourly_days = 0;
    for (int k = 0; k < steps->n_blocks; k++)
        blocks[k] = 0;
    for (int32_t d = days; d > 0;) {
        uint8_t step = table->step[d];
        if (step == STEP_HOURLY) {
            hourly_days++;
            d--;
        } else {
            blocks[step]++;
            d = d > steps->block_days[step] ? d - steps->block_days[step] : 0;
        }
    }
    return hourly_days;
}

/* Writes the cover as parts: each block mode, longest first, covering the
 * days it can of those still uncovered, then the hourly days. */
static enum gq_code add_cover_parts(const struct priced_mode *modes, const struct steps *steps,
                                    const int32_t blocks[MODE_PLAN_MAX_MODES], int32_t hourly_days,
                                    const struct usage *usage, struct mode_plan *out)
{
    int32_t days_left = usage->days;
    enum gq_code code = GQ_OK;
    for (int k = 0; k < steps->n_blocks && code == GQ_OK; k++) {
        if (blocks[k] == 0)
            continue;
        int64_t span = (int64_t)blocks[k] * steps->block_days[k];
        int32_t days = span < days_left ? (int32_t)span : days_left;
        days_left -= days;
        code = add_block_part(modes, steps->block[k], blocks[k], days, usage, out);
    }
    assert(days_left == hourly_days);
    if (code == GQ_OK && hourly_days > 0)
        code = add_hourly_part(modes, steps->hourly, hourly_days, usage, out);
    return code;
}

static enum gq_code plan_every_day_by_the_hour(const struct priced_mode *modes, int hourly,
                                               const struct usage *usage, struct mode_plan *out)
{
    return add_hourly_part(modes, hourly, usage->days, usage, out);
}

enum gq_code mode_plan_cheapest(const struct priced_mode *modes, int n_modes,
                                const struct usage *usage, struct mode_plan *out)
{
    assert(usage_is_valid(usage) && n_modes >= 0 && n_modes <= MODE_PLAN_MAX_MODES);
    *out = (struct mode_plan){0};
    if (n_modes == 0)
        return GQ_ERR_NOT_ELIGIBLE;
    struct steps steps;
    find_steps(modes, n_modes, usage, &steps);
    enum gq_code code;
    if (steps.n_blocks == 0) {
        code = plan_every_day_by_the_hour(modes, steps.hourly, usage, out);
    } else {
        struct day_table table;
        int32_t blocks[MODE_PLAN_MAX_MODES];
        fill_day_table(&steps, usage->days, &table);
        if (table.cost[usage->days] >= COST_CAP)
            code = GQ_ERR_AMOUNT_TOO_LARGE;
        else
            code = add_cover_parts(modes, &steps, blocks,
                                   count_steps(&steps, &table, usage->days, blocks), usage, out);
    }
    if (code != GQ_OK)
        *out = (struct mode_plan){0};
    return code;
}

/* ---- break-even ------------------------------------------------------ */

/* numerator ÷ denominator rounded half-up; the numerator non-negative,
 * the denominator positive. */
static int32_t divide_half_up(wide numerator, wide denominator)
{
    wide quotient = (numerator * 2 + denominator) / (denominator * 2);
    return quotient > INT32_MAX ? INT32_MAX : (int32_t)quotient;
}

/* The block costs as much as block_days days each billed x, with
 * x = price × 36,000 ÷ (rate × block_days) tenths of a second. The hourly
 * mode costs no more than the block while a day bills at most x: up to x
 * hours of use when billed as used, and up to the last whole increment
 * within x otherwise; never, when its minimum alone bills more. */
int32_t mode_plan_break_even_tenths(const struct priced_mode *hourly,
                                    const struct priced_mode *block)
{
    if (hourly->kind != PRICED_MODE_HOURLY || block->kind != PRICED_MODE_BLOCK ||
        hourly->price <= 0)
        return -1;
    const wide deciseconds_per_tenth_hour = MODE_PLAN_DECISECONDS_PER_HOUR / 10;
    wide x_numerator = (wide)block->price * MODE_PLAN_DECISECONDS_PER_HOUR;
    wide x_denominator = (wide)hourly->price * block->block_days;
    wide minimum = (wide)hourly->minimum_seconds * DECISECONDS_PER_SECOND;
    if (minimum * x_denominator > x_numerator)
        return 0;
    if (hourly->increment_seconds == 0)
        return divide_half_up(x_numerator, x_denominator * deciseconds_per_tenth_hour);
    wide step = (wide)hourly->increment_seconds * DECISECONDS_PER_SECOND;
    wide last_step = x_numerator / (x_denominator * step) * step;
    return divide_half_up(last_step, deciseconds_per_tenth_hour);
}

void mode_plan_break_evens(const struct priced_mode *modes, int n_modes,
                           int32_t out[MODE_PLAN_MAX_MODES][MODE_PLAN_MAX_MODES])
{
    assert(n_modes >= 0 && n_modes <= MODE_PLAN_MAX_MODES);
    for (int i = 0; i < n_modes; i++)
        for (int j = 0; j < n_modes; j++)
            out[i][j] = mode_plan_break_even_tenths(&modes[i], &modes[j]);
}

/* ---- words ----------------------------------------------------------- */

/* The mode's name for `count` in `lang`: that number's, else the other
 * number's in the same language, else English's, else its id. */
static const char *mode_name(const struct priced_mode *mode, enum gq_lang lang, int64_t count)
{
    const char *const *wanted = count == 1 ? mode->name_one : mode->name_many;
    const char *const *other = count == 1 ? mode->name_many : mode->name_one;
    const char *candidates[] = {wanted[lang], other[lang], wanted[GQ_LANG_EN], other[GQ_LANG_EN]};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (candidates[i] != NULL)
            return candidates[i];
    return mode->id;
}

/* Appends `text` to what `buf` holds, cut to fit; returns the new length. */
static size_t append(char *buf, size_t size, size_t length, const char *text, size_t count)
{
    size_t room = size - 1 - length;
    if (count > room)
        count = room;
    memcpy(buf + length, text, count);
    buf[length + count] = '\0';
    return length + count;
}

/* "3 weeks", "1 个季度": a count and the block's own unit, which carries
 * what a language needs between them (a measure word), so the service adds
 * no words of its own. */
static size_t append_blocks(char *buf, size_t size, size_t length, int32_t count, const char *unit)
{
    char digits[16];
    size_t first = sizeof digits;
    uint32_t rest = count < 0 ? 0 : (uint32_t)count;
    digits[--first] = ' ';
    do {
        digits[--first] = (char)('0' + rest % 10);
        rest /= 10;
    } while (rest != 0);
    length = append(buf, size, length, digits + first, sizeof digits - first);
    return append(buf, size, length, unit, strlen(unit));
}

size_t mode_plan_words(const struct mode_plan *plan, const struct priced_mode *modes,
                       enum gq_lang lang, char *buf, size_t size)
{
    size_t length = 0;
    if (size == 0)
        return 0;
    if ((unsigned)lang >= GQ_LANG_COUNT)
        lang = GQ_LANG_EN;
    buf[0] = '\0';
    for (int i = 0; i < plan->n_parts && length + 1 < size; i++) {
        const struct mode_plan_part *part = &plan->parts[i];
        const struct priced_mode *mode = &modes[part->mode];
        if (i > 0)
            length = append(buf, size, length, " + ", 3);
        if (mode->kind == PRICED_MODE_BLOCK) {
            length =
                append_blocks(buf, size, length, part->blocks, mode_name(mode, lang, part->blocks));
            continue;
        }
        const struct msg_arg args[] = {MSG_INT(part->days),
                                       MSG_CLAUSE(mode_name(mode, lang, part->days))};
        length +=
            messages_format(lang, part->days == 1 ? MSG_PLAN_HOURLY_DAY : MSG_PLAN_HOURLY_DAYS,
                            args, 2, buf + length, size - length);
    }
    return length;
}
