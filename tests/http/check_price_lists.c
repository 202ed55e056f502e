/*
 * Price lists through the admin API, against the real server:
 * the whole cycle (a draft, a price changed, the diff, published for a
 * moment later, the catalog of that moment announced with ?at=, the
 * server switching at the instant without a signal, earlier quotes
 * keeping their version), the refusals that change nothing, and the audit
 * line of each action. Routes' 401/403 are in check_keys.c's table.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/suite.h"

#define JSON_TYPE "Content-Type: application/json"
#define QUOTE                                                                                      \
    "{\"items\":[{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,"          \
    "\"days\":90}]}"
#define PRICE_PATH "/admin/price-lists/2/prices/v100-16g-x1/on_demand"

static struct server server;

static void start(void)
{
    memset(&server, 0, sizeof server);
    server_start(&server, NULL);
}

static void finish(void)
{
    server_finish(&server);
}

static struct http_response *call(const char *method, const char *path, const char *body)
{
    struct http_client *admin = http_client_new(server.port);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *response = http_request(admin, method, path, body ? headers : NULL, body);
    http_client_free(admin);
    return response;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The on-demand price of v100-16g-x1 in a catalog listing. */
static const char *v100_price(json_t *listing)
{
    json_t *skus = json_object_get(listing, "skus");
    for (size_t i = 0; i < json_array_size(skus); i++) {
        json_t *sku = json_array_get(skus, i);
        if (strcmp(json_str(sku, "id"), "v100-16g-x1") == 0)
            return json_str(sku, "prices.on_demand.amount");
    }
    return "<none>";
}

/* The actions of the audit log, in order, joined by commas. */
static void audit_actions(char *out, size_t size)
{
    struct http_response *audit = call("GET", "/admin/audit", NULL);
    expect_status(audit, 200);
    snprintf(out, size, "%s", json_join(audit->json, "data", "action"));
    http_response_free(audit);
}

START_TEST(test_cycle_switches_at_the_instant)
{
    struct http_response *made = call("POST", "/admin/price-lists", NULL);
    expect_status(made, 201);
    ck_assert_int_eq(json_integer_value(json_at(made->json, "version")), 2);
    expect_str(made->json, "state", "draft");
    ck_assert_int_eq(json_integer_value(json_at(made->json, "based_on")), 1);
    ck_assert_str_eq(http_header(made, "Location"), "/admin/price-lists/2");
    http_response_free(made);

    struct http_response *put = call("PUT", PRICE_PATH, "{\"amount\":\"2.50\"}");
    expect_status(put, 200);
    expect_str(put->json, "amount", "2.50");
    http_response_free(put);

    struct http_response *diff = call("GET", "/admin/price-lists/2/diff", NULL);
    expect_status(diff, 200);
    ck_assert_uint_eq(json_array_size(json_at(diff->json, "changes")), 1);
    expect_str(diff->json, "changes[0].entity", "price");
    expect_str(diff->json, "changes[0].id", "v100-16g-x1/on_demand");
    expect_str(diff->json, "changes[0].old", "2.28");
    expect_str(diff->json, "changes[0].new", "2.50");
    http_response_free(diff);

    struct http_response *detail = call("GET", "/admin/price-lists/2", NULL);
    expect_status(detail, 200);
    ck_assert_str_eq(v100_price(detail->json), "2.50");
    http_response_free(detail);

    /* A quote before: priced at list 1, 2.28 x 8 x 90 = 1641.60. */
    struct http_response *before = call("POST", "/quote", QUOTE);
    expect_status(before, 201);
    ck_assert_int_eq(json_integer_value(json_at(before->json, "price_list_version")), 1);
    expect_str(before->json, "total", "1641.60");
    char quote_path[96];
    snprintf(quote_path, sizeof quote_path, "/quote/%s", json_str(before->json, "id"));
    http_response_free(before);

    /* Published for the next second but two. */
    time_t effective = time(NULL) + 3;
    char when[32], body[64], at_path[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&effective));
    snprintf(body, sizeof body, "{\"effective_at\":\"%s\"}", when);
    struct http_response *published = call("POST", "/admin/price-lists/2/publish", body);
    expect_status(published, 200);
    expect_str(published->json, "state", "scheduled");
    expect_str(published->json, "effective_at", when);
    http_response_free(published);

    /* Announced to order systems in the publish's transaction, once. */
    struct http_response *events = call("GET", "/events?type=price_list.published", NULL);
    expect_status(events, 200);
    ck_assert_uint_eq(json_array_size(json_at(events->json, "data")), 1);
    expect_str(events->json, "data[0].type", "price_list.published");
    ck_assert_int_eq(json_integer_value(json_at(events->json, "data[0].data.object.version")), 2);
    expect_str(events->json, "data[0].data.object.state", "scheduled");
    expect_str(events->json, "data[0].data.object.effective_at", when);
    http_response_free(events);

    /* The storefront can announce it. */
    snprintf(at_path, sizeof at_path, "/catalog?at=%s", when);
    struct http_response *then = call("GET", at_path, NULL);
    expect_status(then, 200);
    ck_assert_int_eq(json_integer_value(json_at(then->json, "price_list_version")), 2);
    ck_assert_str_eq(v100_price(then->json), "2.50");
    http_response_free(then);
    struct http_response *edit = call("PUT", PRICE_PATH, "{\"amount\":\"2.60\"}");
    expect_error(edit, 409, "price_list_not_draft", NULL);
    http_response_free(edit);

    /* Served now: list 1, until the instant; then list 2, without a signal. */
    double switched = 0;
    while (now_seconds() < (double)effective + 5) {
        struct http_response *catalog = call("GET", "/catalog", NULL);
        expect_status(catalog, 200);
        json_int_t version = json_integer_value(json_at(catalog->json, "price_list_version"));
        if (version == 2)
            ck_assert_str_eq(v100_price(catalog->json), "2.50");
        else
            ck_assert_msg(now_seconds() < (double)effective + 2.0,
                          "list 1 still served 2 s after the instant");
        http_response_free(catalog);
        if (version == 2) {
            switched = now_seconds();
            break;
        }
        usleep(20000);
    }
    ck_assert_msg(switched >= (double)effective, "switched before the instant");
    double delay = switched - (double)effective;
    fprintf(stderr, "check_price_lists: served list 2 %.3f s after its effective_at\n", delay);
    ck_assert_msg(delay < 2.0, "switched %.3f s late", delay);

    /* The earlier quote keeps its version; a new one has the new price. */
    struct http_response *kept = call("GET", quote_path, NULL);
    expect_status(kept, 200);
    ck_assert_int_eq(json_integer_value(json_at(kept->json, "price_list_version")), 1);
    expect_str(kept->json, "total", "1641.60");
    http_response_free(kept);
    struct http_response *after = call("POST", "/quote", QUOTE);
    expect_status(after, 201);
    ck_assert_int_eq(json_integer_value(json_at(after->json, "price_list_version")), 2);
    expect_str(after->json, "total", "1800.00");
    http_response_free(after);

    struct http_response *lists = call("GET", "/admin/price-lists", NULL);
    expect_status(lists, 200);
    expect_join(lists->json, "data", "state", "active,superseded");
    http_response_free(lists);

    char actions[512];
    audit_actions(actions, sizeof actions);
    /* (The first line is the key the first start made for the tests.) */
    ck_assert_str_eq(actions, "key.create,price_list.create,price_list.price.put,"
                              "price_list.publish,price_list.activate");
}
END_TEST

