/*
 * `workload.model` given as `{"config": {…}}`: a Hugging Face config.json's
 * own fields to the core's sizing_model_config, and its quantization_config
 * to the workload's quantization. A real config.json has many more keys
 * than sizing reads (architectures, rope settings, token ids …): those are
 * ignored, while a key sizing reads must have the right type and range,
 * each problem named by its JSON path ("workload.model.config.hidden_size").
 */
#include <string.h>

#include "codec/bodies.h"

#define CONFIG_PATH "workload.model.config"
#define QUANT_CONFIG_PATH CONFIG_PATH ".quantization_config"

/* A positive dimension into *out; absent leaves it. */
static enum gq_code parse_dimension(json_t *config, const char *key, bool required, int64_t min,
                                    int32_t *out, struct gq_error *err)
{
    int64_t value = *out;
    enum gq_code code = fields_integer(config, key, CONFIG_PATH, required, min,
                                       MODEL_SHAPE_MAX_DIMENSION, &value, err);
    if (code == GQ_OK)
        *out = (int32_t)value;
    return code;
}

static enum gq_code parse_shape(json_t *config, struct model_shape *shape, struct gq_error *err)
{
    enum gq_code code;
    if ((code = parse_dimension(config, "hidden_size", true, 1, &shape->hidden, err)) != GQ_OK ||
        (code = parse_dimension(config, "num_hidden_layers", true, 1, &shape->layers, err)) !=
            GQ_OK ||
        (code = parse_dimension(config, "num_attention_heads", true, 1, &shape->heads, err)) !=
            GQ_OK ||
        (code = parse_dimension(config, "intermediate_size", true, 1, &shape->intermediate, err)) !=
            GQ_OK ||
        (code = parse_dimension(config, "vocab_size", true, 1, &shape->vocab, err)) != GQ_OK)
        return code;
    shape->kv_heads = shape->heads; /* transformers' default: no grouped-query attention */
    return parse_dimension(config, "num_key_value_heads", false, 1, &shape->kv_heads, err);
}

/* max_position_embeddings, and the window unless use_sliding_window is
 * false (Qwen2 configs carry a window they do not use); null is none. */
static enum gq_code parse_positions(json_t *config, struct model_shape *shape, struct gq_error *err)
{
    bool windowed = true;
    enum gq_code code;
    if ((code = parse_dimension(config, "max_position_embeddings", false, 1,
                                &shape->max_position_embeddings, err)) != GQ_OK ||
        (code = parse_dimension(config, "sliding_window", false, 1, &shape->sliding_window, err)) !=
            GQ_OK ||
        (code = fields_boolean(config, "use_sliding_window", CONFIG_PATH, false, &windowed, err)) !=
            GQ_OK)
        return code;
    if (!windowed)
        shape->sliding_window = 0;
    return GQ_OK;
}

/* num_local_experts (Mixtral) or num_experts (Qwen-MoE), which must agree
 * when both are given, and num_experts_per_tok. */
static enum gq_code parse_experts(json_t *config, struct sizing_model_config *out,
                                  struct gq_error *err)
{
    int64_t local = 0, experts = 0, per_token = 0;
    enum gq_code code;
    if ((code = fields_integer(config, "num_local_experts", CONFIG_PATH, false, 0,
                               SIZING_MAX_EXPERTS, &local, err)) != GQ_OK ||
        (code = fields_integer(config, "num_experts", CONFIG_PATH, false, 0, SIZING_MAX_EXPERTS,
                               &experts, err)) != GQ_OK ||
        (code = fields_integer(config, "num_experts_per_tok", CONFIG_PATH, false, 0,
                               SIZING_MAX_EXPERTS, &per_token, err)) != GQ_OK)
        return code;
    if (local != 0 && experts != 0 && local != experts)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, CONFIG_PATH ".num_experts",
                           MSG_REC_CONFIG_CONFLICT, MSG_TEXT(CONFIG_PATH ".num_experts"),
                           MSG_TEXT(CONFIG_PATH ".num_local_experts"));
    out->experts = (int32_t)(local != 0 ? local : experts);
    out->experts_per_token = (int32_t)per_token;
    return GQ_OK;
}

/* quant_method and, for bitsandbytes, which of its loads. */
static enum gq_code parse_quant_method(json_t *quant, struct sizing_quantization *out,
                                       struct gq_error *err)
{
    const char *method;
    bool four = false, eight = false;
    enum gq_code code;
    if ((code = fields_string(quant, "quant_method", QUANT_CONFIG_PATH, true, &method, err)) !=
            GQ_OK ||
        (code = fields_boolean(quant, "load_in_4bit", QUANT_CONFIG_PATH, false, &four, err)) !=
            GQ_OK ||
        (code = fields_boolean(quant, "load_in_8bit", QUANT_CONFIG_PATH, false, &eight, err)) !=
            GQ_OK)
        return code;
    if (strcmp(method, "gptq") == 0)
        out->method = SIZING_QUANT_GPTQ;
    else if (strcmp(method, "awq") == 0)
        out->method = SIZING_QUANT_AWQ;
    else if (strcmp(method, "bitsandbytes") == 0 && four != eight)
        out->method = four ? SIZING_QUANT_BITSANDBYTES_NF4 : SIZING_QUANT_BITSANDBYTES_INT8;
    else
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, QUANT_CONFIG_PATH ".quant_method",
                           MSG_FIELD_ONE_OF, MSG_TEXT(QUANT_CONFIG_PATH ".quant_method"),
                           MSG_TEXT("gptq, awq, bitsandbytes (load_in_4bit or load_in_8bit)"));
    out->bits = out->method == SIZING_QUANT_BITSANDBYTES_NF4    ? 4
                : out->method == SIZING_QUANT_BITSANDBYTES_INT8 ? 8
                                                                : 0;
    return GQ_OK;
}

