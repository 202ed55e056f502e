/*
 * Sizing: how much GPU memory a workload needs, how much compute a training
 * run takes, how long it runs on a given SKU, and how a SKU serves a model:
 * streams per replica, decode rate per stream and in all, time to first
 * token, replicas for a concurrency or a tokens-per-second target.
 *
 * Pure arithmetic over plain structs: a workload (task, model shape or size,
 * precision, training tokens and sequences, serving concurrency and
 * context) and a set of assumptions (MFU, scaling efficiencies, memory
 * reserve), every one defaulted here and overridable by the caller. A
 * `double` holds bytes, gigabytes (10^9 bytes), billions of parameters or
 * tokens, FLOPs, seconds, hours and tokens per second — never money. Every
 * formula and constant is documented, with its source, in docs/sizing.md;
 * the comments below state the formula, the document says why.
 *
 * A model is a transformer shape: a named one from the catalog (its
 * config.json's figures) or, from a parameter count alone, one derived by
 * a documented rule and reported as such (sizing_derive_shape()).
 *
 * Training memory is per GPU, by the strategy's own accounting
 * (sizing_strategy.c): DDP keeps the whole state on every card, ZeRO and
 * FSDP shard it over every card of every instance, tensor and pipeline
 * parallelism split it over the cards of one instance; a micro-batch's
 * activations stay whole on each card except under tensor (and sequence)
 * parallelism. A serving replica is one instance, its weights and KV cache
 * split across its cards (tensor parallelism); separate instances only add
 * replicas.
 */
#ifndef GQ_CORE_SIZING_H
#define GQ_CORE_SIZING_H

#include <stdbool.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/error.h"
#include "core/names.h"

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

/* The KV cache's element type; DEFAULT (not given) is fp16. */
enum sizing_kv_precision {
    SIZING_KV_DEFAULT,
    SIZING_KV_FP16,
    SIZING_KV_INT8,
    SIZING_KV_FP8, /* vLLM's quantised KV cache: compute capability 8.9 and up */
    SIZING_KV_PRECISION_COUNT
};

/* Activation checkpointing of a training run; DEFAULT (not given) is full. */
enum sizing_checkpointing {
    SIZING_CHECKPOINTING_DEFAULT,
    SIZING_CHECKPOINTING_NONE,      /* every activation kept for the backward pass */
    SIZING_CHECKPOINTING_SELECTIVE, /* the attention core recomputed (Korthikanti et al.) */
    SIZING_CHECKPOINTING_FULL,      /* each layer's input kept, the layer recomputed */
    SIZING_CHECKPOINTING_COUNT
};

/* How a training run spreads its state over the GPUs; AUTO (not given):
 * the first of DDP, ZeRO-1, ZeRO-2, FSDP, ZeRO-3, tensor and pipeline
 * parallelism that fits, per SKU and instance count. */
enum sizing_strategy {
    SIZING_STRATEGY_AUTO,
    SIZING_STRATEGY_DDP,
    SIZING_STRATEGY_ZERO1,
    SIZING_STRATEGY_ZERO2,
    SIZING_STRATEGY_ZERO3,
    SIZING_STRATEGY_FSDP,
    SIZING_STRATEGY_TENSOR_PARALLEL,
    SIZING_STRATEGY_PIPELINE_PARALLEL,
    SIZING_STRATEGY_COUNT
};

/* What a ZeRO or FSDP run keeps in host memory instead of on the GPUs. */
enum sizing_offload {
    SIZING_OFFLOAD_NONE,
    SIZING_OFFLOAD_OPTIMIZER,  /* optimizer state (and its step) on the CPU */
    SIZING_OFFLOAD_PARAMETERS, /* parameters too: ZeRO-3 and FSDP only */
    SIZING_OFFLOAD_COUNT
};

/* How int8 and int4 weights are stored; DEFAULT (not given): GPTQ when
 * serving, bitsandbytes (QLoRA) when training LoRA, and said in the answer. */
enum sizing_quant_method {
    SIZING_QUANT_DEFAULT,
    SIZING_QUANT_GPTQ,              /* fp16 scale + packed zero per group per column */
    SIZING_QUANT_AWQ,               /* the same layout, 4-bit only */
    SIZING_QUANT_BITSANDBYTES_NF4,  /* fp32 absmax per block of 64 */
    SIZING_QUANT_BITSANDBYTES_INT8, /* LLM.int8(): fp32 scale per output row */
    SIZING_QUANT_W8A8,              /* int8 weights and activations, fp32 scale per row */
    SIZING_QUANT_METHOD_COUNT
};