START_TEST(test_refusals_change_nothing)
{
    struct http_response *made = call("POST", "/admin/price-lists", NULL);
    expect_status(made, 201);
    http_response_free(made);
    static const struct {
        const char *path, *body, *code, *field;
        int status;
    } bad[] = {
        {PRICE_PATH, "{\"amount\":\"0.00\"}", "price_not_positive", "amount", 422},
        {PRICE_PATH, "{\"amount\":\"-1.00\"}", "price_not_positive", "amount", 422},
        {"/admin/price-lists/2/prices/v100-16g-x1/monthly", "{\"amount\":\"1641.61\"}",
         "price_above_hourly", "prices.monthly", 422},
        {PRICE_PATH, "{\"amount\":\"2.50\",\"fen\":250}", "unknown_field", "fen", 422},
        {"/admin/price-lists/2/prices/x9/on_demand", "{\"amount\":\"2.50\"}", "not_found", NULL,
         404},
        {"/admin/price-lists/2/prices/v100-16g-x1/weekly", "{\"amount\":\"2.50\"}", "not_found",
         NULL, 404},
        {"/admin/price-lists/9/prices/v100-16g-x1/on_demand", "{\"amount\":\"2.50\"}", "not_found",
         NULL, 404},
        {"/admin/price-lists/1/prices/v100-16g-x1/on_demand", "{\"amount\":\"2.50\"}",
         "price_list_not_draft", NULL, 409},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct http_response *refused = call("PUT", bad[i].path, bad[i].body);
        expect_error(refused, bad[i].status, bad[i].code, bad[i].field);
        http_response_free(refused);
    }
    struct http_response *published =
        call("POST", "/admin/price-lists/2/publish", "{\"effective_at\":\"tomorrow\"}");
    expect_error(published, 422, "invalid_value", "effective_at");
    http_response_free(published);
    struct http_response *at = call("GET", "/catalog?at=2001-01-01T00:00:00Z", NULL);
    expect_error(at, 404, "not_found", "at");
    http_response_free(at);

    struct http_response *diff = call("GET", "/admin/price-lists/2/diff", NULL);
    expect_status(diff, 200);
    ck_assert_uint_eq(json_array_size(json_at(diff->json, "changes")), 0);
    http_response_free(diff);
    char actions[512];
    audit_actions(actions, sizeof actions);
    ck_assert_str_eq(actions, "key.create,price_list.create");

    /* Published now: served at once. */
    struct http_response *put = call("PUT", PRICE_PATH, "{\"amount\":\"2.40\"}");
    expect_status(put, 200);
    http_response_free(put);
    published = call("POST", "/admin/price-lists/2/publish", "{}");
    expect_status(published, 200);
    expect_str(published->json, "state", "active");
    http_response_free(published);
    struct http_response *catalog = call("GET", "/catalog", NULL);
    ck_assert_int_eq(json_integer_value(json_at(catalog->json, "price_list_version")), 2);
    ck_assert_str_eq(v100_price(catalog->json), "2.40");
    http_response_free(catalog);
}
END_TEST

/* One call that must answer `status`; its body is freed. */
static void expect_call(const char *method, const char *path, const char *body, int status,
                        const char *code, const char *field)
{
    struct http_response *response = call(method, path, body);
    if (code != NULL)
        expect_error(response, status, code, field);
    else
        expect_status(response, status);
    http_response_free(response);
}

#define A10_MODEL                                                                                  \
    "{\"model\":\"A10 24GB\",\"memory_gb\":24,\"memory_type\":\"GDDR6\",\"fp16_tflops\":125,"      \
    "\"fp32_tflops\":31.2,\"bf16_tflops\":125,\"memory_bandwidth_gbps\":600,\"tdp_watts\":150}"
#define A10_SKU(monthly)                                                                           \
    "{\"name\":\"A10 24GB x 1\",\"description\":\"One A10\",\"gpu_model\":\"a10-24g\","            \
    "\"gpu_count\":1,\"interconnect\":\"pcie\",\"prices\":{\"on_demand\":{\"amount\":\"3.00\"},"   \
    "\"monthly\":{\"amount\":\"" monthly "\"}},\"translations\":{\"zh-CN\":{\"name\":\"A10 "       \
    "24GB × 1\"}}}"
