/*
 * Sizing formulas: memory of a workload, FLOPs of a training run, hours on a
 * SKU, how a replica serves a model. docs/sizing.md derives each one and
 * cites the source of every constant below.
 */
#include "core/sizing.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "core/names.h"

/* Weights, gradients and the fp32 master copy, momentum and variance of
 * mixed-precision AdamW: 2 + 2 + 4 + 4 + 4 bytes (ZeRO paper, section 3.1). Plain
 * fp32 AdamW is 4 + 4 + 4 + 4: the same 16. */
#define TRAINING_STATE_BYTES_PER_PARAM 16.0
/* Forward 2·N + backward 4·N FLOPs per token (Kaplan et al. 2020, section 2.1). */
#define FULL_TRAINING_FLOPS_PER_PARAM_TOKEN 6.0
/* LoRA: forward 2·N + backward through frozen weights to the activations
 * 2·N; no weight gradients for them (Hu et al. 2021 measure ≈25 % faster). */
#define FROZEN_FLOPS_PER_PARAM_TOKEN 4.0
/* Full recomputation runs each layer's forward pass once more: 2·N. */
#define RECOMPUTE_FLOPS_PER_PARAM_TOKEN 2.0
/* The attention's FLOPs per token and layer, per hidden unit and token
 * attended: QKᵀ and scores × V, 2 each forward (PaLM, Appendix B: 12·L·h·s
 * for training, forward and backward). */
#define ATTENTION_FORWARD_FLOPS 4.0
#define ATTENTION_TRAINING_FLOPS 12.0
/* Decoding a token: 2 FLOPs per parameter (a multiply and an add). */
#define DECODE_FLOPS_PER_PARAM 2.0
/* Korthikanti et al. 2022, section 4: bytes per s·b·h a layer keeps (16-bit
 * activations), the attention scores' 5·a·s²·b, and the layer input that
 * full recomputation keeps. */
#define LAYER_ACTIVATION_BYTES_PER_SBH 34.0
#define ATTENTION_SCORE_BYTES 5.0
#define LAYER_INPUT_BYTES_PER_SBH 2.0
/* A KV cache entry holds a key and a value. */
#define KV_TENSORS 2.0
/* The derived shape (sizing_derive_shape): heads of 128, hidden = 128 ×
 * layers, 12·h² parameters a layer, a gated MLP of 8/3·h, Llama's
 * vocabulary. */
#define DERIVED_HEAD_DIM 128
#define DERIVED_PARAMS_PER_CUBED_LAYER (12.0 * DERIVED_HEAD_DIM * DERIVED_HEAD_DIM)
#define DERIVED_VOCAB 32000
#define BILLION 1e9
#define TERA 1e12
#define BYTES_PER_GB 1e9
#define SECONDS_PER_HOUR 3600.0
/* Tolerance of a floating-point comparison of sizes, far below the 0.1 GB
 * (or 0.1 tok/s) that a response shows. */
#define SIZING_EPSILON 1e-9
/* The smallest share of a peak an assumption may claim (assumption_specs). */
#define MIN_PEAK_SHARE 0.01
/* The largest memory reserve: half the instance. */
#define MAX_MEMORY_RESERVE 0.5

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

static const char *const kv_precision_ids[SIZING_KV_PRECISION_COUNT] = {
    [SIZING_KV_DEFAULT] = "fp16",
    [SIZING_KV_FP16] = "fp16",
    [SIZING_KV_INT8] = "int8",
    [SIZING_KV_FP8] = "fp8",
};

static const double kv_precision_bytes[SIZING_KV_PRECISION_COUNT] = {
    [SIZING_KV_DEFAULT] = 2.0,
    [SIZING_KV_FP16] = 2.0,
    [SIZING_KV_INT8] = 1.0,
    [SIZING_KV_FP8] = 1.0,
};

static const char *const checkpointing_ids[SIZING_CHECKPOINTING_COUNT] = {
    [SIZING_CHECKPOINTING_DEFAULT] = "full",
    [SIZING_CHECKPOINTING_NONE] = "none",
    [SIZING_CHECKPOINTING_SELECTIVE] = "selective",
    [SIZING_CHECKPOINTING_FULL] = "full",
};

static const char *const quant_method_ids[SIZING_QUANT_METHOD_COUNT] = {
    [SIZING_QUANT_DEFAULT] = "default",
    [SIZING_QUANT_GPTQ] = "gptq",
    [SIZING_QUANT_AWQ] = "awq",
    [SIZING_QUANT_BITSANDBYTES_NF4] = "bitsandbytes_nf4",
    [SIZING_QUANT_BITSANDBYTES_INT8] = "bitsandbytes_int8",
    [SIZING_QUANT_W8A8] = "w8a8",
};

const struct names_table sizing_task_names = {task_ids, SIZING_TASK_COUNT, 0};
const struct names_table sizing_precision_names = {precision_ids, SIZING_PRECISION_COUNT, 0};
/* From 1: DEFAULT shares fp16's, full's or no name and is never parsed. */
const struct names_table sizing_kv_precision_names = {kv_precision_ids + 1,
                                                      SIZING_KV_PRECISION_COUNT - 1, 1};
const struct names_table sizing_checkpointing_names = {checkpointing_ids + 1,
                                                       SIZING_CHECKPOINTING_COUNT - 1, 1};
const struct names_table sizing_quant_method_names = {quant_method_ids + 1,
                                                      SIZING_QUANT_METHOD_COUNT - 1, 1};

/* Quantisation's side data (docs/sizing.md, "Quantised weights"): GPTQ and
 * AWQ keep an fp16 scale per group; bitsandbytes nf4 an fp32 absmax per
 * block of 64 weights; LLM.int8() and W8A8 an fp32 scale per output row. */
#define QUANT_SCALE_BYTES_FP16 2.0
#define QUANT_SCALE_BYTES_FP32 4.0
#define NF4_BLOCK 64.0
/* Weights left unquantised (embeddings, output, norms, biases) stay fp16. */
#define UNQUANTISED_BYTES 2.0

/* Bytes per weight at each precision: the format's width. */
static const double precision_bytes[SIZING_PRECISION_COUNT] = {
    [SIZING_PRECISION_FP32] = 4.0, [SIZING_PRECISION_BF16] = 2.0, [SIZING_PRECISION_FP16] = 2.0,
    [SIZING_PRECISION_INT8] = 1.0, [SIZING_PRECISION_INT4] = 0.5,
};

/* A task's preset when the request gives no model size: the product's
 * advice for each task, sized as docs/sizing.md ("Presets") explains. */
struct task_preset {
    double params_b;
    double tokens_b; /* 0: a rental, no compute estimate */
};

