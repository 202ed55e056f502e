/*
 * The recommendation engine: try every SKU × instance count, keep the best
 * few and a bounded list of rejections, then write the reasons.
 *
 * Prices come from quote_compute() alone, called exactly as POST /quote
 * calls it for one item billed "cheapest", so a recommendation's total is a
 * quote's total to the fen. Text (reasons, details, the hint) is written
 * only for what is returned, after the scan, never per try.
 */
#include "core/recommend.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/quote.h"

/* A run's hours become whole milli-hours rounded up; this much floating-
 * point noise above a whole milli-hour is not another milli-hour. */
#define MILLIHOUR_NOISE 1e-6
/* Days are shown to a tenth, rounded up, so a run that needs a sliver more
 * than its deadline never reads as on time; this much is noise. */
#define TENTH_NOISE 1e-9

static const char *const objective_ids[RECOMMEND_OBJECTIVE_COUNT] = {
    [RECOMMEND_OBJECTIVE_COST] = "cost",
    [RECOMMEND_OBJECTIVE_TIME] = "time",
};

static const char *const reject_reason_ids[RECOMMEND_REJECT_REASON_COUNT] = {
    [RECOMMEND_REJECT_OVER_BUDGET] = "over_budget",
    [RECOMMEND_REJECT_MISSES_DEADLINE] = "misses_deadline",
    [RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL] = "exceeds_max_rental",
    [RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT] = "insufficient_throughput",
    [RECOMMEND_REJECT_INSUFFICIENT_MEMORY] = "insufficient_memory",
    [RECOMMEND_REJECT_NOT_PRICED] = "not_priced",
};

/* One configuration tried: a SKU, an instance count, its schedule and, once
 * priced, its plan. */
struct candidate {
    const struct sku *sku;
    int32_t instances;
    double hours;       /* wall-clock hours of work or of use */
    bool too_long;      /* would run past USAGE_MAX_DAYS */
    struct usage usage; /* per instance; valid unless too_long */
    struct plan plan;   /* per instance */
    gq_money amount;
    gq_money discount;
    gq_money total;
};

/* A rejection before its text is written: the figures the detail cites. */
struct miss {
    const struct sku *sku;
    enum recommend_reject_reason reason;
    int32_t instances;
    double shortfall; /* needed ÷ available */
    double needed;    /* GB, tok/s or days, by reason */
    double available; /* GB, tok/s per replica */
    double replicas;  /* needed, uncapped (sizing caps its count at INT32_MAX) */
    gq_money total;
    enum gq_code code;
};

/* What the tries of one SKU left behind. */
struct sku_outcome {
    struct candidate best; /* feasible, best under the objective */
    bool has_best;
    struct candidate cheapest_over; /* on time, over budget, cheapest */
    bool has_over;
    struct candidate fastest_late; /* past the deadline or too long, fastest */
    bool has_late;
    enum gq_code price_code; /* last pricing failure, GQ_OK if none */
};

/* The state of one recommend_run(). */
struct scan {
    const struct catalog *catalog;
    const struct recommend_request *request;
    const struct sizing_estimate *estimate;
    int64_t now;
    int32_t millihours_per_day;
    int32_t days; /* rental length; 0 for a training run */
    int32_t limit;
    int32_t max_instances;
    struct quote_result *quote; /* one buffer, reused by every try */
    struct candidate top[RECOMMEND_MAX_LIMIT];
    int n_top;
    struct miss misses[RECOMMEND_MAX_REJECTED];
    int n_misses;
    size_t n_rejected_total;
    size_t by_reason[RECOMMEND_REJECT_REASON_COUNT];
    /* The nearest misses over every SKU, for the hint. */
    struct candidate cheapest_over;
    bool has_over;
    struct candidate fastest_late;
    bool has_late;
    int32_t largest_memory_gb;
    struct miss fewest_replicas;
    bool has_replicas;
};

const char *recommend_objective_id(enum recommend_objective objective)
{
    return (unsigned)objective < RECOMMEND_OBJECTIVE_COUNT ? objective_ids[objective] : "unknown";
}

bool recommend_objective_parse(const char *text, enum recommend_objective *out)
{
    for (int i = 0; text != NULL && i < RECOMMEND_OBJECTIVE_COUNT; i++)
        if (strcmp(objective_ids[i], text) == 0) {
            *out = (enum recommend_objective)i;
            return true;
        }
    return false;
}

const char *recommend_reject_reason_id(enum recommend_reject_reason reason)
{
    return (unsigned)reason < RECOMMEND_REJECT_REASON_COUNT ? reject_reason_ids[reason] : "unknown";
}

void recommend_request_init(struct recommend_request *request)
{
    memset(request, 0, sizeof *request);
    request->workload.task = SIZING_TASK_INFERENCE;
    request->workload.precision = SIZING_PRECISION_FP16;
    request->segment = SEGMENT_INDIVIDUAL;
    request->objective = RECOMMEND_OBJECTIVE_COST;
}

/* ---- validation ---------------------------------------------------------- */

static enum gq_code check_int(int32_t value, int32_t max, const char *field, struct gq_error *err)
{
    if (value < 0 || value > max)
        return gq_fail(err, GQ_ERR_OUT_OF_RANGE, field, "%s must be from 0 (default) to %d", field,
                       (int)max);
    return GQ_OK;
}