/* The modules left in 16 bits, a set of these bits. */
#define SIZING_MODULE_EMBEDDINGS 1
#define SIZING_MODULE_OUTPUT 2
/* Default group of GPTQ and AWQ; -1 in a request is one group per column. */
#define SIZING_DEFAULT_GROUP_SIZE 128
#define SIZING_MAX_GROUP_SIZE 65536

/* The request's `workload.quantization`; every figure 0 = not given. */
struct sizing_quantization {
    enum sizing_quant_method method;
    int32_t bits;                  /* 4 or 8; 0 = the precision's */
    int32_t group_size;            /* GPTQ/AWQ only; -1 = per column; 0 = 128 */
    bool modules_given;            /* else embeddings and output stay 16-bit */
    int32_t modules_not_quantized; /* SIZING_MODULE_* bits */
};

/* The overridable constants. Their ids (sizing_assumption_id) are the keys
 * of the request's "assumptions" object and of the estimate's echo. */
enum sizing_assumption {
    SIZING_MFU,                          /* share of peak FLOPs in matmul-bound work */
    SIZING_MULTI_CARD_EFFICIENCY_NVLINK, /* scaling inside an NVLink instance */
    SIZING_MULTI_CARD_EFFICIENCY_PCIE,   /* scaling inside a PCIe instance */
    SIZING_MULTI_INSTANCE_EFFICIENCY,    /* deprecated: a flat figure between instances
                                            in place of the network's; NAN unless given */
    SIZING_NETWORK_BANDWIDTH_GBIT_S,     /* between instances where a host has no figure */
    SIZING_NVLINK_BANDWIDTH_GB_S,        /* a ring step over NVLink, one direction */
    SIZING_PCIE_BANDWIDTH_GB_S,          /* a ring step over PCIe, one direction */
    SIZING_ALL_REDUCE_HOP_LATENCY_US,    /* α: the latency of one ring step */
    SIZING_MEMORY_RESERVE,               /* share of an instance's memory kept free */
    SIZING_LORA_TRAINABLE_FRACTION,      /* LoRA without a rank: trainable share */
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

/* Largest accepted model size and token count, in billions, and the other
 * workload figures: far above any real workload, low enough that every
 * product below stays finite. */
#define SIZING_MAX_PARAMS_B 100000.0
#define SIZING_MAX_TOKENS_B 10000000.0
#define SIZING_MAX_TOKENS_PER_SECOND 1000000000.0
#define SIZING_MAX_CONCURRENT_REQUESTS 1000000
#define SIZING_MAX_CONTEXT_TOKENS 1048576
#define SIZING_MAX_TOKENS_PER_SECOND_PER_REQUEST 100000.0
#define SIZING_MAX_MICRO_BATCH_SIZE 4096
#define SIZING_MAX_LORA_RANK 4096
#define SIZING_MAX_GLOBAL_BATCH_TOKENS 1073741824

/* Defaults of the workload figures not given (docs/sizing.md says why). */
#define SIZING_DEFAULT_CONTEXT_TOKENS 4096
#define SIZING_DEFAULT_MIN_TOKENS_PER_SECOND_PER_REQUEST 10.0
#define SIZING_DEFAULT_SEQUENCE_LENGTH 2048
#define SIZING_DEFAULT_MICRO_BATCH_SIZE 1
/* Tokens per optimizer step over all GPUs: fine-tuning (Llama 2's SFT, 64
 * sequences of 4096) and pre-training (Llama 2's 4M). */
#define SIZING_DEFAULT_GLOBAL_BATCH_TOKENS 262144
#define SIZING_DEFAULT_PRETRAIN_GLOBAL_BATCH_TOKENS 4194304

/* A model given as its config.json's own figures (`workload.model.config`):
 * a decoder with grouped-query attention and a gated MLP, dense or a
 * mixture of experts. `shape` holds the figures (id NULL, name
 * "config.json", params unused: sizing_model_config_params() counts them);
 * experts 0 or 1 is dense. */
#define SIZING_MAX_EXPERTS 4096
struct sizing_model_config {
    struct model_shape shape;
    int32_t experts;           /* num_local_experts / num_experts */
    int32_t experts_per_token; /* num_experts_per_tok */
    bool tie_word_embeddings;  /* the output layer shares the embedding table */
};

/* A workload as asked. Every figure 0 (an enum's DEFAULT) means "not given":
 * the default applies, and a figure given for a task it does not apply to
 * is refused. */
struct sizing_workload {
    enum sizing_task task;
    double model_params_b; /* billions; 0 = the model's count, or the task's preset */
    enum sizing_precision precision;
    double tokens_b;          /* training tokens, billions; 0 = preset or none */
    double tokens_per_second; /* inference: the target over all replicas; 0 = none */
    const char *model;        /* a model shape's id in the catalog; NULL = none */
    /* Serving (inference). */
    int32_t concurrent_requests; /* streams served at once */
    int32_t context_tokens;      /* prompt + output of one request */
    int32_t prompt_tokens;       /* default: half the context */
    double min_tokens_per_second_per_request;
    enum sizing_kv_precision kv_precision;
    /* Training memory (learning, lora, finetune, pretrain). */
    int32_t sequence_length;
    int32_t micro_batch_size; /* sequences per step in one instance */
    enum sizing_checkpointing checkpointing;
    int32_t lora_rank;                       /* lora: adapters of this rank on every linear layer */
    struct sizing_quantization quantization; /* int8 and int4 weights */
    int32_t global_batch_tokens;             /* training: tokens per optimizer step, all GPUs */
    enum sizing_strategy strategy;           /* training memory: AUTO = the first that fits */
    enum sizing_offload offload;
    bool model_config_given; /* the model is model_config, not `model` */
    struct sizing_model_config model_config;
};

/* The transformer a workload runs: a catalog shape, or one derived from the
 * parameter count (model, name and source NULL). */
struct sizing_shape {
    const char *model;  /* the catalog's id; NULL when derived */
    const char *name;   /* "Llama-2 7B"; NULL when derived */
    const char *source; /* its config.json; NULL when derived */
    int32_t layers;
    int32_t hidden;
    int32_t heads;
    int32_t kv_heads;
    int32_t head_dim; /* hidden ÷ heads */
    int32_t intermediate;
    int32_t vocab;
    int32_t sliding_window; /* 0 = the whole context */
    int32_t experts;        /* MLPs per layer: 0 or 1 dense, more a mixture of experts */
    int32_t experts_per_token;
    bool tied_embeddings; /* a config's tie_word_embeddings */
};

/* The formula's inputs and outputs, for the response's "estimate". */
struct sizing_estimate {
    enum sizing_task task;
    enum sizing_precision precision;
    bool preset;                            /* model size taken from the task's preset */
    double params_b;                        /* parameters used, billions */
    double active_params_b;                 /* per token (FLOPs): params_b unless MoE */
    double tokens_b;                        /* training tokens used; 0 = no compute estimate */
    double tokens_per_second;               /* inference target; 0 = none */
    double bytes_per_param;                 /* of the weights at `precision` */
    double trainable_params_b;              /* params with gradients and optimizer state */
    double state_bytes_per_trainable_param; /* 16 when training, else 0 */
    double weights_gb;                      /* params × bytes_per_param */
    double model_state_gb;                  /* weights (+ gradients and optimizer state) */
    double working_gb;                /* activations of a micro-batch, or one request's KV cache */
    double allowance_fraction;        /* the memory reserve: share of the instance kept free */
    double allowance_gb;              /* memory_gb − model_state_gb − working_gb */
    double memory_gb;                 /* the least one instance needs, reserve included */
    double flops_per_param_token;     /* 6 (8 with full recomputation), 4 + 6 × fraction (LoRA) */
    double attention_flops_per_token; /* training: 12·L·h·s, + 4·L·h·s recomputed */
    double flops;                     /* tokens × (per_param_token × params + attention) */
    double decode_gb_per_token;       /* inference: weights read per decode step, GB */

