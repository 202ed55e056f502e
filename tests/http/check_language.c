/*
 * Languages through the real server: Accept-Language (q-values, zh,
 * zh-CN, zh-Hans, anything else English) picks zh-CN or en for every text
 * a person reads; such answers carry Content-Language and Vary:
 * Accept-Language; the catalog's bodies have one ETag per language, and a
 * tag of one language never answers 304 for the other. Each kind of
 * message is checked in both languages, word for word: errors of the HTTP
 * layer, of body fields, of the catalog query, of the quote core and of
 * the store; plan summaries; the catalog's names, descriptions and
 * regions from the database. Codes, ids, field names and amounts are the
 * same in both.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/shared.h"
#include "support/suite.h"

#define ZH "Accept-Language: zh-CN,zh;q=0.9,en;q=0.8"
#define EN "Accept-Language: en-US,en;q=0.9"
#define JSON "Content-Type: application/json"

static struct http_response *ask(const char *method, const char *path, const char *language,
                                 const char *body)
{
    const char *const headers[] = {language, body != NULL ? JSON : NULL, NULL};
    return http_request(client, method, path, language != NULL ? headers : NULL, body);
}

static void expect_language(const struct http_response *response, const char *tag)
{
    ck_assert_msg(http_header(response, "content-language") != NULL, "no Content-Language: %s",
                  http_describe(response));
    ck_assert_str_eq(http_header(response, "content-language"), tag);
    ck_assert_str_eq(http_header(response, "vary"), "Accept-Language");
}

/* ---- every kind of message, in both languages --------------------------- */