/* A rental's length: the request's days, or the default. */
static int32_t rental_days(const struct recommend_request *request)
{
    return request->days > 0 ? request->days : RECOMMEND_DEFAULT_DAYS;
}

/* A rental lasts its days on every SKU, so a deadline before they are up
 * can never be met: the request contradicts itself, which no SKU, instance
 * count or training setting can fix. */
static enum gq_code check_rental_deadline(const struct recommend_request *request,
                                          struct gq_error *err)
{
    int32_t days = rental_days(request);
    if (request->deadline_days == 0 || request->deadline_days >= days)
        return GQ_OK;
    return gq_fail(err, GQ_ERR_OUT_OF_RANGE, "deadline_days",
                   "a %d-day rental%s cannot end within deadline_days %d: give deadline_days of "
                   "at least %d, or fewer days",
                   (int)days, request->days > 0 ? "" : " (the default days)",
                   (int)request->deadline_days, (int)days);
}

static enum gq_code check_request(const struct recommend_request *request,
                                  const struct sizing_estimate *estimate, struct gq_error *err)
{
    if ((unsigned)request->segment >= SEGMENT_COUNT)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, "customer.segment", "unknown segment");
    if ((unsigned)request->objective >= RECOMMEND_OBJECTIVE_COUNT)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, "objective", "objective must be cost or time");
    if (request->millihours_per_day < 0 ||
        request->millihours_per_day > USAGE_MAX_MILLIHOURS_PER_DAY)
        return gq_fail(err, GQ_ERR_OUT_OF_RANGE, "hours_per_day",
                       "hours_per_day must be more than 0 and at most 24");
    enum gq_code code = check_int(request->days, USAGE_MAX_DAYS, "days", err);
    if (code == GQ_OK)
        code = check_int(request->deadline_days, USAGE_MAX_DAYS, "deadline_days", err);
    if (code == GQ_OK)
        code = check_int(request->limit, RECOMMEND_MAX_LIMIT, "limit", err);
    if (code != GQ_OK)
        return code;
    if (request->budget < 0 || request->budget > MONEY_MAX)
        return gq_fail(err, GQ_ERR_OUT_OF_RANGE, "budget", "budget is out of range");
    if (request->days > 0 && estimate->flops > 0.0)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, "days",
                       "a training run lasts as long as its compute takes; "
                       "limit it with deadline_days, not days");
    if (estimate->flops <= 0.0)
        return check_rental_deadline(request, err);
    return GQ_OK;
}

/* ---- ordering ------------------------------------------------------------ */

static int order_of(double a, double b)
{
    return (a > b) - (a < b);
}

static int order_of_money(gq_money a, gq_money b)
{
    return (a > b) - (a < b);
}

static int32_t cards_of(const struct candidate *c)
{
    return c->instances * c->sku->gpu_count;
}

/* < 0 when `a` ranks before `b`: the objective's figure, the other one,
 * fewer cards, then SKU id and instances so the order is total. */
static int compare_candidates(const struct candidate *a, const struct candidate *b,
                              enum recommend_objective objective)
{
    int by_cost = order_of_money(a->total, b->total);
    int by_time = order_of(a->hours, b->hours);
    int order = objective == RECOMMEND_OBJECTIVE_TIME ? (by_time ? by_time : by_cost)
                                                      : (by_cost ? by_cost : by_time);
    if (order == 0)
        order = order_of(cards_of(a), cards_of(b));
    if (order == 0)
        order = strcmp(a->sku->id, b->sku->id);
    if (order == 0)
        order = order_of(a->instances, b->instances);
    return order;
}

/* Nearest miss first: by reason, then by how far from feasible. */
static int compare_misses(const struct miss *a, const struct miss *b)
{
    int order = order_of(a->reason, b->reason);
    if (order == 0)
        order = order_of(a->shortfall, b->shortfall);
    if (order == 0)
        order = strcmp(a->sku->id, b->sku->id);
    return order;
}

static int compare_misses_qsort(const void *a, const void *b)
{
    return compare_misses(a, b);
}

/* Keeps `c` if it belongs among the top `limit`, in order. */
static void offer_top(struct scan *scan, const struct candidate *c)
{
    int position = scan->n_top;
    while (position > 0 &&
           compare_candidates(c, &scan->top[position - 1], scan->request->objective) < 0)
        position--;
    if (position >= scan->limit)
        return;
    int kept = scan->n_top < scan->limit ? scan->n_top : scan->limit - 1;
    memmove(&scan->top[position + 1], &scan->top[position],
            (size_t)(kept - position) * sizeof scan->top[0]);
    scan->top[position] = *c;
    if (scan->n_top < scan->limit)
        scan->n_top++;
}

/* Counts a rejection and lists it while there is room, or in place of the
 * least informative one listed. */
static void offer_miss(struct scan *scan, const struct miss *m)
{
    scan->n_rejected_total++;
    scan->by_reason[m->reason]++;
    if (scan->n_misses < RECOMMEND_MAX_REJECTED) {
        scan->misses[scan->n_misses++] = *m;
        return;
    }
    int worst = 0;
    for (int i = 1; i < scan->n_misses; i++)
        if (compare_misses(&scan->misses[i], &scan->misses[worst]) > 0)
            worst = i;
    if (compare_misses(m, &scan->misses[worst]) < 0)
        scan->misses[worst] = *m;
}

