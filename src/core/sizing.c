/*
 * Sizing formulas: memory of a workload, FLOPs of a training run, hours on a
 * SKU, decode rate of a replica. docs/sizing.md derives each one and cites
 * the source of every constant below.
 */
#include "core/sizing.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Weights, gradients and the fp32 master copy, momentum and variance of
 * mixed-precision AdamW: 2 + 2 + 4 + 4 + 4 bytes (ZeRO paper, §3.1). Plain
 * fp32 AdamW is 4 + 4 + 4 + 4: the same 16. */
#define TRAINING_STATE_BYTES_PER_PARAM 16.0
/* Forward 2·N + backward 4·N FLOPs per token (Kaplan et al. 2020, §2.1). */
#define FULL_TRAINING_FLOPS_PER_PARAM_TOKEN 6.0
/* LoRA: forward 2·N + backward through frozen weights to the activations
 * 2·N; no weight gradients for them (Hu et al. 2021 measure ≈25 % faster). */
#define FROZEN_FLOPS_PER_PARAM_TOKEN 4.0
#define BILLION 1e9
#define TERA 1e12
#define SECONDS_PER_HOUR 3600.0
/* Tolerance of a floating-point comparison of sizes, far below the 0.1 GB
 * (or 0.1 tok/s) that a response shows. */
#define SIZING_EPSILON 1e-9
/* The smallest share of a peak an assumption may claim (assumption_specs). */
#define MIN_PEAK_SHARE 0.01

static const char *const task_ids[SIZING_TASK_COUNT] = {
    [SIZING_TASK_LEARNING] = "learning", [SIZING_TASK_INFERENCE] = "inference",
    [SIZING_TASK_LORA] = "lora",         [SIZING_TASK_FINETUNE] = "finetune",
    [SIZING_TASK_PRETRAIN] = "pretrain",
};

static const char *const precision_ids[SIZING_PRECISION_COUNT] = {
    [SIZING_PRECISION_FP32] = "fp32", [SIZING_PRECISION_BF16] = "bf16",
    [SIZING_PRECISION_FP16] = "fp16", [SIZING_PRECISION_INT8] = "int8",
    [SIZING_PRECISION_INT4] = "int4",
};

/* Bytes per weight at each precision: the format's width. */
static const double precision_bytes[SIZING_PRECISION_COUNT] = {
    [SIZING_PRECISION_FP32] = 4.0, [SIZING_PRECISION_BF16] = 2.0, [SIZING_PRECISION_FP16] = 2.0,
    [SIZING_PRECISION_INT8] = 1.0, [SIZING_PRECISION_INT4] = 0.5,
};

/* A task's preset when the request gives no model size: DIGEST §4's
 * scenarios, sized as docs/sizing.md explains. */
struct task_preset {
    double params_b;
    double tokens_b; /* 0: a rental, no compute estimate */
};

static const struct task_preset task_presets[SIZING_TASK_COUNT] = {
    /* §3.1: Transformers under a billion parameters on one V100 16GB. */
    [SIZING_TASK_LEARNING] = {0.5, 0.0},
    /* §3.4: T4 for serving; 6B is the largest fp16 model one T4 holds. */
    [SIZING_TASK_INFERENCE] = {6.0, 0.0},
    /* §2.1: 7B is the article's running example; 100M tokens of tuning data. */
    [SIZING_TASK_LORA] = {7.0, 0.1},
    /* §3.2: "V100 32GB"-class memory: 1.3B × 16 B × 1.2 ≈ 25 GB; 1B tokens. */
    [SIZING_TASK_FINETUNE] = {1.3, 1.0},
    /* §3.3: "10B+ parameters"; 20B tokens (2 per parameter). */
    [SIZING_TASK_PRETRAIN] = {10.0, 20.0},
};

/* One overridable constant: its id, default and accepted range. The shares
 * of a peak (MFU, scaling, bandwidth) are at least MIN_PEAK_SHARE: time and
 * rates are divided by them, and below 1 % of the hardware's peak an
 * estimate says nothing about the hardware. */
struct assumption_spec {
    const char *id;
    double fallback;
    double min;
    double max;
    bool min_exclusive;
    bool integer;
};

