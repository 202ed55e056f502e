/*
 * The words of a recommendation: the reasons given for each configuration
 * returned, the detail of each rejection, and the hint (what to change when
 * nothing fits, or the change of workload that would do better).
 *
 * recommend.c searches and ranks; this file only writes, in the request's
 * language through the message tables, from the figures the search left in
 * its `struct scan`. It runs once per result, never per try.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/recommend_scan.h"

/* Days are shown to a tenth, rounded up, so a run that needs a sliver more
 * than its deadline never reads as on time; this much is noise. */
#define TENTH_NOISE 1e-9

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
            MSG_TEXT(one_decimal(tenths_up(r->placement.activation_gb), gb)),
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

/* "fits with fsdp: needs 17.9 GB per GPU, has 32 GB: 14.6 GB of weights and
 * optimizer state per GPU (split 8 ways) + 1.6 GB of activations (…)". */
static void reason_fit_per_gpu(const struct scan *scan, const struct recommendation *r, char *buf)
{
    const struct sizing_estimate *e = scan->estimate;
    const struct sizing_placement *p = &r->placement;
    char needed[DECIMAL_SIZE], state[DECIMAL_SIZE], working[160];
    SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_FITS_PER_GPU,
        MSG_TEXT(sizing_strategy_id(p->strategy)),
        MSG_TEXT(one_decimal(tenths_up(p->memory_gb), needed)), MSG_INT(r->sku->gpu->memory_gb),
        MSG_TEXT(one_decimal(tenths_up(p->model_state_gb), state)), MSG_SAY(state_words(e->task)),
        MSG_INT(p->gpus), MSG_CLAUSE(working_text(scan, r, working, sizeof working)));
}

/* "fits: needs 21.3 GB, has 32 GB across 2 cards: 14.0 GB of weights + 5.4
 * GB of KV cache for 25 requests". */
static void reason_fit(const struct scan *scan, const struct recommendation *r, char *buf)
{
    const struct sizing_estimate *e = scan->estimate;
    char needed[DECIMAL_SIZE], state[DECIMAL_SIZE], cards[CARDS_TEXT_SIZE], working[160];
    if (sizing_task_holds_activations(e->task)) {
        reason_fit_per_gpu(scan, r, buf);
        return;
    }
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

/* A compute capability (times ten) as NVIDIA writes it: "7.5". */
static const char *capability_text(int32_t tenths, char buf[FIGURE_SIZE])
{
    snprintf(buf, FIGURE_SIZE, "%d.%d", (int)(tenths / 10), (int)(tenths % 10));
    return buf;
}

/* "served as fp16, not bf16: V100 has compute capability 7.0 and bf16
 * needs 8.0"; false when the card runs bf16 or bf16 was not asked. */
static bool reason_served_as_fp16(const struct scan *scan, const struct recommendation *r,
                                  char *buf)
{
    const struct gpu_model *gpu = r->sku->gpu;
    char has[FIGURE_SIZE], needs[FIGURE_SIZE];
    if (!sizing_bf16_served_as_fp16(scan->estimate, gpu))
        return false;
    SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_SERVED_AS_FP16, MSG_TEXT(gpu->name),
        MSG_TEXT(capability_text(gpu->compute_capability, has)),
        MSG_TEXT(capability_text(gpu_feature_min_compute_capability(GPU_FEATURE_BF16), needs)));
    return true;
}

/* "first token in 0.68 s: a 2048-token prompt, 2.9e+13 FLOPs on 2 × 125
 * TFLOPS fp16 at 35% MFU". */