static const struct message_case {
    const char *method, *path, *body;
    int status;
    const char *code, *field;
    const char *english, *chinese;
} messages[] = {
    /* routing (server.c) */
    {"GET", "/nope", NULL, 404, "not_found", NULL, "no resource at /nope", "/nope 处没有资源"},
    {"DELETE", "/catalog", NULL, 405, "method_not_allowed", NULL, "DELETE is not allowed here",
     "此处不允许 DELETE 方法"},
    {"GET", "/healthz?x=1", NULL, 400, "invalid_parameter", "x",
     "GET /healthz takes no query parameters", "GET /healthz 不接受查询参数"},
    /* the catalog query (core/catalog_query.c) */
    {"GET", "/catalog?colour=red", NULL, 400, "invalid_parameter", "colour",
     "unknown parameter 'colour'; known: gpu, min_memory_gb, min_total_memory_gb, gpu_count, "
     "max_hourly, sort, at",
     "未知参数 'colour'；可用的参数：gpu、min_memory_gb、min_total_memory_gb、gpu_count、"
     "max_hourly、sort、at"},
    {"GET", "/catalog?sort=colour", NULL, 400, "invalid_parameter", "sort",
     "sort must be one of price, memory, tflops, id, optionally prefixed with - for descending",
     "sort 必须是 price、memory、tflops、id 之一，前加 - 表示降序"},
    {"GET", "/catalog/x9", NULL, 404, "not_found", NULL, "no SKU 'x9'", "没有配置 'x9'"},
    {"GET", "/quote/q_00000000000000000000000000000000", NULL, 404, "not_found", NULL,
     "no quote 'q_00000000000000000000000000000000'",
     "没有报价单 'q_00000000000000000000000000000000'"},
    /* media types and JSON (server.c, body_load.c) */
    {"POST", "/quote", "", 400, "malformed_json", NULL, "the body is empty; expected a JSON object",
     "请求体为空；应为一个 JSON 对象"},
    {"POST", "/quote", "[1]", 422, "invalid_type", NULL, "the body must be a JSON object",
     "请求体必须是一个 JSON 对象"},
    /* body fields (fields.c, quote_body.c) */
    {"POST", "/quote", "{\"items\":[{\"sku\":\"v100-16g-x1\",\"days\":9}]}", 422, "missing_field",
     "items[0].hours_per_day", "items[0].hours_per_day is required",
     "缺少必填字段 items[0].hours_per_day"},
    {"POST", "/quote", "{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":\"x\"}]}",
     422, "invalid_type", "items[0].days", "items[0].days must be a whole number, not a string",
     "items[0].days 必须是整数，而不是字符串"},
    {"POST", "/quote", "{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":0}]}",
     422, "out_of_range", "items[0].days", "items[0].days must be 1..3650",
     "items[0].days 必须在 1 到 3650 之间"},
    {"POST", "/quote", "{\"items\":[{\"sku\":\"v100-16g-x1\",\"hours_per_day\":25,\"days\":9}]}",
     422, "out_of_range", "items[0].hours_per_day",
     "items[0].hours_per_day must be more than 0 and at most 24",
     "items[0].hours_per_day 必须大于 0 且不超过 24"},
    {"POST", "/quote", "{\"items\":[],\"colour\":1}", 422, "unknown_field", "colour",
     "unknown field 'colour'", "未知字段 'colour'"},
    {"POST", "/quote", "{\"items\":[{\"sku\":\"x9\",\"hours_per_day\":8,\"days\":9}]}", 422,
     "unknown_sku", "items[0].sku", "no SKU 'x9'", "没有配置 'x9'"},
    {"POST", "/quote", "{\"customer\":{\"segment\":\"alien\"},\"items\":[]}", 422, "invalid_value",
     "customer.segment", "customer.segment must be one of individual, student, startup, enterprise",
     "customer.segment 必须是以下之一：individual, student, startup, enterprise"},
    /* the quote core (core/quote.c) */
    {"POST", "/quote", "{\"items\":[]}", 422, "out_of_range", "items",
     "a quote needs at least one item or bundle", "报价至少需要一个项目或一个套餐"},
    {"POST", "/quote",
     "{\"items\":[{\"sku\":\"v100-16g-x1\",\"billing\":\"student\",\"hours_per_day\":8,"
     "\"days\":9}]}",
     422, "not_eligible", "items[0].billing",
     "student billing is not available to customers of segment individual",
     "individual 类客户不能使用 student 计费"},
    {"POST", "/quote", "{\"bundles\":[\"enterprise-inference-quarterly\"]}", 422, "not_eligible",
     "bundles[0]",
     "bundle 'enterprise-inference-quarterly' is not available to customers of segment individual",
     "individual 类客户不能购买套餐 'enterprise-inference-quarterly'"},
    /* the recommend body (recommend_body.c), its workload (core/sizing.c)
     * and its request (core/recommend.c) */
    {"POST", "/recommend",
     "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7},\"objective\":\"speed\"}", 422,
     "invalid_value", "objective", "objective must be one of cost, time",
     "objective 必须是以下之一：cost, time"},
    {"POST", "/recommend",
     "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7},\"assumptions\":{\"luck\":1}}",
     422, "unknown_field", "assumptions.luck", "unknown assumption 'luck'",
     "未知的假设参数 'luck'"},
    {"POST", "/recommend",
     "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7},\"assumptions\":{\"mfu\":\"x\"}}",
     422, "invalid_type", "assumptions.mfu", "assumptions.mfu must be a number",
     "assumptions.mfu 必须是数字"},
    {"POST", "/recommend",
     "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7},\"assumptions\":{\"mfu\":2}}",
     422, "out_of_range", "assumptions.mfu", "assumptions.mfu must be at least 0.01 and at most 1",
     "assumptions.mfu 必须不小于 0.01 且不超过 1"},
    {"POST", "/recommend",
     "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7},\"assumptions\":{\"max_"
     "instances\":0}}",
     422, "out_of_range", "assumptions.max_instances",
     "assumptions.max_instances must be an integer from 1 to 64",
     "assumptions.max_instances 必须是 1 到 64 之间的整数"},
    {"POST", "/recommend",
     "{\"workload\":{\"task\":\"inference\",\"model\":\"llama-2-7b\",\"model_params_b\":7}}", 422,
     "invalid_value", "workload.model_params_b",
     "give model or model_params_b, not both: the model has its own count",
     "model 与 model_params_b 只能给出一个：所选模型自带参数量"},
    {"POST", "/recommend",
     "{\"workload\":{\"task\":\"finetune\",\"model_params_b\":7,\"precision\":\"int8\"}}", 422,
     "invalid_value", "workload.precision",
     "finetune trains every weight, which needs fp32, bf16 or fp16; int8 suits inference and lora",
     "finetune 会训练全部权重，需要 fp32、bf16 或 fp16；int8 只适用于 inference 和 lora"},
    {"POST", "/recommend",
     "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"prompt_tokens\":5000}}", 422,
     "out_of_range", "workload.prompt_tokens",
     "prompt_tokens must be less than context_tokens (4096 by default), which holds the prompt and "
     "the output",
     "prompt_tokens 必须小于 context_tokens（默认 4096），后者要容纳提示词和输出"},
    {"POST", "/recommend",
     "{\"workload\":{\"task\":\"finetune\",\"model_params_b\":7,\"tokens_b\":1},\"days\":3}", 422,
     "invalid_value", "days",
     "a training run lasts as long as its compute takes; limit it with deadline_days, not days",
     "训练任务的时长由计算量决定；请用 deadline_days 而不是 days 来限制它"},
    {"POST", "/recommend",
     "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7},\"deadline_days\":10}", 422,
     "out_of_range", "deadline_days",
     "a 30-day rental (the default days) cannot end within deadline_days 10: give deadline_days of "
     "at least 30, or fewer days",
     "30 天的租用（days 的默认值）不可能在 deadline_days 10 天内结束：请把 deadline_days 设为至少 "
     "30，或减少 days"},
    {"POST", "/recommend", "{\"workload\":{\"task\":\"inference\",\"model\":\"gpt-9\"}}", 422,
     "invalid_value", "workload.model",
     "unknown model 'gpt-9'; the catalog has deepseek-llm-7b, llama-2-13b, llama-2-70b, "
     "llama-2-7b, llama-3-70b, llama-3-8b, mistral-7b, qwen2.5-14b, qwen2.5-32b, qwen2.5-72b, "
     "qwen2.5-7b",
     "未知模型 'gpt-9'；目录中有：deepseek-llm-7b, llama-2-13b, llama-2-70b, llama-2-7b, "
     "llama-3-70b, llama-3-8b, mistral-7b, qwen2.5-14b, qwen2.5-32b, qwen2.5-72b, qwen2.5-7b"},
};