static const struct assumption_spec assumption_specs[SIZING_ASSUMPTION_COUNT] = {
    /* Issue: 0.35–0.40; V100 without bf16 or FlashAttention-2: the low end. */
    [SIZING_MFU] = {"mfu", 0.35, MIN_PEAK_SHARE, 1.0, false, false},
    /* DIGEST §1 / article §2.3: "85 %+" on NVLink. */
    [SIZING_MULTI_CARD_EFFICIENCY_NVLINK] = {"multi_card_efficiency_nvlink", 0.85, MIN_PEAK_SHARE,
                                             1.0, false, false},
    /* Stated: PCIe 3.0 x16 is 16 GB/s against 50 GB/s per NVLink link (§2.3). */
    [SIZING_MULTI_CARD_EFFICIENCY_PCIE] = {"multi_card_efficiency_pcie", 0.70, MIN_PEAK_SHARE, 1.0,
                                           false, false},
    /* Stated: gradients cross the data-centre network, slower than PCIe. */
    [SIZING_MULTI_INSTANCE_EFFICIENCY] = {"multi_instance_efficiency", 0.60, MIN_PEAK_SHARE, 1.0,
                                          false, false},
    /* Stated: activations (with checkpointing), buffers, CUDA context. */
    [SIZING_ACTIVATION_ALLOWANCE] = {"activation_allowance", 0.20, 0.0, 10.0, false, false},
    /* Issue: weights × 1.2. */
    [SIZING_KV_CACHE_ALLOWANCE] = {"kv_cache_allowance", 0.20, 0.0, 10.0, false, false},
    /* Hu et al. 2021: rank 8–64 adapters are 0.1–2 % of a 7B model. */
    [SIZING_LORA_TRAINABLE_FRACTION] = {"lora_trainable_fraction", 0.01, 0.0, 1.0, true, false},
    /* MosaicML/Databricks 2023: ≈60 % model bandwidth utilisation at batch 1. */
    [SIZING_DECODE_BANDWIDTH_EFFICIENCY] = {"decode_bandwidth_efficiency", 0.60, MIN_PEAK_SHARE,
                                            1.0, false, false},
    /* Issue: "1 … a sane cap"; DIGEST §4 advises up to 4 T4s, 8 cards. */
    [SIZING_MAX_INSTANCES] = {"max_instances", 8.0, 1.0, SIZING_MAX_INSTANCES_LIMIT, false, true},
};

/* Index of `text` in a table of names, or -1. */
static int find_name(const char *const *names, int count, const char *text)
{
    if (text == NULL)
        return -1;
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], text) == 0)
            return i;
    return -1;
}

const char *sizing_task_id(enum sizing_task task)
{
    return (unsigned)task < SIZING_TASK_COUNT ? task_ids[task] : "unknown";
}

bool sizing_task_parse(const char *text, enum sizing_task *out)
{
    int index = find_name(task_ids, SIZING_TASK_COUNT, text);
    if (index < 0)
        return false;
    *out = (enum sizing_task)index;
    return true;
}

const char *sizing_precision_id(enum sizing_precision precision)
{
    return (unsigned)precision < SIZING_PRECISION_COUNT ? precision_ids[precision] : "unknown";
}

bool sizing_precision_parse(const char *text, enum sizing_precision *out)
{
    int index = find_name(precision_ids, SIZING_PRECISION_COUNT, text);
    if (index < 0)
        return false;
    *out = (enum sizing_precision)index;
    return true;
}

const char *sizing_assumption_id(enum sizing_assumption assumption)
{
    return (unsigned)assumption < SIZING_ASSUMPTION_COUNT ? assumption_specs[assumption].id
                                                          : "unknown";
}

bool sizing_assumption_parse(const char *text, enum sizing_assumption *out)
{
    if (text == NULL)
        return false;
    for (int i = 0; i < SIZING_ASSUMPTION_COUNT; i++)
        if (strcmp(assumption_specs[i].id, text) == 0) {
            *out = (enum sizing_assumption)i;
            return true;
        }
    return false;
}

