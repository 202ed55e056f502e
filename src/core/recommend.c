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
    struct sizing_serving serving; /* inference: how one instance serves, or why not */
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
    enum gq_lang lang; /* of the reasons, details and hint */
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
    struct miss fastest_request; /* inference: the fastest SKU below the per-request floor */
    bool has_slow;
    struct miss longest_context; /* inference: the longest context a SKU holds */
    bool has_context;
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
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_REC_FROM_DEFAULT_TO,
                           MSG_TEXT(field), MSG_INT(max));
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
    return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "deadline_days",
                       request->days > 0 ? MSG_REC_RENTAL_DEADLINE
                                         : MSG_REC_DEFAULT_RENTAL_DEADLINE,
                       MSG_INT(days), MSG_INT(request->deadline_days));
}

static enum gq_code check_request(const struct recommend_request *request,
                                  const struct sizing_estimate *estimate, struct gq_error *err)
{
    if ((unsigned)request->segment >= SEGMENT_COUNT)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "customer.segment", MSG_REC_UNKNOWN_SEGMENT);
    if ((unsigned)request->objective >= RECOMMEND_OBJECTIVE_COUNT)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "objective", MSG_REC_OBJECTIVE);
    if (request->millihours_per_day < 0 ||
        request->millihours_per_day > USAGE_MAX_MILLIHOURS_PER_DAY)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "hours_per_day", MSG_HOURS_PER_DAY_RANGE);
    enum gq_code code = check_int(request->days, USAGE_MAX_DAYS, "days", err);
    if (code == GQ_OK)
        code = check_int(request->deadline_days, USAGE_MAX_DAYS, "deadline_days", err);
    if (code == GQ_OK)
        code = check_int(request->limit, RECOMMEND_MAX_LIMIT, "limit", err);
    if (code != GQ_OK)
        return code;
    if (request->budget < 0 || request->budget > MONEY_MAX)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "budget", MSG_REC_BUDGET_RANGE);
    if (request->days > 0 && estimate->flops > 0.0)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "days", MSG_REC_TRAINING_DAYS);
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
    if (scan->estimate->task == SIZING_TASK_INFERENCE) {
        sizing_serve(scan->estimate, sku, &m.serving);
        if (m.serving.max_context_tokens > 0 &&
            (!scan->has_context ||
             m.serving.max_context_tokens > scan->longest_context.serving.max_context_tokens)) {
            scan->longest_context = m;
            scan->has_context = true;
        }
    }
    offer_miss(scan, &m);
}

/* A SKU that holds one request but cannot serve at the per-request floor
 * (or has no figures to decode with), or needs more replicas than
 * max_instances. */
static void reject_serving(struct scan *scan, const struct sku *sku,
                           const struct sizing_serving *serving)
{
    const struct sizing_estimate *e = scan->estimate;
    struct miss m = {.sku = sku, .reason = RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT};
    m.serving = *serving;
    m.instances = 1;
    if (serving->limit == SIZING_TOO_SLOW) {
        m.needed = e->per_request_floor;
        m.available = serving->best_tokens_per_second_per_request;
        m.shortfall = m.available > 0.0 ? m.needed / m.available : HUGE_VAL;
        if (!scan->has_slow || m.available > scan->fastest_request.available)
            scan->fastest_request = m;
        scan->has_slow = true;
    } else if (serving->limit == SIZING_NO_BANDWIDTH) {
        m.shortfall = HUGE_VAL;
    } else {
        m.instances = scan->max_instances;
        m.needed = e->concurrent_requests > 0 ? e->concurrent_requests : e->tokens_per_second;
        m.available = serving->replica_tokens_per_second;
        m.replicas = serving->replicas;
        m.shortfall = m.replicas / scan->max_instances;
        if (!scan->has_replicas || m.replicas < scan->fewest_replicas.replicas)
            scan->fewest_replicas = m;
        scan->has_replicas = true;
    }
    offer_miss(scan, &m);
}

/* The instance counts worth trying: 1 … max for a training run, the
 * replicas inference needs, else one. Returns false (after rejecting the
 * SKU) when inference cannot be served within max_instances. */