    struct sizing_shape shape;
    bool shape_derived;              /* from the parameter count, not the catalog */
    bool shape_from_config;          /* from the request's config.json figures */
    int32_t max_position_embeddings; /* the shape's; 0 = not known */

    /* Serving (inference only; 0 elsewhere). */
    int32_t concurrent_requests; /* 0: as many as tokens_per_second needs */
    int32_t context_tokens;
    int32_t prompt_tokens;
    int32_t output_tokens;         /* context − prompt */
    int32_t kv_tokens_per_request; /* held: the context, or the window if smaller */
    double min_tokens_per_second_per_request;
    double per_request_floor;              /* max(the minimum, target ÷ concurrent requests) */
    enum sizing_kv_precision kv_precision; /* resolved: FP16 or INT8 */
    double kv_bytes_per_token;             /* 2 × layers × kv_heads × head_dim × bytes */
    double kv_gb_per_request;              /* held at the end of a request */
    double kv_gb;                          /* all concurrent requests (at least one) */
    double kv_read_gb_per_request;         /* per decode step, averaged over the output */
    double prefill_flops;                  /* one prompt */
    double decode_flops_per_token;         /* averaged over the output */

    /* Training memory (learning, lora, finetune, pretrain; 0 elsewhere). */
    int32_t sequence_length;
    int32_t micro_batch_size;
    enum sizing_checkpointing checkpointing; /* resolved */
    double activation_gb;                    /* = working_gb */
    int32_t lora_rank;                       /* 0: lora_trainable_fraction */
    int32_t global_batch_tokens;             /* training tasks: resolved; else 0 */
    bool network_bandwidth_given;            /* the assumption replaces every host's figure */
    enum sizing_strategy strategy;           /* as asked: AUTO is resolved per configuration */
    enum sizing_offload offload;
    double largest_layer_params; /* the largest module ZeRO-3/FSDP gathers whole */

