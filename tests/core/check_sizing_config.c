/*
 * Models as their configs: the parameter counts a config.json's figures
 * make, against the published counts (Llama-2-7B 6,738,415,616; Mixtral
 * 8x7B 46.7 B held and 12.9 B run per token; Qwen2.5-7B 7.6 B), what an
 * estimate does with them (memory from the total, FLOPs from the active
 * count, every expert's MLP quantised), and the configs that are refused,
 * each naming its key.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sizing.h"

#define TABLE_SIZE(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* Figures from each model's config.json on Hugging Face. */
static struct sizing_model_config llama2_7b(void)
{
    struct sizing_model_config c = {0};
    c.shape.name = (char *)"config.json";
    c.shape.hidden = 4096;
    c.shape.layers = 32;
    c.shape.heads = 32;
    c.shape.kv_heads = 32;
    c.shape.intermediate = 11008;
    c.shape.vocab = 32000;
    c.shape.max_position_embeddings = 4096;
    return c;
}

static struct sizing_model_config mixtral_8x7b(void)
{
    struct sizing_model_config c = llama2_7b();
    c.shape.kv_heads = 8;
    c.shape.intermediate = 14336;
    c.shape.max_position_embeddings = 32768;
    c.experts = 8;
    c.experts_per_token = 2;
    return c;
}

static struct sizing_model_config qwen25_7b(void)
{
    struct sizing_model_config c = {0};
    c.shape.name = (char *)"config.json";
    c.shape.hidden = 3584;
    c.shape.layers = 28;
    c.shape.heads = 28;
    c.shape.kv_heads = 4;
    c.shape.intermediate = 18944;
    c.shape.vocab = 152064;
    c.shape.max_position_embeddings = 32768;
    return c;
}

/* Published counts, billions, to the digits published. */
static const struct {
    const char *name;
    struct sizing_model_config (*config)(void);
    double total_b, active_b, tolerance_b;
} published[] = {
    {"Llama-2-7B", llama2_7b, 6.74, 6.74, 0.005},
    {"Mixtral-8x7B", mixtral_8x7b, 46.7, 12.9, 0.05},
    {"Qwen2.5-7B", qwen25_7b, 7.6, 7.6, 0.05},
};

START_TEST(test_published_parameter_counts)
{
    struct sizing_model_config c = published[_i].config();
    double total, active;
    sizing_model_config_params(&c, &total, &active);
    ck_assert_msg(fabs(total / 1e9 - published[_i].total_b) <= published[_i].tolerance_b,
                  "%s total %.4f B", published[_i].name, total / 1e9);
    ck_assert_msg(fabs(active / 1e9 - published[_i].active_b) <= published[_i].tolerance_b,
                  "%s active %.4f B", published[_i].name, active / 1e9);
}
END_TEST

/* Llama-2-7B's count is exact: the one the checkpoint holds. */
START_TEST(test_llama2_7b_count_is_exact)
{
    struct sizing_model_config c = llama2_7b();
    double total, active;
    sizing_model_config_params(&c, &total, &active);
    ck_assert_double_eq(total, 6738415616.0);
    /* Tying the output to the embeddings takes one V·h table off. */
    c.tie_word_embeddings = true;
    sizing_model_config_params(&c, &total, &active);
    ck_assert_double_eq(total, 6738415616.0 - 32000.0 * 4096.0);
}
END_TEST

static struct sizing_estimate estimate_config(struct sizing_workload *w)
{
    struct sizing_estimate e;
    struct gq_error err;
    gq_error_clear(&err);
    w->model_config_given = true;
    enum gq_code code = sizing_estimate_workload(w, NULL, NULL, &e, &err);
    ck_assert_msg(code == GQ_OK, "%s (%s)", err.message, err.field);
    return e;
}

/* Mixtral in fp16: 93.4 GB of weights (every expert held), a decode step's
 * FLOPs from the 12.9 B that run (2 × 12.88 B plus attention over a mean
 * of 3072 tokens, 1.6 GFLOPs), not from the 46.7 B held (93.4 GFLOPs). */
START_TEST(test_moe_memory_from_total_flops_from_active)
{
    struct sizing_workload w = {.task = SIZING_TASK_INFERENCE,
                                .precision = SIZING_PRECISION_FP16,
                                .model_config = mixtral_8x7b()};
    struct sizing_estimate e = estimate_config(&w);
    ck_assert(fabs(e.params_b - 46.7028) < 1e-3);
    ck_assert(fabs(e.active_params_b - 12.8799) < 1e-3);
    ck_assert(fabs(e.weights_gb - 93.41) < 0.01);
    ck_assert(e.decode_flops_per_token > 2.0 * 12.88e9);
    ck_assert(e.decode_flops_per_token < 2.0 * 12.88e9 + 2e9);
    ck_assert_int_eq(e.shape.kv_heads, 8);
    ck_assert_int_eq(e.shape.experts, 8);
    ck_assert(e.shape_from_config && !e.shape_derived);
    ck_assert_ptr_null(e.shape.model);
}
END_TEST

/* Training FLOPs per token are 8 (6, and 2 recomputed) × the active count. */
START_TEST(test_moe_training_flops_from_active)
{
    struct sizing_workload w = {.task = SIZING_TASK_FINETUNE,
                                .precision = SIZING_PRECISION_BF16,
                                .tokens_b = 1.0,
                                .model_config = mixtral_8x7b()};
    struct sizing_estimate e = estimate_config(&w);
    double per_token = e.flops / 1e9 - e.attention_flops_per_token;
    ck_assert(fabs(per_token - 8.0 * 12.8799e9) < 1e7);
    ck_assert(fabs(e.model_state_gb - 16.0 * 46.7028) < 0.1);
}
END_TEST

