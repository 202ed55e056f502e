/*
 * Sizing: how much GPU memory a workload needs, how much compute a training
 * run takes, how long it runs on a given SKU and how many inference replicas
 * reach a tokens-per-second target.
 *
 * Pure arithmetic over plain structs: a workload (task, model size,
 * precision, training tokens, throughput target) and a set of assumptions
 * (MFU, scaling efficiencies, allowances), every one defaulted here and
 * overridable by the caller. A `double` holds gigabytes (10^9 bytes),
 * billions of parameters or tokens, FLOPs, hours and tokens per second —
 * never money. Every formula and constant is documented, with its source, in
 * docs/sizing.md; the comments below state the formula, the document says why.
 *
 * Memory is compared against ONE instance of a SKU (all its cards): training
 * state is sharded across the cards of one instance (ZeRO-3/FSDP style) and
 * inference weights split across them (tensor parallelism), never across
 * separate instances, which only add data-parallel workers or replicas.
 */
#ifndef GQ_CORE_SIZING_H
#define GQ_CORE_SIZING_H

#include <stdbool.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/error.h"

enum sizing_task {
    SIZING_TASK_LEARNING,  /* coursework, experiments: a rental, no compute estimate */
    SIZING_TASK_INFERENCE, /* serving a model */
    SIZING_TASK_LORA,      /* parameter-efficient fine-tuning */
    SIZING_TASK_FINETUNE,  /* full fine-tuning, mixed-precision AdamW */
    SIZING_TASK_PRETRAIN,  /* pre-training, same accounting as finetune */
    SIZING_TASK_COUNT
};

enum sizing_precision {
    SIZING_PRECISION_FP32,
    SIZING_PRECISION_BF16,
    SIZING_PRECISION_FP16,
    SIZING_PRECISION_INT8,
    SIZING_PRECISION_INT4,
    SIZING_PRECISION_COUNT
};

/* The overridable constants. Their ids (sizing_assumption_id) are the keys
 * of the request's "assumptions" object and of the estimate's echo. */
enum sizing_assumption {
    SIZING_MFU,                          /* model FLOPs utilisation per card */
    SIZING_MULTI_CARD_EFFICIENCY_NVLINK, /* scaling inside an NVLink instance */
    SIZING_MULTI_CARD_EFFICIENCY_PCIE,   /* scaling inside a PCIe instance */
    SIZING_MULTI_INSTANCE_EFFICIENCY,    /* extra factor across instances */
    SIZING_ACTIVATION_ALLOWANCE,         /* training: fraction of the model state */
    SIZING_KV_CACHE_ALLOWANCE,           /* inference: fraction of the weights */
    SIZING_LORA_TRAINABLE_FRACTION,      /* LoRA: trainable share of the parameters */
    SIZING_DECODE_BANDWIDTH_EFFICIENCY,  /* share of peak memory bandwidth in decode */
    SIZING_MAX_INSTANCES,                /* instances of one SKU considered, integer */
    SIZING_ASSUMPTION_COUNT
};

/* Largest accepted value of SIZING_MAX_INSTANCES. */
#define SIZING_MAX_INSTANCES_LIMIT 64

/* Assumptions as given by a caller: value[a] counts only where set[a]. */
struct sizing_assumptions {
    double value[SIZING_ASSUMPTION_COUNT];
    bool set[SIZING_ASSUMPTION_COUNT];
};

/* Largest accepted model size and token count, in billions: far above any
 * real workload, low enough that every product below stays finite. */
#define SIZING_MAX_PARAMS_B 100000.0
#define SIZING_MAX_TOKENS_B 10000000.0
#define SIZING_MAX_TOKENS_PER_SECOND 1000000000.0

struct sizing_workload {
    enum sizing_task task;
    double model_params_b; /* billions; 0 = the task's preset */
    enum sizing_precision precision;
    double tokens_b;          /* training tokens, billions; 0 = preset or none */
    double tokens_per_second; /* inference target; 0 = none */
};

/* The formula's inputs and outputs, for the response's "estimate". */
struct sizing_estimate {
    enum sizing_task task;
    enum sizing_precision precision;
    bool preset;                            /* model size taken from the task's preset */
    double params_b;                        /* parameters used, billions */
    double tokens_b;                        /* training tokens used; 0 = no compute estimate */
    double tokens_per_second;               /* inference target; 0 = none */
    double bytes_per_param;                 /* of the weights at `precision` */
    double trainable_params_b;              /* params with gradients and optimizer state */
    double state_bytes_per_trainable_param; /* 16 when training, else 0 */
    double weights_gb;                      /* params × bytes_per_param */
    double model_state_gb;                  /* weights (+ gradients and optimizer state) */
    double allowance_fraction;              /* activation or KV-cache allowance applied */
    double allowance_gb;                    /* model_state_gb × allowance_fraction */
    double memory_gb;                       /* needed in one instance: state + allowance */
    double flops_per_param_token;           /* 6 (full), 4 + 6 × fraction (LoRA); 0 = none */
    double flops;                           /* per_param_token × params × tokens; 0 = none */
    double decode_gb_per_token;             /* inference: bytes read per decoded token, GB */
    /* Every assumption used, defaults filled in, indexed by sizing_assumption. */
    double assumptions[SIZING_ASSUMPTION_COUNT];
};

