/*
 * Strategies: how much of a training run's state one GPU holds under DDP,
 * ZeRO-1/2/3, FSDP, tensor or pipeline parallelism, what an offload moves
 * to the host, and which strategy a configuration (SKU × instances) runs
 * when the request leaves it to us (docs/sizing.md, "Strategies").
 *
 * ZeRO-2 and ZeRO-3 follow DeepSpeed's own estimators
 * (estimate_zero2_model_states_mem_needs, estimate_zero3_model_states_mem_needs)
 * with their constants; the others follow the ZeRO paper's accounting of
 * 16 bytes per trained parameter of mixed-precision AdamW. Weights that do
 * not train (LoRA's base model) are held, or sharded, at their own size.
 */
#include <assert.h>
#include <math.h>

#include "core/names.h"
#include "core/sizing.h"

#define BYTES_PER_GB 1e9
#define BYTES_PER_GIB 1073741824.0
/* Mixed-precision AdamW per trained parameter: fp16 weight and gradient
 * (2 + 2), fp32 master weight, momentum and variance (12). */
#define STATE_BYTES 16.0
#define FP16_WEIGHT_AND_GRADIENT_BYTES 4.0
#define OPTIMIZER_BYTES 12.0
/* DeepSpeed's ZeRO-2 estimator: 16 bytes per parameter sharded, besides
 * the full fp16 weights and gradients; with the optimizer offloaded, the
 * fp16 weights alone (2) stay on the GPU. */
#define ZERO2_SHARDED_BYTES 16.0
#define FP16_WEIGHT_BYTES 2.0
/* DeepSpeed's ZeRO-3 estimator: 18 bytes per parameter sharded, and the
 * largest layer gathered whole at 4 bytes a parameter. */
#define ZERO3_SHARDED_BYTES 18.0
#define GATHERED_LAYER_BYTES 4.0
/* DeepSpeed's host estimates: a buffer factor of 1.5 over 16 bytes a
 * parameter (optimizer offloaded) or 18 (parameters too), ZeRO-1/2 at
 * least 4 bytes a parameter per GPU. */
#define HOST_BUFFER_FACTOR 1.5
#define HOST_OPTIMIZER_BYTES 16.0
#define HOST_PARAMETER_BYTES 18.0
#define HOST_BYTES_PER_GPU 4.0
/* Tolerance of a comparison of sizes, far below the 0.1 GB a response shows. */
#define FIT_EPSILON 1e-9

static const char *const strategy_ids[SIZING_STRATEGY_COUNT] = {
    [SIZING_STRATEGY_AUTO] = "auto",
    [SIZING_STRATEGY_DDP] = "ddp",
    [SIZING_STRATEGY_ZERO1] = "zero1",
    [SIZING_STRATEGY_ZERO2] = "zero2",
    [SIZING_STRATEGY_ZERO3] = "zero3",
    [SIZING_STRATEGY_FSDP] = "fsdp",
    [SIZING_STRATEGY_TENSOR_PARALLEL] = "tensor_parallel",
    [SIZING_STRATEGY_PIPELINE_PARALLEL] = "pipeline_parallel",
};

static const char *const offload_ids[SIZING_OFFLOAD_COUNT] = {
    [SIZING_OFFLOAD_NONE] = "none",
    [SIZING_OFFLOAD_OPTIMIZER] = "optimizer",
    [SIZING_OFFLOAD_PARAMETERS] = "parameters",
};

const struct names_table sizing_strategy_names = {strategy_ids, SIZING_STRATEGY_COUNT, 0};
const struct names_table sizing_offload_names = {offload_ids, SIZING_OFFLOAD_COUNT, 0};

/* AUTO's order: the least communication and the simplest setup first;
 * tensor and pipeline parallelism last, as their activation traffic is
 * not costed. */