static bool instance_range(struct scan *scan, const struct sku *sku, int32_t *first, int32_t *last)
{
    *first = *last = 1;
    if (is_training_run(scan)) {
        *last = scan->max_instances;
        return true;
    }
    if (scan->estimate->task != SIZING_TASK_INFERENCE)
        return true;
    struct sizing_serving serving;
    sizing_serve(scan->estimate, sku, &serving);
    if (serving.limit != SIZING_SERVES || serving.replicas > scan->max_instances) {
        reject_serving(scan, sku, &serving);
        return false;
    }
    *first = *last = (int32_t)serving.replicas;
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

/* Message `id` in the run's language into `buf`, its places filled from
 * the arguments that follow; returns the length written. */
static size_t say_args(const struct scan *scan, char *buf, size_t size, enum gq_msg id,
                       const struct msg_arg *args, size_t n_args)
{
    return messages_format(scan->lang, id, args, n_args, buf, size);
}

#define SAY(scan, buf, size, id, ...)                                                              \
    say_args((scan), (buf), (size), (id), (const struct msg_arg[]){__VA_ARGS__},                   \
             sizeof((const struct msg_arg[]){__VA_ARGS__}) / sizeof(struct msg_arg))

/* A message without places, as it stands in the run's language. */
static const char *words(const struct scan *scan, enum gq_msg id)
{
    const char *text = messages_template(scan->lang, id);
    return text != NULL ? text : "";
}

/* The word for `count` things ("card" or "cards"), said in the same
 * language as the message it fills. */
static struct msg_arg counted(int64_t count, enum gq_msg one, enum gq_msg many)
{
    return MSG_SAY(count == 1 ? one : many);
}

/* `text` after the `used` bytes of `buf`, cut to fit; returns the new length. */
static size_t append(char *buf, size_t size, size_t used, const char *text)
{
    size_t n = strlen(text);
    if (used >= size)
        return used;
    if (n > size - 1 - used)
        n = size - 1 - used;
    memcpy(buf + used, text, n);
    buf[used + n] = '\0';
    return used + n;
}

/* "¥" and an amount, or an amount, a space and a 3-letter code. */
#define AMOUNT_TEXT_SIZE (MONEY_FORMAT_SIZE + 4)

/* An amount as the reasons show it: "¥1512.17" in the catalog's CNY, else
 * with its ISO code ("1512.17 USD"), since the currency is the catalog's.
 * The same in every language. */
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
static struct msg_arg hourly_rate_words(enum billing_mode mode)
{
    if (mode == BILLING_ON_DEMAND)
        return MSG_SAY(MSG_REC_RATE_ON_DEMAND);
    if (mode == BILLING_STUDENT)
        return MSG_SAY(MSG_REC_RATE_STUDENT);
    return MSG_TEXT(billing_mode_id(mode));
}

/* "1 quarter + 2 months + 37.5 h at the on-demand rate", "the student rate" */
static void describe_plan(const struct scan *scan, const struct plan *plan, char *buf, size_t size)
{
    char hours[DECIMAL_SIZE];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < plan->n_parts && used + 1 < size; i++) {
        const struct plan_part *part = &plan->parts[i];
        if (i > 0)
            used = append(buf, size, used, " + ");
        if (billing_mode_is_hourly(part->mode) && plan->n_parts == 1)
            used += SAY(scan, buf + used, size - used, MSG_REC_PLAN_RATE,
                        hourly_rate_words(part->mode));
        else if (billing_mode_is_hourly(part->mode))
            used += SAY(
                scan, buf + used, size - used, MSG_REC_PLAN_HOURS_AT_RATE,
                MSG_TEXT(small_figure((double)part->millihours / USAGE_MILLIHOURS_PER_HOUR, hours)),
                hourly_rate_words(part->mode));
        else if (part->mode == BILLING_QUARTERLY)
            used += SAY(scan, buf + used, size - used,
                        part->blocks == 1 ? MSG_PLAN_QUARTER : MSG_PLAN_QUARTERS,
                        MSG_INT(part->blocks));
        else
            used +=
                SAY(scan, buf + used, size - used,
                    part->blocks == 1 ? MSG_PLAN_MONTH : MSG_PLAN_MONTHS, MSG_INT(part->blocks));
    }
}

/* "across 8 cards", "on 1 card". */
#define CARDS_TEXT_SIZE 64
static const char *cards_text(const struct scan *scan, const struct sku *sku,
                              char buf[CARDS_TEXT_SIZE])
{
    SAY(scan, buf, CARDS_TEXT_SIZE, sku->gpu_count == 1 ? MSG_REC_ON_CARDS : MSG_REC_ACROSS_CARDS,
        MSG_INT(sku->gpu_count), counted(sku->gpu_count, MSG_REC_CARD, MSG_REC_CARDS));
    return buf;
}

/* What the memory holds besides the model state, for the fit reason:
 * "1.6 GB of activations (full checkpointing, 1 × 2048 tokens)" or "5.4 GB
 * of KV cache for 25 requests". */
static const char *working_text(const struct scan *scan, const struct recommendation *r, char *buf,
                                size_t size)
{
    const struct sizing_estimate *e = scan->estimate;
    char gb[DECIMAL_SIZE];
    if (e->task == SIZING_TASK_INFERENCE)
        SAY(scan, buf, size, MSG_REC_KV_CACHE,
            MSG_TEXT(one_decimal(tenths_up(r->serving.kv_gb), gb)), MSG_INT(r->serving.batch),
            counted(r->serving.batch, MSG_REC_REQUEST, MSG_REC_REQUESTS));
    else
        SAY(scan, buf, size, MSG_REC_ACTIVATIONS,
            MSG_TEXT(one_decimal(tenths_up(e->activation_gb), gb)),
            MSG_TEXT(sizing_checkpointing_id(e->checkpointing)), MSG_INT(e->micro_batch_size),
            MSG_INT(e->sequence_length));
    return buf;
}

/* What the model state is made of, by task. */
static enum gq_msg state_words(enum sizing_task task)
{
    if (task == SIZING_TASK_INFERENCE)
        return MSG_REC_STATE_WEIGHTS;
    return task == SIZING_TASK_LORA ? MSG_REC_STATE_ADAPTER : MSG_REC_STATE_OPTIMIZER;
}

/* "fits: needs 21.3 GB, has 32 GB across 2 cards: 14.0 GB of weights + 5.4
 * GB of KV cache for 25 requests". */
static void reason_fit(const struct scan *scan, const struct recommendation *r, char *buf)
{
    const struct sizing_estimate *e = scan->estimate;
    char needed[DECIMAL_SIZE], state[DECIMAL_SIZE], cards[CARDS_TEXT_SIZE], working[160];
    SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_FITS,
        MSG_TEXT(one_decimal(tenths_up(r->memory_gb_needed), needed)),
        MSG_INT(r->memory_gb_available), MSG_CLAUSE(cards_text(scan, r->sku, cards)),
        MSG_TEXT(one_decimal(tenths_up(e->model_state_gb), state)), MSG_SAY(state_words(e->task)),
        MSG_CLAUSE(working_text(scan, r, working, sizeof working)));
}

/* "serves 50 requests at 24.3 tok/s each, 1215.0 tok/s in all: 2 replicas
 * × 25, memory-bound decode step 41.2 ms". */
static void reason_serving(const struct scan *scan, const struct recommendation *r, char *buf)
{
    const struct sizing_serving *v = &r->serving;
    char each[DECIMAL_SIZE], all[DECIMAL_SIZE], step[DECIMAL_SIZE];
    int64_t requests = (int64_t)r->quantity * v->batch;
    SAY(scan, buf, RECOMMEND_TEXT_SIZE,
        v->compute_bound ? MSG_REC_SERVES_COMPUTE_BOUND : MSG_REC_SERVES_MEMORY_BOUND,
        MSG_INT(requests), counted(requests, MSG_REC_REQUEST, MSG_REC_REQUESTS),
        MSG_TEXT(small_figure(v->tokens_per_second_per_request, each)),
        MSG_TEXT(small_figure(v->tokens_per_second, all)), MSG_INT(r->quantity),
        counted(r->quantity, MSG_REC_REPLICA, MSG_REC_REPLICAS), MSG_INT(v->batch),
        MSG_TEXT(small_figure(v->step_seconds * 1000.0, step)));
}