double sizing_assumption_default(enum sizing_assumption assumption)
{
    return (unsigned)assumption < SIZING_ASSUMPTION_COUNT ? assumption_specs[assumption].fallback
                                                          : NAN;
}

double sizing_bytes_per_param(enum sizing_precision precision)
{
    return (unsigned)precision < SIZING_PRECISION_COUNT ? precision_bytes[precision] : 0.0;
}

bool sizing_task_trains(enum sizing_task task)
{
    return task == SIZING_TASK_LORA || task == SIZING_TASK_FINETUNE || task == SIZING_TASK_PRETRAIN;
}

/* Tasks whose memory is full training state: every parameter trains. */
static bool task_trains_all_params(enum sizing_task task)
{
    return task == SIZING_TASK_LEARNING || task == SIZING_TASK_FINETUNE ||
           task == SIZING_TASK_PRETRAIN;
}

static bool assumption_in_range(const struct assumption_spec *spec, double value)
{
    if (!isfinite(value) || value > spec->max)
        return false;
    return spec->min_exclusive ? value > spec->min : value >= spec->min;
}

/* The caller's value of one assumption. A fraction where a whole number is
 * required is the wrong kind of value (invalid_value), as for every integer
 * field of a request; anything else unacceptable is out_of_range. */
static enum gq_code check_assumption(const struct assumption_spec *spec, double value,
                                     struct gq_error *err)
{
    bool fraction = spec->integer && isfinite(value) && value != floor(value);
    if (!fraction && assumption_in_range(spec, value))
        return GQ_OK;
    char field[64];
    snprintf(field, sizeof field, "assumptions.%s", spec->id);
    if (fraction)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, field, "%s must be a whole number", field);
    if (spec->integer)
        return gq_fail(err, GQ_ERR_OUT_OF_RANGE, field, "%s must be an integer from %g to %g",
                       field, spec->min, spec->max);
    return gq_fail(err, GQ_ERR_OUT_OF_RANGE, field, "%s must be %s %g and at most %g", field,
                   spec->min_exclusive ? "greater than" : "at least", spec->min, spec->max);
}

enum gq_code sizing_assumptions_resolve(const struct sizing_assumptions *given,
                                        double out[SIZING_ASSUMPTION_COUNT], struct gq_error *err)
{
    for (int i = 0; i < SIZING_ASSUMPTION_COUNT; i++) {
        const struct assumption_spec *spec = &assumption_specs[i];
        if (given == NULL || !given->set[i]) {
            out[i] = spec->fallback;
            continue;
        }
        enum gq_code code = check_assumption(spec, given->value[i], err);
        if (code != GQ_OK)
            return code;
        out[i] = given->value[i];
    }
    return GQ_OK;
}

/* Checks a workload number: finite, 0 .. max. */
static enum gq_code check_amount(double value, double max, const char *field, const char *name,
                                 struct gq_error *err)
{
    if (!isfinite(value) || value < 0.0 || value > max)
        return gq_fail(err, GQ_ERR_OUT_OF_RANGE, field, "%s must be from 0 to %g", name, max);
    return GQ_OK;
}

static enum gq_code check_numbers(const struct sizing_workload *workload, struct gq_error *err)
{
    enum gq_code code = check_amount(workload->model_params_b, SIZING_MAX_PARAMS_B,
                                     "workload.model_params_b", "model_params_b", err);
    if (code == GQ_OK)
        code = check_amount(workload->tokens_b, SIZING_MAX_TOKENS_B, "workload.tokens_b",
                            "tokens_b", err);
    if (code == GQ_OK)
        code = check_amount(workload->tokens_per_second, SIZING_MAX_TOKENS_PER_SECOND,
                            "workload.tokens_per_second", "tokens_per_second", err);
    return code;
}

