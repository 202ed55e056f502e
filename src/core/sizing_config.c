/*
 * Models as their configs: the parameter count of a decoder given by its
 * config.json's figures (hidden size, layers, heads and key/value heads,
 * the MLP's width, the vocabulary, tied embeddings, a mixture of experts),
 * total for memory and active per token for FLOPs, and the checks those
 * figures must pass before anything is computed from them. The formula,
 * and the published counts it reproduces, are in docs/sizing.md.
 */
#include <assert.h>
#include <stdio.h>

#include "core/sizing.h"

#define BILLION 1e9
#define GATED_MLP_MATRICES 3.0 /* gate, up and down projections */
#define NORMS_PER_LAYER 2.0    /* before attention and before the MLP */

static double config_experts(const struct sizing_model_config *config)
{
    return config->experts > 1 ? config->experts : 1.0;
}

static double config_experts_per_token(const struct sizing_model_config *config)
{
    return config->experts > 1 ? config->experts_per_token : 1.0;
}

void sizing_model_config_params(const struct sizing_model_config *config, double *total,
                                double *active)
{
    const struct model_shape *s = &config->shape;
    double h = s->hidden, head_dim = (double)s->hidden / s->heads;
    double tables = (config->tie_word_embeddings ? 1.0 : 2.0) * (double)s->vocab * h;
    double attention = 2.0 * h * h + 2.0 * h * s->kv_heads * head_dim;
    double mlp = GATED_MLP_MATRICES * h * s->intermediate;
    double experts = config_experts(config);
    double router = experts > 1.0 ? experts * h : 0.0;
    double shared = attention + NORMS_PER_LAYER * h + router;
    *total = tables + h + s->layers * (shared + experts * mlp);
    *active = tables + h + s->layers * (shared + config_experts_per_token(config) * mlp);
}

/* out_of_range naming the config's key, as the codec names it. */
static enum gq_code dimension_out_of_range(const char *key, int64_t min, struct gq_error *err)
{
    char field[96];
    snprintf(field, sizeof field, "workload.model.config.%s", key);
    return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, field, MSG_FIELD_INTEGER_RANGE, MSG_TEXT(field),
                       MSG_INT(min), MSG_INT(MODEL_SHAPE_MAX_DIMENSION));
}

static enum gq_code check_dimensions(const struct model_shape *s, struct gq_error *err)
{
    const struct {
        const char *key;
        int32_t value;
        int32_t min;
    } dimensions[] = {
        {"hidden_size", s->hidden, 1},
        {"num_hidden_layers", s->layers, 1},
        {"num_attention_heads", s->heads, 1},
        {"num_key_value_heads", s->kv_heads, 1},
        {"intermediate_size", s->intermediate, 1},
        {"vocab_size", s->vocab, 1},
        {"sliding_window", s->sliding_window, 0},
        {"max_position_embeddings", s->max_position_embeddings, 0},
    };
    for (size_t i = 0; i < sizeof dimensions / sizeof dimensions[0]; i++)
        if (dimensions[i].value < dimensions[i].min ||
            dimensions[i].value > MODEL_SHAPE_MAX_DIMENSION)
            return dimension_out_of_range(dimensions[i].key, dimensions[i].min, err);
    return GQ_OK;
}

static enum gq_code not_divisible(const char *divisor, int32_t d, const char *dividend, int32_t n,
                                  struct gq_error *err)
{
    char field[96];
    snprintf(field, sizeof field, "workload.model.config.%s", divisor);
    return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_REC_CONFIG_DIVIDES, MSG_TEXT(divisor),
                       MSG_INT(d), MSG_TEXT(dividend), MSG_INT(n));
}

static enum gq_code check_experts(const struct sizing_model_config *config, struct gq_error *err)
{
    static const char field[] = "workload.model.config.num_experts_per_tok";
    if (config->experts < 0 || config->experts > SIZING_MAX_EXPERTS)
        return dimension_out_of_range("num_local_experts", 0, err);
    int32_t experts = config->experts > 1 ? config->experts : 1;
    bool needs = config->experts > 1 || config->experts_per_token != 0;
    if (needs && (config->experts_per_token < 1 || config->experts_per_token > experts))
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, field, MSG_REC_CONFIG_EXPERTS,
                           MSG_TEXT("num_experts_per_tok"), MSG_INT(experts));
    return GQ_OK;
}

enum gq_code sizing_model_config_check(const struct sizing_model_config *config,
                                       struct gq_error *err)
{
    assert(config != NULL);
    const struct model_shape *s = &config->shape;
    enum gq_code code = check_dimensions(s, err);
    if (code != GQ_OK)
        return code;
    if (s->hidden % s->heads != 0)
        return not_divisible("num_attention_heads", s->heads, "hidden_size", s->hidden, err);
    if (s->heads % s->kv_heads != 0)
        return not_divisible("num_key_value_heads", s->kv_heads, "num_attention_heads", s->heads,
                             err);
    if ((code = check_experts(config, err)) != GQ_OK)
        return code;
    double total, active;
    sizing_model_config_params(config, &total, &active);
    if (total / BILLION > SIZING_MAX_PARAMS_B)
        return gq_fail_msg(err, GQ_ERR_OUT_OF_RANGE, "workload.model.config",
                           MSG_REC_CONFIG_TOO_LARGE, MSG_REAL(total / BILLION),
                           MSG_REAL(SIZING_MAX_PARAMS_B));
    return GQ_OK;
}