/* A figure to two or three significant digits (printf's %.2g, %.3g), or
 * a whole count of replicas (%.0f, as sizing leaves it uncapped). */
#define FIGURE_SIZE 32
static const char *two_digits(double value, char buf[FIGURE_SIZE])
{
    snprintf(buf, FIGURE_SIZE, "%.2g", value);
    return buf;
}

static const char *three_digits(double value, char buf[FIGURE_SIZE])
{
    snprintf(buf, FIGURE_SIZE, "%.3g", value);
    return buf;
}

static const char *whole_figure(double value, char buf[FIGURE_SIZE])
{
    snprintf(buf, FIGURE_SIZE, "%.0f", value);
    return buf;
}

/* "first token in 0.68 s: a 2048-token prompt, 2.9e+13 FLOPs on 2 × 125
 * TFLOPS fp16 at 35% MFU". */
static void reason_first_token(const struct scan *scan, const struct recommendation *r, char *buf)
{
    const struct sizing_estimate *e = scan->estimate;
    char seconds[FIGURE_SIZE], flops[FIGURE_SIZE], mfu[FIGURE_SIZE];
    bool fp32 = sizing_bf16_without_tensor_cores(e, r->sku->gpu);
    SAY(scan, buf, RECOMMEND_TEXT_SIZE, fp32 ? MSG_REC_FIRST_TOKEN_NO_BF16 : MSG_REC_FIRST_TOKEN,
        MSG_TEXT(two_digits(r->serving.prefill_seconds, seconds)), MSG_INT(e->prompt_tokens),
        MSG_TEXT(two_digits(e->prefill_flops, flops)), MSG_INT(r->sku->gpu_count),
        MSG_REAL(sizing_peak_tflops(e, r->sku->gpu)),
        MSG_TEXT(sizing_precision_id(fp32 ? SIZING_PRECISION_FP32 : sizing_compute_precision(e))),
        MSG_TEXT(three_digits(e->assumptions[SIZING_MFU] * 100.0, mfu)));
}

static void reason_work(const struct scan *scan, const struct recommendation *r, char *buf)
{
    const struct sizing_estimate *e = scan->estimate;
    char a[DECIMAL_SIZE], b[DECIMAL_SIZE];
    if (e->flops > 0.0) {
        char flops[FIGURE_SIZE], mfu[FIGURE_SIZE], scaling[FIGURE_SIZE];
        enum sizing_precision compute = sizing_compute_precision(e);
        bool bf16_as_fp32 = sizing_bf16_without_tensor_cores(e, r->sku->gpu);
        SAY(scan, buf, RECOMMEND_TEXT_SIZE,
            bf16_as_fp32 ? MSG_REC_TRAINING_NO_BF16 : MSG_REC_TRAINING,
            MSG_TEXT(small_figure(r->estimated_hours, a)), MSG_TEXT(two_digits(e->flops, flops)),
            MSG_INT(r->cards), MSG_REAL(sizing_peak_tflops(e, r->sku->gpu)),
            MSG_TEXT(sizing_precision_id(bf16_as_fp32 ? SIZING_PRECISION_FP32 : compute)),
            MSG_TEXT(three_digits(e->assumptions[SIZING_MFU] * 100.0, mfu)),
            MSG_TEXT(three_digits(r->scaling_efficiency * 100.0, scaling)));
    } else if (e->task == SIZING_TASK_INFERENCE)
        reason_serving(scan, r, buf);
    else
        SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_RENTAL_HOURS,
            MSG_TEXT(
                small_figure((double)r->usage.millihours_per_day / USAGE_MILLIHOURS_PER_HOUR, a)),
            MSG_INT(r->usage.days), MSG_TEXT(small_figure(r->estimated_hours, b)));
}

static void reason_plan(const struct scan *scan, const struct recommendation *r, char *buf)
{
    char plan[RECOMMEND_TEXT_SIZE / 2], total[AMOUNT_TEXT_SIZE], discount[AMOUNT_TEXT_SIZE];
    char hours[DECIMAL_SIZE];
    describe_plan(scan, &r->plan, plan, sizeof plan);
    small_figure((double)usage_millihours(&r->usage) / USAGE_MILLIHOURS_PER_HOUR, hours);
    size_t used;
    if (r->quantity > 1)
        used = SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_PLAN_PER_INSTANCE, MSG_CLAUSE(plan),
                   MSG_TEXT(amount_text(scan, r->total, total)), MSG_INT(r->quantity),
                   MSG_TEXT(hours));
    else
        used = SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_PLAN, MSG_CLAUSE(plan),
                   MSG_TEXT(amount_text(scan, r->total, total)), MSG_TEXT(hours));
    if (r->discount > 0)
        SAY(scan, buf + used, RECOMMEND_TEXT_SIZE - used, MSG_REC_PLAN_DISCOUNT,
            MSG_TEXT(amount_text(scan, r->discount, discount)));
}

/* The schedule against the deadline; false when there is nothing to say. */
static bool reason_schedule(const struct scan *scan, const struct recommendation *r, char *buf)
{
    int32_t deadline = scan->request->deadline_days;
    if (scan->estimate->flops > 0.0) {
        char days[DECIMAL_SIZE], hours[DECIMAL_SIZE];
        one_decimal(tenths_up(r->estimated_days), days);
        small_figure((double)scan->millihours_per_day / USAGE_MILLIHOURS_PER_HOUR, hours);
        if (deadline > 0)
            SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_FINISHES_BY, MSG_TEXT(days),
                MSG_TEXT(hours), MSG_INT(deadline));
        else
            SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_FINISHES, MSG_TEXT(days), MSG_TEXT(hours));
        return true;
    }
    if (deadline == 0)
        return false;
    SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_RUNS, MSG_INT(r->usage.days), MSG_INT(deadline));
    return true;
}