/* Every expert's MLP is quantised: Mixtral in GPTQ int4 (group 128) is
 * 46.44 B linear weights at 0.5195 bytes plus the fp16 tables, about
 * 24.7 GB, as its published 4-bit checkpoints; a count that quantised
 * one expert would leave 40 B in fp16, over 80 GB. */
START_TEST(test_moe_quantises_every_expert)
{
    struct sizing_workload w = {.task = SIZING_TASK_INFERENCE,
                                .precision = SIZING_PRECISION_INT4,
                                .quantization.method = SIZING_QUANT_GPTQ,
                                .model_config = mixtral_8x7b()};
    struct sizing_estimate e = estimate_config(&w);
    ck_assert_msg(fabs(e.weights_gb - 24.65) < 0.2, "%.3f GB", e.weights_gb);
}
END_TEST

/* A context past the config's max_position_embeddings is refused. */
START_TEST(test_context_past_config_limit)
{
    struct sizing_workload w = {.task = SIZING_TASK_INFERENCE,
                                .precision = SIZING_PRECISION_FP16,
                                .context_tokens = 8192,
                                .model_config = llama2_7b(),
                                .model_config_given = true};
    struct sizing_estimate e;
    struct gq_error err;
    ck_assert_int_eq(sizing_estimate_workload(&w, NULL, NULL, &e, &err), GQ_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(err.field, "workload.context_tokens");
    ck_assert_msg(strstr(err.message, "4096") != NULL, "%s", err.message);
}
END_TEST

static void break_heads(struct sizing_model_config *c)
{
    c->shape.heads = 33;
}
static void break_kv_heads(struct sizing_model_config *c)
{
    c->shape.kv_heads = 3;
}
static void break_experts_per_token(struct sizing_model_config *c)
{
    c->experts = 8;
    c->experts_per_token = 9;
}
static void break_missing_experts_per_token(struct sizing_model_config *c)
{
    c->experts = 8;
    c->experts_per_token = 0;
}
static void break_hidden(struct sizing_model_config *c)
{
    c->shape.hidden = 0;
}
static void break_size(struct sizing_model_config *c)
{
    c->shape.hidden = 1000000;
    c->shape.heads = 1000;
    c->shape.kv_heads = 1000;
}

static const struct {
    void (*breaks)(struct sizing_model_config *);
    enum gq_code code;
    const char *field;
} bad_configs[] = {
    {break_heads, GQ_ERR_INVALID_VALUE, "workload.model.config.num_attention_heads"},
    {break_kv_heads, GQ_ERR_INVALID_VALUE, "workload.model.config.num_key_value_heads"},
    {break_experts_per_token, GQ_ERR_INVALID_VALUE, "workload.model.config.num_experts_per_tok"},
    {break_missing_experts_per_token, GQ_ERR_INVALID_VALUE,
     "workload.model.config.num_experts_per_tok"},
    {break_hidden, GQ_ERR_OUT_OF_RANGE, "workload.model.config.hidden_size"},
    {break_size, GQ_ERR_OUT_OF_RANGE, "workload.model.config"},
};

START_TEST(test_bad_configs_are_refused)
{
    struct sizing_workload w = {.task = SIZING_TASK_INFERENCE,
                                .precision = SIZING_PRECISION_FP16,
                                .model_config = llama2_7b(),
                                .model_config_given = true};
    bad_configs[_i].breaks(&w.model_config);
    struct sizing_estimate e;
    struct gq_error err;
    gq_error_clear(&err);
    ck_assert_int_eq(sizing_estimate_workload(&w, NULL, NULL, &e, &err), bad_configs[_i].code);
    ck_assert_str_eq(err.field, bad_configs[_i].field);
}
END_TEST

/* A config has its own count: a size as well is a contradiction. */
START_TEST(test_config_and_size_contradict)
{
    struct sizing_workload w = {.task = SIZING_TASK_INFERENCE,
                                .precision = SIZING_PRECISION_FP16,
                                .model_params_b = 7.0,
                                .model_config = llama2_7b(),
                                .model_config_given = true};
    struct sizing_estimate e;
    struct gq_error err;
    ck_assert_int_eq(sizing_estimate_workload(&w, NULL, NULL, &e, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_str_eq(err.field, "workload.model_params_b");
}
END_TEST

static Suite *config_suite(void)
{
    Suite *suite = suite_create("sizing_config");
    TCase *counts = tcase_create("counts");
    tcase_add_loop_test(counts, test_published_parameter_counts, 0, TABLE_SIZE(published));
    tcase_add_test(counts, test_llama2_7b_count_is_exact);
    suite_add_tcase(suite, counts);
    TCase *estimates = tcase_create("estimates");
    tcase_add_test(estimates, test_moe_memory_from_total_flops_from_active);
    tcase_add_test(estimates, test_moe_training_flops_from_active);
    tcase_add_test(estimates, test_moe_quantises_every_expert);
    tcase_add_test(estimates, test_context_past_config_limit);
    suite_add_tcase(suite, estimates);
    TCase *refused = tcase_create("refused");
    tcase_add_loop_test(refused, test_bad_configs_are_refused, 0, TABLE_SIZE(bad_configs));
    tcase_add_test(refused, test_config_and_size_contradict);
    suite_add_tcase(suite, refused);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(config_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
