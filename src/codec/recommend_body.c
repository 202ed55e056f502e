/*
 * The POST /recommend body: JSON to a recommend_request (types, enums,
 * assumptions, each problem with its JSON path), and a recommendation back
 * to JSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/bodies.h"
#include "core/plans.h"

/* ---- parse ------------------------------------------------------------ */

static enum gq_code parse_enum_field(json_t *object, const char *key, const char *path,
                                     bool required, const struct names_table *names,
                                     const char *choices, int *out, struct gq_error *err)
{
    const char *text;
    enum gq_code code = fields_string(object, key, path, required, &text, err);
    if (code != GQ_OK || text == NULL)
        return code;
    if (names_parse(names, text, out))
        return GQ_OK;
    return fields_fail_one_of(path, key, choices, err);
}

/* modules_not_quantized: a list of "embeddings" and "output". */
static enum gq_code parse_modules(json_t *object, struct sizing_quantization *q,
                                  struct gq_error *err)
{
    static const char *const path = "workload.quantization";
    json_t *list;
    enum gq_code code = fields_array(object, "modules_not_quantized", path, false, 2, &list, err);
    if (code != GQ_OK || list == NULL)
        return code;
    q->modules_given = true;
    size_t index;
    json_t *item;
    json_array_foreach(list, index, item)
    {
        const char *name = json_is_string(item) ? json_string_value(item) : "";
        if (strcmp(name, "embeddings") == 0)
            q->modules_not_quantized |= SIZING_MODULE_EMBEDDINGS;
        else if (strcmp(name, "output") == 0)
            q->modules_not_quantized |= SIZING_MODULE_OUTPUT;
        else {
            char field[96];
            fields_index_path(field, sizeof field, "workload.quantization.modules_not_quantized",
                              index);
            return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_FIELD_ONE_OF, MSG_TEXT(field),
                               MSG_TEXT("embeddings, output"));
        }
    }
    return GQ_OK;
}

/* workload.quantization: how int8 or int4 weights are stored (the core
 * checks that it agrees with the precision). */
static enum gq_code parse_quantization(json_t *workload, struct sizing_quantization *q,
                                       struct gq_error *err)
{
    static const char *const fields[] = {"method", "bits", "group_size", "modules_not_quantized",
                                         NULL};
    static const char *const path = "workload.quantization";
    json_t *object;
    int method = (int)q->method;
    int64_t bits = 0, group = 0;
    enum gq_code code;
    if ((code = fields_object(workload, "quantization", "workload", false, &object, err)) !=
            GQ_OK ||
        object == NULL)
        return code;
    if ((code = fields_only(object, fields, path, err)) != GQ_OK ||
        (code = parse_enum_field(object, "method", path, false, &sizing_quant_method_names,
                                 "gptq, awq, bitsandbytes_nf4, bitsandbytes_int8, w8a8", &method,
                                 err)) != GQ_OK ||
        (code = fields_integer(object, "bits", path, false, 4, 8, &bits, err)) != GQ_OK ||
        (code = fields_integer(object, "group_size", path, false, -1, SIZING_MAX_GROUP_SIZE, &group,
                               err)) != GQ_OK ||
        (code = parse_modules(object, q, err)) != GQ_OK)
        return code;
    if (bits != 4 && bits != 8 && bits != 0)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "workload.quantization.bits",
                           MSG_FIELD_ONE_OF, MSG_TEXT("workload.quantization.bits"),
                           MSG_TEXT("4, 8"));
    if (group == 0 && json_object_get(object, "group_size") != NULL)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "workload.quantization.group_size",
                           MSG_FIELD_ONE_OF, MSG_TEXT("workload.quantization.group_size"),
                           MSG_TEXT("-1, 1 … 65536"));
    q->method = (enum sizing_quant_method)method;
    q->bits = (int32_t)bits;
    q->group_size = (int32_t)group;
    return GQ_OK;
}