static bool reason_budget(const struct scan *scan, const struct recommendation *r, char *buf)
{
    char total[AMOUNT_TEXT_SIZE], budget[AMOUNT_TEXT_SIZE];
    if (scan->request->budget == 0)
        return false;
    SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_WITHIN_BUDGET,
        MSG_TEXT(amount_text(scan, r->total, total)),
        MSG_TEXT(amount_text(scan, scan->request->budget, budget)));
    return true;
}

/* A text cut by its buffer inside a character (a long Chinese sentence)
 * ends before that character, so that every text is UTF-8. */
static void trim_partial_character(char *text)
{
    size_t length = strlen(text), start = length;
    while (start > 0 && length - start < 4 && ((unsigned char)text[start - 1] & 0xC0) == 0x80)
        start--;
    if (start == 0 || ((unsigned char)text[start - 1] & 0x80) == 0)
        return; /* ASCII last, or no lead byte in reach */
    unsigned char lead = (unsigned char)text[start - 1];
    size_t needed = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (length - (start - 1) < needed)
        text[start - 1] = '\0';
}

static void write_reasons(const struct scan *scan, struct recommendation *r)
{
    reason_fit(scan, r, r->reasons[r->n_reasons++]);
    reason_work(scan, r, r->reasons[r->n_reasons++]);
    if (scan->estimate->task == SIZING_TASK_INFERENCE)
        reason_first_token(scan, r, r->reasons[r->n_reasons++]);
    reason_plan(scan, r, r->reasons[r->n_reasons++]);
    if (reason_schedule(scan, r, r->reasons[r->n_reasons]))
        r->n_reasons++;
    if (reason_budget(scan, r, r->reasons[r->n_reasons]))
        r->n_reasons++;
    for (int i = 0; i < r->n_reasons; i++)
        trim_partial_character(r->reasons[i]);
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
    if (scan->estimate->task == SIZING_TASK_INFERENCE) {
        sizing_serve(scan->estimate, c->sku, &r->serving);
        r->memory_gb_needed = r->serving.memory_gb;
    }
    write_reasons(scan, r);
}

/* "needs 134.4 GB, has 128 GB across 4 cards"; for inference what one
 * request of the context asked takes, and the longest context that fits
 * ("…: 2473 tokens of context fit") or that the weights alone do not. */
static void detail_memory(const struct scan *scan, const struct miss *m, char *buf)
{
    const struct sizing_estimate *e = scan->estimate;
    char needed[DECIMAL_SIZE], across[64] = "", tail[128] = "";
    if (m->sku->gpu_count > 1)
        SAY(scan, across, sizeof across, MSG_REC_DETAIL_ACROSS, MSG_INT(m->sku->gpu_count));
    double usable = m->available * (1.0 - e->allowance_fraction);
    if (e->task == SIZING_TASK_INFERENCE && m->serving.max_context_tokens > 0)
        SAY(scan, tail, sizeof tail, MSG_REC_CONTEXT_FITS, MSG_INT(m->serving.max_context_tokens));
    else if (e->task == SIZING_TASK_INFERENCE && e->weights_gb > usable) {
        char weights[DECIMAL_SIZE], room[DECIMAL_SIZE];
        SAY(scan, tail, sizeof tail, MSG_REC_WEIGHTS_ALONE,
            MSG_TEXT(one_decimal(tenths_up(e->weights_gb), weights)),
            MSG_TEXT(one_decimal(usable, room)));
    } else if (e->task == SIZING_TASK_INFERENCE)
        say_args(scan, tail, sizeof tail, MSG_REC_NO_CONTEXT, NULL, 0);
    one_decimal(tenths_up(m->needed), needed);
    if (e->task == SIZING_TASK_INFERENCE)
        SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_NEEDS_GB_REQUEST, MSG_TEXT(needed),
            MSG_INT(e->context_tokens), MSG_INT(llround(m->available)), MSG_CLAUSE(across),
            MSG_CLAUSE(tail));
    else
        SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_NEEDS_GB, MSG_TEXT(needed),
            MSG_INT(llround(m->available)), MSG_CLAUSE(across));
}

/* Too slow, too many replicas, or no figures to decode with. */
static void detail_serving(const struct scan *scan, const struct miss *m, char *buf)
{
    const struct sizing_estimate *e = scan->estimate;
    const struct sizing_serving *v = &m->serving;
    char a[DECIMAL_SIZE], b[DECIMAL_SIZE], replicas[FIGURE_SIZE];
    if (v->limit == SIZING_NO_BANDWIDTH)
        say_args(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_NO_BANDWIDTH, NULL, 0);
    else if (v->limit == SIZING_TOO_SLOW)
        SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_TOO_SLOW,
            MSG_TEXT(small_figure(m->available, a)), MSG_TEXT(small_figure(m->needed, b)));
    else if (e->concurrent_requests > 0)
        SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_REPLICAS_FOR_REQUESTS,
            MSG_TEXT(whole_figure(m->replicas, replicas)), MSG_INT(e->concurrent_requests),
            MSG_INT(v->max_batch), MSG_TEXT(small_figure(e->per_request_floor, a)),
            MSG_INT(m->instances), MSG_INT((long long)v->max_batch * m->instances),
            MSG_INT(m->instances));
    else
        SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_REPLICAS_FOR_RATE,
            MSG_TEXT(whole_figure(m->replicas, replicas)), MSG_TEXT(small_figure(m->needed, a)),
            MSG_TEXT(small_figure(m->available, b)), MSG_INT(v->batch), MSG_INT(m->instances));
}