static void reason_first_token(const struct scan *scan, const struct recommendation *r, char *buf)
{
    const struct sizing_estimate *e = scan->estimate;
    char seconds[FIGURE_SIZE], flops[FIGURE_SIZE], mfu[FIGURE_SIZE];
    SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_FIRST_TOKEN,
        MSG_TEXT(two_digits(r->serving.prefill_seconds, seconds)), MSG_INT(e->prompt_tokens),
        MSG_TEXT(two_digits(e->prefill_flops, flops)), MSG_INT(r->sku->gpu_count),
        MSG_REAL(sizing_peak_tflops(e, r->sku->gpu)),
        MSG_TEXT(sizing_precision_id(sizing_precision_on(e, r->sku->gpu))),
        MSG_TEXT(three_digits(e->assumptions[SIZING_MFU] * 100.0, mfu)));
}

static void reason_work(const struct scan *scan, const struct recommendation *r, char *buf)
{
    const struct sizing_estimate *e = scan->estimate;
    char a[DECIMAL_SIZE], b[DECIMAL_SIZE];
    if (e->flops > 0.0) {
        char flops[FIGURE_SIZE], mfu[FIGURE_SIZE], scaling[FIGURE_SIZE];
        bool bf16_as_fp32 = sizing_bf16_without_tensor_cores(e, r->sku->gpu);
        SAY(scan, buf, RECOMMEND_TEXT_SIZE,
            bf16_as_fp32 ? MSG_REC_TRAINING_NO_BF16 : MSG_REC_TRAINING,
            MSG_TEXT(small_figure(r->estimated_hours, a)), MSG_TEXT(two_digits(e->flops, flops)),
            MSG_INT(r->cards), MSG_REAL(sizing_peak_tflops(e, r->sku->gpu)),
            MSG_TEXT(sizing_precision_id(sizing_precision_on(e, r->sku->gpu))),
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
void recommend_trim_partial_character(char *text)
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

/* How the all-reduce of a step over several GPUs sets the scaling; false
 * (nothing said) for one GPU or no training run. */
static bool reason_scaling(const struct scan *scan, const struct recommendation *r, char *buf)
{
    const struct sizing_scaling *s = &r->scaling;
    if (s->gpus <= 1)
        return false;
    char pct[FIGURE_SIZE], gb[FIGURE_SIZE], comm[FIGURE_SIZE], compute[FIGURE_SIZE],
        hidden[FIGURE_SIZE], bandwidth[FIGURE_SIZE];
    SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_SCALING,
        MSG_TEXT(three_digits(s->efficiency * 100.0, pct)), MSG_INT(s->gpus),
        MSG_TEXT(three_digits(s->bytes_per_step / 1e9, gb)), MSG_TEXT(sizing_link_id(s->link)),
        MSG_TEXT(three_digits(s->bandwidth_gb_per_s, bandwidth)),
        MSG_TEXT(three_digits(s->communication_seconds, comm)),
        MSG_TEXT(three_digits(s->compute_seconds, compute)),
        MSG_TEXT(three_digits(fmin(s->overlap_seconds, s->communication_seconds), hidden)));
    return true;
}

static void write_reasons(const struct scan *scan, struct recommendation *r)
{
    reason_fit(scan, r, r->reasons[r->n_reasons++]);
    reason_work(scan, r, r->reasons[r->n_reasons++]);
    if (reason_scaling(scan, r, r->reasons[r->n_reasons]))
        r->n_reasons++;
    if (scan->estimate->task == SIZING_TASK_INFERENCE)
        reason_first_token(scan, r, r->reasons[r->n_reasons++]);
    if (reason_served_as_fp16(scan, r, r->reasons[r->n_reasons]))
        r->n_reasons++;
    reason_plan(scan, r, r->reasons[r->n_reasons++]);
    if (reason_schedule(scan, r, r->reasons[r->n_reasons]))
        r->n_reasons++;
    if (reason_budget(scan, r, r->reasons[r->n_reasons]))
        r->n_reasons++;
    for (int i = 0; i < r->n_reasons; i++)
        recommend_trim_partial_character(r->reasons[i]);
}

void recommend_write_recommendation(const struct scan *scan, const struct candidate *c, int rank,
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
    r->estimated_days = recommend_days_of(scan, c);
    r->placement = c->placement;
    r->memory_gb_needed = c->placement.memory_gb * c->sku->gpu_count;
    r->memory_gb_available = sku_total_memory_gb(c->sku);
    r->cards = recommend_cards_of(c);
    if (recommend_is_training_run(scan)) {
        sizing_scale_as(scan->estimate, r->placement.strategy, c->sku, c->instances, &r->scaling);
        r->scaling_efficiency = r->scaling.efficiency;
    }
    if (scan->estimate->task == SIZING_TASK_INFERENCE) {
        sizing_serve(scan->estimate, c->sku, &r->serving);
        r->memory_gb_needed = r->serving.memory_gb;
        r->placement.memory_gb = r->serving.memory_gb / c->sku->gpu_count;
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
    if (m->host_gb > 0.0) {
        SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_NEEDS_HOST_GB,
            MSG_TEXT(one_decimal(tenths_up(m->host_gb), needed)),
            MSG_INT(m->sku->host->memory_gib));
        return;
    }
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

/* "AWQ kernels need compute capability 7.5; V100 has 7.0". */
static void detail_unsupported(const struct scan *scan, const struct miss *m, char *buf)
{
    char needs[FIGURE_SIZE], has[FIGURE_SIZE];
    SAY(scan, buf, RECOMMEND_TEXT_SIZE, MSG_REC_LACKS_FEATURE,
        MSG_TEXT(gpu_feature_name(m->feature)),
        MSG_TEXT(capability_text(gpu_feature_min_compute_capability(m->feature), needs)),
        MSG_TEXT(m->sku->gpu->name),
        MSG_TEXT(capability_text(m->sku->gpu->compute_capability, has)));
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
    case RECOMMEND_REJECT_UNSUPPORTED_FEATURE:
        detail_unsupported(scan, m, buf);
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

void recommend_write_rejections(const struct scan *scan, struct recommend_result *out)
{
    for (int i = 0; i < scan->n_misses; i++) {
        const struct miss *m = &scan->misses[i];
        struct recommend_rejection *r = &out->rejected[i];
        r->sku = m->sku;
        r->quantity = m->instances;
        r->reason = m->reason;
        r->shortfall = m->shortfall;
        write_detail(scan, m, r->detail);
        recommend_trim_partial_character(r->detail);
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
                   taken = MSG_TEXT(one_decimal(tenths_up(recommend_days_of(scan, late)), days));
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

/* What to change when every card lacks a feature the workload needs. */
static void write_lacking_hint(const struct scan *scan, char *buf, size_t size)
{
    char needs[FIGURE_SIZE];
    enum gpu_feature feature = scan->lacking.feature;
    SAY(scan, buf, size, MSG_REC_HINT_LACKS_FEATURE, MSG_TEXT(gpu_feature_name(feature)),
        MSG_TEXT(capability_text(gpu_feature_min_compute_capability(feature), needs)));
}

/* What to change when nothing fits, from the nearest miss. */
void recommend_write_hint(const struct scan *scan, char *buf, size_t size)
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
    else if (scan->by_reason[RECOMMEND_REJECT_UNSUPPORTED_FEATURE] == scan->n_rejected_total)
        write_lacking_hint(scan, buf, size);
    else if (scan->by_reason[RECOMMEND_REJECT_INSUFFICIENT_THROUGHPUT] > 0)
        say_args(scan, buf, size, MSG_REC_HINT_NO_BANDWIDTH, NULL, 0);
    else
        say_args(scan, buf, size, MSG_REC_HINT_NOT_PRICED, NULL, 0);
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

/* "¥1076.35 in 84.9 h" for a training run, "¥2311.00" for a rental. */
static const char *outcome_text(const struct scan *scan, const struct candidate *c, char *buf,
                                size_t size)
{
    char total[AMOUNT_TEXT_SIZE], hours[DECIMAL_SIZE];
    amount_text(scan, c->total, total);
    if (recommend_is_training_run(scan))
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
void recommend_write_variant_hint(const struct scan *scan, enum variant variant,
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