/* Without a precision, quantization's bits (4 by default) give it. */
static void precision_from_quantization(json_t *object, struct sizing_workload *workload)
{
    json_t *precision = json_object_get(object, "precision");
    if ((precision != NULL && !json_is_null(precision)) ||
        json_object_get(object, "quantization") == NULL)
        return;
    bool eight = workload->quantization.bits == 8 ||
                 workload->quantization.method == SIZING_QUANT_BITSANDBYTES_INT8 ||
                 workload->quantization.method == SIZING_QUANT_W8A8;
    workload->precision = eight ? SIZING_PRECISION_INT8 : SIZING_PRECISION_INT4;
}

/* A whole-number workload field into an int32_t; absent leaves 0. */
static enum gq_code parse_count(json_t *object, const char *key, int64_t min, int64_t max,
                                int32_t *out, struct gq_error *err)
{
    int64_t value = 0;
    enum gq_code code = fields_integer(object, key, "workload", false, min, max, &value, err);
    if (code == GQ_OK)
        *out = (int32_t)value;
    return code;
}

/* Serving: concurrency, context, prompt, the per-request floor, the KV
 * cache's precision (the core checks that they apply to the task). */
static enum gq_code parse_serving(json_t *object, struct sizing_workload *workload,
                                  struct gq_error *err)
{
    int kv = (int)workload->kv_precision;
    enum gq_code code;
    if ((code = parse_count(object, "concurrent_requests", 1, SIZING_MAX_CONCURRENT_REQUESTS,
                            &workload->concurrent_requests, err)) != GQ_OK ||
        (code = parse_count(object, "context_tokens", 2, SIZING_MAX_CONTEXT_TOKENS,
                            &workload->context_tokens, err)) != GQ_OK ||
        (code = parse_count(object, "prompt_tokens", 1, SIZING_MAX_CONTEXT_TOKENS - 1,
                            &workload->prompt_tokens, err)) != GQ_OK ||
        (code = fields_real(object, "min_tokens_per_second_per_request", "workload", false, 0.01,
                            SIZING_MAX_TOKENS_PER_SECOND_PER_REQUEST,
                            &workload->min_tokens_per_second_per_request, err)) != GQ_OK ||
        (code = parse_enum_field(object, "kv_precision", "workload", false,
                                 &sizing_kv_precision_names, "fp16, int8", &kv, err)) != GQ_OK)
        return code;
    workload->kv_precision = (enum sizing_kv_precision)kv;
    return GQ_OK;
}

/* Training memory: sequences, micro-batch, checkpointing, LoRA's rank,
 * the strategy and its offload. */
static enum gq_code parse_training(json_t *object, struct sizing_workload *workload,
                                   struct gq_error *err)
{
    int checkpointing = (int)workload->checkpointing, strategy = (int)workload->strategy,
        offload = (int)workload->offload;
    enum gq_code code;
    if ((code = parse_count(object, "sequence_length", 1, SIZING_MAX_CONTEXT_TOKENS,
                            &workload->sequence_length, err)) != GQ_OK ||
        (code = parse_count(object, "micro_batch_size", 1, SIZING_MAX_MICRO_BATCH_SIZE,
                            &workload->micro_batch_size, err)) != GQ_OK ||
        (code = parse_enum_field(object, "activation_checkpointing", "workload", false,
                                 &sizing_checkpointing_names, "none, selective, full",
                                 &checkpointing, err)) != GQ_OK ||
        (code = parse_count(object, "lora_rank", 1, SIZING_MAX_LORA_RANK, &workload->lora_rank,
                            err)) != GQ_OK ||
        (code = parse_count(object, "global_batch_tokens", 1, SIZING_MAX_GLOBAL_BATCH_TOKENS,
                            &workload->global_batch_tokens, err)) != GQ_OK ||
        (code = parse_enum_field(object, "strategy", "workload", false, &sizing_strategy_names,
                                 "auto, ddp, zero1, zero2, zero3, fsdp, tensor_parallel, "
                                 "pipeline_parallel",
                                 &strategy, err)) != GQ_OK ||
        (code = parse_enum_field(object, "offload", "workload", false, &sizing_offload_names,
                                 "none, optimizer, parameters", &offload, err)) != GQ_OK)
        return code;
    workload->checkpointing = (enum sizing_checkpointing)checkpointing;
    workload->strategy = (enum sizing_strategy)strategy;
    workload->offload = (enum sizing_offload)offload;
    return GQ_OK;
}