static void write_detail(const struct scan *scan, const struct miss *m, char *buf)
{
    char total[AMOUNT_TEXT_SIZE], budget[AMOUNT_TEXT_SIZE];
    char a[DECIMAL_SIZE];
    int n = (int)m->instances;
    switch (m->reason) {
    case RECOMMEND_REJECT_INSUFFICIENT_MEMORY:
        detail_memory(scan, m, buf);
        break;
    case RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT:
        detail_serving(scan, m, buf);
        break;
    case RECOMMEND_REJECT_MISSES_DEADLINE:
        SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_MISSES_DEADLINE,
            MSG_TEXT(one_decimal(tenths_up(m->needed), a)), MSG_INT(n),
            counted(n, MSG_REC_INSTANCE, MSG_REC_INSTANCES), MSG_INT(scan->request->deadline_days));
        break;
    case RECOMMEND_REJECT_EXCEEDS_MAX_RENTAL:
        SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_PAST_MAX_RENTAL,
            MSG_TEXT(one_decimal(tenths_up(m->needed), a)), MSG_INT(n),
            counted(n, MSG_REC_INSTANCE, MSG_REC_INSTANCES), MSG_INT(USAGE_MAX_DAYS));
        break;
    case RECOMMEND_REJECT_OVER_BUDGET:
        SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_OVER_BUDGET,
            MSG_TEXT(amount_text(scan, m->total, total)), MSG_INT(n),
            counted(n, MSG_REC_INSTANCE, MSG_REC_INSTANCES),
            MSG_TEXT(amount_text(scan, scan->request->budget, budget)));
        break;
    default:
        if (m->code == GQ_ERR_NOT_ELIGIBLE)
            SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_NOT_ELIGIBLE,
                MSG_TEXT(segment_id(scan->request->segment)));
        else if (m->code == GQ_ERR_AMOUNT_TOO_LARGE)
            say_args(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_AMOUNT_TOO_LARGE, NULL, 0);
        else
            SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_NOT_PRICED,
                MSG_TEXT(gq_code_name(m->code)));
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
        trim_partial_character(r->detail);
    }
    out->n_rejected = scan->n_misses;
    out->n_rejected_total = scan->n_rejected_total;
    memcpy(out->rejected_by_reason, scan->by_reason, sizeof out->rejected_by_reason);
}

/* The precisions narrower than `precision` that weights can be quantised
 * to ("int8 or int4", "int4"); false for int4, the narrowest. */
static bool narrower_precisions(enum sizing_precision precision, struct msg_arg *out)
{
    if (precision == SIZING_PRECISION_INT4)
        return false;
    *out = precision == SIZING_PRECISION_INT8 ? MSG_TEXT("int4") : MSG_SAY(MSG_REC_INT8_OR_INT4);
    return true;
}

/* "quantise the weights to int8 or int4 or the KV cache to int8" (from a
 * precision wider than int8 and an fp16 KV cache), "an int8 KV cache"; ""
 * when nothing is narrower. */
#define CHANGE_SIZE 128
static const char *serving_quantise(const struct scan *scan, char buf[CHANGE_SIZE])
{
    const struct sizing_estimate *e = scan->estimate;
    struct msg_arg narrower;
    bool has_narrower = narrower_precisions(e->precision, &narrower);
    buf[0] = '\0';
    if (has_narrower && e->kv_precision == SIZING_KV_FP16)
        SAY(scan, buf, CHANGE_SIZE, MSG_REC_QUANTISE_WEIGHTS_OR_KV, narrower);
    else if (has_narrower)
        SAY(scan, buf, CHANGE_SIZE, MSG_REC_QUANTISE_TO, narrower);
    else if (e->kv_precision == SIZING_KV_FP16)
        say_args(scan, buf, CHANGE_SIZE, MSG_REC_KV_INT8, NULL, 0);
    return buf;
}

/* How to need less memory for the estimate's task and precision, followed
 * by ", or a smaller model"; for inference what one request holds too
 * ("quantise the weights to int4 or the KV cache to int8, a shorter
 * context_tokens, or a smaller model"). */
static void memory_advice(const struct scan *scan, char *buf, size_t size)
{
    const struct sizing_estimate *e = scan->estimate;
    struct msg_arg narrower;
    char quantise[CHANGE_SIZE];
    if (e->task == SIZING_TASK_INFERENCE) {
        if (serving_quantise(scan, quantise)[0] != '\0')
            SAY(scan, buf, size, MSG_REC_ADVICE_SERVING, MSG_CLAUSE(quantise));
        else
            say_args(scan, buf, size, MSG_REC_ADVICE_CONTEXT, NULL, 0);
    } else if (e->task != SIZING_TASK_LORA)
        say_args(scan, buf, size, MSG_REC_ADVICE_LORA, NULL, 0);
    else if (!narrower_precisions(e->precision, &narrower))
        say_args(scan, buf, size, MSG_REC_ADVICE_SMALLER, NULL, 0);
    else
        SAY(scan, buf, size, MSG_REC_ADVICE_FROZEN, narrower);
}

/* The advice to allow more instances ("raise assumptions.max_instances
 * (now 8, at most 64)"), written into `buf`; "" when max_instances is
 * already at its limit. */
static const char *more_instances(const struct scan *scan, char buf[CHANGE_SIZE])
{
    buf[0] = '\0';
    if (scan->max_instances < SIZING_MAX_INSTANCES_LIMIT)
        SAY(scan, buf, CHANGE_SIZE, MSG_REC_RAISE_MAX_INSTANCES, MSG_INT(scan->max_instances),
            MSG_INT(SIZING_MAX_INSTANCES_LIMIT));
    return buf;
}

/* Whether a change offers a choice of its own ("lower x or y"), in
 * either language. */
static bool has_choice(const char *change)
{
    return strstr(change, " or ") != NULL || strstr(change, "或") != NULL;
}

/* Joins up to three changes, skipping empty ones: "a, b or c", "a or b",
 * "a"; with semicolons ("a; b; or c") when a change has an "or" of its own. */