static const enum sizing_strategy auto_order[] = {
    SIZING_STRATEGY_DDP,
    SIZING_STRATEGY_ZERO1,
    SIZING_STRATEGY_ZERO2,
    SIZING_STRATEGY_FSDP,
    SIZING_STRATEGY_ZERO3,
    SIZING_STRATEGY_TENSOR_PARALLEL,
    SIZING_STRATEGY_PIPELINE_PARALLEL,
};

const char *sizing_strategy_id(enum sizing_strategy strategy)
{
    return names_id(strategy_ids, SIZING_STRATEGY_COUNT, strategy);
}

const char *sizing_offload_id(enum sizing_offload offload)
{
    return names_id(offload_ids, SIZING_OFFLOAD_COUNT, offload);
}

bool sizing_strategy_offloads(enum sizing_strategy strategy, enum sizing_offload offload)
{
    switch (offload) {
    case SIZING_OFFLOAD_NONE:
        return true;
    case SIZING_OFFLOAD_OPTIMIZER:
        return strategy == SIZING_STRATEGY_ZERO1 || strategy == SIZING_STRATEGY_ZERO2 ||
               strategy == SIZING_STRATEGY_ZERO3;
    case SIZING_OFFLOAD_PARAMETERS:
        return strategy == SIZING_STRATEGY_ZERO3 || strategy == SIZING_STRATEGY_FSDP;
    default:
        return false;
    }
}

/* ZeRO-3 and FSDP: the largest layer gathered, the rest sharded. */
static double sharded_state_bytes(double sharded_per_trainable, enum sizing_offload offload,
                                  double frozen, double trainable, double gathered, double n)
{
    if (offload == SIZING_OFFLOAD_PARAMETERS)
        return gathered;
    if (offload == SIZING_OFFLOAD_OPTIMIZER)
        return gathered + (frozen + FP16_WEIGHT_BYTES * trainable) / n;
    return gathered + (frozen + sharded_per_trainable * trainable) / n;
}

double sizing_strategy_state_bytes(enum sizing_strategy strategy, enum sizing_offload offload,
                                   double frozen, double trainable, double largest_layer,
                                   int32_t gpus)
{
    assert(gpus >= 1);
    double n = gpus, gathered = GATHERED_LAYER_BYTES * largest_layer;
    bool offloaded = offload == SIZING_OFFLOAD_OPTIMIZER;
    switch (strategy) {
    case SIZING_STRATEGY_ZERO1:
        if (offloaded)
            return frozen + FP16_WEIGHT_BYTES * trainable;
        return frozen + FP16_WEIGHT_AND_GRADIENT_BYTES * trainable +
               OPTIMIZER_BYTES * trainable / n;
    case SIZING_STRATEGY_ZERO2:
        if (offloaded)
            return frozen + FP16_WEIGHT_BYTES * trainable;
        return frozen + FP16_WEIGHT_AND_GRADIENT_BYTES * trainable +
               floor(ZERO2_SHARDED_BYTES * trainable / n);
    case SIZING_STRATEGY_ZERO3:
        return sharded_state_bytes(ZERO3_SHARDED_BYTES, offload, frozen, trainable, gathered, n);
    case SIZING_STRATEGY_FSDP:
        return sharded_state_bytes(STATE_BYTES, offload, frozen, trainable, gathered, n);
    case SIZING_STRATEGY_TENSOR_PARALLEL:
    case SIZING_STRATEGY_PIPELINE_PARALLEL:
        return (frozen + STATE_BYTES * trainable) / n;
    default:
        return frozen + STATE_BYTES * trainable;
    }
}

double sizing_offload_host_bytes(enum sizing_strategy strategy, enum sizing_offload offload,
                                 double params, int32_t gpus_per_node, int32_t nodes)
{
    if (offload == SIZING_OFFLOAD_NONE)
        return 0.0;
    if (strategy == SIZING_STRATEGY_ZERO1 || strategy == SIZING_STRATEGY_ZERO2)
        return params * fmax(HOST_BYTES_PER_GPU * gpus_per_node * nodes, HOST_OPTIMIZER_BYTES) *
               HOST_BUFFER_FACTOR;
    double per_param =
        offload == SIZING_OFFLOAD_PARAMETERS ? HOST_PARAMETER_BYTES : HOST_OPTIMIZER_BYTES;
    return params * per_param / nodes * HOST_BUFFER_FACTOR;
}