/* workload.model: a shipped or Hugging Face id; an object (a config.json)
 * is read by model_config_body_parse() once the rest is parsed. */
static enum gq_code parse_model_name(json_t *object, struct sizing_workload *workload,
                                     struct gq_error *err)
{
    if (json_is_object(json_object_get(object, "model")))
        return GQ_OK;
    return fields_string(object, "model", "workload", false, &workload->model, err);
}

static enum gq_code parse_workload(json_t *body, struct sizing_workload *workload,
                                   struct gq_error *err)
{
    static const char *const workload_fields[] = {"task",
                                                  "model",
                                                  "model_params_b",
                                                  "precision",
                                                  "tokens_b",
                                                  "tokens_per_second",
                                                  "concurrent_requests",
                                                  "context_tokens",
                                                  "prompt_tokens",
                                                  "min_tokens_per_second_per_request",
                                                  "kv_precision",
                                                  "sequence_length",
                                                  "micro_batch_size",
                                                  "activation_checkpointing",
                                                  "lora_rank",
                                                  "global_batch_tokens",
                                                  "quantization",
                                                  "strategy",
                                                  "offload",
                                                  NULL};
    json_t *object;
    int task = (int)workload->task, precision = (int)workload->precision;
    enum gq_code code;
    if ((code = fields_object(body, "workload", "", true, &object, err)) != GQ_OK ||
        (code = fields_only(object, workload_fields, "workload", err)) != GQ_OK ||
        (code = parse_enum_field(object, "task", "workload", true, &sizing_task_names,
                                 "learning, inference, lora, finetune, pretrain", &task, err)) !=
            GQ_OK ||
        (code = parse_model_name(object, workload, err)) != GQ_OK ||
        (code = fields_real(object, "model_params_b", "workload", false, 0.001, SIZING_MAX_PARAMS_B,
                            &workload->model_params_b, err)) != GQ_OK ||
        (code = parse_enum_field(object, "precision", "workload", false, &sizing_precision_names,
                                 "fp32, bf16, fp16, int8, int4", &precision, err)) != GQ_OK ||
        (code = fields_real(object, "tokens_b", "workload", false, 0, SIZING_MAX_TOKENS_B,
                            &workload->tokens_b, err)) != GQ_OK ||
        (code = fields_real(object, "tokens_per_second", "workload", false, 0,
                            SIZING_MAX_TOKENS_PER_SECOND, &workload->tokens_per_second, err)) !=
            GQ_OK ||
        (code = parse_serving(object, workload, err)) != GQ_OK ||
        (code = parse_training(object, workload, err)) != GQ_OK ||
        (code = parse_quantization(object, &workload->quantization, err)) != GQ_OK)
        return code;
    workload->task = (enum sizing_task)task;
    workload->precision = (enum sizing_precision)precision;
    precision_from_quantization(object, workload);
    if (json_is_object(json_object_get(object, "model")))
        return model_config_body_parse(object, workload, err);
    return GQ_OK;
}

/* Every key must name an assumption; each value is a number (its range is
 * the core's to check), or null, which keeps the default like an absent key. */
static enum gq_code parse_assumptions(json_t *body, struct sizing_assumptions *assumptions,
                                      struct gq_error *err)
{
    json_t *object;
    enum gq_code code = fields_object(body, "assumptions", "", false, &object, err);
    if (code != GQ_OK || object == NULL)
        return code;
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value)
    {
        char field[96];
        fields_path(field, sizeof field, "assumptions", key);
        enum sizing_assumption assumption;
        if (!sizing_assumption_parse(key, &assumption))
            return gq_fail_msg(err, GQ_ERR_UNKNOWN_FIELD, field, MSG_REC_UNKNOWN_ASSUMPTION,
                               MSG_TEXT_CUT(key, 60));
        if (json_is_null(value))
            continue;
        if (!json_is_number(value))
            return gq_fail_msg(err, GQ_ERR_INVALID_TYPE, field, MSG_REC_FIELD_NUMBER,
                               MSG_TEXT(field));
        assumptions->value[assumption] = json_number_value(value);
        assumptions->set[assumption] = true;
    }
    return GQ_OK;
}