static const struct task_preset task_presets[SIZING_TASK_COUNT] = {
    /* Transformers under a billion parameters on one V100 16GB. */
    [SIZING_TASK_LEARNING] = {0.5, 0.0},
    /* T4 for serving; 6B is the largest fp16 model one T4 holds with
     * a 4096-token request. */
    [SIZING_TASK_INFERENCE] = {6.0, 0.0},
    /* 7B, the advice's running example; 100M tokens of tuning data. */
    [SIZING_TASK_LORA] = {7.0, 0.1},
    /* "V100 32GB"-class memory: 1.3B × 16 B ≈ 21 GB of state; 1B tokens. */
    [SIZING_TASK_FINETUNE] = {1.3, 1.0},
    /* "10B+ parameters"; 20B tokens (2 per parameter). */
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
    /* The low end of 0.35–0.40: V100s have neither bf16 nor FlashAttention-2. */
    [SIZING_MFU] = {"mfu", 0.35, MIN_PEAK_SHARE, 1.0, false, false},
    /* The product's stated "85 %+" multi-card utilisation on NVLink. */
    [SIZING_MULTI_CARD_EFFICIENCY_NVLINK] = {"multi_card_efficiency_nvlink", 0.85, MIN_PEAK_SHARE,
                                             1.0, false, false},
    /* Stated: PCIe 3.0 x16 is 16 GB/s against 50 GB/s per NVLink link. */
    [SIZING_MULTI_CARD_EFFICIENCY_PCIE] = {"multi_card_efficiency_pcie", 0.70, MIN_PEAK_SHARE, 1.0,
                                           false, false},
    /* No default: scaling between instances comes from the network's
     * all-reduce. Kept so that callers who set the old flat figure still
     * get it, on top of the model inside one instance. */
    [SIZING_MULTI_INSTANCE_EFFICIENCY] = {"multi_instance_efficiency", NAN, MIN_PEAK_SHARE, 1.0,
                                          false, false},
    /* The catalog's slowest host (2.5 Gbit/s), for a SKU without host facts. */
    [SIZING_NETWORK_BANDWIDTH_GBIT_S] = {"network_bandwidth_gbit_s", 2.5, 0.1, 1000.0, false,
                                         false},
    /* NVLink 2.0: 25 GB/s each way per link, the least a ring step has. */
    [SIZING_NVLINK_BANDWIDTH_GB_S] = {"nvlink_bandwidth_gb_s", 25.0, 0.1, 1000.0, false, false},
    /* PCIe 3.0 x16: 16 GB/s each way. */
    [SIZING_PCIE_BANDWIDTH_GB_S] = {"pcie_bandwidth_gb_s", 16.0, 0.1, 1000.0, false, false},
    /* A TCP hop between hosts on a data-centre network: tens of µs. */
    [SIZING_ALL_REDUCE_HOP_LATENCY_US] = {"all_reduce_hop_latency_us", 50.0, 0.0, 1000000.0, false,
                                          false},
    /* vLLM's gpu_memory_utilization default, 0.9: a tenth of each card for
     * the CUDA context, workspace and fragmentation. */
    [SIZING_MEMORY_RESERVE] = {"memory_reserve", 0.10, 0.0, MAX_MEMORY_RESERVE, false, false},
    /* Hu et al. 2021: rank 8–64 adapters are 0.1–2 % of a 7B model. */
    [SIZING_LORA_TRAINABLE_FRACTION] = {"lora_trainable_fraction", 0.01, 0.0, 1.0, true, false},
    /* MosaicML/Databricks 2023: ≈60 % model bandwidth utilisation. */
    [SIZING_DECODE_BANDWIDTH_EFFICIENCY] = {"decode_bandwidth_efficiency", 0.60, MIN_PEAK_SHARE,
                                            1.0, false, false},
    /* A sane cap: the product's advice goes up to 4 T4s, or 8 cards. */
    [SIZING_MAX_INSTANCES] = {"max_instances", 8.0, 1.0, SIZING_MAX_INSTANCES_LIMIT, false, true},
};

const char *sizing_task_id(enum sizing_task task)
{
    return names_id(task_ids, SIZING_TASK_COUNT, task);
}

const char *sizing_precision_id(enum sizing_precision precision)
{
    return names_id(precision_ids, SIZING_PRECISION_COUNT, precision);
}

const char *sizing_quant_method_id(enum sizing_quant_method method)
{
    return names_id(quant_method_ids, SIZING_QUANT_METHOD_COUNT, method);
}

double sizing_quant_bytes_per_weight(enum sizing_quant_method method, int32_t bits,
                                     int32_t group_size, double in_features)
{
    double packed = bits / 8.0;
    switch (method) {
    case SIZING_QUANT_GPTQ:
    case SIZING_QUANT_AWQ: {
        double group = group_size > 0 ? (double)group_size : in_features;
        return packed + (QUANT_SCALE_BYTES_FP16 + packed) / group;
    }
    case SIZING_QUANT_BITSANDBYTES_NF4:
        return 0.5 + QUANT_SCALE_BYTES_FP32 / NF4_BLOCK;
    case SIZING_QUANT_BITSANDBYTES_INT8:
    case SIZING_QUANT_W8A8:
        return 1.0 + QUANT_SCALE_BYTES_FP32 / in_features;
    default:
        return packed;
    }
}

const char *sizing_kv_precision_id(enum sizing_kv_precision precision)
{
    return names_id(kv_precision_ids, SIZING_KV_PRECISION_COUNT, precision);
}

const char *sizing_checkpointing_id(enum sizing_checkpointing checkpointing)
{
    return names_id(checkpointing_ids, SIZING_CHECKPOINTING_COUNT, checkpointing);
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

bool sizing_task_holds_activations(enum sizing_task task)
{
    return task != SIZING_TASK_INFERENCE && (unsigned)task < SIZING_TASK_COUNT;
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
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_FIELD_WHOLE, MSG_TEXT(field));
    if (spec->integer)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_REC_INTEGER_FROM_TO,
                           MSG_TEXT(field), MSG_REAL(spec->min), MSG_REAL(spec->max));
    return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field,
                       spec->min_exclusive ? MSG_REC_GREATER_THAN_AT_MOST
                                           : MSG_REC_AT_LEAST_AT_MOST,
                       MSG_TEXT(field), MSG_REAL(spec->min), MSG_REAL(spec->max));
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

/* ---- shapes ---------------------------------------------------------------- */

void sizing_derive_shape(double params_b, struct sizing_shape *out)
{
    assert(params_b > 0.0);
    memset(out, 0, sizeof *out);
    double layers = round(cbrt(params_b * BILLION / DERIVED_PARAMS_PER_CUBED_LAYER));
    out->layers = layers < 1.0 ? 1 : (int32_t)layers;
    out->hidden = DERIVED_HEAD_DIM * out->layers;
    out->heads = out->layers;
    out->kv_heads = out->layers;
    out->head_dim = DERIVED_HEAD_DIM;
    out->intermediate = (int32_t)lround(out->hidden * 8.0 / 3.0);
    out->vocab = DERIVED_VOCAB;
    out->sliding_window = 0;
}

void sizing_shape_of(const struct model_shape *model, struct sizing_shape *out)
{
    memset(out, 0, sizeof *out);
    out->model = model->id;
    out->name = model->name;
    out->source = model->source;
    out->layers = model->layers;
    out->hidden = model->hidden;
    out->heads = model->heads;
    out->kv_heads = model->kv_heads;
    out->head_dim = model->hidden / model->heads;
    out->intermediate = model->intermediate;
    out->vocab = model->vocab;
    out->sliding_window = model->sliding_window;
}

double sizing_shape_param_count(const struct sizing_shape *shape)
{
    double h = shape->hidden, kv = (double)shape->kv_heads * shape->head_dim;
    double per_layer = 2.0 * h * h + 2.0 * h * kv + 3.0 * h * shape->intermediate + 2.0 * h;
    return 2.0 * shape->vocab * h + shape->layers * per_layer + h;
}