START_TEST(test_each_message_in_both_languages)
{
    const struct message_case *c = &messages[_i];
    struct http_response *english = ask(c->method, c->path, EN, c->body);
    expect_error(english, c->status, c->code, c->field);
    expect_str(english->json, "error.message", c->english);
    expect_language(english, "en");
    struct http_response *chinese = ask(c->method, c->path, ZH, c->body);
    expect_error(chinese, c->status, c->code, c->field); /* the code never changes */
    expect_str(chinese->json, "error.message", c->chinese);
    expect_language(chinese, "zh-CN");
    http_response_free(english);
    http_response_free(chinese);
}
END_TEST

/* ---- which language a header chooses ------------------------------------ */

static const struct {
    const char *header; /* NULL: none */
    const char *tag;
} choices[] = {
    {NULL, "en"},
    {"Accept-Language: zh", "zh-CN"},
    {"Accept-Language: zh-Hans", "zh-CN"},
    {"Accept-Language: zh-CN", "zh-CN"},
    {"Accept-Language: fr-FR, de", "en"},
    {"Accept-Language: zh-TW", "en"},
    {"Accept-Language: en;q=0.5, zh;q=0.8", "zh-CN"},
    {"Accept-Language: zh;q=0.3, en;q=0.6", "en"},
    {"Accept-Language: zh;q=0, *", "en"},
    {"Accept-Language: en;q=0, *;q=0.1", "zh-CN"},
};

START_TEST(test_q_values_choose_the_language)
{
    const char *const headers[] = {choices[_i].header, NULL};
    struct http_response *response = http_request(client, "GET", "/catalog/billing-modes",
                                                  choices[_i].header ? headers : NULL, NULL);
    expect_status(response, 200);
    expect_language(response, choices[_i].tag);
    expect_str(response->json, "billing_modes[0].name",
               strcmp(choices[_i].tag, "zh-CN") == 0 ? "按需计费" : "On-demand");
    http_response_free(response);
}
END_TEST

/* Two Accept-Language lines are one list. */
START_TEST(test_two_header_lines_are_one_list)
{
    const char *const headers[] = {"Accept-Language: en;q=0.2", "Accept-Language: zh;q=0.9", NULL};
    struct http_response *response = http_request(client, "GET", "/catalog/x9", headers, NULL);
    expect_error(response, 404, "not_found", NULL);
    expect_language(response, "zh-CN");
    http_response_free(response);
}
END_TEST

/* ---- the catalog's words, from the database ----------------------------- */