#define A10_QUOTE                                                                                  \
    "{\"items\":[{\"sku\":\"a10-24g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,"           \
    "\"days\":90}]}"

/* Every entity of a draft through its own route, in the API's shapes,
 * checked as a whole list; then the draft previewed against the active
 * list, on given usages and on the newest stored quotes. */
START_TEST(test_entities_and_preview)
{
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    const char *base = "/admin/price-lists/2";
    char path[160];

    /* A SKU whose GPU model the list lacks, then the model, then the SKU. */
    snprintf(path, sizeof path, "%s/skus/a10-24g-x1", base);
    expect_call("PUT", path, A10_SKU("1500.00"), 422, "invalid_value", "gpu_model");
    snprintf(path, sizeof path, "%s/gpu-models/a10-24g", base);
    expect_call("PUT", path, "{\"model\":\"A10\"}", 422, "missing_field", "memory_gb");
    expect_call("PUT", path, A10_MODEL, 200, NULL, NULL);
    snprintf(path, sizeof path, "%s/skus/a10-24g-x1", base);
    /* 720 h x 3.00 = 2160.00 is the most a month may cost. */
    expect_call("PUT", path, A10_SKU("2160.01"), 422, "price_above_hourly", "prices.monthly");
    expect_call("PUT", path, A10_SKU("1500.00"), 200, NULL, NULL);

    struct http_response *detail = call("GET", base, NULL);
    expect_status(detail, 200);
    json_t *skus = json_object_get(detail->json, "skus");
    const char *a10_price = NULL, *a10_gpu = NULL;
    for (size_t i = 0; i < json_array_size(skus); i++)
        if (strcmp(json_str(json_array_get(skus, i), "id"), "a10-24g-x1") == 0) {
            a10_price = json_str(json_array_get(skus, i), "prices.monthly.amount");
            a10_gpu = json_str(json_array_get(skus, i), "gpu.model");
        }
    ck_assert_uint_eq(json_array_size(skus), 6);
    ck_assert_str_eq(a10_price ? a10_price : "<none>", "1500.00");
    ck_assert_str_eq(a10_gpu ? a10_gpu : "<none>", "A10 24GB");
    /* The models and rules in the shapes their PUTs take, ids added. */
    ck_assert_str_eq(json_join(detail->json, "gpu_models", "id"),
                     "a10-24g,t4-16g,v100-16g,v100-32g");
    ck_assert_uint_eq(json_array_size(json_at(detail->json, "bundles")), 2);
    http_response_free(detail);

    /* A rule that ends before it starts; then one without an end. */
    snprintf(path, sizeof path, "%s/discount-rules/a10-launch", base);
    expect_call("PUT", path,
                "{\"name\":\"A10 launch\",\"sku\":\"a10-24g-x1\",\"basis_points\":1000,"
                "\"valid_from\":\"2027-01-01T00:00:00Z\",\"valid_until\":\"2026-06-01T00:00:00Z\"}",
                422, "invalid_validity", "valid_until");
    expect_call("PUT", path, "{\"name\":\"A10 launch\",\"basis_points\":1000,\"amount_off\":\"1\"}",
                422, "invalid_value", "basis_points");
    expect_call("PUT", path,
                "{\"name\":\"A10 launch\",\"sku\":\"a10-24g-x1\",\"segment\":\"startup\","
                "\"basis_points\":1000,\"valid_from\":\"2027-01-01T00:00:00Z\"}",
                200, NULL, NULL);
    struct http_response *rules = call("GET", base, NULL);
    json_t *rule = json_array_get(json_at(rules->json, "discount_rules"),
                                  json_array_size(json_at(rules->json, "discount_rules")) - 1);
    expect_str(rule, "id", "a10-launch");
    expect_str(rule, "segment", "startup");
    ck_assert_int_eq(json_integer_value(json_at(rule, "basis_points")), 1000);
    expect_str(rule, "valid_from", "2027-01-01T00:00:00Z");
    ck_assert(json_is_null(json_at(rule, "valid_until")));
    ck_assert(json_is_null(json_at(rule, "amount_off")));
    http_response_free(rules);

    /* A bundle of a SKU the list does not have; then of the A10. */
    snprintf(path, sizeof path, "%s/bundles/a10-month", base);
    expect_call("PUT", path,
                "{\"name\":\"A10 month\",\"list_price\":\"2000.00\",\"price\":\"1400.00\","
                "\"contents\":[{\"sku\":\"x9\",\"quantity\":1,\"hours\":720}]}",
                422, "unknown_sku", "contents[0].sku");
    expect_call("PUT", path,
                "{\"name\":\"A10 month\",\"list_price\":\"2000.00\",\"price\":\"1400.00\","
                "\"translations\":{\"zh-CN\":{\"name\":\"A10 月卡\"}},"
                "\"contents\":[{\"sku\":\"a10-24g-x1\",\"quantity\":1,\"hours\":720}]}",
                200, NULL, NULL);

    /* What is in use is not deleted; what is not, is, once. */
    snprintf(path, sizeof path, "%s/gpu-models/a10-24g", base);
    expect_call("DELETE", path, NULL, 422, "invalid_value", NULL);
    snprintf(path, sizeof path, "%s/skus/a10-24g-x1", base);
    expect_call("DELETE", path, NULL, 422, "invalid_value", NULL); /* in a10-month */
    snprintf(path, sizeof path, "%s/bundles/a10-month", base);
    expect_call("DELETE", path, NULL, 200, NULL, NULL);
    expect_call("DELETE", path, NULL, 404, "not_found", NULL);
    expect_call("PUT", PRICE_PATH, "{\"amount\":\"2.50\"}", 200, NULL, NULL);

    struct http_response *diff = call("GET", "/admin/price-lists/2/diff", NULL);
    expect_status(diff, 200);
    char entities[512];
    snprintf(entities, sizeof entities, "%s", json_join(diff->json, "changes", "entity"));
    ck_assert_msg(strstr(entities, "gpu_model") && strstr(entities, "sku") &&
                      strstr(entities, "discount_rule") && !strstr(entities, "bundle,") &&
                      strstr(entities, "price"),
                  "diff: %s", entities);
    http_response_free(diff);

    /* Preview: the A10 is not sold today (an error under the active
     * list), 3.00 x 8 x 90 = 2160.00 under the draft; the V100 at 2.28
     * today and 2.50 then: 1641.60 -> 1800.00, 158.40 more. */
    struct http_response *preview =
        call("POST", "/admin/price-lists/2/preview", "{\"usages\":[" A10_QUOTE "," QUOTE "]}");
    expect_status(preview, 200);
    ck_assert_int_eq(json_integer_value(json_at(preview->json, "active_version")), 1);
    expect_str(preview->json, "samples[0].active.error.code", "unknown_sku");
    expect_str(preview->json, "samples[0].draft.total", "2160.00");
    ck_assert(json_is_null(json_at(preview->json, "samples[0].difference")));
    expect_str(preview->json, "samples[1].active.total", "1641.60");
    expect_str(preview->json, "samples[1].draft.total", "1800.00");
    expect_str(preview->json, "samples[1].difference", "158.40");
    http_response_free(preview);

    /* The newest stored quote, priced again: the one saved last. */
    expect_call("POST", "/quote", QUOTE, 201, NULL, NULL);
    preview = call("POST", "/admin/price-lists/2/preview", "{\"recent_quotes\":5}");
    expect_status(preview, 200);
    ck_assert_uint_eq(json_array_size(json_at(preview->json, "samples")), 1);
    expect_str(preview->json, "samples[0].difference", "158.40");
    http_response_free(preview);
    expect_call("POST", "/admin/price-lists/2/preview", "{\"usages\":[],\"recent_quotes\":1}", 422,
                "invalid_value", "usages");
    expect_call("POST", "/admin/price-lists/2/preview", "{\"recent_quotes\":0}", 422,
                "out_of_range", "recent_quotes");

    char actions[1024];
    audit_actions(actions, sizeof actions);
    ck_assert_str_eq(actions, "key.create,price_list.create,price_list.gpu_model.put,"
                              "price_list.sku.put,price_list.discount_rule.put,"
                              "price_list.bundle.put,price_list.bundle.delete,"
                              "price_list.price.put");
}
END_TEST

