/*
 * Scaling: how much of a training step's time over many GPUs is compute,
 * from an α-β model of the gradients' ring all-reduce (docs/sizing.md,
 * "Scaling over cards and instances").
 *
 * Every GPU is a data-parallel rank (PyTorch DDP): it runs its share of
 * the step's global batch, then the ring all-reduce sends each GPU
 * 2·(N−1)/N of the gradients over the ring's slowest link — the hosts'
 * Ethernet between instances, NVLink or PCIe inside one — in DDP buckets of
 * 25 MiB, each paying 2·(N−1) steps of latency α; ZeRO-3 and FSDP send
 * 1.5 × those bytes (tensor and pipeline parallelism are costed as DDP:
 * their activation traffic is not modelled). DDP overlaps the
 * all-reduce with the backward pass of the last micro-batch; the rest of
 * the communication is exposed, so the efficiency is
 * compute ÷ (compute + max(0, communication − that backward)).
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/sizing.h"

#define BILLION 1e9
#define TERA 1e12
#define BYTES_PER_GB 1e9
#define BITS_PER_BYTE 8.0
#define MICROSECOND 1e-6
/* ZeRO-3 and FSDP reduce-scatter the gradients and all-gather the
 * parameters in the forward and again in the backward pass: 3Ψ against
 * the all-reduce's 2Ψ (the ZeRO paper, section 7.2). */
#define SHARDED_PARAMETER_TRAFFIC 1.5
/* PyTorch DDP's default bucket_cap_mb: 25 MiB of gradients an all-reduce. */
#define DDP_BUCKET_BYTES (25.0 * 1024.0 * 1024.0)
/* The forward pass: 2 FLOPs per parameter and token, and the attention's
 * QKᵀ and scores × V, 4 per layer, hidden unit and token attended. */
#define FORWARD_FLOPS_PER_PARAM 2.0
#define FORWARD_ATTENTION_FLOPS 4.0

static const char *const link_ids[] = {
    [SIZING_LINK_NONE] = "none",
    [SIZING_LINK_NVLINK] = "nvlink",
    [SIZING_LINK_PCIE] = "pcie",
    [SIZING_LINK_NETWORK] = "network",
};

const char *sizing_link_id(enum sizing_link link)
{
    return (unsigned)link <= SIZING_LINK_NETWORK ? link_ids[link] : "unknown";
}

/* Gradients are kept at the training precision: 4 bytes in fp32, else 2
 * (fp16 or bf16; LoRA's adapters on int8/int4 weights are 16-bit too). */
static double bytes_per_gradient(const struct sizing_estimate *e)
{
    return e->precision == SIZING_PRECISION_FP32 ? 4.0 : 2.0;
}

/* The ring's slowest link and its bandwidth, bytes per second. */
static void choose_link(const struct sizing_estimate *e, const struct sku *sku, int32_t instances,
                        struct sizing_scaling *out)
{
    if (instances > 1) {
        out->link = SIZING_LINK_NETWORK;
        double gbit = e->assumptions[SIZING_NETWORK_BANDWIDTH_GBIT_S];
        if (!e->network_bandwidth_given && sku->host != NULL && sku->host->bandwidth_gbps > 0.0) {
            gbit = sku->host->bandwidth_gbps;
            out->bandwidth_from_host = true;
        }
        out->bandwidth_gb_per_s = gbit / BITS_PER_BYTE;
    } else if (sku->interconnect == INTERCONNECT_NVLINK) {
        out->link = SIZING_LINK_NVLINK;
        out->bandwidth_gb_per_s = e->assumptions[SIZING_NVLINK_BANDWIDTH_GB_S];
    } else {
        out->link = SIZING_LINK_PCIE;
        out->bandwidth_gb_per_s = e->assumptions[SIZING_PCIE_BANDWIDTH_GB_S];
    }
}

/* The ring all-reduce of the gradients: β part and α part. */
static void all_reduce(const struct sizing_estimate *e, struct sizing_scaling *out)
{
    double n = out->gpus;
    out->gradient_bytes = e->trainable_params_b * BILLION * bytes_per_gradient(e);
    out->bytes_per_step = out->traffic_factor * 2.0 * (n - 1.0) / n * out->gradient_bytes;
    out->buckets = (int32_t)fmax(1.0, ceil(out->gradient_bytes / DDP_BUCKET_BYTES));
    out->latency_seconds = out->buckets * 2.0 * (n - 1.0) *
                           e->assumptions[SIZING_ALL_REDUCE_HOP_LATENCY_US] * MICROSECOND;
    out->communication_seconds =
        out->bytes_per_step / (out->bandwidth_gb_per_s * BYTES_PER_GB) + out->latency_seconds;
}

/* One GPU's compute in a step, and the backward pass of its last
 * micro-batch (what the all-reduce overlaps). */
static void step_compute(const struct sizing_estimate *e, const struct sku *sku,
                         struct sizing_scaling *out)
{
    double flops_per_second = sizing_peak_tflops(e, sku->gpu) * TERA * e->assumptions[SIZING_MFU];
    double per_token =
        e->flops_per_param_token * e->active_params_b * BILLION + e->attention_flops_per_token;
    double forward =
        FORWARD_FLOPS_PER_PARAM * e->active_params_b * BILLION +
        FORWARD_ATTENTION_FLOPS * e->shape.layers * e->shape.hidden * (double)e->sequence_length;
    double micro_batch = (double)e->micro_batch_size * e->sequence_length;
    out->tokens_per_gpu = fmax((double)e->global_batch_tokens / out->gpus, micro_batch);
    out->compute_seconds = out->tokens_per_gpu * per_token / flops_per_second;
    out->overlap_seconds = micro_batch * fmax(per_token - forward, 0.0) / flops_per_second;
}

void sizing_scale(const struct sizing_estimate *estimate, const struct sku *sku, int32_t instances,
                  struct sizing_scaling *out)
{
    sizing_scale_as(estimate, estimate->strategy, sku, instances, out);
}

void sizing_scale_as(const struct sizing_estimate *estimate, enum sizing_strategy strategy,
                     const struct sku *sku, int32_t instances, struct sizing_scaling *out)
{
    assert(instances >= 1);
    memset(out, 0, sizeof *out);
    out->efficiency = 1.0;
    bool sharded = strategy == SIZING_STRATEGY_ZERO3 || strategy == SIZING_STRATEGY_FSDP;
    out->traffic_factor = sharded ? SHARDED_PARAMETER_TRAFFIC : 1.0;
    out->gpus = instances * sku->gpu_count;
    if (out->gpus <= 1 || estimate->flops <= 0.0 || estimate->global_batch_tokens <= 0)
        return;
    double flat = estimate->assumptions[SIZING_MULTI_INSTANCE_EFFICIENCY];
    if (instances > 1 && !isnan(flat)) {
        /* The caller's flat figure between instances, on one instance's
         * model: the figures shown are that instance's. */
        sizing_scale_as(estimate, strategy, sku, 1, out);
        out->gpus = instances * sku->gpu_count;
        out->efficiency *= flat;
        out->efficiency_assumed = true;
        return;
    }
    choose_link(estimate, sku, instances, out);
    all_reduce(estimate, out);
    step_compute(estimate, sku, out);
    if (!(out->compute_seconds > 0.0) || !isfinite(out->compute_seconds))
        return;
    double exposed = fmax(0.0, out->communication_seconds - out->overlap_seconds);
    out->efficiency = out->compute_seconds / (out->compute_seconds + exposed);
}