static enum gq_code parse_customer(json_t *body, enum customer_segment *segment,
                                   struct gq_error *err)
{
    static const char *const customer_fields[] = {"segment", NULL};
    json_t *customer;
    int value = (int)*segment;
    enum gq_code code = fields_object(body, "customer", "", false, &customer, err);
    if (code != GQ_OK || customer == NULL)
        return code;
    if ((code = fields_only(customer, customer_fields, "customer", err)) != GQ_OK ||
        (code = parse_enum_field(customer, "segment", "customer", false, &segment_names,
                                 "individual, student, startup, enterprise", &value, err)) != GQ_OK)
        return code;
    *segment = (enum customer_segment)value;
    return GQ_OK;
}

enum gq_code recommend_body_parse(json_t *body, struct recommend_request *request,
                                  struct gq_error *err)
{
    static const char *const body_fields[] = {
        "workload", "hours_per_day", "days",  "deadline_days", "customer",
        "budget",   "objective",     "limit", "assumptions",   NULL};
    recommend_request_init(request);
    int64_t days = 0, deadline = 0, limit = 0;
    int objective = (int)request->objective;
    enum gq_code code;
    if ((code = fields_only(body, body_fields, "", err)) != GQ_OK ||
        (code = parse_workload(body, &request->workload, err)) != GQ_OK ||
        (code = fields_hours_per_day(body, "hours_per_day", "", false, &request->millihours_per_day,
                                     err)) != GQ_OK ||
        (code = fields_integer(body, "days", "", false, 1, USAGE_MAX_DAYS, &days, err)) != GQ_OK ||
        (code = fields_integer(body, "deadline_days", "", false, 1, USAGE_MAX_DAYS, &deadline,
                               err)) != GQ_OK ||
        (code = parse_customer(body, &request->segment, err)) != GQ_OK ||
        (code = fields_money(body, "budget", "", false, &request->budget, err)) != GQ_OK ||
        (code = parse_enum_field(body, "objective", "", false, &recommend_objective_names,
                                 "cost, time", &objective, err)) != GQ_OK ||
        (code = fields_integer(body, "limit", "", false, 1, RECOMMEND_MAX_LIMIT, &limit, err)) !=
            GQ_OK ||
        (code = parse_assumptions(body, &request->assumptions, err)) != GQ_OK)
        return code;
    request->days = (int32_t)days;
    request->deadline_days = (int32_t)deadline;
    request->limit = (int32_t)limit;
    request->objective = (enum recommend_objective)objective;
    return GQ_OK;
}

/* ---- render ----------------------------------------------------------- */

/* Figures that come from estimates are shown to two decimals, written as
 * hundredths without printf (formatting doubles was the largest part of a
 * recommendation's instructions: bench/ANALYSIS.md). Estimates are far below 1e16. */
static void write_estimated(struct jsonw *w, const char *key, double value)
{
    if (!(fabs(value) < 1e15)) {
        jsonw_key_real(w, key, value);
        return;
    }
    jsonw_key_fixed(w, key, (int64_t)llround(value * 100.0), 2);
}

/* Hours (or seconds, or a rate) to two decimals, or to two significant
 * digits below 0.05: a run of seconds reads 0.0019, not 0.0, so that runs
 * of different lengths can be told apart. */
static void write_estimated_small(struct jsonw *w, const char *key, double value)
{
    if (value > 0.0 && value < 0.05) {
        char text[32];
        snprintf(text, sizeof text, "%.2g", value);
        jsonw_key_real(w, key, strtod(text, NULL));
        return;
    }
    write_estimated(w, key, value);
}