START_TEST(test_catalog_texts_in_both_languages)
{
    struct http_response *zh = ask("GET", "/catalog", ZH, NULL);
    struct http_response *en = ask("GET", "/catalog", EN, NULL);
    expect_status(zh, 200);
    expect_language(zh, "zh-CN");
    expect_language(en, "en");
    expect_join(zh->json, "skus", "name",
                "T4 16GB 单卡,V100 16GB 单卡,V100 16GB 双卡,V100 32GB 四卡,V100 32GB 八卡");
    expect_join(en->json, "skus", "name",
                "T4 16GB × 1,V100 16GB × 1,V100 16GB × 2,V100 32GB × 4,V100 32GB × 8");
    ck_assert_ptr_nonnull(strstr(json_str(zh->json, "skus[1].description"), "单张 NVIDIA V100"));
    ck_assert_ptr_nonnull(strstr(json_str(en->json, "skus[1].description"), "One NVIDIA V100"));
    expect_str(zh->json, "skus[1].host.region.name", "华东1（杭州）");
    expect_str(en->json, "skus[1].host.region.name", "China (Hangzhou)");
    /* Everything else is the same, to the byte: ids, codes, figures, prices. */
    expect_join(zh->json, "skus", "id", json_join(en->json, "skus", "id"));
    expect_text(zh->json, "skus[1].prices", json_text(en->json, "skus[1].prices"));
    expect_text(zh->json, "skus[1].host.instance_type",
                json_text(en->json, "skus[1].host.instance_type"));
    expect_text(zh->json, "skus[4].gpu", json_text(en->json, "skus[4].gpu"));
    http_response_free(zh);
    http_response_free(en);

    zh = ask("GET", "/catalog/billing-modes", ZH, NULL);
    expect_join(zh->json, "billing_modes", "name", "按需计费,包月套餐,包季套餐,学生优惠");
    expect_join(zh->json, "billing_modes", "id", "on_demand,monthly,quarterly,student");
    http_response_free(zh);

    zh = ask("GET", "/catalog/bundles", ZH, NULL);
    expect_str(zh->json, "name", "套餐礼包");
    expect_join(zh->json, "bundles", "name", "企业推理季卡,训练入门月卡");
    http_response_free(zh);
    en = ask("GET", "/catalog/bundles", EN, NULL);
    expect_str(en->json, "name", "Bundles");
    expect_join(en->json, "bundles", "name",
                "Enterprise inference quarterly card,Training starter monthly card");
    http_response_free(en);
}
END_TEST

/* Each language's body has its own tag; a tag answers 304 only in its own
 * language, and the 304 carries Vary and Content-Language as the 200. */
static const char *const etag_paths[] = {"/catalog", "/catalog/v100-16g-x1",
                                         "/catalog/billing-modes", "/catalog/bundles",
                                         "/catalog?gpu=V100&sort=-price"};

START_TEST(test_etag_per_language)
{
    const char *path = etag_paths[_i];
    struct http_response *zh = ask("GET", path, ZH, NULL);
    struct http_response *en = ask("GET", path, EN, NULL);
    char zh_tag[64], en_tag[64];
    snprintf(zh_tag, sizeof zh_tag, "%s", http_header(zh, "etag"));
    snprintf(en_tag, sizeof en_tag, "%s", http_header(en, "etag"));
    ck_assert_str_ne(zh_tag, en_tag);
    http_response_free(zh);
    http_response_free(en);

    char match[128];
    snprintf(match, sizeof match, "If-None-Match: %s", zh_tag);
    const char *const same[] = {ZH, match, NULL};
    struct http_response *response = http_request(client, "GET", path, same, NULL);
    expect_status(response, 304);
    expect_language(response, "zh-CN");
    http_response_free(response);
    const char *const other[] = {EN, match, NULL};
    response = http_request(client, "GET", path, other, NULL);
    expect_status(response, 200); /* the Chinese copy is not the English one */
    ck_assert_str_eq(http_header(response, "etag"), en_tag);
    http_response_free(response);
}
END_TEST

/* ---- quotes: summaries, and the language a stored quote keeps ----------- */

#define AROUND_THE_CLOCK                                                                           \
    "{\"items\":[{\"sku\":\"v100-16g-x1\",\"billing\":\"cheapest\",\"hours_per_day\":24,"          \
    "\"days\":100},{\"sku\":\"t4-16g-x1\",\"billing\":\"monthly\",\"hours_per_day\":1,"            \
    "\"days\":31},{\"sku\":\"v100-16g-x2\",\"billing\":\"student\",\"hours_per_day\":2,"           \
    "\"days\":1}],\"customer\":{\"segment\":\"student\"},\"save\":false}"