/* ---- one try --------------------------------------------------------------- */

static bool is_training_run(const struct scan *scan)
{
    return scan->estimate->flops > 0.0;
}

/* The usage of a training run of c->hours at the requested hours per day:
 * ⌈H / h⌉ days at ⌈H / days⌉ per day, so no day is billed beyond the work. */
static void schedule_training(const struct scan *scan, struct candidate *c)
{
    c->hours = sizing_training_hours(scan->estimate, c->sku, c->instances);
    double max_hours =
        (double)USAGE_MAX_DAYS * scan->millihours_per_day / USAGE_MILLIHOURS_PER_HOUR;
    c->too_long = !(c->hours <= max_hours);
    if (c->too_long)
        return;
    int64_t millihours = (int64_t)ceil(c->hours * USAGE_MILLIHOURS_PER_HOUR - MILLIHOUR_NOISE);
    if (millihours < 1)
        millihours = 1;
    int64_t days = (millihours + scan->millihours_per_day - 1) / scan->millihours_per_day;
    c->too_long = days > USAGE_MAX_DAYS; /* rounding at the very edge */
    if (c->too_long)
        return;
    c->usage.days = (int32_t)days;
    c->usage.millihours_per_day = (int32_t)((millihours + days - 1) / days);
}

static void schedule(const struct scan *scan, struct candidate *c)
{
    if (is_training_run(scan)) {
        schedule_training(scan, c);
        return;
    }
    c->usage.millihours_per_day = scan->millihours_per_day;
    c->usage.days = scan->days;
    c->hours = (double)usage_millihours(&c->usage) / USAGE_MILLIHOURS_PER_HOUR;
    c->too_long = false;
}

static bool misses_deadline(const struct scan *scan, const struct candidate *c)
{
    int32_t deadline = scan->request->deadline_days;
    return c->too_long || (deadline > 0 && c->usage.days > deadline);
}

/* Prices `c` as POST /quote prices one item billed "cheapest". */
static enum gq_code price(const struct scan *scan, struct candidate *c)
{
    struct quote_item_request item = {
        .sku = c->sku,
        .quantity = c->instances,
        .cheapest = true,
        .billing = BILLING_ON_DEMAND,
        .usage = c->usage,
    };
    struct quote_request request = {
        .segment = scan->request->segment,
        .items = &item,
        .n_items = 1,
        .now = scan->now,
    };
    enum gq_code code = quote_compute(scan->catalog, &request, scan->quote, NULL);
    if (code != GQ_OK)
        return code;
    const struct priced_option *billed = scan->quote->items[0].billed;
    c->plan = billed->plan;
    c->amount = billed->amount;
    c->discount = billed->discounts.total;
    c->total = billed->total;
    return GQ_OK;
}

static bool over_budget(const struct scan *scan, const struct candidate *c)
{
    return scan->request->budget > 0 && c->total > scan->request->budget;
}

/* The cheaper of two configurations over budget, ties broken as the cost
 * ranking breaks them (the faster first): the one a rejection and the
 * hint name is the one a higher budget would recommend. */
static bool cheaper_over_budget(const struct candidate *a, const struct candidate *b)
{
    return compare_candidates(a, b, RECOMMEND_OBJECTIVE_COST) < 0;
}

/* Schedules, checks and prices one instance count of a SKU. */
static void try_instances(struct scan *scan, const struct sku *sku, int32_t instances,
                          struct sku_outcome *outcome)
{
    struct candidate c = {.sku = sku, .instances = instances};
    schedule(scan, &c);
    if (misses_deadline(scan, &c)) {
        if (!outcome->has_late || c.hours < outcome->fastest_late.hours)
            outcome->fastest_late = c;
        outcome->has_late = true;
        return;
    }
    enum gq_code code = price(scan, &c);
    if (code != GQ_OK) {
        outcome->price_code = code;
        return;
    }
    if (over_budget(scan, &c)) {
        if (!outcome->has_over || cheaper_over_budget(&c, &outcome->cheapest_over))
            outcome->cheapest_over = c;
        outcome->has_over = true;
        return;
    }
    if (!outcome->has_best || compare_candidates(&c, &outcome->best, scan->request->objective) < 0)
        outcome->best = c;
    outcome->has_best = true;
}

/* ---- one SKU --------------------------------------------------------------- */

static double days_of(const struct scan *scan, const struct candidate *c)
{
    return c->hours * USAGE_MILLIHOURS_PER_HOUR / scan->millihours_per_day;
}

static void note_for_hint(struct scan *scan, const struct sku_outcome *outcome)
{
    if (outcome->has_over &&
        (!scan->has_over || cheaper_over_budget(&outcome->cheapest_over, &scan->cheapest_over))) {
        scan->cheapest_over = outcome->cheapest_over;
        scan->has_over = true;
    }
    if (outcome->has_late &&
        (!scan->has_late || outcome->fastest_late.hours < scan->fastest_late.hours)) {
        scan->fastest_late = outcome->fastest_late;
        scan->has_late = true;
    }
}