/* A deletion that would leave a reference dangling is refused, naming
 * what refers to it: a SKU in a bundle, a GPU model a SKU is on. */
START_TEST(test_deletion_keeps_references)
{
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    struct http_response *sku = call("DELETE", "/admin/price-lists/2/skus/v100-16g-x1", NULL);
    expect_error(sku, 422, "invalid_value", NULL);
    ck_assert_ptr_nonnull(strstr(json_str(sku->json, "error.message"), "training-starter-monthly"));
    http_response_free(sku);
    struct http_response *model = call("DELETE", "/admin/price-lists/2/gpu-models/v100-16g", NULL);
    expect_error(model, 422, "invalid_value", NULL);
    ck_assert_ptr_nonnull(strstr(json_str(model->json, "error.message"), "'v100-16g-x1'"));
    http_response_free(model);
    expect_call("DELETE", "/admin/price-lists/2/skus/v100-32g-x4", NULL, 200, NULL, NULL);
}
END_TEST

/* A member that must be an object and is not is refused at its own path. */
START_TEST(test_members_must_be_objects)
{
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    const char *sku = "/admin/price-lists/2/skus/v100-16g-x9";
    expect_call(
        "PUT", sku,
        "{\"name\":\"V100\",\"gpu_model\":\"v100-16g\",\"gpu_count\":1,\"interconnect\":\"none\","
        "\"prices\":{\"on_demand\":\"3.00\"}}",
        422, "invalid_type", "prices.on_demand");
    expect_call(
        "PUT", sku,
        "{\"name\":\"V100\",\"gpu_model\":\"v100-16g\",\"gpu_count\":1,\"interconnect\":\"none\","
        "\"translations\":{\"zh-CN\":\"V100\"}}",
        422, "invalid_type", "translations.zh-CN");
    expect_call("PUT", "/admin/price-lists/2/bundles/b9",
                "{\"name\":\"B\",\"segment\":\"individual\",\"list_price\":\"2000.00\","
                "\"price\":\"1400.00\","
                "\"contents\":[1]}",
                422, "invalid_type", "contents[0]");
    struct http_response *diff = call("GET", "/admin/price-lists/2/diff", NULL);
    expect_status(diff, 200);
    ck_assert_uint_eq(json_array_size(json_at(diff->json, "changes")), 0);
    http_response_free(diff);
}
END_TEST

/* A draft takes no body but {}: a field would be one the client expects
 * to count, and none does. */
START_TEST(test_create_takes_no_fields)
{
    expect_call("POST", "/admin/price-lists", "{\"from\":1}", 422, "unknown_field", "from");
    expect_call("POST", "/admin/price-lists", "[]", 422, "invalid_type", NULL);
    struct http_response *lists = call("GET", "/admin/price-lists", NULL);
    ck_assert_uint_eq(json_array_size(json_at(lists->json, "data")), 1);
    http_response_free(lists);
    expect_call("POST", "/admin/price-lists", "{}", 201, NULL, NULL);
}
END_TEST

/* A price for a SKU the draft lacks names the draft's own version. */
START_TEST(test_unknown_sku_names_the_version)
{
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    struct http_response *missing =
        call("PUT", "/admin/price-lists/2/prices/x9/on_demand", "{\"amount\":\"2.50\"}");
    expect_error(missing, 404, "not_found", NULL);
    expect_str(missing->json, "error.message", "price list 2 has no SKU 'x9'");
    http_response_free(missing);
}
END_TEST