static void join_changes(const struct scan *scan, const char *const changes[3], char *buf,
                         size_t size)
{
    const char *kept[3] = {"", "", ""};
    int n = 0;
    bool nested = false;
    for (int i = 0; i < 3; i++)
        if (changes[i][0] != '\0') {
            nested = nested || has_choice(changes[i]);
            kept[n++] = changes[i];
        }
    buf[0] = '\0';
    if (n == 3)
        SAY(scan, buf, size, nested ? MSG_REC_JOIN_THREE_NESTED : MSG_REC_JOIN_THREE,
            MSG_CLAUSE(kept[0]), MSG_CLAUSE(kept[1]), MSG_CLAUSE(kept[2]));
    else if (n == 2)
        SAY(scan, buf, size, nested ? MSG_REC_JOIN_TWO_NESTED : MSG_REC_JOIN_TWO,
            MSG_CLAUSE(kept[0]), MSG_CLAUSE(kept[1]));
    else
        append(buf, size, 0, kept[0]);
}

/* What to change when the concurrency or throughput target needs too many
 * replicas: less of it, a narrower precision (where there is one) or,
 * below the limit, more instances. */
static void write_replicas_hint(const struct scan *scan, char *buf, size_t size)
{
    const struct sizing_estimate *e = scan->estimate;
    char more[CHANGE_SIZE], quantise[CHANGE_SIZE], changes[3 * CHANGE_SIZE];
    char replicas[FIGURE_SIZE], rate[DECIMAL_SIZE];
    const char *raise = scan->fewest_replicas.replicas <= SIZING_MAX_INSTANCES_LIMIT
                            ? more_instances(scan, more)
                            : "";
    const char *lower =
        words(scan, e->concurrent_requests > 0 ? MSG_REC_LOWER_REQUESTS : MSG_REC_LOWER_RATE);
    const char *all[3] = {lower, serving_quantise(scan, quantise), raise};
    join_changes(scan, all, changes, sizeof changes);
    whole_figure(scan->fewest_replicas.replicas, replicas);
    if (e->concurrent_requests > 0)
        SAY(scan, buf, size, MSG_REC_HINT_REPLICAS_REQUESTS, MSG_INT(e->concurrent_requests),
            MSG_TEXT(replicas), MSG_TEXT(scan->fewest_replicas.sku->id), MSG_CLAUSE(changes));
    else
        SAY(scan, buf, size, MSG_REC_HINT_REPLICAS_RATE,
            MSG_TEXT(small_figure(e->tokens_per_second, rate)), MSG_TEXT(replicas),
            MSG_TEXT(scan->fewest_replicas.sku->id), MSG_CLAUSE(changes));
}

/* What to change when no SKU decodes one request as fast as asked. */
static void write_slow_hint(const struct scan *scan, char *buf, size_t size)
{
    const struct sizing_estimate *e = scan->estimate;
    char floor[DECIMAL_SIZE], best[DECIMAL_SIZE], quantise[CHANGE_SIZE], changes[3 * CHANGE_SIZE];
    bool from_target = e->per_request_floor > e->min_tokens_per_second_per_request;
    const char *all[3] = {words(scan, from_target ? MSG_REC_LOWER_TARGET : MSG_REC_LOWER_FLOOR),
                          words(scan, MSG_REC_SHORTEN_PROMPT), serving_quantise(scan, quantise)};
    join_changes(scan, all, changes, sizeof changes);
    SAY(scan, buf, size, MSG_REC_HINT_SLOW, MSG_TEXT(small_figure(e->per_request_floor, floor)),
        MSG_TEXT(scan->fastest_request.sku->id),
        MSG_TEXT(small_figure(scan->fastest_request.available, best)), MSG_CLAUSE(changes));
}

/* What to change when no instance holds the workload; for inference the
 * longest context any SKU holds, when one does. */
static void write_memory_hint(const struct scan *scan, char *buf, size_t size)
{
    const struct sizing_estimate *e = scan->estimate;
    char advice[2 * CHANGE_SIZE], needed[DECIMAL_SIZE], context[CHANGE_SIZE] = "";
    memory_advice(scan, advice, sizeof advice);
    if (scan->has_context)
        SAY(scan, context, sizeof context, MSG_REC_CONTEXT_FITS_ON,
            MSG_INT(scan->longest_context.serving.max_context_tokens),
            MSG_TEXT(scan->longest_context.sku->id));
    SAY(scan, buf, size, MSG_REC_HINT_MEMORY,
        MSG_TEXT(one_decimal(tenths_up(e->memory_gb), needed)), MSG_INT(scan->largest_memory_gb),
        MSG_CLAUSE(context), MSG_CLAUSE(advice));
}

/* What to change when the fastest configuration runs past the deadline
 * or the longest rental. */
static void write_late_hint(const struct scan *scan, char *buf, size_t size)
{
    const struct candidate *late = &scan->fastest_late;
    char days[DECIMAL_SIZE], more[CHANGE_SIZE];
    struct msg_arg sku = MSG_TEXT(late->sku->id), instances = MSG_INT(late->instances),
                   taken = MSG_TEXT(one_decimal(tenths_up(days_of(scan, late)), days));
    bool can_add = more_instances(scan, more)[0] != '\0';
    if (late->too_long && can_add)
        SAY(scan, buf, size, MSG_REC_HINT_TOO_LONG_MORE, sku, instances, taken,
            MSG_INT(USAGE_MAX_DAYS), MSG_CLAUSE(more));
    else if (late->too_long)
        SAY(scan, buf, size, MSG_REC_HINT_TOO_LONG, sku, instances, taken, MSG_INT(USAGE_MAX_DAYS));
    else if (can_add)
        SAY(scan, buf, size, MSG_REC_HINT_LATE_MORE, sku, instances, taken, MSG_CLAUSE(more));
    else
        SAY(scan, buf, size, MSG_REC_HINT_LATE, sku, instances, taken);
}