/* A SKU that fits but has no feasible try: its most informative miss. */
static void reject_outcome(struct scan *scan, const struct sku *sku,
                           const struct sku_outcome *outcome)
{
    struct miss m = {.sku = sku, .instances = 1, .reason = RECOMMEND_REJECT_NOT_PRICED};
    if (outcome->has_over) {
        m.reason = RECOMMEND_REJECT_OVER_BUDGET;
        m.instances = outcome->cheapest_over.instances;
        m.total = outcome->cheapest_over.total;
        m.shortfall = (double)m.total / (double)scan->request->budget;
    } else if (outcome->has_late) {
        const struct candidate *late = &outcome->fastest_late;
        m.instances = late->instances;
        m.needed = days_of(scan, late);
        m.reason =
            late->too_long ? RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL : RECOMMEND_REJECT_MISSES_DEADLINE;
        m.available = late->too_long ? USAGE_MAX_DAYS : scan->request->deadline_days;
        m.shortfall = m.needed / m.available;
    } else {
        m.code = outcome->price_code;
        m.shortfall = HUGE_VAL;
    }
    note_for_hint(scan, outcome);
    offer_miss(scan, &m);
}

static void reject_memory(struct scan *scan, const struct sku *sku)
{
    struct miss m = {.sku = sku, .instances = 1, .reason = RECOMMEND_REJECT_INSUFFICIENT_MEMORY};
    m.needed = scan->estimate->memory_gb;
    m.available = sku_total_memory_gb(sku);
    m.shortfall = m.available > 0 ? m.needed / m.available : HUGE_VAL;
    offer_miss(scan, &m);
}

static void reject_throughput(struct scan *scan, const struct sku *sku, int32_t replicas)
{
    struct miss m = {.sku = sku, .reason = RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT};
    m.instances = scan->max_instances;
    m.needed = scan->estimate->tokens_per_second;
    m.available = sizing_replica_tokens_per_second(scan->estimate, sku);
    m.replicas = replicas;
    if (replicas == INT32_MAX && m.available > 0.0) /* the cap, not the need */
        m.replicas = ceil(m.needed / m.available);
    m.shortfall = m.replicas / scan->max_instances;
    if (!scan->has_replicas || m.replicas < scan->fewest_replicas.replicas)
        scan->fewest_replicas = m;
    scan->has_replicas = true;
    offer_miss(scan, &m);
}

/* The instance counts worth trying: 1 … max for a training run, the
 * replicas a throughput target needs, else one. Returns false (after
 * rejecting the SKU) when the target needs more than max_instances. */
static bool instance_range(struct scan *scan, const struct sku *sku, int32_t *first, int32_t *last)
{
    if (is_training_run(scan)) {
        *first = 1;
        *last = scan->max_instances;
        return true;
    }
    int32_t replicas = sizing_replicas_needed(scan->estimate, sku);
    if (replicas > scan->max_instances) {
        reject_throughput(scan, sku, replicas);
        return false;
    }
    *first = *last = replicas;
    return true;
}

static void scan_sku(struct scan *scan, const struct sku *sku)
{
    assert(sku->gpu != NULL && sku->gpu_count >= 1);
    if (sku_total_memory_gb(sku) > scan->largest_memory_gb)
        scan->largest_memory_gb = sku_total_memory_gb(sku);
    if (!sizing_fits(scan->estimate, sku)) {
        reject_memory(scan, sku);
        return;
    }
    int32_t first, last;
    if (!instance_range(scan, sku, &first, &last))
        return;
    struct sku_outcome outcome = {.price_code = GQ_OK};
    for (int32_t instances = first; instances <= last; instances++)
        try_instances(scan, sku, instances, &outcome);
    if (outcome.has_best)
        offer_top(scan, &outcome.best);
    else
        reject_outcome(scan, sku, &outcome);
}

/* ---- text ------------------------------------------------------------------ */

static double tenths_up(double value)
{
    return ceil(value * 10.0 - TENTH_NOISE) / 10.0;
}

/* `value` in tenths, a half rounded up (away from zero): the product's one
 * rounding rule, so 0.05 h reads 0.1 h and 0.25 reads 0.3, not the even
 * 0.0 and 0.2 of rint(). A decimal tie such as 0.05 is not exact in binary,
 * but value × 10 rounds back to the exact .5 for every millihour figure. */
static double tenths_half_up(double value)
{
    return round(value * 10.0);
}

/* A non-negative `value` with one decimal, without printf: reasons and
 * details are written for every recommendation, and formatting a double
 * through printf cost more than the rest of a recommendation put together.
 * It rounds value × 10 half up, so at a tie of the binary value it may
 * differ from printf's "%.1f" in the last digit (0.25 gives 0.3, printf
 * 0.2): a displayed figure, never used to compute anything. */