/* Stable ids: "learning", "inference", "lora", "finetune", "pretrain". */
const char *sizing_task_id(enum sizing_task task);
/* Returns false when `text` names no task (NULL included). */
bool sizing_task_parse(const char *text, enum sizing_task *out);

/* "fp32", "bf16", "fp16", "int8", "int4". */
const char *sizing_precision_id(enum sizing_precision precision);
/* Returns false when `text` names no precision (NULL included). */
bool sizing_precision_parse(const char *text, enum sizing_precision *out);

/* "mfu", "multi_card_efficiency_nvlink", … (see sizing.c); "unknown" when
 * out of range. */
const char *sizing_assumption_id(enum sizing_assumption assumption);
/* Returns false when `text` names no assumption (NULL included). */
bool sizing_assumption_parse(const char *text, enum sizing_assumption *out);
/* The documented default of one assumption; NAN when out of range. */
double sizing_assumption_default(enum sizing_assumption assumption);

/* Bytes one parameter's weight takes at `precision` (4, 2, 2, 1, 0.5);
 * 0 when out of range. */
double sizing_bytes_per_param(enum sizing_precision precision);

/* True for the tasks that train (lora, finetune, pretrain) and so get a
 * compute estimate when they have tokens. */
bool sizing_task_trains(enum sizing_task task);

/* Fills every assumption of `out`: the caller's value where set (checked for
 * range), the default elsewhere. `given` may be NULL (all defaults). Returns
 * GQ_OK; GQ_ERR_INVALID_VALUE (a fraction for max_instances) or
 * GQ_ERR_OUT_OF_RANGE, with err->field "assumptions.<id>". */
enum gq_code sizing_assumptions_resolve(const struct sizing_assumptions *given,
                                        double out[SIZING_ASSUMPTION_COUNT], struct gq_error *err);

/* Validates `workload`, applies the task's preset where the model size is 0,
 * resolves the assumptions and computes memory and compute into `out`.
 * Returns GQ_OK; GQ_ERR_INVALID_VALUE (unknown enum, a field that does not
 * apply to the task, a precision full training cannot use, a fraction for
 * max_instances) or
 * GQ_ERR_OUT_OF_RANGE (a number outside its range, an assumption), with
 * err->field a JSON path ("workload.model_params_b", "assumptions.mfu").
 * `out` is unspecified on failure. */
enum gq_code sizing_estimate_workload(const struct sizing_workload *workload,
                                      const struct sizing_assumptions *assumptions,
                                      struct sizing_estimate *out, struct gq_error *err);

/* True when the estimate's memory fits one instance of `sku`
 * (gpu_count × memory per card). */
bool sizing_fits(const struct sizing_estimate *estimate, const struct sku *sku);

/* The scaling efficiency of `instances` instances of `sku` working as one:
 * 1 for a single card; the NVLink or PCIe figure inside a multi-card
 * instance; times the multi-instance factor when instances > 1. */
double sizing_scaling_efficiency(const struct sizing_estimate *estimate, const struct sku *sku,
                                 int32_t instances);

/* The precision training computes in: the workload's, except that LoRA's
 * int8 and int4 frozen weights are computed with in fp16. */
enum sizing_precision sizing_compute_precision(const struct sizing_estimate *estimate);

/* The per-card peak, in TFLOPS, training computes at on `gpu`: the FP16
 * tensor peak for fp16, the FP32 peak for fp32, the BF16 tensor peak for
 * bf16, or the FP32 peak on a GPU without BF16 tensor cores. */
double sizing_peak_tflops(const struct sizing_estimate *estimate, const struct gpu_model *gpu);

/* Wall-clock hours of the training run on `instances` instances of `sku`:
 * flops ÷ (cards × peak × MFU × efficiency) ÷ 3600, the peak at the
 * compute precision (sizing_peak_tflops). 0 when the estimate has
 * no compute (no tokens). `instances` >= 1. */
double sizing_training_hours(const struct sizing_estimate *estimate, const struct sku *sku,
                             int32_t instances);

/* Single-stream decode rate of one instance (one replica, weights split
 * across its cards): cards × bandwidth × decode efficiency × card scaling ÷
 * GB read per token. 0 when the estimate is not inference. */
double sizing_replica_tokens_per_second(const struct sizing_estimate *estimate,
                                        const struct sku *sku);

/* Instances (replicas) of `sku` needed to reach the target rate:
 * ⌈target ÷ replica rate⌉, at least 1; 1 without a target; INT32_MAX when
 * the SKU cannot decode at all (no bandwidth). */
int32_t sizing_replicas_needed(const struct sizing_estimate *estimate, const struct sku *sku);

#endif