/* A need compared with a limit (memory with a card's, days with a
 * deadline), rounded up to two decimals: 16.0008 GB reads 16.01, never the
 * 16.0 that a 16 GB card would seem to hold. Noise below 1e-9 of a
 * hundredth (16.8 computed as 16.799999999999997) is not rounded up. */
static void write_estimated_need(struct jsonw *w, const char *key, double value)
{
    if (!(fabs(value) < 1e15)) {
        jsonw_key_real(w, key, value);
        return;
    }
    jsonw_key_fixed(w, key, (int64_t)ceil(value * 100.0 - 1e-9), 2);
}

static void write_assumptions(struct jsonw *w, const double values[SIZING_ASSUMPTION_COUNT])
{
    jsonw_object_begin(w);
    for (int a = 0; a < SIZING_ASSUMPTION_COUNT; a++) {
        jsonw_key(w, sizing_assumption_id((enum sizing_assumption)a));
        if (isnan(values[a]))
            jsonw_null(w); /* computed per recommendation: not given */
        else
            jsonw_real(w, values[a]);
    }
    jsonw_object_end(w);
}

/* A string, or null when there is none. */
static void write_optional_string(struct jsonw *w, const char *key, const char *value)
{
    jsonw_key(w, key);
    if (value != NULL)
        jsonw_string(w, value);
    else
        jsonw_null(w);
}

/* What a config.json's figures make: parameters held and run per token. */
static void write_config_counts(struct jsonw *w, const struct sizing_estimate *estimate)
{
    const struct sizing_shape *shape = &estimate->shape;
    jsonw_object_begin(w);
    jsonw_key_real(w, "params_b", estimate->params_b);
    jsonw_key_real(w, "active_params_b", estimate->active_params_b);
    jsonw_key_integer(w, "experts", shape->experts > 1 ? shape->experts : 1);
    jsonw_key_integer(w, "experts_per_token", shape->experts > 1 ? shape->experts_per_token : 1);
    jsonw_key_boolean(w, "tie_word_embeddings", shape->tied_embeddings);
    jsonw_key(w, "max_position_embeddings");
    if (estimate->max_position_embeddings > 0)
        jsonw_integer(w, estimate->max_position_embeddings);
    else
        jsonw_null(w);
    jsonw_object_end(w);
}

/* The transformer sized: the catalog's shape, or the one derived from the
 * parameter count. */
static void write_shape(struct jsonw *w, const struct sizing_estimate *estimate)
{
    const struct sizing_shape *shape = &estimate->shape;
    jsonw_object_begin(w);
    write_optional_string(w, "id", shape->model);
    write_optional_string(w, "name", shape->name);
    jsonw_key_boolean(w, "derived", estimate->shape_derived);
    write_optional_string(w, "source", shape->source);
    jsonw_key_integer(w, "layers", shape->layers);
    jsonw_key_integer(w, "hidden", shape->hidden);
    jsonw_key_integer(w, "heads", shape->heads);
    jsonw_key_integer(w, "kv_heads", shape->kv_heads);
    jsonw_key_integer(w, "head_dim", shape->head_dim);
    jsonw_key_integer(w, "intermediate", shape->intermediate);
    jsonw_key_integer(w, "vocab", shape->vocab);
    jsonw_key_integer(w, "sliding_window", shape->sliding_window);
    if (estimate->shape_from_config) {
        jsonw_key(w, "config");
        write_config_counts(w, estimate);
    }
    jsonw_object_end(w);
}

/* The quantised weights' layout, and whether the method was chosen. */
static void write_quantization(struct jsonw *w, const struct sizing_estimate *e)
{
    jsonw_object_begin(w);
    jsonw_key_string(w, "method", sizing_quant_method_id(e->quant_method));
    jsonw_key_boolean(w, "method_defaulted", e->quant_method_defaulted);
    jsonw_key_integer(w, "bits", e->quant_bits);
    jsonw_key(w, "group_size");
    if (e->quant_group_size != 0)
        jsonw_integer(w, e->quant_group_size);
    else
        jsonw_null(w); /* fixed blocks or rows */
    jsonw_key(w, "modules_not_quantized");
    jsonw_array_begin(w);
    if (e->quant_modules_kept & SIZING_MODULE_EMBEDDINGS)
        jsonw_string(w, "embeddings");
    if (e->quant_modules_kept & SIZING_MODULE_OUTPUT)
        jsonw_string(w, "output");
    jsonw_array_end(w);
    jsonw_key_real(w, "quantized_params_b", e->quantized_params_b);
    jsonw_key_real(w, "bytes_per_quantized_weight", e->quant_bytes_per_weight);
    jsonw_object_end(w);
}