double sizing_linear_params(const struct sizing_shape *shape)
{
    double h = shape->hidden, kv = (double)shape->kv_heads * shape->head_dim;
    double experts = shape->experts > 1 ? shape->experts : 1.0;
    return (double)shape->layers *
           (2.0 * h * h + 2.0 * h * kv + experts * 3.0 * h * shape->intermediate);
}

double sizing_kv_bytes_per_token(const struct sizing_shape *shape, double bytes_per_element)
{
    return KV_TENSORS * shape->layers * shape->kv_heads * shape->head_dim * bytes_per_element;
}

double sizing_lora_params(const struct sizing_shape *shape, int32_t rank)
{
    double h = shape->hidden, kv = (double)shape->kv_heads * shape->head_dim;
    return (double)rank * shape->layers * (9.0 * h + 2.0 * kv + 3.0 * shape->intermediate);
}

double sizing_layer_activation_bytes(double s, double b, double h, double a,
                                     enum sizing_checkpointing checkpointing)
{
    double sbh = s * b * h;
    switch (checkpointing) {
    case SIZING_CHECKPOINTING_NONE:
        return sbh * LAYER_ACTIVATION_BYTES_PER_SBH + ATTENTION_SCORE_BYTES * a * s * s * b;
    case SIZING_CHECKPOINTING_SELECTIVE:
        return sbh * LAYER_ACTIVATION_BYTES_PER_SBH;
    default:
        return sbh * LAYER_INPUT_BYTES_PER_SBH;
    }
}

double sizing_activation_bytes(const struct sizing_shape *shape, double s, double b,
                               enum sizing_checkpointing checkpointing)
{
    double h = shape->hidden, a = shape->heads;
    double kept = shape->layers * sizing_layer_activation_bytes(s, b, h, a, checkpointing);
    if (checkpointing == SIZING_CHECKPOINTING_NONE)
        return kept;
    if (checkpointing == SIZING_CHECKPOINTING_SELECTIVE)
        return kept + ATTENTION_SCORE_BYTES * a * s * s * b;
    return kept + sizing_layer_activation_bytes(s, b, h, a, SIZING_CHECKPOINTING_NONE);
}

double sizing_decode_step_seconds(double bytes_read, double flops, double bytes_per_second,
                                  double flops_per_second, bool *compute_bound)
{
    double memory = bytes_per_second > 0.0 ? bytes_read / bytes_per_second : INFINITY;
    double compute = flops_per_second > 0.0 ? flops / flops_per_second : INFINITY;
    if (compute_bound != NULL)
        *compute_bound = compute > memory;
    return compute > memory ? compute : memory;
}

/* ---- validation ------------------------------------------------------------ */

/* Checks a workload number: finite, 0 .. max. */
static enum gq_code check_amount(double value, double max, const char *field, const char *name,
                                 struct gq_error *err)
{
    if (!isfinite(value) || value < 0.0 || value > max)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_REC_FROM_TO, MSG_TEXT(name),
                           MSG_INT(0), MSG_REAL(max));
    return GQ_OK;
}

/* Checks a whole-number workload figure: 0 (not given) or min .. max. */
static enum gq_code check_count(int32_t value, int32_t min, int32_t max, const char *name,
                                struct gq_error *err)
{
    if (value == 0 || (value >= min && value <= max))
        return GQ_OK;
    char field[64];
    snprintf(field, sizeof field, "workload.%s", name);
    return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_REC_FROM_TO, MSG_TEXT(name),
                       MSG_INT(min), MSG_INT(max));
}

static enum gq_code check_numbers(const struct sizing_workload *w, struct gq_error *err)
{
    enum gq_code code = check_amount(w->model_params_b, SIZING_MAX_PARAMS_B,
                                     "workload.model_params_b", "model_params_b", err);
    if (code == GQ_OK)
        code = check_amount(w->tokens_b, SIZING_MAX_TOKENS_B, "workload.tokens_b", "tokens_b", err);
    if (code == GQ_OK)
        code = check_amount(w->tokens_per_second, SIZING_MAX_TOKENS_PER_SECOND,
                            "workload.tokens_per_second", "tokens_per_second", err);
    if (code == GQ_OK)
        code = check_amount(
            w->min_tokens_per_second_per_request, SIZING_MAX_TOKENS_PER_SECOND_PER_REQUEST,
            "workload.min_tokens_per_second_per_request", "min_tokens_per_second_per_request", err);
    if (code == GQ_OK)
        code = check_count(w->concurrent_requests, 1, SIZING_MAX_CONCURRENT_REQUESTS,
                           "concurrent_requests", err);
    /* A request is at least a prompt token and an output token. */
    if (code == GQ_OK)
        code = check_count(w->context_tokens, 2, SIZING_MAX_CONTEXT_TOKENS, "context_tokens", err);
    if (code == GQ_OK)
        code =
            check_count(w->prompt_tokens, 1, SIZING_MAX_CONTEXT_TOKENS - 1, "prompt_tokens", err);
    if (code == GQ_OK)
        code =
            check_count(w->sequence_length, 1, SIZING_MAX_CONTEXT_TOKENS, "sequence_length", err);
    if (code == GQ_OK)
        code = check_count(w->micro_batch_size, 1, SIZING_MAX_MICRO_BATCH_SIZE, "micro_batch_size",
                           err);
    if (code == GQ_OK)
        code = check_count(w->lora_rank, 1, SIZING_MAX_LORA_RANK, "lora_rank", err);
    if (code == GQ_OK)
        code = check_count(w->global_batch_tokens, 1, SIZING_MAX_GLOBAL_BATCH_TOKENS,
                           "global_batch_tokens", err);
    return code;
}

/* The first serving figure given, by its field name; NULL when none is. */
static const char *serving_field_given(const struct sizing_workload *w)
{
    if (w->tokens_per_second > 0.0)
        return "tokens_per_second";
    if (w->concurrent_requests != 0)
        return "concurrent_requests";
    if (w->context_tokens != 0)
        return "context_tokens";
    if (w->prompt_tokens != 0)
        return "prompt_tokens";
    if (w->min_tokens_per_second_per_request > 0.0)
        return "min_tokens_per_second_per_request";
    return w->kv_precision != SIZING_KV_DEFAULT ? "kv_precision" : NULL;
}

/* The first training-memory figure given; NULL when none is. */
static const char *training_field_given(const struct sizing_workload *w)
{
    if (w->sequence_length != 0)
        return "sequence_length";
    if (w->micro_batch_size != 0)
        return "micro_batch_size";
    if (w->strategy != SIZING_STRATEGY_AUTO)
        return "strategy";
    if (w->offload != SIZING_OFFLOAD_NONE)
        return "offload";
    return w->checkpointing != SIZING_CHECKPOINTING_DEFAULT ? "activation_checkpointing" : NULL;
}

/* `tasks`: MSG_REC_INFERENCE_ONLY, MSG_REC_LORA_ONLY, ... */
static enum gq_code not_for_task(const char *name, enum gq_msg tasks, struct gq_error *err)
{
    char field[64];
    snprintf(field, sizeof field, "workload.%s", name);
    return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, tasks, MSG_TEXT(name));
}