/* What to change when nothing fits, from the nearest miss. */
static void write_hint(const struct scan *scan, char *buf, size_t size)
{
    char total[AMOUNT_TEXT_SIZE];
    if (scan->catalog->n_skus == 0)
        say_args(scan, buf, size, MSG_REC_HINT_NO_SKUS, NULL, 0);
    else if (scan->has_over)
        SAY(scan, buf, size, MSG_REC_HINT_RAISE_BUDGET, MSG_TEXT(scan->cheapest_over.sku->id),
            MSG_INT(scan->cheapest_over.instances),
            MSG_TEXT(amount_text(scan, scan->cheapest_over.total, total)));
    else if (scan->has_late)
        write_late_hint(scan, buf, size);
    else if (scan->has_replicas)
        write_replicas_hint(scan, buf, size);
    else if (scan->has_slow)
        write_slow_hint(scan, buf, size);
    else if (scan->by_reason[RECOMMEND_REJECT_INSUFFICIENT_MEMORY] == scan->n_rejected_total)
        write_memory_hint(scan, buf, size);
    else if (scan->by_reason[RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT] > 0)
        say_args(scan, buf, size, MSG_REC_HINT_NO_BANDWIDTH, NULL, 0);
    else
        say_args(scan, buf, size, MSG_REC_HINT_NOT_PRICED, NULL, 0);
}

/* ---- the cheapest change --------------------------------------------------- */

/* Variants of the workload that may serve it better, in the order their
 * ties are broken (the least change first). */
enum variant {
    VARIANT_FP16,                  /* fp16 instead of bf16 */
    VARIANT_SELECTIVE_CHECKPOINTS, /* selective instead of full recomputation */
    VARIANT_NO_CHECKPOINTS,        /* no recomputation */
    VARIANT_KV_INT8,               /* an int8 KV cache */
    VARIANT_WEIGHTS_INT8,
    VARIANT_WEIGHTS_INT4,
    VARIANT_COUNT
};

/* The workload with `variant` applied; false when it does not apply. */
static bool vary(const struct sizing_estimate *e, const struct sizing_workload *given,
                 enum variant variant, struct sizing_workload *out)
{
    bool quantisable = e->task == SIZING_TASK_INFERENCE || e->task == SIZING_TASK_LORA;
    bool holds = sizing_task_holds_activations(e->task);
    *out = *given;
    switch (variant) {
    case VARIANT_FP16:
        out->precision = SIZING_PRECISION_FP16;
        return e->precision == SIZING_PRECISION_BF16;
    case VARIANT_SELECTIVE_CHECKPOINTS:
        out->checkpointing = SIZING_CHECKPOINTING_SELECTIVE;
        return holds && e->checkpointing == SIZING_CHECKPOINTING_FULL;
    case VARIANT_NO_CHECKPOINTS:
        out->checkpointing = SIZING_CHECKPOINTING_NONE;
        return holds && e->checkpointing != SIZING_CHECKPOINTING_NONE;
    case VARIANT_KV_INT8:
        out->kv_precision = SIZING_KV_INT8;
        return e->task == SIZING_TASK_INFERENCE && e->kv_precision == SIZING_KV_FP16;
    case VARIANT_WEIGHTS_INT8:
        out->precision = SIZING_PRECISION_INT8;
        return quantisable && e->bytes_per_param > 1.0;
    case VARIANT_WEIGHTS_INT4:
        out->precision = SIZING_PRECISION_INT4;
        return quantisable && e->bytes_per_param > 0.5;
    default:
        return false;
    }
}

/* The change in words: "fp16 instead of bf16 (V100 has no BF16 tensor
 * cores)", "activation_checkpointing none", "an int8 KV cache". */
static void variant_words(const struct scan *scan, enum variant variant, const struct candidate *c,
                          char *buf, size_t size)
{
    static const enum gq_msg without_arguments[VARIANT_COUNT] = {
        [VARIANT_SELECTIVE_CHECKPOINTS] = MSG_REC_VARIANT_SELECTIVE,
        [VARIANT_NO_CHECKPOINTS] = MSG_REC_VARIANT_NO_CHECKPOINTS,
        [VARIANT_KV_INT8] = MSG_REC_KV_INT8,
        [VARIANT_WEIGHTS_INT8] = MSG_REC_VARIANT_INT8,
        [VARIANT_WEIGHTS_INT4] = MSG_REC_VARIANT_INT4,
    };
    if (variant == VARIANT_FP16)
        SAY(scan, buf, size, MSG_REC_VARIANT_FP16, MSG_TEXT(c->sku->gpu->name));
    else
        say_args(scan, buf, size,
                 (unsigned)variant < VARIANT_COUNT ? without_arguments[variant]
                                                   : MSG_REC_VARIANT_INT4,
                 NULL, 0);
}

/* True when `a` is strictly better than `b` under the objective: cheaper
 * (or as cheap and faster) for cost, faster (or as fast and cheaper) for
 * time. Ties of both are not better: the change would buy nothing. */
static bool strictly_better(const struct candidate *a, const struct candidate *b,
                            enum recommend_objective objective)
{
    bool faster = a->hours < b->hours * (1.0 - 1e-9),
         as_fast = !(b->hours < a->hours * (1.0 - 1e-9));
    if (objective == RECOMMEND_OBJECTIVE_TIME)
        return faster || (as_fast && a->total < b->total);
    return a->total < b->total || (a->total == b->total && faster);
}

/* "¥1076.35 in 84.9 h" for a training run, "¥2311.00" for a rental. */
static const char *outcome_text(const struct scan *scan, const struct candidate *c, char *buf,
                                size_t size)
{
    char total[AMOUNT_TEXT_SIZE], hours[DECIMAL_SIZE];
    amount_text(scan, c->total, total);
    if (is_training_run(scan))
        SAY(scan, buf, size, MSG_REC_OUTCOME_TRAINING, MSG_TEXT(total),
            MSG_TEXT(small_figure(c->hours, hours)));
    else
        append(buf, size, 0, total);
    return buf;
}

/* One variant's offer: "fp16 instead of bf16 (V100 has no BF16 tensor
 * cores): v100-32g-x8 × 1 for ¥756.08 in 39.2 h". */