/* The GPUs a strategy divides the state over: every GPU of every instance
 * for data parallelism, one instance's cards for tensor and pipeline
 * parallelism (the instances replicate them). */
static int32_t state_gpus(enum sizing_strategy strategy, const struct sku *sku, int32_t instances)
{
    switch (strategy) {
    case SIZING_STRATEGY_DDP:
        return 1;
    case SIZING_STRATEGY_TENSOR_PARALLEL:
    case SIZING_STRATEGY_PIPELINE_PARALLEL:
        return sku->gpu_count;
    default:
        return instances * sku->gpu_count;
    }
}

static void place_as(const struct sizing_estimate *e, enum sizing_strategy strategy,
                     const struct sku *sku, int32_t instances, struct sizing_placement *out)
{
    double trainable = e->trainable_params_b * 1e9;
    /* Full training: every weight trains; LoRA: the base model is frozen. */
    double frozen = e->task == SIZING_TASK_LORA ? e->weights_gb * BYTES_PER_GB : 0.0;
    out->strategy = strategy;
    out->gpus = state_gpus(strategy, sku, instances);
    out->model_state_gb = sizing_strategy_state_bytes(strategy, e->offload, frozen, trainable,
                                                      e->largest_layer_params, out->gpus) /
                          BYTES_PER_GB;
    out->activation_gb = e->activation_gb;
    if (strategy == SIZING_STRATEGY_TENSOR_PARALLEL)
        out->activation_gb /= sku->gpu_count; /* with sequence parallelism */
    out->memory_gb =
        (out->model_state_gb + out->activation_gb) / (1.0 - e->assumptions[SIZING_MEMORY_RESERVE]);
    out->host_gb = sizing_offload_host_bytes(strategy, e->offload, e->params_b * 1e9,
                                             sku->gpu_count, instances) /
                   BYTES_PER_GB;
    out->host_known = sku->host != NULL && sku->host->memory_gib > 0;
    bool host_fits =
        !out->host_known ||
        out->host_gb <= sku->host->memory_gib * BYTES_PER_GIB / BYTES_PER_GB + FIT_EPSILON;
    out->fits = host_fits && out->memory_gb <= (double)sku->gpu->memory_gb + FIT_EPSILON;
}

/* Serving: one replica's weights and one request's KV cache over its cards. */
static void place_replica(const struct sizing_estimate *e, const struct sku *sku,
                          struct sizing_placement *out)
{
    out->strategy = SIZING_STRATEGY_TENSOR_PARALLEL;
    out->gpus = sku->gpu_count;
    out->model_state_gb = e->model_state_gb / sku->gpu_count;
    out->memory_gb = e->memory_gb / sku->gpu_count;
    out->fits = e->memory_gb <= (double)sku_total_memory_gb(sku) + FIT_EPSILON;
}

bool sizing_place(const struct sizing_estimate *e, const struct sku *sku, int32_t instances,
                  struct sizing_placement *out)
{
    assert(instances >= 1 && sku->gpu_count >= 1);
    *out = (struct sizing_placement){0};
    if (!sizing_task_holds_activations(e->task)) {
        place_replica(e, sku, out);
        return out->fits;
    }
    if (e->strategy != SIZING_STRATEGY_AUTO) {
        place_as(e, e->strategy, sku, instances, out);
        return out->fits;
    }
    struct sizing_placement least = {0};
    for (size_t i = 0; i < sizeof auto_order / sizeof auto_order[0]; i++) {
        if (!sizing_strategy_offloads(auto_order[i], e->offload))
            continue;
        place_as(e, auto_order[i], sku, instances, out);
        if (out->fits)
            return true;
        if (least.gpus == 0 || out->memory_gb < least.memory_gb)
            least = *out;
    }
    *out = least;
    return false;
}