/* Fields that do not apply to the task, and pairs that contradict. */
static enum gq_code check_applicable(const struct sizing_workload *w,
                                     const struct sizing_assumptions *given, struct gq_error *err)
{
    const char *serving = serving_field_given(w), *training = training_field_given(w);
    if (w->tokens_b > 0.0 && !sizing_task_trains(w->task))
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.tokens_b", MSG_REC_TOKENS_B_TASK,
                           MSG_TEXT(sizing_task_id(w->task)));
    if (serving != NULL && w->task != SIZING_TASK_INFERENCE)
        return not_for_task(serving, MSG_REC_INFERENCE_ONLY, err);
    if (training != NULL && !sizing_task_holds_activations(w->task))
        return not_for_task(training, MSG_REC_ACTIVATIONS_ONLY, err);
    if (w->lora_rank != 0 && w->task != SIZING_TASK_LORA)
        return not_for_task("lora_rank", MSG_REC_LORA_ONLY, err);
    if (w->strategy != SIZING_STRATEGY_AUTO && !sizing_strategy_offloads(w->strategy, w->offload))
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.offload", MSG_REC_OFFLOAD_STRATEGY,
                           MSG_TEXT(sizing_strategy_id(w->strategy)),
                           MSG_TEXT(sizing_offload_id(w->offload)));
    if (w->global_batch_tokens != 0 && !sizing_task_trains(w->task))
        return not_for_task("global_batch_tokens", MSG_REC_TRAINS_ONLY, err);
    if (w->lora_rank != 0 && given != NULL && given->set[SIZING_LORA_TRAINABLE_FRACTION])
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.lora_rank",
                           MSG_REC_RANK_OR_FRACTION);
    if ((w->model != NULL || w->model_config_given) && w->model_params_b > 0.0)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.model_params_b",
                           MSG_REC_MODEL_OR_PARAMS);
    if (task_trains_all_params(w->task) && sizing_bytes_per_param(w->precision) < 2.0)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.precision",
                           MSG_REC_TRAINS_EVERY_WEIGHT, MSG_TEXT(sizing_task_id(w->task)),
                           MSG_TEXT(sizing_precision_id(w->precision)));
    return GQ_OK;
}

/* The context a request takes and its prompt: given or defaulted; the
 * prompt must leave at least one token of output. */
static enum gq_code check_prompt(const struct sizing_workload *w, struct gq_error *err)
{
    int32_t context = w->context_tokens > 0 ? w->context_tokens : SIZING_DEFAULT_CONTEXT_TOKENS;
    if (w->prompt_tokens < context)
        return GQ_OK;
    return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "workload.prompt_tokens",
                       w->context_tokens > 0 ? MSG_REC_PROMPT_TOKENS
                                             : MSG_REC_PROMPT_TOKENS_DEFAULT,
                       MSG_INT(context));
}

static bool quantization_given(const struct sizing_quantization *q)
{
    return q->method != SIZING_QUANT_DEFAULT || q->bits != 0 || q->group_size != 0 ||
           q->modules_given;
}

static int32_t precision_bits(enum sizing_precision precision)
{
    return precision == SIZING_PRECISION_INT4 ? 4 : precision == SIZING_PRECISION_INT8 ? 8 : 0;
}

/* The method a quantised precision gets when the request names none: GPTQ
 * to serve (its kernels run from compute capability 6.0), bitsandbytes to
 * train LoRA adapters on (QLoRA). */
static enum sizing_quant_method default_quant_method(enum sizing_task task,
                                                     enum sizing_precision precision)
{
    if (task == SIZING_TASK_INFERENCE)
        return SIZING_QUANT_GPTQ;
    return precision == SIZING_PRECISION_INT4 ? SIZING_QUANT_BITSANDBYTES_NF4
                                              : SIZING_QUANT_BITSANDBYTES_INT8;
}

/* The bits a method stores, or 0 when it takes 4 or 8 (GPTQ). */
static int32_t method_bits(enum sizing_quant_method method)
{
    switch (method) {
    case SIZING_QUANT_AWQ:
    case SIZING_QUANT_BITSANDBYTES_NF4:
        return 4;
    case SIZING_QUANT_BITSANDBYTES_INT8:
    case SIZING_QUANT_W8A8:
        return 8;
    default:
        return 0;
    }
}

/* The quantisation agrees with the precision: int8 or int4, the bits its
 * method stores, a group only where the method has one. */
static enum gq_code check_quantization(const struct sizing_workload *w, struct gq_error *err)
{
    const struct sizing_quantization *q = &w->quantization;
    if ((unsigned)q->method >= SIZING_QUANT_METHOD_COUNT)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.quantization.method",
                           MSG_REC_UNKNOWN_PRECISION);
    if (!quantization_given(q))
        return GQ_OK;
    int32_t bits = precision_bits(w->precision);
    if (bits == 0)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.quantization",
                           MSG_REC_QUANT_PRECISION, MSG_TEXT(sizing_precision_id(w->precision)));
    enum sizing_quant_method method =
        q->method != SIZING_QUANT_DEFAULT ? q->method : default_quant_method(w->task, w->precision);
    int32_t stored = method_bits(method);
    if ((stored != 0 && stored != bits) || (q->bits != 0 && q->bits != bits))
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE,
                           q->bits != 0 ? "workload.quantization.bits" : "workload.precision",
                           MSG_REC_QUANT_BITS, MSG_TEXT(sizing_quant_method_id(method)),
                           MSG_INT(stored != 0 ? stored : bits));
    if (q->group_size != 0 && method != SIZING_QUANT_GPTQ && method != SIZING_QUANT_AWQ)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.quantization.group_size",
                           MSG_REC_QUANT_GROUP, MSG_TEXT(sizing_quant_method_id(method)));
    if (q->group_size < -1 || q->group_size > SIZING_MAX_GROUP_SIZE)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "workload.quantization.group_size",
                           MSG_REC_QUANT_GROUP, MSG_TEXT(sizing_quant_method_id(method)));
    return GQ_OK;
}

/* Rejects enums out of range, numbers out of range and fields that do not
 * apply to the task. */
static enum gq_code check_workload(const struct sizing_workload *w,
                                   const struct sizing_assumptions *given, struct gq_error *err)
{
    if ((unsigned)w->task >= SIZING_TASK_COUNT)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.task", MSG_REC_UNKNOWN_TASK);
    if ((unsigned)w->precision >= SIZING_PRECISION_COUNT)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.precision",
                           MSG_REC_UNKNOWN_PRECISION);
    if ((unsigned)w->kv_precision >= SIZING_KV_PRECISION_COUNT)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.kv_precision",
                           MSG_REC_UNKNOWN_KV_PRECISION);
    if ((unsigned)w->checkpointing >= SIZING_CHECKPOINTING_COUNT)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.activation_checkpointing",
                           MSG_REC_UNKNOWN_CHECKPOINTING);
    if ((unsigned)w->strategy >= SIZING_STRATEGY_COUNT)
        return gq_fail_msg(
            err, GQ_ERR_INVALID_VALUE, "workload.strategy", MSG_FIELD_ONE_OF,
            MSG_TEXT("workload.strategy"),
            MSG_TEXT("auto, ddp, zero1, zero2, zero3, fsdp, tensor_parallel, pipeline_parallel"));
    if ((unsigned)w->offload >= SIZING_OFFLOAD_COUNT)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.offload", MSG_FIELD_ONE_OF,
                           MSG_TEXT("workload.offload"), MSG_TEXT("none, optimizer, parameters"));
    enum gq_code code = check_numbers(w, err);
    if (code == GQ_OK)
        code = check_applicable(w, given, err);
    if (code == GQ_OK && w->task == SIZING_TASK_INFERENCE)
        code = check_prompt(w, err);
    if (code == GQ_OK)
        code = check_quantization(w, err);
    if (code == GQ_OK && w->model_config_given)
        code = sizing_model_config_check(&w->model_config, err);
    return code;
}