static void variant_offer(const struct scan *scan, enum variant variant, const struct candidate *c,
                          char *buf, size_t size)
{
    char variant_text[CHANGE_SIZE], outcome[96];
    variant_words(scan, variant, c, variant_text, sizeof variant_text);
    SAY(scan, buf, size, MSG_REC_OFFER, MSG_CLAUSE(variant_text), MSG_TEXT(c->sku->id),
        MSG_INT(c->instances), MSG_CLAUSE(outcome_text(scan, c, outcome, sizeof outcome)));
}

/* The hint of the variant that beats the answer most, led by fp16's when
 * bf16 was asked on GPUs without BF16 tensor cores and fp16 beats it too
 * (`lead` VARIANT_COUNT when not); or, when nothing serves, what would
 * (appended to the hint already written). */
static void write_variant_hint(const struct scan *scan, enum variant variant,
                               const struct candidate *better, const struct candidate *lead,
                               char *buf, size_t size)
{
    char offer[256], first[256], now[96];
    bool by_time = scan->request->objective == RECOMMEND_OBJECTIVE_TIME;
    variant_offer(scan, variant, better, offer, sizeof offer);
    if (scan->n_top == 0) {
        size_t used = strlen(buf);
        SAY(scan, buf + used, size - used, MSG_REC_HINT_WOULD_SERVE, MSG_CLAUSE(offer));
        return;
    }
    outcome_text(scan, &scan->top[0], now, sizeof now);
    if (lead != NULL) {
        variant_offer(scan, VARIANT_FP16, lead, first, sizeof first);
        SAY(scan, buf, size, by_time ? MSG_REC_HINT_FASTER_STILL : MSG_REC_HINT_CHEAPER_STILL,
            MSG_CLAUSE(first), MSG_CLAUSE(offer), MSG_CLAUSE(now));
        return;
    }
    SAY(scan, buf, size, by_time ? MSG_REC_HINT_FASTER : MSG_REC_HINT_CHEAPER, MSG_CLAUSE(offer),
        MSG_CLAUSE(now));
}

/* ---- the run --------------------------------------------------------------- */

/* The one allocation of a run: the scan, a variant's scan and estimate and
 * a quote buffer for one item, together too large for a server thread's
 * stack. */
struct workspace {
    struct scan scan;
    struct scan variant_scan;
    struct sizing_estimate variant_estimate;
    struct quote_result quote;
    struct quote_item_result quote_item;
};

static void resolve_settings(struct scan *scan, const struct recommend_request *request)
{
    bool learning = request->workload.task == SIZING_TASK_LEARNING;
    scan->lang = (unsigned)request->lang < GQ_LANG_COUNT ? request->lang : GQ_LANG_EN;
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

/* Tries every SKU of the catalog for `estimate`. */
static void scan_catalog(struct scan *scan, const struct catalog *catalog,
                         const struct recommend_request *request,
                         const struct sizing_estimate *estimate, int64_t now,
                         struct quote_result *quote)
{
    memset(scan, 0, sizeof *scan);
    scan->catalog = catalog;
    scan->request = request;
    scan->estimate = estimate;
    scan->now = now;
    scan->quote = quote;
    resolve_settings(scan, request);
    for (size_t i = 0; i < catalog->n_skus; i++)
        scan_sku(scan, &catalog->skus[i]);
}

/* The variant of the workload that serves it best, when that beats the
 * answer or serves when nothing does: its hint, or nothing. Each variant
 * is a whole scan, keeping only its best configuration. */
static void write_better_variant(struct workspace *work, struct recommend_result *out)
{
    const struct scan *scan = &work->scan;
    enum recommend_objective objective = scan->request->objective;
    struct candidate best, fp16;
    enum variant chosen = VARIANT_COUNT;
    bool has_fp16 = false;
    for (int v = 0; v < VARIANT_COUNT; v++) {
        struct sizing_workload workload;
        if (!vary(scan->estimate, &scan->request->workload, (enum variant)v, &workload) ||
            sizing_estimate_workload(&workload, scan->catalog, &scan->request->assumptions,
                                     &work->variant_estimate, NULL) != GQ_OK)
            continue;
        struct scan *variant = &work->variant_scan;
        scan_catalog(variant, scan->catalog, scan->request, &work->variant_estimate, scan->now,
                     scan->quote);
        if (variant->n_top == 0)
            continue;
        const struct candidate *c = &variant->top[0];
        if (v == VARIANT_FP16 && c->sku->gpu->bf16_tflops > 0.0)
            continue; /* bf16 would have run as fast there */
        if (scan->n_top > 0 && !strictly_better(c, &scan->top[0], objective))
            continue;
        if (v == VARIANT_FP16) {
            fp16 = *c;
            has_fp16 = true;
        }
        if (chosen != VARIANT_COUNT && !strictly_better(c, &best, objective))
            continue;
        best = *c;
        chosen = (enum variant)v;
    }
    if (chosen != VARIANT_COUNT)
        write_variant_hint(scan, chosen, &best,
                           has_fp16 && chosen != VARIANT_FP16 && scan->n_top > 0 ? &fp16 : NULL,
                           out->hint, sizeof out->hint);
}

static void write_result(struct workspace *work, struct recommend_result *out)
{
    struct scan *scan = &work->scan;
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
    if (scan->catalog->n_skus > 0)
        write_better_variant(work, out);
    trim_partial_character(out->hint);
}

enum gq_code recommend_run(const struct catalog *catalog, const struct recommend_request *request,
                           int64_t now, struct recommend_result *out, struct gq_error *err)
{
    assert(catalog != NULL && request != NULL && out != NULL);
    enum gq_code code = sizing_estimate_workload(&request->workload, catalog, &request->assumptions,
                                                 &out->estimate, err);
    if (code == GQ_OK)
        code = check_request(request, &out->estimate, err);
    if (code != GQ_OK)
        return code;
    struct workspace *work = malloc(sizeof *work);
    if (work == NULL)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    memset(&work->quote, 0, sizeof work->quote);
    work->quote.items = &work->quote_item;
    work->quote.capacity = 1;
    scan_catalog(&work->scan, catalog, request, &out->estimate, now, &work->quote);
    write_result(work, out);
    free(work);
    return GQ_OK;
}