/* One ceiling for every price, named when it is passed. */
START_TEST(test_price_ceiling)
{
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    struct http_response *dear = call("PUT", PRICE_PATH, "{\"amount\":\"10000000000.00\"}");
    expect_error(dear, 422, "out_of_range", "amount");
    expect_str(dear->json, "error.message",
               "amount (10000000000.00) is above 100000000.00, the highest price a price list may "
               "hold");
    http_response_free(dear);
    expect_call("PUT", PRICE_PATH, "{\"amount\":\"100000000.01\"}", 422, "out_of_range", "amount");
    expect_call("PUT", PRICE_PATH, "{\"amount\":1000000000}", 422, "out_of_range", "amount");
    expect_call("PUT", "/admin/price-lists/2/bundles/b9",
                "{\"name\":\"Year\",\"list_price\":\"100000000.01\",\"price\":\"1400.00\","
                "\"contents\":[{\"sku\":\"t4-16g-x1\",\"quantity\":1,\"hours\":720}]}",
                422, "out_of_range", "list_price");
    expect_call("PUT", "/admin/price-lists/2/discount-rules/r9",
                "{\"name\":\"Big\",\"amount_off\":\"100000000.01\"}", 422, "out_of_range",
                "amount_off");
    expect_call("PUT", PRICE_PATH, "{\"amount\":\"100000000.00\"}", 200, NULL, NULL);
}
END_TEST

/* Nothing is made free by one entry: not a bundle at 0.00, not a rule of
 * 100 %; 99.99 % is the most a rule takes. */
START_TEST(test_nothing_free_by_one_entry)
{
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    expect_call("PUT", "/admin/price-lists/2/bundles/b9",
                "{\"name\":\"Free\",\"list_price\":\"2000.00\",\"price\":\"0.00\","
                "\"contents\":[{\"sku\":\"t4-16g-x1\",\"quantity\":1,\"hours\":720}]}",
                422, "price_not_positive", "price");
    expect_call("PUT", "/admin/price-lists/2/discount-rules/r9",
                "{\"name\":\"Free\",\"basis_points\":10000}", 422, "out_of_range", "basis_points");
    expect_call("PUT", "/admin/price-lists/2/discount-rules/r9",
                "{\"name\":\"Nearly free\",\"basis_points\":9999}", 200, NULL, NULL);
}
END_TEST

/* Times as RFC 3339 or whole unix seconds, in a rule and a publish. */
START_TEST(test_times_in_unix_seconds)
{
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    expect_call("POST", "/admin/price-lists/2/publish", "{\"effective_at\":1.5}", 422,
                "invalid_value", "effective_at");
    expect_call("POST", "/admin/price-lists/2/publish", "{\"effective_at\":-1}", 422,
                "invalid_value", "effective_at");
    expect_call("POST", "/admin/price-lists/2/publish", "{\"effective_at\":true}", 422,
                "invalid_type", "effective_at");
    expect_call("PUT", "/admin/price-lists/2/discount-rules/r9",
                "{\"name\":\"Later\",\"basis_points\":1000,\"valid_from\":1798761600}", 200, NULL,
                NULL);
    struct http_response *rule = call("GET", "/admin/price-lists/2", NULL);
    json_t *rules = json_at(rule->json, "discount_rules");
    expect_str(json_array_get(rules, json_array_size(rules) - 1), "valid_from",
               "2027-01-01T00:00:00Z");
    http_response_free(rule);
    struct http_response *published =
        call("POST", "/admin/price-lists/2/publish", "{\"effective_at\":4102444800}");
    expect_status(published, 200);
    expect_str(published->json, "state", "scheduled");
    expect_str(published->json, "effective_at", "2100-01-01T00:00:00Z");
    http_response_free(published);
    struct http_response *announced = call("GET", "/catalog?at=4102444800", NULL);
    expect_status(announced, 200);
    ck_assert_int_eq(json_integer_value(json_at(announced->json, "price_list_version")), 2);
    http_response_free(announced);
    expect_call("GET", "/catalog?at=41024448x", NULL, 400, "invalid_parameter", "at");
}
END_TEST

/* ---- Lists that cannot surprise: revert, cancel, rebase. ---- */

#define T4_PRICE "/prices/t4-16g-x1/on_demand"
#define V100_PRICE "/prices/v100-16g-x1/on_demand"
#define IN_2027 "{\"effective_at\":\"2027-01-01T00:00:00Z\"}"

/* The on-demand price of SKU `id` in list `version`. */
static const char *list_price(int version, const char *id, char out[32])
{
    char path[64];
    snprintf(path, sizeof path, "/admin/price-lists/%d", version);
    struct http_response *list = call("GET", path, NULL);
    expect_status(list, 200);
    snprintf(out, 32, "<none>");
    json_t *skus = json_object_get(list->json, "skus");
    for (size_t i = 0; i < json_array_size(skus); i++)
        if (strcmp(json_str(json_array_get(skus, i), "id"), id) == 0)
            snprintf(out, 32, "%s", json_str(json_array_get(skus, i), "prices.on_demand.amount"));
    http_response_free(list);
    return out;
}

static const char *list_field(int version, const char *field, char out[32])
{
    char path[64];
    snprintf(path, sizeof path, "/admin/price-lists/%d", version);
    struct http_response *list = call("GET", path, NULL);
    expect_status(list, 200);
    json_t *value = json_at(list->json, field);
    if (json_is_integer(value))
        snprintf(out, 32, "%lld", (long long)json_integer_value(value));
    else
        snprintf(out, 32, "%s", json_str(list->json, field));
    http_response_free(list);
    return out;
}

/* Draft `version` with its on-demand prices set (NULL: kept). */
static void draft(int version, const char *t4, const char *v100)
{
    char path[96], body[48];
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    if (t4 != NULL) {
        snprintf(path, sizeof path, "/admin/price-lists/%d" T4_PRICE, version);
        snprintf(body, sizeof body, "{\"amount\":\"%s\"}", t4);
        expect_call("PUT", path, body, 200, NULL, NULL);
    }
    if (v100 != NULL) {
        snprintf(path, sizeof path, "/admin/price-lists/%d" V100_PRICE, version);
        snprintf(body, sizeof body, "{\"amount\":\"%s\"}", v100);
        expect_call("PUT", path, body, 200, NULL, NULL);
    }
}