/* "llama-2-7b, llama-2-13b, …": the catalog's model ids, as many as fit. */
static void list_models(const struct catalog *catalog, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; catalog != NULL && i < catalog->n_shapes; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", i > 0 ? ", " : "", catalog->shapes[i].id);
        if (n < 0 || (size_t)n >= size - used) {
            buf[used] = '\0';
            return;
        }
        used += (size_t)n;
    }
}

/* The "org/name" of a shape's Hugging Face source
 * (https://huggingface.co/org/name/blob/…): its start, and its length in
 * *length; NULL when the source is elsewhere. */
static const char *hugging_face_id(const char *source, size_t *length)
{
    static const char prefix[] = "https://huggingface.co/";
    if (source == NULL || strncmp(source, prefix, sizeof prefix - 1) != 0)
        return NULL;
    const char *id = source + sizeof prefix - 1, *slash = strchr(id, '/');
    if (slash == NULL)
        return NULL;
    const char *end = strchr(slash + 1, '/');
    *length = end != NULL ? (size_t)(end - id) : strlen(id);
    return id;
}

/* A shipped id in any case, or the Hugging Face id of its config.json. */
static const struct model_shape *find_shape_by_name(const struct catalog *catalog, const char *name)
{
    const struct model_shape *exact = catalog_find_shape(catalog, name);
    if (exact != NULL)
        return exact;
    for (size_t i = 0; i < catalog->n_shapes; i++) {
        const struct model_shape *shape = &catalog->shapes[i];
        size_t length = 0;
        const char *id = hugging_face_id(shape->source, &length);
        if (strcasecmp(name, shape->id) == 0 ||
            (id != NULL && strlen(name) == length && strncasecmp(name, id, length) == 0))
            return shape;
    }
    return NULL;
}

static enum gq_code find_model(const struct sizing_workload *w, const struct catalog *catalog,
                               const struct model_shape **out, struct gq_error *err)
{
    *out = NULL;
    if (w->model_config_given) {
        *out = &w->model_config.shape;
        return GQ_OK;
    }
    if (w->model == NULL)
        return GQ_OK;
    *out = catalog != NULL ? find_shape_by_name(catalog, w->model) : NULL;
    if (*out != NULL)
        return GQ_OK;
    char known[160];
    list_models(catalog, known, sizeof known);
    if (known[0] == '\0')
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.model", MSG_REC_UNKNOWN_MODEL_NONE,
                           MSG_TEXT_CUT(w->model, 40));
    return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.model", MSG_REC_UNKNOWN_MODEL,
                       MSG_TEXT_CUT(w->model, 40), MSG_CLAUSE(known));
}

/* A request's context (serving) or sequence (training), given or
 * defaulted, must be one the model has positions for. */
static enum gq_code check_max_positions(const struct sizing_workload *w,
                                        const struct model_shape *model, struct gq_error *err)
{
    if (model == NULL || model->max_position_embeddings <= 0)
        return GQ_OK;
    bool serving = w->task == SIZING_TASK_INFERENCE;
    const char *name = serving ? "context_tokens" : "sequence_length";
    int32_t given = serving ? w->context_tokens : w->sequence_length;
    int32_t tokens =
        given > 0 ? given
                  : (serving ? SIZING_DEFAULT_CONTEXT_TOKENS : SIZING_DEFAULT_SEQUENCE_LENGTH);
    if (tokens <= model->max_position_embeddings)
        return GQ_OK;
    return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE,
                       serving ? "workload.context_tokens" : "workload.sequence_length",
                       MSG_REC_PAST_MAX_POSITIONS, MSG_TEXT(name), MSG_INT(tokens),
                       MSG_TEXT(model->name), MSG_INT(model->max_position_embeddings));
}

/* ---- the estimate ---------------------------------------------------------- */

/* The parameters of the largest single module, as DeepSpeed's estimator
 * counts them: the embedding table, or an MLP projection if larger. */
static double largest_layer_params(const struct sizing_shape *shape)
{
    double h = shape->hidden;
    return fmax((double)shape->vocab * h, h * shape->intermediate);
}

/* A config's counts (total and active) and its experts, over the shape
 * sizing_shape_of() took from it. */
static void apply_config(const struct sizing_model_config *config, struct sizing_estimate *out)
{
    double total, active;
    sizing_model_config_params(config, &total, &active);
    out->params_b = total / BILLION;
    out->active_params_b = active / BILLION;
    out->shape_from_config = true;
    out->shape.model = NULL;
    out->shape.source = NULL;
    out->shape.experts = config->experts;
    out->shape.experts_per_token = config->experts > 1 ? config->experts_per_token : 0;
    out->shape.tied_embeddings = config->tie_word_embeddings;
}

/* Model size, shape and tokens: the model's, the request's, or the task's
 * preset. A size given without tokens is a rental (no compute estimate). */
static void apply_model(const struct sizing_workload *w, const struct model_shape *model,
                        struct sizing_estimate *out)
{
    const struct task_preset *preset = &task_presets[w->task];
    out->preset = model == NULL && w->model_params_b == 0.0;
    if (model != NULL)
        out->params_b = (double)model->params / BILLION;
    else
        out->params_b = out->preset ? preset->params_b : w->model_params_b;
    out->tokens_b = w->tokens_b;
    if (out->preset && out->tokens_b == 0.0)
        out->tokens_b = preset->tokens_b;
    if (!sizing_task_trains(w->task))
        out->tokens_b = 0.0;
    out->active_params_b = out->params_b;
    out->shape_derived = model == NULL;
    if (model != NULL)
        sizing_shape_of(model, &out->shape);
    else
        sizing_derive_shape(out->params_b, &out->shape);
    if (w->model_config_given)
        apply_config(&w->model_config, out);
    out->max_position_embeddings = model != NULL ? model->max_position_embeddings : 0;
    out->largest_layer_params = largest_layer_params(&out->shape);
}

/* Tokens a request attends to at context c: all of them, or the window. */
static double attended(const struct sizing_shape *shape, double c)
{
    return shape->sliding_window > 0 && c > shape->sliding_window ? shape->sliding_window : c;
}

/* The mean of attended(c) over a request's output, c from P to T. */
static double mean_attended(const struct sizing_shape *shape, double p, double t)
{
    double w = shape->sliding_window;
    if (w <= 0.0 || t <= w)
        return (p + t) / 2.0;
    if (p >= w)
        return w;
    return ((w * w - p * p) / 2.0 + (t - w) * w) / (t - p);
}

/* Σ attended(t) over a prompt's P tokens, taken as continuous: P²/2 without
 * a window. */
static double prompt_attention_sum(const struct sizing_shape *shape, double p)
{
    double w = shape->sliding_window;
    if (w <= 0.0 || p <= w)
        return p * p / 2.0;
    return w * w / 2.0 + (p - w) * w;
}