/* Rejects enums out of range and fields that do not apply to the task. */
static enum gq_code check_workload(const struct sizing_workload *workload, struct gq_error *err)
{
    if ((unsigned)workload->task >= SIZING_TASK_COUNT)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, "workload.task", "unknown task");
    if ((unsigned)workload->precision >= SIZING_PRECISION_COUNT)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, "workload.precision", "unknown precision");
    enum gq_code code = check_numbers(workload, err);
    if (code != GQ_OK)
        return code;
    if (workload->tokens_b > 0.0 && !sizing_task_trains(workload->task))
        return gq_fail(err, GQ_ERR_INVALID_VALUE, "workload.tokens_b",
                       "tokens_b applies to lora, finetune and pretrain, not %s",
                       sizing_task_id(workload->task));
    if (workload->tokens_per_second > 0.0 && workload->task != SIZING_TASK_INFERENCE)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, "workload.tokens_per_second",
                       "tokens_per_second applies to inference only");
    if (task_trains_all_params(workload->task) && sizing_bytes_per_param(workload->precision) < 2.0)
        return gq_fail(err, GQ_ERR_INVALID_VALUE, "workload.precision",
                       "%s trains every weight, which needs fp32, bf16 or fp16; %s suits "
                       "inference and lora",
                       sizing_task_id(workload->task), sizing_precision_id(workload->precision));
    return GQ_OK;
}

/* Model size and tokens: the request's, or the task's preset. A model given
 * without tokens is a rental (no compute estimate). */
static void apply_preset(const struct sizing_workload *workload, struct sizing_estimate *out)
{
    const struct task_preset *preset = &task_presets[workload->task];
    out->preset = workload->model_params_b == 0.0;
    out->params_b = out->preset ? preset->params_b : workload->model_params_b;
    out->tokens_b = workload->tokens_b;
    if (out->preset && out->tokens_b == 0.0)
        out->tokens_b = preset->tokens_b;
    if (!sizing_task_trains(workload->task))
        out->tokens_b = 0.0;
}

static void compute_memory(struct sizing_estimate *out)
{
    const double *a = out->assumptions;
    out->weights_gb = out->params_b * out->bytes_per_param;
    if (out->task == SIZING_TASK_INFERENCE) {
        out->trainable_params_b = 0.0;
        out->state_bytes_per_trainable_param = 0.0;
        out->model_state_gb = out->weights_gb;
        out->allowance_fraction = a[SIZING_KV_CACHE_ALLOWANCE];
        out->decode_gb_per_token = out->weights_gb;
    } else if (out->task == SIZING_TASK_LORA) {
        out->trainable_params_b = out->params_b * a[SIZING_LORA_TRAINABLE_FRACTION];
        out->state_bytes_per_trainable_param = TRAINING_STATE_BYTES_PER_PARAM;
        out->model_state_gb =
            out->weights_gb + out->trainable_params_b * TRAINING_STATE_BYTES_PER_PARAM;
        out->allowance_fraction = a[SIZING_ACTIVATION_ALLOWANCE];
    } else {
        out->trainable_params_b = out->params_b;
        out->state_bytes_per_trainable_param = TRAINING_STATE_BYTES_PER_PARAM;
        out->model_state_gb = out->params_b * TRAINING_STATE_BYTES_PER_PARAM;
        out->allowance_fraction = a[SIZING_ACTIVATION_ALLOWANCE];
    }
    out->allowance_gb = out->model_state_gb * out->allowance_fraction;
    out->memory_gb = out->model_state_gb + out->allowance_gb;
}

static void compute_flops(struct sizing_estimate *out)
{
    out->flops_per_param_token = 0.0;
    out->flops = 0.0;
    if (!sizing_task_trains(out->task) || out->tokens_b <= 0.0)
        return;
    if (out->task == SIZING_TASK_LORA)
        out->flops_per_param_token =
            FROZEN_FLOPS_PER_PARAM_TOKEN +
            FULL_TRAINING_FLOPS_PER_PARAM_TOKEN * out->assumptions[SIZING_LORA_TRAINABLE_FRACTION];
    else
        out->flops_per_param_token = FULL_TRAINING_FLOPS_PER_PARAM_TOKEN;
    out->flops = out->flops_per_param_token * out->params_b * BILLION * out->tokens_b * BILLION;
}