/* The T4 at 8.80 now would be put back to 9.90 in 2027 by a list drafted
 * before it: refused, listing that price, unless allowed. */
START_TEST(test_publish_would_revert)
{
    char text[32];
    draft(2, NULL, "2.50");
    expect_call("POST", "/admin/price-lists/2/publish", IN_2027, 200, NULL, NULL);
    draft(3, "8.80", NULL);
    struct http_response *refused = call("POST", "/admin/price-lists/3/publish", NULL);
    expect_error(refused, 409, "price_list_would_revert", NULL);
    ck_assert_uint_eq(json_array_size(json_at(refused->json, "error.reverts")), 1);
    expect_str(refused->json, "error.reverts[0].entity", "price");
    expect_str(refused->json, "error.reverts[0].id", "t4-16g-x1/on_demand");
    expect_str(refused->json, "error.reverts[0].field", "amount");
    expect_str(refused->json, "error.reverts[0].now", "8.80");
    expect_str(refused->json, "error.reverts[0].reverted_to", "9.90");
    ck_assert_int_eq(json_integer_value(json_at(refused->json, "error.reverts[0].version")), 2);
    http_response_free(refused);
    ck_assert_str_eq(list_field(3, "state", text), "draft");
    expect_call("POST", "/admin/price-lists/3/publish", "{\"revert_scheduled\":\"maybe\"}", 422,
                "invalid_value", "revert_scheduled");
    expect_call("POST", "/admin/price-lists/3/publish", "{\"revert_scheduled\":\"allow\"}", 200,
                NULL, NULL);
    ck_assert_str_eq(list_field(3, "state", text), "active");
}
END_TEST

/* Scheduling a list drafted before the active one would undo it too. */
START_TEST(test_schedule_older_base_would_revert)
{
    char text[32];
    draft(2, NULL, "2.50");
    draft(3, "8.80", NULL);
    expect_call("POST", "/admin/price-lists/3/publish", NULL, 200, NULL, NULL);
    struct http_response *refused = call("POST", "/admin/price-lists/2/publish", IN_2027);
    expect_error(refused, 409, "price_list_would_revert", NULL);
    expect_str(refused->json, "error.reverts[0].id", "t4-16g-x1/on_demand");
    expect_str(refused->json, "error.reverts[0].now", "8.80");
    expect_str(refused->json, "error.reverts[0].reverted_to", "9.90");
    http_response_free(refused);
    ck_assert_str_eq(list_field(2, "state", text), "draft");
}
END_TEST

/* A scheduled list withdrawn: its instant shows the active prices. */
START_TEST(test_cancel_scheduled)
{
    char text[32], actions[512];
    draft(2, NULL, "2.50");
    expect_call("POST", "/admin/price-lists/2/publish", IN_2027, 200, NULL, NULL);
    struct http_response *canceled = call("POST", "/admin/price-lists/2/cancel", NULL);
    expect_status(canceled, 200);
    expect_str(canceled->json, "state", "canceled");
    http_response_free(canceled);
    struct http_response *at = call("GET", "/catalog?at=1798761600", NULL);
    expect_status(at, 200);
    ck_assert_int_eq(json_integer_value(json_at(at->json, "price_list_version")), 1);
    ck_assert_str_ne(v100_price(at->json), "2.50");
    http_response_free(at);
    expect_call("POST", "/admin/price-lists/2/publish", NULL, 409, "price_list_not_draft", NULL);
    expect_call("POST", "/admin/price-lists/2/cancel", NULL, 409, "price_list_not_draft", NULL);
    expect_call("POST", "/admin/price-lists/1/cancel", NULL, 409, "price_list_not_draft", NULL);
    ck_assert_str_eq(list_field(2, "state", text), "canceled");
    audit_actions(actions, sizeof actions);
    ck_assert_ptr_nonnull(strstr(actions, "price_list.cancel"));
    struct http_response *events = call("GET", "/events", NULL);
    expect_status(events, 200);
    ck_assert_ptr_nonnull(strstr(json_join(events->json, "data", "type"), "price_list.canceled"));
    http_response_free(events);
}
END_TEST

/* The scheduled list's V100 re-applied onto the T4 published since. */
START_TEST(test_rebase_without_conflict)
{
    char text[32];
    draft(2, NULL, "2.50");
    expect_call("POST", "/admin/price-lists/2/publish", IN_2027, 200, NULL, NULL);
    draft(3, "8.80", NULL);
    expect_call("POST", "/admin/price-lists/3/publish", "{\"revert_scheduled\":\"allow\"}", 200,
                NULL, NULL);
    struct http_response *rebased = call("POST", "/admin/price-lists/2/rebase", NULL);
    expect_status(rebased, 200);
    expect_str(rebased->json, "state", "scheduled");
    expect_str(rebased->json, "effective_at", "2027-01-01T00:00:00Z");
    ck_assert_int_eq(json_integer_value(json_at(rebased->json, "based_on")), 3);
    http_response_free(rebased);
    ck_assert_str_eq(list_price(2, "t4-16g-x1", text), "8.80");
    ck_assert_str_eq(list_price(2, "v100-16g-x1", text), "2.50");
    struct http_response *diff = call("GET", "/admin/price-lists/2/diff", NULL);
    expect_status(diff, 200);
    ck_assert_uint_eq(json_array_size(json_at(diff->json, "changes")), 1);
    http_response_free(diff);
}
END_TEST