static void compute_serving(const struct sizing_workload *w, struct sizing_estimate *out)
{
    const struct sizing_shape *shape = &out->shape;
    double n = out->active_params_b * BILLION, lh = (double)shape->layers * shape->hidden;
    out->concurrent_requests = w->concurrent_requests;
    if (out->concurrent_requests == 0 && out->tokens_per_second == 0.0)
        out->concurrent_requests = 1;
    out->context_tokens = w->context_tokens > 0 ? w->context_tokens : SIZING_DEFAULT_CONTEXT_TOKENS;
    out->prompt_tokens = w->prompt_tokens > 0 ? w->prompt_tokens : out->context_tokens / 2;
    out->output_tokens = out->context_tokens - out->prompt_tokens;
    out->kv_tokens_per_request = (int32_t)attended(shape, out->context_tokens);
    out->min_tokens_per_second_per_request = w->min_tokens_per_second_per_request > 0.0
                                                 ? w->min_tokens_per_second_per_request
                                                 : SIZING_DEFAULT_MIN_TOKENS_PER_SECOND_PER_REQUEST;
    out->per_request_floor = out->min_tokens_per_second_per_request;
    if (out->concurrent_requests > 0 && out->tokens_per_second > 0.0 &&
        out->tokens_per_second / out->concurrent_requests > out->per_request_floor)
        out->per_request_floor = out->tokens_per_second / out->concurrent_requests;
    out->kv_precision = w->kv_precision == SIZING_KV_DEFAULT ? SIZING_KV_FP16 : w->kv_precision;
    out->kv_bytes_per_token =
        sizing_kv_bytes_per_token(shape, kv_precision_bytes[out->kv_precision]);
    out->kv_gb_per_request = out->kv_bytes_per_token * out->kv_tokens_per_request / BYTES_PER_GB;
    out->kv_gb =
        out->kv_gb_per_request * (out->concurrent_requests > 0 ? out->concurrent_requests : 1);
    double mean = mean_attended(shape, out->prompt_tokens, out->context_tokens);
    out->kv_read_gb_per_request = out->kv_bytes_per_token * mean / BYTES_PER_GB;
    out->prefill_flops =
        DECODE_FLOPS_PER_PARAM * n * out->prompt_tokens +
        ATTENTION_FORWARD_FLOPS * lh * prompt_attention_sum(shape, out->prompt_tokens);
    out->decode_flops_per_token = DECODE_FLOPS_PER_PARAM * n + ATTENTION_FORWARD_FLOPS * lh * mean;
    out->working_gb = out->kv_gb_per_request;
    out->decode_gb_per_token = out->weights_gb;
}

static void compute_training_memory(const struct sizing_workload *w, struct sizing_estimate *out)
{
    out->sequence_length =
        w->sequence_length > 0 ? w->sequence_length : SIZING_DEFAULT_SEQUENCE_LENGTH;
    out->micro_batch_size =
        w->micro_batch_size > 0 ? w->micro_batch_size : SIZING_DEFAULT_MICRO_BATCH_SIZE;
    out->checkpointing = w->checkpointing != SIZING_CHECKPOINTING_DEFAULT
                             ? w->checkpointing
                             : SIZING_CHECKPOINTING_FULL;
    out->activation_gb = sizing_activation_bytes(&out->shape, out->sequence_length,
                                                 out->micro_batch_size, out->checkpointing) /
                         BYTES_PER_GB;
    out->working_gb = out->activation_gb;
    if (!sizing_task_trains(out->task))
        return;
    int32_t fallback = out->task == SIZING_TASK_PRETRAIN
                           ? SIZING_DEFAULT_PRETRAIN_GLOBAL_BATCH_TOKENS
                           : SIZING_DEFAULT_GLOBAL_BATCH_TOKENS;
    out->global_batch_tokens = w->global_batch_tokens > 0 ? w->global_batch_tokens : fallback;
}

/* int8 and int4 weights as their method stores them: the linear layers
 * (and any module not kept) packed with their scales, the rest fp16. */
static void compute_quantized_weights(const struct sizing_workload *w, struct sizing_estimate *out)
{
    const struct sizing_quantization *q = &w->quantization;
    out->quant_bits = precision_bits(out->precision);
    out->quant_method_defaulted = q->method == SIZING_QUANT_DEFAULT;
    out->quant_method =
        q->method != SIZING_QUANT_DEFAULT ? q->method : default_quant_method(w->task, w->precision);
    bool grouped = out->quant_method == SIZING_QUANT_GPTQ || out->quant_method == SIZING_QUANT_AWQ;
    out->quant_group_size = !grouped             ? 0
                            : q->group_size != 0 ? q->group_size
                                                 : SIZING_DEFAULT_GROUP_SIZE;
    out->quant_modules_kept = q->modules_given ? q->modules_not_quantized
                                               : SIZING_MODULE_EMBEDDINGS | SIZING_MODULE_OUTPUT;
    const struct sizing_shape *shape = &out->shape;
    double params = out->params_b * BILLION, table = (double)shape->vocab * shape->hidden;
    double quantized = sizing_linear_params(shape), kept = 0.0;
    if (out->quant_modules_kept & SIZING_MODULE_EMBEDDINGS)
        kept += table;
    else
        quantized += table;
    if (out->quant_modules_kept & SIZING_MODULE_OUTPUT)
        kept += table;
    else
        quantized += table;
    /* A derived shape's count is a rule's: the kept tables stay 16-bit. */
    quantized = fmax(0.0, fmin(quantized, params - kept));
    out->quantized_params_b = quantized / BILLION;
    out->quant_bytes_per_weight = sizing_quant_bytes_per_weight(
        out->quant_method, out->quant_bits, out->quant_group_size, shape->hidden);
    double bytes =
        quantized * out->quant_bytes_per_weight + (params - quantized) * UNQUANTISED_BYTES;
    out->weights_gb = bytes / BYTES_PER_GB;
    out->bytes_per_param = bytes / params;
}

static void compute_state(const struct sizing_workload *w, struct sizing_estimate *out)
{
    double *a = out->assumptions;
    out->weights_gb = out->params_b * out->bytes_per_param;
    if (precision_bits(out->precision) != 0)
        compute_quantized_weights(w, out);
    if (out->task == SIZING_TASK_INFERENCE) {
        out->model_state_gb = out->weights_gb;
        return;
    }
    out->state_bytes_per_trainable_param = TRAINING_STATE_BYTES_PER_PARAM;
    if (out->task == SIZING_TASK_LORA) {
        out->lora_rank = w->lora_rank;
        if (w->lora_rank > 0) {
            out->trainable_params_b = sizing_lora_params(&out->shape, w->lora_rank) / BILLION;
            /* The share the rank gives, echoed as the one used. */
            a[SIZING_LORA_TRAINABLE_FRACTION] = fmin(1.0, out->trainable_params_b / out->params_b);
        } else
            out->trainable_params_b = out->params_b * a[SIZING_LORA_TRAINABLE_FRACTION];
        out->model_state_gb =
            out->weights_gb + out->trainable_params_b * TRAINING_STATE_BYTES_PER_PARAM;
        return;
    }
    out->trainable_params_b = out->params_b;
    out->model_state_gb = out->params_b * TRAINING_STATE_BYTES_PER_PARAM;
}