static void write_serving_inputs(struct jsonw *w, const struct sizing_estimate *e)
{
    jsonw_object_begin(w);
    jsonw_key_integer(w, "concurrent_requests", e->concurrent_requests);
    jsonw_key_integer(w, "context_tokens", e->context_tokens);
    jsonw_key_integer(w, "prompt_tokens", e->prompt_tokens);
    jsonw_key_integer(w, "output_tokens", e->output_tokens);
    jsonw_key_integer(w, "kv_tokens_per_request", e->kv_tokens_per_request);
    jsonw_key_real(w, "min_tokens_per_second_per_request", e->min_tokens_per_second_per_request);
    jsonw_key_real(w, "tokens_per_second_per_request_floor", e->per_request_floor);
    jsonw_key_string(w, "kv_precision", sizing_kv_precision_id(e->kv_precision));
    jsonw_key_real(w, "kv_bytes_per_token", e->kv_bytes_per_token);
    write_estimated_need(w, "kv_gb_per_request", e->kv_gb_per_request);
    write_estimated_need(w, "kv_gb", e->kv_gb);
    write_estimated(w, "kv_read_gb_per_request", e->kv_read_gb_per_request);
    jsonw_key_real(w, "prefill_flops", e->prefill_flops);
    jsonw_key_real(w, "decode_flops_per_token", e->decode_flops_per_token);
    jsonw_object_end(w);
}

static void write_training_inputs(struct jsonw *w, const struct sizing_estimate *e)
{
    jsonw_object_begin(w);
    jsonw_key_integer(w, "sequence_length", e->sequence_length);
    jsonw_key_integer(w, "micro_batch_size", e->micro_batch_size);
    jsonw_key_string(w, "activation_checkpointing", sizing_checkpointing_id(e->checkpointing));
    write_estimated_need(w, "activation_gb", e->activation_gb);
    jsonw_key(w, "lora_rank");
    if (e->lora_rank > 0)
        jsonw_integer(w, e->lora_rank);
    else
        jsonw_null(w); /* the trainable share of the assumptions */
    jsonw_key(w, "global_batch_tokens");
    if (e->global_batch_tokens > 0)
        jsonw_integer(w, e->global_batch_tokens);
    else
        jsonw_null(w); /* learning: no training step */
    jsonw_key_string(w, "strategy", sizing_strategy_id(e->strategy));
    jsonw_key_string(w, "offload", sizing_offload_id(e->offload));
    jsonw_key_real(w, "largest_layer_params", e->largest_layer_params);
    jsonw_object_end(w);
}