enum gq_code sizing_estimate_workload(const struct sizing_workload *workload,
                                      const struct sizing_assumptions *assumptions,
                                      struct sizing_estimate *out, struct gq_error *err)
{
    assert(workload != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    enum gq_code code = check_workload(workload, err);
    if (code == GQ_OK)
        code = sizing_assumptions_resolve(assumptions, out->assumptions, err);
    if (code != GQ_OK)
        return code;
    out->task = workload->task;
    out->precision = workload->precision;
    out->bytes_per_param = sizing_bytes_per_param(workload->precision);
    out->tokens_per_second = workload->tokens_per_second;
    apply_preset(workload, out);
    compute_memory(out);
    compute_flops(out);
    return GQ_OK;
}

bool sizing_fits(const struct sizing_estimate *estimate, const struct sku *sku)
{
    return estimate->memory_gb <= (double)sku_total_memory_gb(sku) + SIZING_EPSILON;
}

/* Scaling among the cards of one instance. */
static double card_efficiency(const struct sizing_estimate *estimate, const struct sku *sku)
{
    if (sku->gpu_count <= 1)
        return 1.0;
    if (sku->interconnect == INTERCONNECT_NVLINK)
        return estimate->assumptions[SIZING_MULTI_CARD_EFFICIENCY_NVLINK];
    return estimate->assumptions[SIZING_MULTI_CARD_EFFICIENCY_PCIE];
}

double sizing_scaling_efficiency(const struct sizing_estimate *estimate, const struct sku *sku,
                                 int32_t instances)
{
    assert(instances >= 1);
    double efficiency = card_efficiency(estimate, sku);
    if (instances > 1)
        efficiency *= estimate->assumptions[SIZING_MULTI_INSTANCE_EFFICIENCY];
    return efficiency;
}

enum sizing_precision sizing_compute_precision(const struct sizing_estimate *estimate)
{
    if (estimate->precision == SIZING_PRECISION_INT8 ||
        estimate->precision == SIZING_PRECISION_INT4)
        return SIZING_PRECISION_FP16; /* only LoRA trains over them (full training refuses) */
    return estimate->precision;
}

double sizing_peak_tflops(const struct sizing_estimate *estimate, const struct gpu_model *gpu)
{
    switch (sizing_compute_precision(estimate)) {
    case SIZING_PRECISION_FP32:
        return gpu->fp32_tflops;
    case SIZING_PRECISION_BF16:
        return gpu->bf16_tflops > 0.0 ? gpu->bf16_tflops : gpu->fp32_tflops;
    default:
        return gpu->fp16_tflops;
    }
}

double sizing_training_hours(const struct sizing_estimate *estimate, const struct sku *sku,
                             int32_t instances)
{
    if (estimate->flops <= 0.0)
        return 0.0;
    double cards = (double)instances * sku->gpu_count;
    double flops_per_second = cards * sizing_peak_tflops(estimate, sku->gpu) * TERA *
                              estimate->assumptions[SIZING_MFU] *
                              sizing_scaling_efficiency(estimate, sku, instances);
    if (!(flops_per_second > 0.0))
        return INFINITY;
    return estimate->flops / flops_per_second / SECONDS_PER_HOUR;
}

double sizing_replica_tokens_per_second(const struct sizing_estimate *estimate,
                                        const struct sku *sku)
{
    if (estimate->task != SIZING_TASK_INFERENCE || estimate->decode_gb_per_token <= 0.0)
        return 0.0;
    double bandwidth_gbps = (double)sku->gpu_count * sku->gpu->memory_bandwidth_gbps *
                            estimate->assumptions[SIZING_DECODE_BANDWIDTH_EFFICIENCY] *
                            card_efficiency(estimate, sku);
    return bandwidth_gbps / estimate->decode_gb_per_token;
}

int32_t sizing_replicas_needed(const struct sizing_estimate *estimate, const struct sku *sku)
{
    if (estimate->tokens_per_second <= 0.0)
        return 1;
    double rate = sizing_replica_tokens_per_second(estimate, sku);
    if (!(rate > 0.0))
        return INT32_MAX;
    double replicas = ceil(estimate->tokens_per_second / rate - SIZING_EPSILON);
    if (replicas >= (double)INT32_MAX)
        return INT32_MAX;
    return replicas < 1.0 ? 1 : (int32_t)replicas;
}