static void compute_memory(struct sizing_estimate *out)
{
    double reserve = out->assumptions[SIZING_MEMORY_RESERVE];
    out->allowance_fraction = reserve;
    out->memory_gb = (out->model_state_gb + out->working_gb) / (1.0 - reserve);
    out->allowance_gb = out->memory_gb - out->model_state_gb - out->working_gb;
}

static void compute_flops(struct sizing_estimate *out)
{
    out->flops_per_param_token = 0.0;
    out->attention_flops_per_token = 0.0;
    out->flops = 0.0;
    if (!sizing_task_trains(out->task) || out->tokens_b <= 0.0)
        return;
    if (out->task == SIZING_TASK_LORA)
        out->flops_per_param_token =
            FROZEN_FLOPS_PER_PARAM_TOKEN +
            FULL_TRAINING_FLOPS_PER_PARAM_TOKEN * out->assumptions[SIZING_LORA_TRAINABLE_FRACTION];
    else
        out->flops_per_param_token = FULL_TRAINING_FLOPS_PER_PARAM_TOKEN;
    double attention = ATTENTION_TRAINING_FLOPS;
    if (out->checkpointing == SIZING_CHECKPOINTING_FULL)
        out->flops_per_param_token += RECOMPUTE_FLOPS_PER_PARAM_TOKEN;
    if (out->checkpointing != SIZING_CHECKPOINTING_NONE)
        attention += ATTENTION_FORWARD_FLOPS; /* the attention core runs forward again */
    out->attention_flops_per_token =
        attention * out->shape.layers * out->shape.hidden * (double)out->sequence_length;
    out->flops = (out->flops_per_param_token * out->active_params_b * BILLION +
                  out->attention_flops_per_token) *
                 out->tokens_b * BILLION;
}

enum gq_code sizing_estimate_workload(const struct sizing_workload *workload,
                                      const struct catalog *catalog,
                                      const struct sizing_assumptions *assumptions,
                                      struct sizing_estimate *out, struct gq_error *err)
{
    assert(workload != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    const struct model_shape *model = NULL;
    enum gq_code code = check_workload(workload, assumptions, err);
    if (code == GQ_OK)
        code = sizing_assumptions_resolve(assumptions, out->assumptions, err);
    if (code == GQ_OK)
        code = find_model(workload, catalog, &model, err);
    if (code == GQ_OK)
        code = check_max_positions(workload, model, err);
    if (code != GQ_OK)
        return code;
    out->task = workload->task;
    out->precision = workload->precision;
    out->bytes_per_param = sizing_bytes_per_param(workload->precision);
    out->tokens_per_second = workload->tokens_per_second;
    out->network_bandwidth_given =
        assumptions != NULL && assumptions->set[SIZING_NETWORK_BANDWIDTH_GBIT_S];
    out->strategy = workload->strategy;
    out->offload = workload->offload;
    apply_model(workload, model, out);
    if (sizing_task_holds_activations(out->task))
        compute_training_memory(workload, out);
    compute_state(workload, out);
    if (out->task == SIZING_TASK_INFERENCE)
        compute_serving(workload, out);
    compute_memory(out);
    compute_flops(out);
    return GQ_OK;
}

bool sizing_fits(const struct sizing_estimate *estimate, const struct sku *sku)
{
    struct sizing_placement placement;
    return sizing_place(estimate, sku, 1, &placement);
}

/* Scaling among the cards of one serving replica (tensor parallelism). */
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
    if (estimate->task == SIZING_TASK_INFERENCE)
        return card_efficiency(estimate, sku);
    struct sizing_scaling scaling;
    sizing_scale(estimate, sku, instances, &scaling);
    return scaling.efficiency;
}

enum sizing_precision sizing_compute_precision(const struct sizing_estimate *estimate)
{
    if (estimate->precision == SIZING_PRECISION_INT8 ||
        estimate->precision == SIZING_PRECISION_INT4)
        return SIZING_PRECISION_FP16; /* dequantised for each matmul */
    return estimate->precision;
}

bool sizing_bf16_without_tensor_cores(const struct sizing_estimate *estimate,
                                      const struct gpu_model *gpu)
{
    return estimate->precision == SIZING_PRECISION_BF16 &&
           estimate->task != SIZING_TASK_INFERENCE && !gpu_model_supports(gpu, GPU_FEATURE_BF16);
}

bool sizing_bf16_served_as_fp16(const struct sizing_estimate *estimate, const struct gpu_model *gpu)
{
    return estimate->precision == SIZING_PRECISION_BF16 &&
           estimate->task == SIZING_TASK_INFERENCE && !gpu_model_supports(gpu, GPU_FEATURE_BF16);
}

enum sizing_precision sizing_precision_on(const struct sizing_estimate *estimate,
                                          const struct gpu_model *gpu)
{
    if (sizing_bf16_served_as_fp16(estimate, gpu))
        return SIZING_PRECISION_FP16;
    if (sizing_bf16_without_tensor_cores(estimate, gpu))
        return SIZING_PRECISION_FP32;
    return sizing_compute_precision(estimate);
}

/* The kernel int8 or int4 weights of `method` run on. */
static enum gpu_feature quant_kernel(enum sizing_quant_method method)
{
    if (method == SIZING_QUANT_AWQ)
        return GPU_FEATURE_AWQ;
    if (method == SIZING_QUANT_W8A8)
        return GPU_FEATURE_W8A8_INT8;
    bool bitsandbytes =
        method == SIZING_QUANT_BITSANDBYTES_NF4 || method == SIZING_QUANT_BITSANDBYTES_INT8;
    return bitsandbytes ? GPU_FEATURE_BITSANDBYTES : GPU_FEATURE_GPTQ;
}

bool sizing_gpu_lacks_feature(const struct sizing_estimate *estimate, const struct gpu_model *gpu,
                              enum gpu_feature *missing)
{
    enum gpu_feature needed[2];
    int n = 0;
    if (estimate->quant_method != SIZING_QUANT_DEFAULT)
        needed[n++] = quant_kernel(estimate->quant_method);
    if (estimate->task == SIZING_TASK_INFERENCE && estimate->kv_precision == SIZING_KV_FP8)
        needed[n++] = GPU_FEATURE_FP8_KV_CACHE;
    for (int i = 0; i < n; i++)
        if (!gpu_model_supports(gpu, needed[i])) {
            *missing = needed[i];
            return true;
        }
    return false;
}