static void write_estimate(struct jsonw *w, const struct sizing_estimate *estimate)
{
    jsonw_object_begin(w);
    jsonw_key_string(w, "task", sizing_task_id(estimate->task));
    jsonw_key_string(w, "precision", sizing_precision_id(estimate->precision));
    jsonw_key_boolean(w, "preset", estimate->preset);
    /* The workload as given (or preset), not rounded: 0.000001 B tokens
     * must not read as 0, which means "no training run". */
    jsonw_key_real(w, "model_params_b", estimate->params_b);
    jsonw_key_real(w, "tokens_b", estimate->tokens_b);
    jsonw_key_real(w, "tokens_per_second", estimate->tokens_per_second);
    jsonw_key_real(w, "bytes_per_param", estimate->bytes_per_param);
    jsonw_key_real(w, "trainable_params_b", estimate->trainable_params_b); /* a count too */
    jsonw_key_real(w, "state_bytes_per_trainable_param", estimate->state_bytes_per_trainable_param);
    write_estimated(w, "weights_gb", estimate->weights_gb);
    write_estimated(w, "model_state_gb", estimate->model_state_gb);
    write_estimated_need(w, "working_gb", estimate->working_gb);
    jsonw_key_real(w, "allowance_fraction", estimate->allowance_fraction);
    write_estimated(w, "allowance_gb", estimate->allowance_gb);
    write_estimated_need(w, "memory_gb", estimate->memory_gb);
    jsonw_key_real(w, "flops_per_param_token", estimate->flops_per_param_token);
    jsonw_key_real(w, "attention_flops_per_token", estimate->attention_flops_per_token);
    jsonw_key_real(w, "flops", estimate->flops);
    write_estimated(w, "decode_gb_per_token", estimate->decode_gb_per_token);
    if (estimate->quant_method != SIZING_QUANT_DEFAULT) {
        jsonw_key(w, "quantization");
        write_quantization(w, estimate);
    }
    jsonw_key(w, "model");
    write_shape(w, estimate);
    if (estimate->task == SIZING_TASK_INFERENCE) {
        jsonw_key(w, "serving");
        write_serving_inputs(w, estimate);
    }
    if (sizing_task_holds_activations(estimate->task)) {
        jsonw_key(w, "training");
        write_training_inputs(w, estimate);
    }
    jsonw_key(w, "assumptions");
    write_assumptions(w, estimate->assumptions);
    jsonw_object_end(w);
}

/* How a training step scales over the recommendation's GPUs. */
static void write_scaling(struct jsonw *w, const struct sizing_scaling *s)
{
    jsonw_object_begin(w);
    jsonw_key_real(w, "efficiency", s->efficiency);
    jsonw_key_string(w, "efficiency_source",
                     s->efficiency_assumed ? "assumption" : "network_model");
    jsonw_key_integer(w, "gpus", s->gpus);
    jsonw_key_string(w, "link", sizing_link_id(s->link));
    jsonw_key_string(w, "bandwidth_source",
                     s->link == SIZING_LINK_NONE ? "none"
                     : s->bandwidth_from_host    ? "host"
                                                 : "assumption");
    jsonw_key_real(w, "bandwidth_gb_per_second", s->bandwidth_gb_per_s);
    jsonw_key_real(w, "gradient_bytes", s->gradient_bytes);
    jsonw_key_real(w, "traffic_factor", s->traffic_factor);
    jsonw_key_real(w, "bytes_per_step", s->bytes_per_step);
    jsonw_key_integer(w, "all_reduce_buckets", s->buckets);
    jsonw_key_real(w, "latency_seconds_per_step", s->latency_seconds);
    jsonw_key_real(w, "communication_seconds_per_step", s->communication_seconds);
    jsonw_key_real(w, "overlapped_seconds_per_step",
                   fmin(s->overlap_seconds, s->communication_seconds));
    jsonw_key_real(w, "compute_seconds_per_step", s->compute_seconds);
    jsonw_key_real(w, "tokens_per_gpu_per_step", s->tokens_per_gpu);
    jsonw_object_end(w);
}

/* How each replica of an inference recommendation serves. */
static void write_serving(struct jsonw *w, const struct recommendation *r)
{
    const struct sizing_serving *v = &r->serving;
    jsonw_object_begin(w);
    jsonw_key_integer(w, "replicas", r->quantity);
    jsonw_key_integer(w, "requests_per_replica", v->batch);
    jsonw_key_integer(w, "max_requests_per_replica", v->max_batch);
    write_estimated_small(w, "tokens_per_second_per_request", v->tokens_per_second_per_request);
    write_estimated_small(w, "tokens_per_second", v->tokens_per_second);
    write_estimated_small(w, "time_to_first_token_seconds", v->prefill_seconds);
    write_estimated_small(w, "decode_step_ms", v->step_seconds * 1000.0);
    jsonw_key_string(w, "decode_bound", v->compute_bound ? "compute" : "memory");
    write_estimated_need(w, "kv_cache_gb", v->kv_gb);
    jsonw_object_end(w);
}