static enum gq_code parse_quantization_config(json_t *quant, struct sizing_quantization *out,
                                              struct gq_error *err)
{
    int64_t bits = 0, group = 0;
    enum gq_code code;
    if ((code = parse_quant_method(quant, out, err)) != GQ_OK ||
        (code = fields_integer(quant, "bits", QUANT_CONFIG_PATH, false, 4, 8, &bits, err)) !=
            GQ_OK ||
        (code = fields_integer(quant, "group_size", QUANT_CONFIG_PATH, false, -1,
                               SIZING_MAX_GROUP_SIZE, &group, err)) != GQ_OK)
        return code;
    if (bits != 0 && bits != 4 && bits != 8)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, QUANT_CONFIG_PATH ".bits", MSG_FIELD_ONE_OF,
                           MSG_TEXT(QUANT_CONFIG_PATH ".bits"), MSG_TEXT("4, 8"));
    if (bits != 0)
        out->bits = (int32_t)bits;
    if (out->method == SIZING_QUANT_GPTQ || out->method == SIZING_QUANT_AWQ)
        out->group_size = group != 0 ? (int32_t)group : SIZING_DEFAULT_GROUP_SIZE;
    if (out->bits == 0)
        out->bits = 4; /* GPTQ's and AWQ's default */
    return GQ_OK;
}

static enum gq_code conflict(const char *key, const char *config_key, struct gq_error *err)
{
    char field[96], theirs[96];
    fields_path(field, sizeof field, "workload.quantization", key);
    fields_path(theirs, sizeof theirs, QUANT_CONFIG_PATH, config_key);
    return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_REC_CONFIG_CONFLICT, MSG_TEXT(field),
                       MSG_TEXT(theirs));
}

/* The config's quantisation where the request's says nothing; a figure
 * the request gives must be the config's. */
static enum gq_code merge_quantization(const struct sizing_quantization *config,
                                       struct sizing_quantization *q, struct gq_error *err)
{
    if (q->method != SIZING_QUANT_DEFAULT && q->method != config->method)
        return conflict("method", "quant_method", err);
    if (q->bits != 0 && q->bits != config->bits)
        return conflict("bits", "bits", err);
    if (q->group_size != 0 && q->group_size != config->group_size)
        return conflict("group_size", "group_size", err);
    q->method = config->method;
    q->bits = config->bits;
    q->group_size = config->group_size;
    return GQ_OK;
}

static enum gq_code apply_quantization(json_t *config, json_t *workload_object,
                                       struct sizing_workload *workload, struct gq_error *err)
{
    json_t *quant;
    struct sizing_quantization given = {0};
    enum gq_code code =
        fields_object(config, "quantization_config", CONFIG_PATH, false, &quant, err);
    if (code != GQ_OK || quant == NULL)
        return code;
    if ((code = parse_quantization_config(quant, &given, err)) != GQ_OK ||
        (code = merge_quantization(&given, &workload->quantization, err)) != GQ_OK)
        return code;
    json_t *precision = json_object_get(workload_object, "precision");
    if (precision == NULL || json_is_null(precision))
        workload->precision = given.bits == 8 ? SIZING_PRECISION_INT8 : SIZING_PRECISION_INT4;
    return GQ_OK;
}

enum gq_code model_config_body_parse(json_t *workload_object, struct sizing_workload *workload,
                                     struct gq_error *err)
{
    static const char *const model_fields[] = {"config", NULL};
    json_t *model = json_object_get(workload_object, "model"), *config;
    struct sizing_model_config *out = &workload->model_config;
    enum gq_code code;
    if ((code = fields_object_only(model, model_fields, "workload.model", err)) != GQ_OK ||
        (code = fields_object(model, "config", "workload.model", true, &config, err)) != GQ_OK)
        return code;
    memset(out, 0, sizeof *out);
    out->shape.name = (char *)"config.json";
    if ((code = parse_shape(config, &out->shape, err)) != GQ_OK ||
        (code = parse_positions(config, &out->shape, err)) != GQ_OK ||
        (code = fields_boolean(config, "tie_word_embeddings", CONFIG_PATH, false,
                               &out->tie_word_embeddings, err)) != GQ_OK ||
        (code = parse_experts(config, out, err)) != GQ_OK ||
        (code = apply_quantization(config, workload_object, workload, err)) != GQ_OK)
        return code;
    workload->model = NULL;
    workload->model_config_given = true;
    return GQ_OK;
}
