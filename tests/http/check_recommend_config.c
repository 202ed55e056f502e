/*
 * POST /recommend with `workload.model` as a config.json, through the real
 * server: Mixtral-8x7B-v0.1's and Llama-2-7b-hf's own config.json (every
 * key they ship, most of which sizing ignores) give their published
 * parameter counts in the answer's model echo (46.7 B held, 12.9 B run per
 * token; 6.74 B), the shape sized with, the context limit of
 * max_position_embeddings; a GPTQ config's quantization_config becomes the
 * workload's quantisation; a config missing a field, with an absurd value,
 * with heads that do not divide, MoE fields that do not add up or a
 * quantisation the request contradicts is a 422 naming the key.
 *
 * All cases only read: they share one server per test case.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/shared.h"
#include "support/suite.h"

/* mistralai/Mixtral-8x7B-v0.1's config.json, as published. */
#define MIXTRAL_CONFIG                                                                             \
    "{\"architectures\":[\"MixtralForCausalLM\"],\"attention_dropout\":0.0,"                       \
    "\"bos_token_id\":1,\"eos_token_id\":2,\"hidden_act\":\"silu\",\"hidden_size\":4096,"          \
    "\"initializer_range\":0.02,\"intermediate_size\":14336,\"max_position_embeddings\":32768,"    \
    "\"model_type\":\"mixtral\",\"num_attention_heads\":32,\"num_experts_per_tok\":2,"             \
    "\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"num_local_experts\":8,"                  \
    "\"output_router_logits\":false,\"rms_norm_eps\":1e-05,\"rope_theta\":1000000.0,"              \
    "\"router_aux_loss_coef\":0.02,\"sliding_window\":null,\"tie_word_embeddings\":false,"         \
    "\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.36.0.dev0\",\"use_cache\":true,"    \
    "\"vocab_size\":32000}"

/* meta-llama/Llama-2-7b-hf's config.json, as published. */
#define LLAMA2_CONFIG                                                                              \
    "{\"architectures\":[\"LlamaForCausalLM\"],\"bos_token_id\":1,\"eos_token_id\":2,"             \
    "\"hidden_act\":\"silu\",\"hidden_size\":4096,\"initializer_range\":0.02,"                     \
    "\"intermediate_size\":11008,\"max_position_embeddings\":4096,\"model_type\":\"llama\","       \
    "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":32,"              \
    "\"pretraining_tp\":1,\"rms_norm_eps\":1e-05,\"rope_scaling\":null,"                           \
    "\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\","                                   \
    "\"transformers_version\":\"4.31.0.dev0\",\"use_cache\":true,\"vocab_size\":32000}"

static struct http_response *recommend(const char *body)
{
    struct http_response *response = http_post_json(client, "/recommend", body);
    expect_status(response, 200);
    return response;
}

static double number_at(json_t *root, const char *path)
{
    json_t *value = json_at(root, path);
    ck_assert_msg(json_is_number(value), "%s is not a number", path);
    return json_number_value(value);
}

START_TEST(test_mixtral_config)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"inference\",\"precision\":\"fp16\","
                  "\"model\":{\"config\":" MIXTRAL_CONFIG "}}}");
    json_t *r = response->json;
    ck_assert(fabs(number_at(r, "estimate.model.config.params_b") - 46.7) < 0.05);
    ck_assert(fabs(number_at(r, "estimate.model.config.active_params_b") - 12.9) < 0.05);
    ck_assert(fabs(number_at(r, "estimate.model_params_b") - 46.7) < 0.05);
    expect_text(r, "estimate.model.config.experts", "8");
    expect_text(r, "estimate.model.config.experts_per_token", "2");
    expect_text(r, "estimate.model.config.max_position_embeddings", "32768");
    expect_text(r, "estimate.model.layers", "32");
    expect_text(r, "estimate.model.heads", "32");
    expect_text(r, "estimate.model.kv_heads", "8");
    expect_text(r, "estimate.model.sliding_window", "0");
    expect_text(r, "estimate.model.derived", "false");
    expect_text(r, "estimate.model.id", "null");
    expect_text(r, "estimate.weights_gb", "93.41");
    http_response_free(response);
}
END_TEST

START_TEST(test_llama2_config)
{
    struct http_response *response =
        recommend("{\"workload\":{\"task\":\"inference\",\"precision\":\"fp16\","
                  "\"model\":{\"config\":" LLAMA2_CONFIG "}}}");
    json_t *r = response->json;
    ck_assert(fabs(number_at(r, "estimate.model.config.params_b") - 6.738415616) < 1e-9);
    ck_assert(fabs(number_at(r, "estimate.model.config.active_params_b") - 6.738415616) < 1e-9);
    expect_text(r, "estimate.model.config.experts", "1");
    expect_text(r, "estimate.model.kv_heads", "32");
    expect_text(r, "estimate.weights_gb", "13.48");
    http_response_free(response);
}
END_TEST