START_TEST(test_plan_summaries_in_both_languages)
{
    struct http_response *en = ask("POST", "/quote", EN, AROUND_THE_CLOCK);
    struct http_response *zh = ask("POST", "/quote", ZH, AROUND_THE_CLOCK);
    expect_status(en, 200);
    expect_status(zh, 200);
    expect_language(en, "en");
    expect_language(zh, "zh-CN");
    expect_str(en->json, "language", "en");
    expect_str(zh->json, "language", "zh-CN");
    /* A student pays the student rate, cheaper than any block. */
    expect_str(en->json, "items[0].cheapest.plan.summary", "100 days at the student rate");
    expect_str(zh->json, "items[0].cheapest.plan.summary", "100 天学生优惠价");
    expect_str(en->json, "items[1].plan.summary", "2 months");
    expect_str(zh->json, "items[1].plan.summary", "2 个月");
    expect_str(en->json, "items[2].plan.summary", "1 day at the student rate");
    expect_str(zh->json, "items[2].plan.summary", "1 天学生优惠价");
    expect_str(en->json, "items[1].options[0].plan.summary", "31 days on demand");
    expect_str(zh->json, "items[1].options[0].plan.summary", "31 天按需计费");
    expect_str(en->json, "items[1].options[2].plan.summary", "1 quarter");
    expect_str(zh->json, "items[1].options[2].plan.summary", "1 个季度");
    expect_str(en->json, "items[0].options[0].plan.summary", "100 days on demand");
    expect_str(zh->json, "items[0].options[1].plan.summary", "4 个月");
    /* Money in one format. */
    expect_str(zh->json, "total", json_str(en->json, "total"));
    expect_str(zh->json, "items[0].cheapest.total", json_str(en->json, "items[0].cheapest.total"));
    http_response_free(en);
    http_response_free(zh);
}
END_TEST

START_TEST(test_stored_quote_keeps_its_language)
{
    struct http_response *saved =
        ask("POST", "/quote", ZH,
            "{\"items\":[{\"sku\":\"v100-16g-x1\",\"billing\":\"cheapest\",\"hours_per_day\":24,"
            "\"days\":100}],\"bundles\":[\"training-starter-monthly\"]}");
    expect_status(saved, 201);
    expect_language(saved, "zh-CN");
    expect_str(saved->json, "bundles[0].name", "训练入门月卡");
    char path[80];
    snprintf(path, sizeof path, "/quote/%s", json_str(saved->json, "id"));
    struct http_response *read = ask("GET", path, EN, NULL);
    expect_status(read, 200);
    /* Asked in English, it is the quote as written: in Chinese, and says so. */
    ck_assert_str_eq(http_header(read, "content-language"), "zh-CN");
    expect_str(read->json, "items[0].plan.summary", "1 个季度 + 10 天按需计费");
    expect_str(read->json, "total", json_str(saved->json, "total"));
    http_response_free(read);
    http_response_free(saved);
}
END_TEST

/* /recommend answers in the language asked: its reasons, rejection
 * details, hint and plan summaries word for word (the README's 7B fp16 inference for a
 * startup), with the same SKUs, amounts and codes in both; its errors
 * follow the request too. */
#define SERVE_7B                                                                                   \
    "{\"workload\":{\"task\":\"inference\",\"model_params_b\":7,\"precision\":\"fp16\"},"          \
    "\"hours_per_day\":24,\"days\":30,\"customer\":{\"segment\":\"startup\"}}"

static void expect_recommend_texts(const struct http_response *response, const char *summary,
                                   const char *const reasons[4], const char *detail,
                                   const char *hint)
{
    expect_status(response, 200);
    expect_str(response->json, "recommendations[0].sku", "v100-16g-x2");
    expect_str(response->json, "recommendations[0].total", "2311.00");
    expect_str(response->json, "recommendations[0].billing", "monthly");
    expect_str(response->json, "recommendations[0].plan.summary", summary);
    for (int i = 0; i < 4; i++) {
        char path[48];
        snprintf(path, sizeof path, "recommendations[0].reasons[%d]", i);
        expect_str(response->json, path, reasons[i]);
    }
    expect_str(response->json, "rejected[0].sku", "t4-16g-x1");
    expect_str(response->json, "rejected[0].reason", "insufficient_memory");
    expect_str(response->json, "rejected[0].detail", detail);
    expect_str(response->json, "hint", hint);
}