    /* Quantised weights (int8, int4; method DEFAULT elsewhere). */
    enum sizing_quant_method quant_method; /* resolved */
    bool quant_method_defaulted;           /* chosen from the precision, not asked */
    int32_t quant_bits;
    int32_t quant_group_size;      /* weights per scale; -1 per column */
    int32_t quant_modules_kept;    /* SIZING_MODULE_* left in 16 bits */
    double quantized_params_b;     /* the linear layers (and modules not kept) */
    double quant_bytes_per_weight; /* of a quantised weight, scales included */

    /* Every assumption used, defaults filled in, indexed by sizing_assumption. */
    double assumptions[SIZING_ASSUMPTION_COUNT];
};

/* How one instance of a SKU serves an inference estimate, and how many
 * replicas the concurrency or target takes. */
enum sizing_serving_limit {
    SIZING_SERVES,      /* at least one stream at the per-request floor */
    SIZING_NO_MEMORY,   /* the weights and one request's KV cache do not fit */
    SIZING_TOO_SLOW,    /* even one stream decodes slower than the floor */
    SIZING_NO_BANDWIDTH /* the GPU has no bandwidth or peak figure to decode with */
};

struct sizing_serving {
    enum sizing_serving_limit limit;
    int32_t max_batch_memory;   /* requests one replica holds (capped at the request limit) */
    int32_t max_batch;          /* … and serves at the floor; 0 unless SIZING_SERVES */
    int32_t max_context_tokens; /* NO_MEMORY: the longest context one request fits; 0: none */
    double replicas;            /* needed, uncapped; 0 unless SIZING_SERVES */
    int32_t batch;              /* requests per replica */
    double step_seconds;        /* one decode step at `batch` */
    bool compute_bound;         /* the step is bound by FLOPs, not by memory bandwidth */
    double prefill_seconds;     /* one prompt: the time to first token */
    double tokens_per_second_per_request;      /* at `batch`, prefills included */
    double best_tokens_per_second_per_request; /* at batch 1 */
    double replica_tokens_per_second;          /* one replica at `batch` */
    double tokens_per_second;                  /* replicas × replica rate */
    double kv_gb;                              /* one replica at `batch` */
    double memory_gb;                          /* one replica at `batch`, reserve included */
};

/* The links a ring all-reduce crosses; its slowest sets its bandwidth. */
enum sizing_link {
    SIZING_LINK_NONE,    /* one GPU: nothing to all-reduce */
    SIZING_LINK_NVLINK,  /* inside one NVLink instance */
    SIZING_LINK_PCIE,    /* inside one PCIe instance */
    SIZING_LINK_NETWORK, /* between instances: the hosts' Ethernet */
};

/* How a training step scales over `gpus` data-parallel GPUs (DDP): the
 * gradients' ring all-reduce against the step's compute, the backward pass
 * of the last micro-batch overlapping it (docs/sizing.md, "Scaling"). */
struct sizing_scaling {
    double efficiency;            /* compute ÷ (compute + exposed communication) */
    int32_t gpus;                 /* instances × cards */
    enum sizing_link link;        /* the slowest link of the ring */
    bool bandwidth_from_host;     /* network: the SKU's host figure, not the assumption */
    bool efficiency_assumed;      /* the caller's multi_instance_efficiency between instances */
    double bandwidth_gb_per_s;    /* of that link, one direction, 10^9 bytes/s */
    double gradient_bytes;        /* trainable params × bytes per gradient */
    double traffic_factor;        /* the strategy's bytes ÷ DDP's: 1.5 for ZeRO-3/FSDP */
    double bytes_per_step;        /* each GPU sends 2(N−1)/N × gradient_bytes */
    int32_t buckets;              /* all-reduces per step (DDP buckets of 25 MiB) */
    double latency_seconds;       /* buckets × 2(N−1) steps × α */
    double communication_seconds; /* bytes_per_step ÷ bandwidth + latency */
    double overlap_seconds;       /* the last micro-batch's backward, hiding communication */
    double compute_seconds;       /* one GPU's share of the step */
    double tokens_per_gpu;        /* per step: global batch ÷ GPUs, at least a micro-batch */
};

/* Where one configuration (SKU × instances) keeps a training run's state:
 * the strategy (resolved, never AUTO) and what one GPU holds. */
struct sizing_placement {
    enum sizing_strategy strategy;
    int32_t gpus;          /* GPUs the model state is divided over */
    double model_state_gb; /* per GPU */
    double activation_gb;  /* per GPU: one micro-batch (÷ cards under tensor parallelism) */
    double memory_gb;      /* per GPU, reserve included */
    double host_gb;        /* offload: host memory one instance needs; else 0 */
    bool host_known;       /* the SKU's host memory is known (else host_gb is not checked) */
    bool fits;             /* memory_gb on one card, host_gb in one host */
};

/* Stable ids: "learning", "inference", "lora", "finetune", "pretrain". */
const char *sizing_task_id(enum sizing_task task);
/* The names a request may write for a task. */
extern const struct names_table sizing_task_names;

/* "fp32", "bf16", "fp16", "int8", "int4". */
const char *sizing_precision_id(enum sizing_precision precision);
/* The names a request may write for a precision. */
extern const struct names_table sizing_precision_names;

/* "gptq", "awq", "bitsandbytes_nf4", "bitsandbytes_int8", "w8a8"; "default"
 * for DEFAULT. */
const char *sizing_quant_method_id(enum sizing_quant_method method);
/* The names a request may write for a method; never DEFAULT. */
extern const struct names_table sizing_quant_method_names;

/* Bytes one quantised weight takes, its share of the scales and zeros
 * included (docs/sizing.md, "Quantised weights"): GPTQ/AWQ bits/8 +
 * (2 + bits/8) ÷ group (an fp16 scale and a packed zero per group of a
 * column; group -1 is the whole column of `in_features`); bitsandbytes nf4
 * 0.5 + 4/64; bitsandbytes int8 and W8A8 1 + 4 ÷ in_features. */
double sizing_quant_bytes_per_weight(enum sizing_quant_method method, int32_t bits,
                                     int32_t group_size, double in_features);

/* Parameters of the linear layers of `shape` (what quantisation packs):
 * layers × (2·h² + 2·h·kv_heads·head_dim + experts × 3·h·intermediate),
 * experts 1 for a dense model. */
double sizing_linear_params(const struct sizing_shape *shape);

/* "auto", "ddp", "zero1", "zero2", "zero3", "fsdp", "tensor_parallel",
 * "pipeline_parallel". */
const char *sizing_strategy_id(enum sizing_strategy strategy);
/* The names a request may write for a strategy. */
extern const struct names_table sizing_strategy_names;

/* "none", "optimizer", "parameters". */
const char *sizing_offload_id(enum sizing_offload offload);
/* The names a request may write for an offload. */
extern const struct names_table sizing_offload_names;

/* Returns false when `strategy` (not AUTO) cannot keep `offload` on the host:
 * DDP, tensor and pipeline parallelism offload nothing, only ZeRO-3 and
 * FSDP offload parameters, FSDP offloads parameters or nothing. */
bool sizing_strategy_offloads(enum sizing_strategy strategy, enum sizing_offload offload);

/* Bytes of model state one GPU holds under `strategy` over `gpus` GPUs
 * (docs/sizing.md, "Strategies"): `frozen_bytes` of weights that do not
 * train, `trainable` parameters at 16 bytes of mixed-precision AdamW state,
 * `largest_layer` the parameters ZeRO-3/FSDP gather whole. With frozen 0
 * and trainable Ψ these are DeepSpeed's estimators: ZeRO-2 4Ψ + 16Ψ/N
 * (offloaded 2Ψ), ZeRO-3 4·largest + 18Ψ/N (optimizer offloaded
 * 4·largest + 2Ψ/N, parameters offloaded 4·largest); ZeRO-1 4Ψ + 12Ψ/N
 * (the ZeRO paper), DDP 16Ψ, FSDP 4·largest + 16Ψ/N, tensor and pipeline
 * parallelism 16Ψ/N. `strategy` is not AUTO; `gpus` >= 1. */
double sizing_strategy_state_bytes(enum sizing_strategy strategy, enum sizing_offload offload,
                                   double frozen_bytes, double trainable, double largest_layer,
                                   int32_t gpus);

/* Host memory one node needs to hold what `offload` moves off the GPUs,
 * by DeepSpeed's estimators (zero_init, buffer factor 1.5) over `params`
 * parameters: ZeRO-1/2 params × max(4 × all GPUs, 16) × 1.5, ZeRO-3 and
 * FSDP params × 16 (optimizer) or 18 (parameters) ÷ nodes × 1.5; 0 for
 * SIZING_OFFLOAD_NONE. */
double sizing_offload_host_bytes(enum sizing_strategy strategy, enum sizing_offload offload,
                                 double params, int32_t gpus_per_node, int32_t nodes);

/* Where `instances` instances of `sku` keep the estimate: for a workload
 * that holds activations, the estimate's strategy (AUTO: the first that
 * fits, else the one that needs least) and its per-GPU memory; for
 * serving, tensor parallelism over one instance's cards. Returns out->fits. */
bool sizing_place(const struct sizing_estimate *estimate, const struct sku *sku, int32_t instances,
                  struct sizing_placement *out);

/* "fp16" (DEFAULT too), "int8". */
const char *sizing_kv_precision_id(enum sizing_kv_precision precision);
/* The names a request may write for a KV precision; never DEFAULT. */
extern const struct names_table sizing_kv_precision_names;

/* "none", "selective", "full" (DEFAULT too). */
const char *sizing_checkpointing_id(enum sizing_checkpointing checkpointing);
/* The names a request may write for checkpointing; never DEFAULT. */
extern const struct names_table sizing_checkpointing_names;

/* "mfu", "multi_card_efficiency_nvlink", … (see sizing.c); "unknown" when
 * out of range. */
const char *sizing_assumption_id(enum sizing_assumption assumption);
/* Returns false when `text` names no assumption (NULL included). */
bool sizing_assumption_parse(const char *text, enum sizing_assumption *out);
/* The documented default of one assumption; NAN when it has none (computed
 * unless given) or is out of range. */
double sizing_assumption_default(enum sizing_assumption assumption);

/* Bytes one parameter's weight takes at `precision` (4, 2, 2, 1, 0.5);
 * 0 when out of range. */
double sizing_bytes_per_param(enum sizing_precision precision);

/* True for the tasks that train (lora, finetune, pretrain) and so get a
 * compute estimate when they have tokens. */
bool sizing_task_trains(enum sizing_task task);

/* True for the tasks whose memory holds training state and activations
 * (learning, lora, finetune, pretrain). */
bool sizing_task_holds_activations(enum sizing_task task);

/* Fills every assumption of `out`: the caller's value where set (checked for
 * range), the default elsewhere. `given` may be NULL (all defaults). Returns
 * GQ_OK; GQ_ERR_INVALID_VALUE (a fraction for max_instances) or
 * GQ_ERR_OUT_OF_RANGE, with err->field "assumptions.<id>". */
enum gq_code sizing_assumptions_resolve(const struct sizing_assumptions *given,
                                        double out[SIZING_ASSUMPTION_COUNT], struct gq_error *err);

/* The shape the rule of docs/sizing.md derives from a parameter count
 * alone: layers L = round(∛(params ÷ (12 × 128²))), at least 1; hidden
 * 128 × L; L heads of 128, as many key/value heads (no grouped-query
 * attention: the KV cache's upper bound); a gated MLP of 8/3 × hidden;
 * vocabulary 32000; no sliding window. `params_b` > 0. */
void sizing_derive_shape(double params_b, struct sizing_shape *out);

/* The shape of a catalog entry, with its head_dim. */
void sizing_shape_of(const struct model_shape *model, struct sizing_shape *out);

/* Parameters of a decoder of `shape` with untied embeddings, a gated MLP,
 * two norms per layer and no biases (the Llama architecture): embeddings
 * and output 2·V·h, per layer 2·h² + 2·h·kv_heads·head_dim (attention) +
 * 3·h·intermediate (MLP) + 2·h (norms), a final norm h. */
double sizing_shape_param_count(const struct sizing_shape *shape);

/* Parameters of a model given as its config (docs/sizing.md, "Models as
 * their configs"), into *total (held in memory) and *active (run per
 * token): embeddings V·h, the output layer V·h unless tied, a final norm
 * h, and per layer attention 2·h² + 2·h·kv_heads·head_dim, two norms 2·h,
 * and E experts' gated MLPs of 3·h·intermediate each (with a router of
 * E·h when E > 1), of which experts_per_token run per token. The config
 * passed sizing_model_config_check(). */
void sizing_model_config_params(const struct sizing_model_config *config, double *total,
                                double *active);

/* Checks what a config's fields must agree on: every dimension in range
 * (out_of_range), heads dividing hidden_size and key/value heads dividing
 * heads, experts per token from 1 to the experts, a parameter count at
 * most SIZING_MAX_PARAMS_B (invalid_value or out_of_range). Returns GQ_OK,
 * or the error with err->field "workload.model.config.<key>". */
enum gq_code sizing_model_config_check(const struct sizing_model_config *config,
                                       struct gq_error *err);

/* Bytes of KV cache one token takes: 2 (K and V) × layers × kv_heads ×
 * head_dim × bytes per element. */
double sizing_kv_bytes_per_token(const struct sizing_shape *shape, double bytes_per_element);

/* Parameters LoRA adapters of rank `rank` add on every linear layer (query,
 * key, value, output, gate, up, down): rank × layers × (9·h + 2·kv_heads·head_dim
 * + 3·intermediate). */
double sizing_lora_params(const struct sizing_shape *shape, int32_t rank);

/* Activation bytes one transformer layer keeps for the backward pass at
 * sequence length s, micro-batch b, hidden h and a heads, 16-bit
 * activations (Korthikanti et al. 2022, Table 2, no parallelism):
 * s·b·h·(34 + 5·a·s/h) without recomputation, 34·s·b·h with selective
 * recomputation, 2·s·b·h (the layer's input) with full recomputation. */
double sizing_layer_activation_bytes(double s, double b, double h, double a,
                                     enum sizing_checkpointing checkpointing);

/* The activations of one micro-batch of a training run, in bytes: every
 * layer's sizing_layer_activation_bytes, plus, with recomputation, what the
 * layer being recomputed holds at once (all of a layer's activations for
 * full, the attention core's 5·a·s²·b for selective). */
double sizing_activation_bytes(const struct sizing_shape *shape, double s, double b,
                               enum sizing_checkpointing checkpointing);

/* One decode step: the larger of bytes_read ÷ bytes_per_second (the
 * weights and KV cache read once per step) and flops ÷ flops_per_second;
 * *compute_bound (may be NULL) says which. INFINITY when a rate is not
 * positive. */
double sizing_decode_step_seconds(double bytes_read, double flops, double bytes_per_second,
                                  double flops_per_second, bool *compute_bound);

/* Validates `workload`, resolves its model in `catalog` (which may be NULL
 * when workload->model is), applies the task's preset and the defaults,
 * resolves the assumptions and computes memory and compute into `out`.
 * Returns GQ_OK; GQ_ERR_INVALID_VALUE (unknown enum or model, a field that
 * does not apply to the task, a precision full training cannot use, a
 * fraction for max_instances, both a model and a size) or
 * GQ_ERR_OUT_OF_RANGE (a number outside its range, an assumption), with
 * err->field a JSON path ("workload.model_params_b", "assumptions.mfu").
 * `out` is unspecified on failure; its shape strings borrow from
 * `catalog`. */
enum gq_code sizing_estimate_workload(const struct sizing_workload *workload,
                                      const struct catalog *catalog,
                                      const struct sizing_assumptions *assumptions,
                                      struct sizing_estimate *out, struct gq_error *err);

/* True when the estimate fits one instance of `sku`: sizing_place()'s
 * per-GPU need on one card (training), or the weights and one request's
 * KV cache across the instance's cards (inference). */
bool sizing_fits(const struct sizing_estimate *estimate, const struct sku *sku);

/* "none", "nvlink", "pcie", "network". */
const char *sizing_link_id(enum sizing_link link);

/* How a training step of the estimate scales over `instances` instances of
 * `sku`: a ring all-reduce of the gradients over all their cards. `out` is
 * zeroed first; efficiency 1 for one card or an estimate without compute. */
void sizing_scale(const struct sizing_estimate *estimate, const struct sku *sku, int32_t instances,
                  struct sizing_scaling *out);

/* sizing_scale() under `strategy`: ZeRO-3 and FSDP all-gather the
 * parameters in the backward pass as well, 1.5 × DDP's bytes. */
void sizing_scale_as(const struct sizing_estimate *estimate, enum sizing_strategy strategy,
                     const struct sku *sku, int32_t instances, struct sizing_scaling *out);

/* The scaling efficiency of `instances` instances of `sku` working as one:
 * training, sizing_scale()'s; serving (tensor parallelism inside one
 * replica), the NVLink or PCIe figure of a multi-card instance, else 1. */
double sizing_scaling_efficiency(const struct sizing_estimate *estimate, const struct sku *sku,
                                 int32_t instances);

/* The precision the matmuls run in: the workload's, except that int8 and
 * int4 weights are dequantised to fp16 for each matmul. */
enum sizing_precision sizing_compute_precision(const struct sizing_estimate *estimate);

/* The per-card peak, in TFLOPS, the matmuls run at on `gpu` in
 * sizing_precision_on(): the FP16 tensor peak for fp16, the FP32 peak for
 * fp32, the BF16 tensor peak for bf16 (the FP32 peak if it has none). */
double sizing_peak_tflops(const struct sizing_estimate *estimate, const struct gpu_model *gpu);

/* True when a training estimate asks for bf16 and `gpu` does not run it
 * (gpu_model_supports()), so it runs at the FP32 peak. */
bool sizing_bf16_without_tensor_cores(const struct sizing_estimate *estimate,
                                      const struct gpu_model *gpu);

/* True when an inference estimate asks for bf16 and `gpu` does not run it:
 * vLLM refuses bf16 there, so the model is served as fp16 (same bytes, the
 * FP16 peak). */
bool sizing_bf16_served_as_fp16(const struct sizing_estimate *estimate,
                                const struct gpu_model *gpu);

/* The precision the matmuls run in on `gpu`: sizing_compute_precision(),
 * except bf16 where `gpu` lacks it: fp32 for training, fp16 for serving. */
enum sizing_precision sizing_precision_on(const struct sizing_estimate *estimate,
                                          const struct gpu_model *gpu);

/* True when the estimate needs a feature `gpu` lacks, which is then
 * *missing: the kernel of its quantisation method (int8 and int4 weights)
 * or an FP8 KV cache. bf16 is never missing: it falls back (above). */
bool sizing_gpu_lacks_feature(const struct sizing_estimate *estimate, const struct gpu_model *gpu,
                              enum gpu_feature *missing);

/* Wall-clock hours of the training run on `instances` instances of `sku`:
 * flops ÷ (cards × peak × MFU × efficiency) ÷ 3600, the peak at the
 * compute precision (sizing_peak_tflops). 0 when the estimate has
 * no compute (no tokens). `instances` >= 1. */
double sizing_training_hours(const struct sizing_estimate *estimate, const struct sku *sku,
                             int32_t instances);

/* sizing_training_hours() under `strategy` (sizing_scale_as()). */
double sizing_training_hours_as(const struct sizing_estimate *estimate,
                                enum sizing_strategy strategy, const struct sku *sku,
                                int32_t instances);

/* How one instance of `sku` (one replica, tensor-parallel across its cards)
 * serves the inference estimate, and the replicas it takes (docs/sizing.md,
 * "Serving"). `out` is zeroed first; for a task other than inference its
 * limit is SIZING_NO_BANDWIDTH. */
void sizing_serve(const struct sizing_estimate *estimate, const struct sku *sku,
                  struct sizing_serving *out);

/* Instances (replicas) of `sku` the inference estimate takes:
 * sizing_serve()'s replicas, 1 for a task other than inference; INT32_MAX
 * when the SKU cannot serve one request (or needs more). */
int32_t sizing_replicas_needed(const struct sizing_estimate *estimate, const struct sku *sku);

#endif