double sizing_peak_tflops(const struct sizing_estimate *estimate, const struct gpu_model *gpu)
{
    switch (sizing_precision_on(estimate, gpu)) {
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
    return sizing_training_hours_as(estimate, estimate->strategy, sku, instances);
}

double sizing_training_hours_as(const struct sizing_estimate *estimate,
                                enum sizing_strategy strategy, const struct sku *sku,
                                int32_t instances)
{
    if (estimate->flops <= 0.0)
        return 0.0;
    struct sizing_scaling scaling;
    sizing_scale_as(estimate, strategy, sku, instances, &scaling);
    double cards = (double)instances * sku->gpu_count;
    double flops_per_second = cards * sizing_peak_tflops(estimate, sku->gpu) * TERA *
                              estimate->assumptions[SIZING_MFU] * scaling.efficiency;
    if (!(flops_per_second > 0.0))
        return INFINITY;
    return estimate->flops / flops_per_second / SECONDS_PER_HOUR;
}

/* ---- serving --------------------------------------------------------------- */

/* One replica's decode arithmetic: a step at batch b reads the weights
 * once and each request's KV cache, and runs each request's decode FLOPs; a
 * request's prefill takes prefill_s; its output is `output` tokens. */
struct replica_model {
    double weights_bytes;
    double kv_bytes;  /* one request's KV cache read per step */
    double flops;     /* one request's decode FLOPs per step */
    double prefill_s; /* one prompt */
    double output;    /* tokens a request generates */
    double bytes_per_second;
    double flops_per_second;
};

static double replica_step(const struct replica_model *m, double batch, bool *compute_bound)
{
    return sizing_decode_step_seconds(m->weights_bytes + batch * m->kv_bytes, batch * m->flops,
                                      m->bytes_per_second, m->flops_per_second, compute_bound);
}

/* Tokens a second each of `batch` requests gets: over the time each
 * request of the batch takes, O decode steps and the batch's `batch`
 * prefills, which stop decoding while they run. */
static double request_rate(const struct replica_model *m, double batch)
{
    return m->output / (m->output * replica_step(m, batch, NULL) + batch * m->prefill_s);
}

/* The largest batch whose requests each get `floor` tokens a second: both
 * branches of the step are linear in the batch. */
static double batch_at_floor(const struct replica_model *m, double floor)
{
    double budget = m->output / floor;
    double alpha = m->weights_bytes / m->bytes_per_second;
    double beta = m->kv_bytes / m->bytes_per_second, gamma = m->flops / m->flops_per_second;
    double memory = (budget - m->output * alpha) / (m->output * beta + m->prefill_s);
    double compute = budget / (m->output * gamma + m->prefill_s);
    return memory < compute ? memory : compute;
}

static int32_t whole_batch(double batch)
{
    double whole = floor(batch + SIZING_EPSILON);
    return whole >= SIZING_MAX_CONCURRENT_REQUESTS ? SIZING_MAX_CONCURRENT_REQUESTS
                                                   : (int32_t)whole;
}

/* The fewest requests per replica with which `replicas` replicas reach
 * `target` tokens a second; the rate grows with the batch. */
static int32_t batch_for_target(const struct replica_model *m, double replicas, double target,
                                int32_t max_batch)
{
    int32_t low = 1, high = max_batch;
    while (low < high) {
        int32_t middle = low + (high - low) / 2;
        if (replicas * middle * request_rate(m, middle) >= target * (1.0 - SIZING_EPSILON))
            high = middle;
        else
            low = middle + 1;
    }
    return low;
}

/* Replicas and requests per replica for the estimate's concurrency or
 * target (one request when neither is given). */
static void choose_replicas(const struct sizing_estimate *e, const struct replica_model *m,
                            struct sizing_serving *out)
{
    int32_t max_batch = out->max_batch;
    if (e->concurrent_requests > 0) {
        out->replicas = ceil((double)e->concurrent_requests / max_batch);
        out->batch = (int32_t)ceil(e->concurrent_requests / out->replicas);
        return;
    }
    double best = max_batch * request_rate(m, max_batch);
    out->replicas = ceil(e->tokens_per_second / best - SIZING_EPSILON);
    if (out->replicas < 1.0)
        out->replicas = 1.0;
    out->batch = batch_for_target(m, out->replicas, e->tokens_per_second, max_batch);
}

static void describe_batch(const struct sizing_estimate *e, const struct replica_model *m,
                           double reserve, struct sizing_serving *out)
{
    out->step_seconds = replica_step(m, out->batch, &out->compute_bound);
    out->tokens_per_second_per_request = request_rate(m, out->batch);
    out->replica_tokens_per_second = out->batch * out->tokens_per_second_per_request;
    out->tokens_per_second = e->concurrent_requests > 0
                                 ? e->concurrent_requests * out->tokens_per_second_per_request
                                 : out->replicas * out->replica_tokens_per_second;
    out->kv_gb = out->batch * e->kv_gb_per_request;
    out->memory_gb = (e->weights_gb + out->kv_gb) / (1.0 - reserve);
}

void sizing_serve(const struct sizing_estimate *e, const struct sku *sku,
                  struct sizing_serving *out)
{
    memset(out, 0, sizeof *out);
    out->limit = SIZING_NO_BANDWIDTH;
    if (e->task != SIZING_TASK_INFERENCE)
        return;
    double reserve = e->assumptions[SIZING_MEMORY_RESERVE];
    double cards = sku->gpu_count * card_efficiency(e, sku);
    double usable = sku_total_memory_gb(sku) * (1.0 - reserve) * BYTES_PER_GB;
    double weights = e->weights_gb * BYTES_PER_GB, held = e->kv_gb_per_request * BYTES_PER_GB;
    double room = usable - weights;
    if (!(room >= held * (1.0 - SIZING_EPSILON))) {
        out->limit = SIZING_NO_MEMORY;
        double tokens = room > 0.0 ? floor(room / e->kv_bytes_per_token) : 0.0;
        out->max_context_tokens =
            tokens >= SIZING_MAX_CONTEXT_TOKENS ? SIZING_MAX_CONTEXT_TOKENS : (int32_t)tokens;
        return;
    }
    out->max_batch_memory = whole_batch(room / held);
    struct replica_model m = {
        .bytes_per_second = cards * sku->gpu->memory_bandwidth_gbps * BYTES_PER_GB *
                            e->assumptions[SIZING_DECODE_BANDWIDTH_EFFICIENCY],
        .flops_per_second =
            cards * sizing_peak_tflops(e, sku->gpu) * TERA * e->assumptions[SIZING_MFU],
        .output = e->output_tokens,
    };
    if (!(m.bytes_per_second > 0.0) || !(m.flops_per_second > 0.0))
        return; /* SIZING_NO_BANDWIDTH */
    m.weights_bytes = weights;
    m.kv_bytes = e->kv_read_gb_per_request * BYTES_PER_GB;
    m.flops = e->decode_flops_per_token;
    m.prefill_s = e->prefill_flops / m.flops_per_second;
    out->prefill_seconds = m.prefill_s;
    out->best_tokens_per_second_per_request = request_rate(&m, 1.0);
    double speed = batch_at_floor(&m, e->per_request_floor);
    if (!(speed >= 1.0 - SIZING_EPSILON)) {
        out->limit = SIZING_TOO_SLOW;
        return;
    }
    out->limit = SIZING_SERVES;
    out->max_batch = whole_batch(speed);
    if (out->max_batch > out->max_batch_memory)
        out->max_batch = out->max_batch_memory;
    choose_replicas(e, &m, out);
    describe_batch(e, &m, reserve, out);
}

int32_t sizing_replicas_needed(const struct sizing_estimate *estimate, const struct sku *sku)
{
    if (estimate->task != SIZING_TASK_INFERENCE)
        return 1;
    struct sizing_serving serving;
    sizing_serve(estimate, sku, &serving);
    if (serving.limit != SIZING_SERVES || !(serving.replicas < (double)INT32_MAX))
        return INT32_MAX;
    return serving.replicas < 1.0 ? 1 : (int32_t)serving.replicas;
}