static void write_recommendation(struct jsonw *w, const struct recommendation *r, bool inference,
                                 enum gq_lang lang)
{
    jsonw_object_begin(w);
    jsonw_key_integer(w, "rank", r->rank);
    jsonw_key_string(w, "sku", r->sku->id);
    jsonw_key_integer(w, "quantity", r->quantity);
    jsonw_key_string(w, "billing", r->billing);
    jsonw_key(w, "plan");
    render_plan_in(w, r->sku, &r->plan, lang); /* the summary in the reasons' language */
    jsonw_key(w, "usage");
    jsonw_object_begin(w);
    jsonw_key_fixed(w, "hours_per_day", r->usage.millihours_per_day, 3);
    jsonw_key_integer(w, "days", r->usage.days);
    jsonw_object_end(w);
    jsonw_key_money(w, "amount", r->amount);
    jsonw_key_money(w, "discount_total", r->discount);
    jsonw_key_money(w, "total", r->total);
    write_estimated_small(w, "estimated_hours", r->estimated_hours);
    write_estimated_need(w, "estimated_days", r->estimated_days);
    write_estimated_need(w, "memory_gb_needed", r->memory_gb_needed);
    jsonw_key_integer(w, "memory_gb_available", r->memory_gb_available);
    jsonw_key_string(w, "strategy", sizing_strategy_id(r->placement.strategy));
    write_estimated_need(w, "memory_per_gpu_gb", r->placement.memory_gb);
    jsonw_key_integer(w, "cards", r->cards);
    if (r->scaling.gpus > 0) {
        jsonw_key(w, "scaling");
        write_scaling(w, &r->scaling);
    }
    if (inference) {
        jsonw_key(w, "serving");
        write_serving(w, r);
    }
    jsonw_key(w, "reasons");
    jsonw_array_begin(w);
    for (int i = 0; i < r->n_reasons; i++)
        jsonw_string(w, r->reasons[i]);
    jsonw_array_end(w);
    jsonw_object_end(w);
}

static void write_rejection(struct jsonw *w, const struct recommend_rejection *rejection)
{
    jsonw_object_begin(w);
    jsonw_key_string(w, "sku", rejection->sku->id);
    jsonw_key_integer(w, "quantity", rejection->quantity);
    jsonw_key_string(w, "reason", recommend_reject_reason_id(rejection->reason));
    jsonw_key_string(w, "detail", rejection->detail);
    jsonw_object_end(w);
}

char *recommend_body_render(const struct catalog *catalog, const struct recommend_request *request,
                            const struct recommend_result *result, size_t *length)
{
    struct jsonw w;
    jsonw_init(&w, 4096);
    jsonw_object_begin(&w);
    jsonw_key_string(&w, "currency", catalog->currency);
    jsonw_key_integer(&w, "price_list_version", catalog->price_list_version);
    jsonw_key_string(&w, "objective", recommend_objective_id(request->objective));
    jsonw_key_string(&w, "segment", segment_id(request->segment));
    jsonw_key_fixed(&w, "hours_per_day", result->millihours_per_day, 3);
    if (result->days > 0)
        jsonw_key_integer(&w, "days", result->days);
    jsonw_key(&w, "estimate");
    write_estimate(&w, &result->estimate);
    jsonw_key(&w, "recommendations");
    jsonw_array_begin(&w);
    for (int i = 0; i < result->n_recommendations; i++)
        write_recommendation(&w, &result->recommendations[i],
                             result->estimate.task == SIZING_TASK_INFERENCE, request->lang);
    jsonw_array_end(&w);
    jsonw_key(&w, "rejected");
    jsonw_array_begin(&w);
    for (int i = 0; i < result->n_rejected; i++)
        write_rejection(&w, &result->rejected[i]);
    jsonw_array_end(&w);
    jsonw_key_integer(&w, "rejected_total", (int64_t)result->n_rejected_total);
    if (result->hint[0] != '\0')
        jsonw_key_string(&w, "hint", result->hint);
    jsonw_object_end(&w);
    return jsonw_finish(&w, length);
}