#define DECIMAL_SIZE 32
static const char *one_decimal(double value, char buf[DECIMAL_SIZE])
{
    double tenths = tenths_half_up(value);
    if (!(fabs(tenths) < 1e15)) { /* past exact tenths the last digits are noise */
        snprintf(buf, DECIMAL_SIZE, "%.3g", value);
        return buf;
    }
    uint64_t magnitude = (uint64_t)fabs(tenths);
    char reversed[DECIMAL_SIZE];
    size_t count = 0;
    reversed[count++] = (char)('0' + magnitude % 10);
    reversed[count++] = '.';
    magnitude /= 10;
    do {
        reversed[count++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    if (tenths < 0)
        reversed[count++] = '-';
    for (size_t i = 0; i < count; i++)
        buf[i] = reversed[count - 1 - i];
    buf[count] = '\0';
    return buf;
}

/* A rate or a time as one_decimal() shows it, or to two significant digits
 * below 0.05, so that a slow replica never reads as 0.0 tok/s, nor a run of
 * seconds as 0.0 h. The switch is where one_decimal() would print 0.0, by
 * the same rounding, so nothing that shows as 0.1 reads as "0.05". */
static const char *small_figure(double value, char buf[DECIMAL_SIZE])
{
    if (tenths_half_up(value) >= 1.0)
        return one_decimal(value, buf);
    snprintf(buf, DECIMAL_SIZE, "%.2g", value);
    return buf;
}

static const char *plural(int64_t count)
{
    return count == 1 ? "" : "s";
}

/* "¥" and an amount, or an amount, a space and a 3-letter code. */
#define AMOUNT_TEXT_SIZE (MONEY_FORMAT_SIZE + 4)

/* An amount as the reasons show it: "¥1512.17" in the catalog's CNY, else
 * with its ISO code ("1512.17 USD"), since the currency is the catalog's. */
static const char *amount_text(const struct scan *scan, gq_money fen, char buf[AMOUNT_TEXT_SIZE])
{
    char digits[MONEY_FORMAT_SIZE];
    const char *currency = scan->catalog->currency;
    if (currency == NULL || strcmp(currency, "CNY") == 0)
        snprintf(buf, AMOUNT_TEXT_SIZE, "¥%s", money_format(fen, digits));
    else
        snprintf(buf, AMOUNT_TEXT_SIZE, "%s %.3s", money_format(fen, digits), currency);
    return buf;
}

/* An hourly mode in words: "on-demand", "student". */
static const char *hourly_rate_words(enum billing_mode mode)
{
    return mode == BILLING_ON_DEMAND ? "on-demand" : billing_mode_id(mode);
}

/* "1 quarter + 2 months + 37.5 h at the on-demand rate", "the student rate" */
static void describe_plan(const struct plan *plan, char *buf, size_t size)
{
    char hours[DECIMAL_SIZE];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < plan->n_parts && used < size; i++) {
        const struct plan_part *part = &plan->parts[i];
        const char *joint = i > 0 ? " + " : "";
        int n;
        if (billing_mode_is_hourly(part->mode) && plan->n_parts == 1)
            n = snprintf(buf + used, size - used, "the %s rate", hourly_rate_words(part->mode));
        else if (billing_mode_is_hourly(part->mode))
            n = snprintf(buf + used, size - used, "%s%s h at the %s rate", joint,
                         small_figure((double)part->millihours / USAGE_MILLIHOURS_PER_HOUR, hours),
                         hourly_rate_words(part->mode));
        else
            n = snprintf(buf + used, size - used, "%s%d %s%s", joint, (int)part->blocks,
                         part->mode == BILLING_QUARTERLY ? "quarter" : "month",
                         plural(part->blocks));
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void reason_fit(const struct recommendation *r, char *buf)
{
    char needed[DECIMAL_SIZE];
    snprintf(buf, RECOMMEND_TEXT_SIZE, "fits: needs %s GB, has %d GB %s %d card%s",
             one_decimal(tenths_up(r->memory_gb_needed), needed), (int)r->memory_gb_available,
             r->sku->gpu_count == 1 ? "on" : "across", (int)r->sku->gpu_count,
             plural(r->sku->gpu_count));
}

static void reason_work(const struct scan *scan, const struct recommendation *r, char *buf)
{
    const struct sizing_estimate *e = scan->estimate;
    char a[DECIMAL_SIZE], b[DECIMAL_SIZE], c[DECIMAL_SIZE];
    if (e->flops > 0.0) {
        enum sizing_precision compute = sizing_compute_precision(e);
        bool bf16_as_fp32 = compute == SIZING_PRECISION_BF16 && !(r->sku->gpu->bf16_tflops > 0.0);
        snprintf(buf, RECOMMEND_TEXT_SIZE,
                 "%s h of training: %.2g FLOPs on %d × %g TFLOPS %s%s at %.3g%% MFU × %.3g%% "
                 "scaling",
                 small_figure(r->estimated_hours, a), e->flops, (int)r->cards,
                 sizing_peak_tflops(e, r->sku->gpu),
                 sizing_precision_id(bf16_as_fp32 ? SIZING_PRECISION_FP32 : compute),
                 bf16_as_fp32 ? " (no BF16 tensor cores)" : "", e->assumptions[SIZING_MFU] * 100.0,
                 r->scaling_efficiency * 100.0);
    } else if (e->tokens_per_second > 0.0)
        snprintf(buf, RECOMMEND_TEXT_SIZE,
                 "serves %s tok/s: %d replica%s × %s tok/s (%s GB read per token)",
                 small_figure(r->replica_tokens_per_second * r->quantity, a), (int)r->quantity,
                 plural(r->quantity), small_figure(r->replica_tokens_per_second, b),
                 one_decimal(e->decode_gb_per_token, c));
    else
        snprintf(buf, RECOMMEND_TEXT_SIZE, "%s h/day for %d days: %s h per instance",
                 small_figure((double)r->usage.millihours_per_day / USAGE_MILLIHOURS_PER_HOUR, a),
                 (int)r->usage.days, small_figure(r->estimated_hours, b));
}

static void reason_plan(const struct scan *scan, const struct recommendation *r, char *buf)
{
    char plan[RECOMMEND_TEXT_SIZE / 2], total[AMOUNT_TEXT_SIZE];
    char discount[AMOUNT_TEXT_SIZE], count[24] = "", hours[DECIMAL_SIZE];
    describe_plan(&r->plan, plan, sizeof plan);
    if (r->quantity > 1)
        snprintf(count, sizeof count, "%d × ", (int)r->quantity);
    snprintf(buf, RECOMMEND_TEXT_SIZE, "cheapest plan: %s%s, %s for %s%s h%s%s%s", plan,
             r->quantity > 1 ? " per instance" : "", amount_text(scan, r->total, total), count,
             small_figure((double)usage_millihours(&r->usage) / USAGE_MILLIHOURS_PER_HOUR, hours),
             r->discount > 0 ? " after " : "",
             r->discount > 0 ? amount_text(scan, r->discount, discount) : "",
             r->discount > 0 ? " discount" : "");
}

/* The schedule against the deadline; false when there is nothing to say. */
static bool reason_schedule(const struct scan *scan, const struct recommendation *r, char *buf)
{
    int32_t deadline = scan->request->deadline_days;
    if (scan->estimate->flops > 0.0) {
        char tail[32] = ", no deadline";
        if (deadline > 0)
            snprintf(tail, sizeof tail, ", deadline %d", (int)deadline);
        char days[DECIMAL_SIZE], hours[DECIMAL_SIZE];
        snprintf(buf, RECOMMEND_TEXT_SIZE, "finishes in %s days at %s h/day%s",
                 one_decimal(tenths_up(r->estimated_days), days),
                 small_figure((double)scan->millihours_per_day / USAGE_MILLIHOURS_PER_HOUR, hours),
                 tail);
        return true;
    }
    if (deadline == 0)
        return false;
    snprintf(buf, RECOMMEND_TEXT_SIZE, "runs %d days, deadline %d", (int)r->usage.days,
             (int)deadline);
    return true;
}

static bool reason_budget(const struct scan *scan, const struct recommendation *r, char *buf)
{
    char total[AMOUNT_TEXT_SIZE], budget[AMOUNT_TEXT_SIZE];
    if (scan->request->budget == 0)
        return false;
    snprintf(buf, RECOMMEND_TEXT_SIZE, "within budget: %s of %s",
             amount_text(scan, r->total, total), amount_text(scan, scan->request->budget, budget));
    return true;
}

static void write_reasons(const struct scan *scan, struct recommendation *r)
{
    reason_fit(r, r->reasons[r->n_reasons++]);
    reason_work(scan, r, r->reasons[r->n_reasons++]);
    reason_plan(scan, r, r->reasons[r->n_reasons++]);
    if (reason_schedule(scan, r, r->reasons[r->n_reasons]))
        r->n_reasons++;
    if (reason_budget(scan, r, r->reasons[r->n_reasons]))
        r->n_reasons++;
}

static void write_recommendation(const struct scan *scan, const struct candidate *c, int rank,
                                 struct recommendation *r)
{
    memset(r, 0, sizeof *r);
    r->rank = rank;
    r->sku = c->sku;
    r->quantity = c->instances;
    r->usage = c->usage;
    r->plan = c->plan;
    r->billing = plan_billing_id(&c->plan);
    r->amount = c->amount;
    r->discount = c->discount;
    r->total = c->total;
    r->estimated_hours = c->hours;
    r->estimated_days = days_of(scan, c);
    r->memory_gb_needed = scan->estimate->memory_gb;
    r->memory_gb_available = sku_total_memory_gb(c->sku);
    r->cards = cards_of(c);
    if (is_training_run(scan))
        r->scaling_efficiency = sizing_scaling_efficiency(scan->estimate, c->sku, c->instances);
    r->replica_tokens_per_second = sizing_replica_tokens_per_second(scan->estimate, c->sku);
    write_reasons(scan, r);
}

static void write_detail(const struct scan *scan, const struct miss *m, char *buf)
{
    char total[AMOUNT_TEXT_SIZE], budget[AMOUNT_TEXT_SIZE];
    char a[DECIMAL_SIZE], b[DECIMAL_SIZE];
    int n = (int)m->instances;
    switch (m->reason) {
    case RECOMMEND_REJECT_INSUFFICIENT_MEMORY: /* available: whole GB of the catalog */
        if (m->sku->gpu_count > 1)
            snprintf(buf, RECOMMEND_TEXT_SIZE, "needs %s GB, has %lld GB across %d cards",
                     one_decimal(tenths_up(m->needed), a), llround(m->available),
                     (int)m->sku->gpu_count);
        else
            snprintf(buf, RECOMMEND_TEXT_SIZE, "needs %s GB, has %lld GB",
                     one_decimal(tenths_up(m->needed), a), llround(m->available));
        break;
    case RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT:
        if (!(m->available > 0.0)) {
            snprintf(buf, RECOMMEND_TEXT_SIZE, "has no memory bandwidth figure to decode with");
            break;
        }
        snprintf(buf, RECOMMEND_TEXT_SIZE,
                 "needs %.0f replicas for %s tok/s at %s tok/s each, max %d instances", m->replicas,
                 small_figure(m->needed, a), small_figure(m->available, b), n);
        break;
    case RECOMMEND_REJECT_MISSES_DEADLINE:
        snprintf(buf, RECOMMEND_TEXT_SIZE, "takes %s days with %d instance%s, deadline %d",
                 one_decimal(tenths_up(m->needed), a), n, plural(n),
                 (int)scan->request->deadline_days);
        break;
    case RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL:
        snprintf(buf, RECOMMEND_TEXT_SIZE,
                 "takes %s days with %d instance%s, longer than the %d-day maximum",
                 one_decimal(tenths_up(m->needed), a), n, plural(n), USAGE_MAX_DAYS);
        break;
    case RECOMMEND_REJECT_OVER_BUDGET:
        snprintf(buf, RECOMMEND_TEXT_SIZE, "costs %s at best (%d instance%s), budget %s",
                 amount_text(scan, m->total, total), n, plural(n),
                 amount_text(scan, scan->request->budget, budget));
        break;
    default:
        if (m->code == GQ_ERR_NOT_ELIGIBLE)
            snprintf(buf, RECOMMEND_TEXT_SIZE,
                     "cannot be priced: no billing mode of it is available to segment %s",
                     segment_id(scan->request->segment));
        else
            snprintf(buf, RECOMMEND_TEXT_SIZE, "cannot be priced: %s",
                     m->code == GQ_ERR_AMOUNT_TOO_LARGE ? "the amount is larger than quotes allow"
                                                        : gq_code_name(m->code));
        break;
    }
}

static void write_rejections(struct scan *scan, struct recommend_result *out)
{
    qsort(scan->misses, (size_t)scan->n_misses, sizeof scan->misses[0], compare_misses_qsort);
    for (int i = 0; i < scan->n_misses; i++) {
        const struct miss *m = &scan->misses[i];
        struct recommend_rejection *r = &out->rejected[i];
        r->sku = m->sku;
        r->quantity = m->instances;
        r->reason = m->reason;
        r->shortfall = m->shortfall;
        write_detail(scan, m, r->detail);
    }
    out->n_rejected = scan->n_misses;
    out->n_rejected_total = scan->n_rejected_total;
    memcpy(out->rejected_by_reason, scan->by_reason, sizeof out->rejected_by_reason);
}

/* The precisions narrower than `precision` that weights can be quantised
 * to ("int8 or int4", "int4"); NULL for int4, the narrowest. */
static const char *narrower_precisions(enum sizing_precision precision)
{
    if (precision == SIZING_PRECISION_INT4)
        return NULL;
    return precision == SIZING_PRECISION_INT8 ? "int4" : "int8 or int4";
}

/* How to need less memory for the estimate's task and precision, followed
 * by ", or a smaller model". */
static void memory_advice(const struct sizing_estimate *e, char *buf, size_t size)
{
    const char *narrower = narrower_precisions(e->precision);
    if (e->task != SIZING_TASK_INFERENCE && e->task != SIZING_TASK_LORA)
        snprintf(buf, size, "use lora instead of full training, or a smaller model");
    else if (narrower == NULL)
        snprintf(buf, size, "a smaller model");
    else
        snprintf(buf, size, "quantise %sto %s, or a smaller model",
                 e->task == SIZING_TASK_LORA ? "the frozen weights " : "", narrower);
}

/* The advice to allow more instances, followed by `then` ("raise
 * assumptions.max_instances (now 8, at most 64) or "), written into
 * `buf`; "" when max_instances is already at its limit. */
static const char *more_instances(const struct scan *scan, const char *then, char buf[96])
{
    if (scan->max_instances >= SIZING_MAX_INSTANCES_LIMIT)
        return "";
    snprintf(buf, 96, "raise assumptions.max_instances (now %d, at most %d)%s",
             (int)scan->max_instances, SIZING_MAX_INSTANCES_LIMIT, then);
    return buf;
}

/* What to change when the throughput target needs too many replicas:
 * fewer tokens per second, a narrower precision (where there is one) or,
 * below the limit, more instances. */
static void write_replicas_hint(const struct scan *scan, char *buf, size_t size)
{
    const struct sizing_estimate *e = scan->estimate;
    char rate[DECIMAL_SIZE], more[96], quantise[48] = "";
    const char *narrower = narrower_precisions(e->precision);
    const char *raise = scan->fewest_replicas.replicas <= SIZING_MAX_INSTANCES_LIMIT
                            ? more_instances(scan, "", more)
                            : "";
    if (narrower != NULL)
        snprintf(quantise, sizeof quantise, "quantise to %s", narrower);
    /* The changes, joined: "a, b or c", "a or b", "a". */
    const char *changes[3] = {"lower tokens_per_second", quantise, raise};
    const char *kept[3] = {"", "", ""};
    int n = 0;
    for (int i = 0; i < 3; i++)
        if (changes[i][0] != '\0')
            kept[n++] = changes[i];
    snprintf(buf, size, "%s tok/s needs at least %.0f replicas of %s: %s%s%s%s%s",
             small_figure(e->tokens_per_second, rate), scan->fewest_replicas.replicas,
             scan->fewest_replicas.sku->id, kept[0],
             n == 3   ? ", "
             : n == 2 ? " or "
                      : "",
             n >= 2 ? kept[1] : "", n == 3 ? " or " : "", n == 3 ? kept[2] : "");
}

/* What to change when nothing fits, from the nearest miss. */
static void write_hint(const struct scan *scan, char *buf, size_t size)
{
    char total[AMOUNT_TEXT_SIZE], days[DECIMAL_SIZE], more[96];
    const struct sizing_estimate *e = scan->estimate;
    if (scan->catalog->n_skus == 0)
        snprintf(buf, size, "the catalog has no SKUs");
    else if (scan->has_over)
        snprintf(buf, size,
                 "the cheapest configuration that meets every other limit is %s × %d at %s: "
                 "raise the budget to at least that",
                 scan->cheapest_over.sku->id, (int)scan->cheapest_over.instances,
                 amount_text(scan, scan->cheapest_over.total, total));
    else if (scan->has_late && scan->fastest_late.too_long)
        snprintf(buf, size,
                 "the fastest configuration, %s × %d, takes %s days, past the %d-day maximum "
                 "rental: %strain on fewer tokens",
                 scan->fastest_late.sku->id, (int)scan->fastest_late.instances,
                 one_decimal(tenths_up(days_of(scan, &scan->fastest_late)), days), USAGE_MAX_DAYS,
                 more_instances(scan, " or ", more));
    else if (scan->has_late && scan->max_instances < SIZING_MAX_INSTANCES_LIMIT)
        snprintf(buf, size,
                 "the fastest configuration, %s × %d, takes %s days: extend deadline_days, "
                 "%strain on fewer tokens",
                 scan->fastest_late.sku->id, (int)scan->fastest_late.instances,
                 one_decimal(tenths_up(days_of(scan, &scan->fastest_late)), days),
                 more_instances(scan, " or ", more));
    else if (scan->has_late)
        snprintf(buf, size,
                 "the fastest configuration, %s × %d, takes %s days: extend deadline_days or "
                 "train on fewer tokens",
                 scan->fastest_late.sku->id, (int)scan->fastest_late.instances,
                 one_decimal(tenths_up(days_of(scan, &scan->fastest_late)), days));
    else if (scan->has_replicas)
        write_replicas_hint(scan, buf, size);
    else if (scan->by_reason[RECOMMEND_REJECT_INSUFFICIENT_MEMORY] == scan->n_rejected_total) {
        char advice[96];
        memory_advice(e, advice, sizeof advice);
        char needed[DECIMAL_SIZE];
        snprintf(buf, size, "no instance holds %s GB (the largest has %d GB): %s",
                 one_decimal(tenths_up(e->memory_gb), needed), (int)scan->largest_memory_gb,
                 advice);
    } else
        snprintf(buf, size, "no configuration could be priced; check the catalog's prices");
}

/* ---- the run --------------------------------------------------------------- */

/* The one allocation of a run: the scan and a quote buffer for one item,
 * together too large for a server thread's stack. */
struct workspace {
    struct scan scan;
    struct quote_result quote;
    struct quote_item_result quote_item;
};

static void resolve_settings(struct scan *scan, const struct recommend_request *request)
{
    bool learning = request->workload.task == SIZING_TASK_LEARNING;
    scan->millihours_per_day = request->millihours_per_day;
    if (scan->millihours_per_day == 0)
        scan->millihours_per_day =
            learning ? RECOMMEND_LEARNING_MILLIHOURS_PER_DAY : RECOMMEND_DEFAULT_MILLIHOURS_PER_DAY;
    scan->days = 0;
    if (!is_training_run(scan))
        scan->days = rental_days(request);
    scan->limit = request->limit > 0 ? request->limit : RECOMMEND_DEFAULT_LIMIT;
    scan->max_instances = (int32_t)scan->estimate->assumptions[SIZING_MAX_INSTANCES];
}

static void write_result(struct scan *scan, struct recommend_result *out)
{
    out->millihours_per_day = scan->millihours_per_day;
    out->days = scan->days;
    out->limit = scan->limit;
    out->n_recommendations = scan->n_top;
    for (int i = 0; i < scan->n_top; i++)
        write_recommendation(scan, &scan->top[i], i + 1, &out->recommendations[i]);
    write_rejections(scan, out);
    out->hint[0] = '\0';
    if (scan->n_top == 0)
        write_hint(scan, out->hint, sizeof out->hint);
}

enum gq_code recommend_run(const struct catalog *catalog, const struct recommend_request *request,
                           int64_t now, struct recommend_result *out, struct gq_error *err)
{
    assert(catalog != NULL && request != NULL && out != NULL);
    enum gq_code code =
        sizing_estimate_workload(&request->workload, &request->assumptions, &out->estimate, err);
    if (code == GQ_OK)
        code = check_request(request, &out->estimate, err);
    if (code != GQ_OK)
        return code;
    struct workspace *work = malloc(sizeof *work);
    if (work == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    struct scan *scan = &work->scan;
    memset(scan, 0, sizeof *scan);
    scan->catalog = catalog;
    scan->request = request;
    scan->estimate = &out->estimate;
    scan->now = now;
    memset(&work->quote, 0, sizeof work->quote);
    work->quote.items = &work->quote_item;
    work->quote.capacity = 1;
    scan->quote = &work->quote;
    resolve_settings(scan, request);
    for (size_t i = 0; i < catalog->n_skus; i++)
        scan_sku(scan, &catalog->skus[i]);
    write_result(scan, out);
    free(work);
    return GQ_OK;
}