START_TEST(test_recommend_in_both_languages)
{
    static const char *const english[4] = {
        "fits: needs 18.1 GB, has 32 GB across 2 cards: 14.0 GB of weights + 2.3 GB of KV cache "
        "for 1 request",
        "serves 1 request at 57.8 tok/s each, 57.8 tok/s in all: 1 replica × 1, memory-bound "
        "decode step 17.1 ms",
        "first token in 0.4 s: a 2048-token prompt, 3e+13 FLOPs on 2 × 125 TFLOPS fp16 at 35% MFU",
        "cheapest plan: 1 month, ¥2311.00 for 720.0 h",
    };
    static const char *const chinese[4] = {
        "装得下：需要 18.1 GB，共有 32 GB（分布在 2 张卡上）：14.0 GB 权重 + 2.3 GB KV 缓存（1 "
        "个请求）",
        "可同时服务 1 个请求，每个请求 57.8 token/秒，合计 57.8 token/秒：1 个副本，每个副本 1 "
        "个请求，每步解码 17.1 毫秒（受显存带宽限制）",
        "首个 token 用时 0.4 秒：2048 token 的提示词，3e+13 FLOPs，在 2 × 125 TFLOPS fp16 "
        "上，MFU 35%",
        "最便宜的方案：1 个月，720.0 小时共 ¥2311.00",
    };
    struct http_response *response = ask("POST", "/recommend", EN, SERVE_7B);
    expect_recommend_texts(
        response, "1 month", english,
        "needs 18.1 GB for one request of 4096 tokens, has 16 GB: 717 tokens of context fit",
        "cheaper with int8 weights: v100-16g-x1 × 1 for ¥1231.00 (this answer: ¥2311.00)");
    expect_language(response, "en");
    http_response_free(response);
    response = ask("POST", "/recommend", ZH, SERVE_7B);
    expect_recommend_texts(
        response, "1 个月", chinese,
        "一个 4096 token 的请求需要 18.1 GB，只有 16 GB：可容纳 717 token 的上下文",
        "更便宜的做法：改用 int8 权重：v100-16g-x1 × 1，费用 ¥1231.00（当前答案：¥2311.00）");
    expect_language(response, "zh-CN");
    http_response_free(response);
    response = ask("POST", "/recommend", ZH, "{\"colour\":1}");
    expect_error(response, 422, "unknown_field", "colour");
    expect_str(response->json, "error.message", "未知字段 'colour'");
    http_response_free(response);
}
END_TEST

/* Not every answer has a language: health and the contract have no text. */
START_TEST(test_answers_without_texts_have_no_language)
{
    static const char *const paths[] = {"/healthz", "/readyz", "/openapi.yaml", "/"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct http_response *response = ask("GET", paths[i], ZH, NULL);
        expect_status(response, 200);
        ck_assert_msg(http_header(response, "content-language") == NULL, "%s: Content-Language %s",
                      paths[i], http_header(response, "content-language"));
        http_response_free(response);
    }
}
END_TEST

static Suite *language_suite(void)
{
    Suite *suite = suite_create("http_language");
    TCase *tc = tcase_create("languages");
    tcase_add_unchecked_fixture(tc, start_shared, stop_shared);
    tcase_add_checked_fixture(tc, open_client, close_client);
    tcase_add_loop_test(tc, test_each_message_in_both_languages, 0,
                        (int)(sizeof messages / sizeof messages[0]));
    tcase_add_loop_test(tc, test_q_values_choose_the_language, 0,
                        (int)(sizeof choices / sizeof choices[0]));
    tcase_add_test(tc, test_two_header_lines_are_one_list);
    tcase_add_test(tc, test_catalog_texts_in_both_languages);
    tcase_add_loop_test(tc, test_etag_per_language, 0,
                        (int)(sizeof etag_paths / sizeof etag_paths[0]));
    tcase_add_test(tc, test_plan_summaries_in_both_languages);
    tcase_add_test(tc, test_stored_quote_keeps_its_language);
    tcase_add_test(tc, test_recommend_in_both_languages);
    tcase_add_test(tc, test_answers_without_texts_have_no_language);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    return suite_main(language_suite());
}