/* A GPTQ checkpoint's config: its quantization_config is the workload's. */
START_TEST(test_quantization_config_is_the_workload_quantization)
{
    struct http_response *response = recommend(
        "{\"workload\":{\"task\":\"inference\",\"model\":{\"config\":{\"hidden_size\":4096,"
        "\"num_hidden_layers\":32,\"num_attention_heads\":32,\"intermediate_size\":11008,"
        "\"vocab_size\":32000,\"quantization_config\":{\"quant_method\":\"gptq\",\"bits\":4,"
        "\"group_size\":128,\"desc_act\":false}}}}}");
    json_t *r = response->json;
    expect_str(r, "estimate.precision", "int4");
    expect_str(r, "estimate.quantization.method", "gptq");
    expect_text(r, "estimate.quantization.method_defaulted", "false");
    expect_text(r, "estimate.quantization.group_size", "128");
    expect_text(r, "estimate.model.config.max_position_embeddings", "null");
    http_response_free(response);
}
END_TEST

struct bad_config {
    const char *config;
    const char *extra; /* more workload fields, or "" */
    int status;
    const char *code;
    const char *field;
};

#define SHAPE_WITHOUT_LAYERS                                                                       \
    "\"hidden_size\":4096,\"num_attention_heads\":32,\"intermediate_size\":11008,"                 \
    "\"vocab_size\":32000"

static const struct bad_config bad_configs[] = {
    {"{" SHAPE_WITHOUT_LAYERS "}", "", 422, "missing_field",
     "workload.model.config.num_hidden_layers"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":0}", "", 422, "out_of_range",
     "workload.model.config.num_hidden_layers"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":1e12}", "", 422, "out_of_range",
     "workload.model.config.num_hidden_layers"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":\"32\"}", "", 422, "invalid_type",
     "workload.model.config.num_hidden_layers"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":32,\"num_key_value_heads\":5}", "", 422,
     "invalid_value", "workload.model.config.num_key_value_heads"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":32,\"num_local_experts\":8}", "", 422,
     "invalid_value", "workload.model.config.num_experts_per_tok"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":32,\"num_local_experts\":8,"
     "\"num_experts\":4,\"num_experts_per_tok\":2}",
     "", 422, "invalid_value", "workload.model.config.num_experts"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":32,\"num_local_experts\":8,"
     "\"num_experts_per_tok\":9}",
     "", 422, "invalid_value", "workload.model.config.num_experts_per_tok"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":32,\"max_position_embeddings\":2048}",
     ",\"context_tokens\":4096", 422, "out_of_range", "workload.context_tokens"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":32,\"quantization_config\":"
     "{\"quant_method\":\"gptq\",\"bits\":4}}",
     ",\"quantization\":{\"method\":\"awq\"}", 422, "invalid_value",
     "workload.quantization.method"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":32,\"quantization_config\":"
     "{\"quant_method\":\"fp8\"}}",
     "", 422, "invalid_value", "workload.model.config.quantization_config.quant_method"},
    {"{" SHAPE_WITHOUT_LAYERS ",\"num_hidden_layers\":32}", ",\"model_params_b\":7", 422,
     "invalid_value", "workload.model_params_b"},
};

START_TEST(test_bad_config_is_refused)
{
    const struct bad_config *c = &bad_configs[_i];
    char body[2048];
    snprintf(body, sizeof body,
             "{\"workload\":{\"task\":\"inference\",\"model\":{\"config\":%s}%s}}", c->config,
             c->extra);
    struct http_response *response = http_post_json(client, "/recommend", body);
    expect_error(response, c->status, c->code, c->field);
    http_response_free(response);
}
END_TEST

/* The model object holds a config and nothing else. */
START_TEST(test_model_object_other_than_config_is_refused)
{
    struct http_response *response = http_post_json(
        client, "/recommend", "{\"workload\":{\"task\":\"inference\",\"model\":{\"id\":\"x\"}}}");
    expect_error(response, 422, "unknown_field", "workload.model.id");
    http_response_free(response);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_recommend_config");
    TCase *cases = tcase_create("config");
    tcase_add_unchecked_fixture(cases, start_shared, stop_shared);
    tcase_add_checked_fixture(cases, open_client, close_client);
    suite_set_timeout(cases, 10);
    tcase_add_test(cases, test_mixtral_config);
    tcase_add_test(cases, test_llama2_config);
    tcase_add_test(cases, test_quantization_config_is_the_workload_quantization);
    tcase_add_loop_test(cases, test_bad_config_is_refused, 0,
                        (int)(sizeof bad_configs / sizeof bad_configs[0]));
    tcase_add_test(cases, test_model_object_other_than_config_is_refused);
    suite_add_tcase(suite, cases);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