/* Both changed the T4: the conflict listed, the list untouched. */
START_TEST(test_rebase_conflict_changes_nothing)
{
    char text[32];
    draft(2, "7.50", "2.50");
    expect_call("POST", "/admin/price-lists/2/publish", IN_2027, 200, NULL, NULL);
    draft(3, "8.80", NULL);
    expect_call("POST", "/admin/price-lists/3/publish", "{\"revert_scheduled\":\"allow\"}", 200,
                NULL, NULL);
    struct http_response *refused = call("POST", "/admin/price-lists/2/rebase", NULL);
    expect_error(refused, 409, "price_list_rebase_conflict", NULL);
    ck_assert_uint_eq(json_array_size(json_at(refused->json, "error.conflicts")), 1);
    expect_str(refused->json, "error.conflicts[0].id", "t4-16g-x1/on_demand");
    expect_str(refused->json, "error.conflicts[0].field", "amount");
    expect_str(refused->json, "error.conflicts[0].base", "9.90");
    expect_str(refused->json, "error.conflicts[0].list", "7.50");
    expect_str(refused->json, "error.conflicts[0].active", "8.80");
    http_response_free(refused);
    ck_assert_str_eq(list_price(2, "t4-16g-x1", text), "7.50");
    ck_assert_str_eq(list_field(2, "based_on", text), "1");
    ck_assert_str_eq(list_field(2, "state", text), "scheduled");
}
END_TEST

/* A draft's GPU model with the one whose id is `id` in list `version`, as
 * its PUT takes it (id left out), `capability` set when not NULL (JSON
 * text: a number or null). */
static char *model_body(int version, const char *id, const char *capability)
{
    char path[64];
    snprintf(path, sizeof path, "/admin/price-lists/%d", version);
    struct http_response *list = call("GET", path, NULL);
    expect_status(list, 200);
    json_t *models = json_at(list->json, "gpu_models"), *model = NULL;
    for (size_t i = 0; i < json_array_size(models); i++)
        if (strcmp(json_str(json_array_get(models, i), "id"), id) == 0)
            model = json_deep_copy(json_array_get(models, i));
    ck_assert_ptr_nonnull(model);
    http_response_free(list);
    json_object_del(model, "id");
    json_object_del(model, "compute_capability");
    if (capability != NULL)
        json_object_set_new(model, "compute_capability",
                            json_loads(capability, JSON_DECODE_ANY, NULL));
    char *body = json_dumps(model, JSON_COMPACT);
    json_decref(model);
    return body;
}

/* GPU model `id`'s compute capability in list `version`, as JSON text. */
static const char *list_capability(int version, const char *id, char out[32])
{
    char path[64];
    snprintf(path, sizeof path, "/admin/price-lists/%d", version);
    struct http_response *list = call("GET", path, NULL);
    expect_status(list, 200);
    json_t *models = json_at(list->json, "gpu_models");
    snprintf(out, 32, "<none>");
    for (size_t i = 0; i < json_array_size(models); i++)
        if (strcmp(json_str(json_array_get(models, i), "id"), id) == 0)
            snprintf(out, 32, "%s", json_text(json_array_get(models, i), "compute_capability"));
    http_response_free(list);
    return out;
}

#define BF16_SERVING                                                                               \
    "{\"workload\":{\"task\":\"inference\",\"model\":\"qwen2.5-7b\",\"precision\":\"bf16\","       \
    "\"concurrent_requests\":50,\"context_tokens\":4096},\"limit\":20}"

/* Whether BF16_SERVING's recommendations on the V100 16GB say bf16 is
 * served as fp16 there (there must be some). */
static bool bf16_served_as_fp16(void)
{
    struct http_response *response = call("POST", "/recommend", BF16_SERVING);
    expect_status(response, 200);
    json_t *recommendations = json_at(response->json, "recommendations");
    int on_v100 = 0;
    bool noted = false;
    for (size_t i = 0; i < json_array_size(recommendations); i++) {
        json_t *one = json_array_get(recommendations, i);
        if (strncmp(json_str(one, "sku"), "v100-16g", 8) != 0)
            continue;
        on_v100++;
        char *reasons = json_dumps(json_object_get(one, "reasons"), 0);
        noted = noted || strstr(reasons, "served as fp16") != NULL;
        free(reasons);
    }
    http_response_free(response);
    ck_assert_int_gt(on_v100, 0);
    return noted;
}

struct bad_capability {
    const char *value;
    int status;
    const char *code;
};

static const struct bad_capability bad_capabilities[] = {
    {"8.65", 422, "invalid_value"},   {"100", 422, "out_of_range"},  {"0.9", 422, "out_of_range"},
    {"\"8.6\"", 422, "invalid_type"}, {"true", 422, "invalid_type"},
};

/* A compute capability out of range, of two decimals or not a number is a
 * 422 naming the field, and the draft keeps what it had. */
START_TEST(test_compute_capability_refused)
{
    const struct bad_capability *c = &bad_capabilities[_i];
    char text[32];
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    char *body = model_body(2, "v100-16g", c->value);
    expect_call("PUT", "/admin/price-lists/2/gpu-models/v100-16g", body, c->status, c->code,
                "compute_capability");
    free(body);
    ck_assert_str_eq(list_capability(2, "v100-16g", text), "7.0");
}
END_TEST

/* The V100 given 8.6 in a draft: shown so, kept by a PUT that leaves it
 * out, cleared by null elsewhere; once the list is active the catalog
 * shows it and /recommend no longer serves bf16 on the V100 as fp16. */
START_TEST(test_compute_capability_edited)
{
    char text[32];
    ck_assert(bf16_served_as_fp16());
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    ck_assert_str_eq(list_capability(2, "v100-16g", text), "7.0");
    ck_assert_str_eq(list_capability(2, "t4-16g", text), "7.5");

    char *body = model_body(2, "v100-16g", "8.6");
    struct http_response *put = call("PUT", "/admin/price-lists/2/gpu-models/v100-16g", body);
    free(body);
    expect_status(put, 200);
    expect_text(put->json, "value.compute_capability", "8.6");
    http_response_free(put);
    ck_assert_str_eq(list_capability(2, "v100-16g", text), "8.6");
    body = model_body(2, "v100-16g", NULL);
    expect_call("PUT", "/admin/price-lists/2/gpu-models/v100-16g", body, 200, NULL, NULL);
    free(body);
    ck_assert_str_eq(list_capability(2, "v100-16g", text), "8.6");
    body = model_body(2, "v100-32g", "null");
    expect_call("PUT", "/admin/price-lists/2/gpu-models/v100-32g", body, 200, NULL, NULL);
    free(body);
    ck_assert_str_eq(list_capability(2, "v100-32g", text), "null");

    expect_call("POST", "/admin/price-lists/2/publish", "{}", 200, NULL, NULL);
    struct http_response *catalog = call("GET", "/catalog", NULL);
    expect_status(catalog, 200);
    ck_assert_int_eq(json_integer_value(json_at(catalog->json, "price_list_version")), 2);
    json_t *skus = json_at(catalog->json, "skus");
    char seen[256] = "";
    for (size_t i = 0; i < json_array_size(skus); i++) {
        json_t *sku = json_array_get(skus, i);
        size_t used = strlen(seen);
        snprintf(seen + used, sizeof seen - used, "%s=%s,", json_str(sku, "id"),
                 json_text(sku, "gpu.compute_capability"));
    }
    http_response_free(catalog);
    ck_assert_ptr_nonnull(strstr(seen, "v100-16g-x1=8.6,"));
    ck_assert_ptr_nonnull(strstr(seen, "t4-16g-x1=7.5,"));
    ck_assert_msg(!bf16_served_as_fp16(), "catalog: %s", seen);
}
END_TEST

/* ---- Edits of one draft at once, on two servers of one database. ---- */

static const char *const racing_skus[] = {"v100-16g-x1", "v100-16g-x2", "v100-32g-x4",
                                          "v100-32g-x8", "t4-16g-x1"};
#define RACERS (sizeof racing_skus / sizeof racing_skus[0])
enum { RACE_ROUNDS = 6 };

struct price_racer {
    uint16_t port;
    char path[96], body[48];
    pthread_barrier_t *start;
    long status;
};

static void *put_price(void *argument)
{
    struct price_racer *racer = argument;
    const char *const headers[] = {JSON_TYPE, NULL};
    pthread_barrier_wait(racer->start);
    struct http_response *response =
        http_once(racer->port, "PUT", racer->path, headers, racer->body);
    racer->status = response->status;
    http_response_free(response);
    return NULL;
}

/* Each round, every SKU's on-demand price is put at the same moment, half
 * through each server: every edit is answered 200 and every one is in the
 * draft afterwards, none written over by another's read of the draft
 * before it. */
START_TEST(test_concurrent_edits_all_kept)
{
    struct server other;
    memset(&other, 0, sizeof other);
    server_prepare(&other);
    snprintf(other.db_path, sizeof other.db_path, "%s", server.db_path);
    server_start(&other, NULL);
    http_register_key(other.port, server.admin_key);
    expect_call("POST", "/admin/price-lists", NULL, 201, NULL, NULL);
    for (int round = 0; round < RACE_ROUNDS; round++) {
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, RACERS);
        struct price_racer racers[RACERS];
        pthread_t threads[RACERS];
        for (size_t i = 0; i < RACERS; i++) {
            racers[i] =
                (struct price_racer){.port = i % 2 ? other.port : server.port, .start = &start};
            snprintf(racers[i].path, sizeof racers[i].path,
                     "/admin/price-lists/2/prices/%s/on_demand", racing_skus[i]);
            snprintf(racers[i].body, sizeof racers[i].body, "{\"amount\":\"%d.%02zu\"}", 50 + round,
                     i);
            ck_assert_int_eq(pthread_create(&threads[i], NULL, put_price, &racers[i]), 0);
        }
        for (size_t i = 0; i < RACERS; i++)
            pthread_join(threads[i], NULL);
        pthread_barrier_destroy(&start);
        for (size_t i = 0; i < RACERS; i++) {
            char text[32], want[32];
            ck_assert_int_eq(racers[i].status, 200);
            snprintf(want, sizeof want, "%d.%02zu", 50 + round, i);
            ck_assert_msg(strcmp(list_price(2, racing_skus[i], text), want) == 0,
                          "round %d: %s is %s, was put at %s", round, racing_skus[i], text, want);
        }
    }
    server_finish(&other);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_price_lists");
    TCase *lists = tcase_create("price_lists");
    tcase_add_checked_fixture(lists, start, finish);
    tcase_add_test(lists, test_cycle_switches_at_the_instant);
    tcase_add_test(lists, test_refusals_change_nothing);
    tcase_add_test(lists, test_entities_and_preview);
    tcase_add_test(lists, test_deletion_keeps_references);
    tcase_add_test(lists, test_members_must_be_objects);
    tcase_add_test(lists, test_create_takes_no_fields);
    tcase_add_test(lists, test_unknown_sku_names_the_version);
    tcase_add_test(lists, test_price_ceiling);
    tcase_add_test(lists, test_nothing_free_by_one_entry);
    tcase_add_test(lists, test_times_in_unix_seconds);
    tcase_add_test(lists, test_publish_would_revert);
    tcase_add_test(lists, test_schedule_older_base_would_revert);
    tcase_add_test(lists, test_cancel_scheduled);
    tcase_add_test(lists, test_rebase_without_conflict);
    tcase_add_test(lists, test_rebase_conflict_changes_nothing);
    tcase_add_loop_test(lists, test_compute_capability_refused, 0,
                        sizeof bad_capabilities / sizeof bad_capabilities[0]);
    tcase_add_test(lists, test_compute_capability_edited);
    tcase_add_test(lists, test_concurrent_edits_all_kept);
    suite_set_timeout(lists, 60);
    suite_add_tcase(suite, lists);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
