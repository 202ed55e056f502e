/*
 * GET /catalog and its sub-resources through the real server: the five SKUs
 * of the seed with every hardware figure and every price to the fen (the
 * seed price list, and 4 × V100 = 500 TFLOPS, not the article's 512), each
 * filter and sort with the exact ids it selects, a SKU by id, billing
 * modes, bundles, entity tags and 304s, Cache-Control, HEAD, malformed
 * query parameters (400 invalid_parameter naming the parameter) and CORS
 * from a configuration file or the environment.
 *
 * The read-only cases share one server per test case (started by an
 * unchecked fixture); the CORS cases start servers of their own.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/shared.h"
#include "support/suite.h"

#define ALL_IDS "t4-16g-x1,v100-16g-x1,v100-16g-x2,v100-32g-x4,v100-32g-x8"
#define CACHE_CONTROL "public, max-age=60"

static struct http_response *get_with(const char *path, const char *header)
{
    const char *const headers[] = {header, NULL};
    return http_request(client, "GET", path, header ? headers : NULL, NULL);
}

/* The length of the 200's body at `path`, as the 304's Content-Length must
 * give it (RFC 9110 8.6). */
static void expect_full_length(struct http_response *not_modified, const char *path)
{
    struct http_response *full = http_get(client, path);
    expect_status(full, 200);
    char length[32];
    snprintf(length, sizeof length, "%zu", full->body_length);
    const char *sent = http_header(not_modified, "content-length");
    ck_assert_msg(sent != NULL && strcmp(sent, length) == 0,
                  "304 on %s: Content-Length %s, the 200's body is %s bytes", path,
                  sent ? sent : "(none)", length);
    http_response_free(full);
}

/* The ETag of a GET of `path`, checked for its form: a quoted 32-digit hex. */
static void fetch_etag(const char *path, char etag[64])
{
    struct http_response *response = http_get(client, path);
    expect_status(response, 200);
    const char *value = http_header(response, "etag");
    ck_assert_ptr_nonnull(value);
    ck_assert_uint_eq(strlen(value), 34);
    ck_assert_int_eq(value[0], '"');
    ck_assert_int_eq(value[33], '"');
    ck_assert_uint_eq(strspn(value + 1, "0123456789abcdef"), 32);
    snprintf(etag, 64, "%s", value);
    http_response_free(response);
}

/* The SKU with `id` in a listing body, or NULL. */
static json_t *find_sku(json_t *listing, const char *id)
{
    size_t index;
    json_t *sku;
    json_array_foreach(json_at(listing, "skus"), index, sku)
    {
        if (id != NULL && strcmp(json_str(sku, "id"), id) == 0)
            return sku;
    }
    return NULL;
}

/* ---- the five SKUs ------------------------------------------------------ */

struct expected_sku {
    const char *id, *name, *model, *memory_type;
    int memory_gb;
    const char *fp16_tflops;
    int bandwidth, tdp, gpu_count, total_memory_gb;
    const char *total_fp16_tflops, *interconnect;
    const char *on_demand, *monthly, *quarterly, *student;
    const char *monthly_per_hour, *quarterly_per_hour;
};

/* The seed price list; hourly equivalents are block price ÷ 720 h or 2160 h,
 * half-up to the fen. */
static const struct expected_sku skus[] = {
    {"t4-16g-x1", "T4 16GB \xc3\x97 1", "T4", "GDDR6", 16, "65.0", 320, 70, 1, 16, "65.0", "none",
     "9.90", "5350.00", "14321.00", "6.50", "7.43", "6.63"},
    {"v100-16g-x1", "V100 16GB \xc3\x97 1", "V100", "HBM2", 16, "125.0", 900, 300, 1, 16, "125.0",
     "none", "2.28", "1231.00", "3305.00", "1.50", "1.71", "1.53"},
    {"v100-16g-x2", "V100 16GB \xc3\x97 2", "V100", "HBM2", 16, "125.0", 900, 300, 2, 32, "250.0",
     "nvlink", "4.28", "2311.00", "6199.00", "2.80", "3.21", "2.87"},
    {"v100-32g-x4", "V100 32GB \xc3\x97 4", "V100", "HBM2", 32, "125.0", 900, 300, 4, 128, "500.0",
     "nvlink", "9.68", "5227.00", "14018.00", "6.38", "7.26", "6.49"},
    {"v100-32g-x8", "V100 32GB \xc3\x97 8", "V100", "HBM2", 32, "125.0", 900, 300, 8, 256, "1000.0",
     "nvlink", "19.28", "10411.00", "27907.00", "12.68", "14.46", "12.92"},
};

#define SKU_COUNT (int)(sizeof skus / sizeof skus[0])

static void expect_sku(json_t *sku, const struct expected_sku *want)
{
    char text[32];
    ck_assert_str_eq(json_keys(sku, ""), "id,name,description,available,gpu,gpu_count,"
                                         "total_memory_gb,total_fp16_tflops,interconnect,host,"
                                         "prices");
    expect_text(sku, "available", "true");
    ck_assert_str_eq(json_keys(sku, "host"), "instance_type,vcpus,memory_gib,system_disk_gb,"
                                             "bandwidth_gbps,region,provisioning_minutes,"
                                             "software,ssh");
    expect_text(sku, "host.provisioning_minutes", "{\"min\":10,\"max\":30,\"average\":10}");
    expect_text(sku, "host.software", "[\"CUDA\",\"PyTorch\"]");
    expect_text(sku, "host.ssh", "true");
    expect_text(sku, "host.region", "{\"id\":\"cn-hangzhou\",\"name\":\"China (Hangzhou)\"}");
    expect_str(sku, "id", want->id);
    expect_str(sku, "name", want->name);
    expect_str(sku, "gpu.model", want->model);
    snprintf(text, sizeof text, "%d", want->memory_gb);
    expect_text(sku, "gpu.memory_gb", text);
    expect_str(sku, "gpu.memory_type", want->memory_type);
    ck_assert_str_eq(json_keys(sku, "gpu"),
                     "model,memory_gb,memory_type,fp16_tflops,fp32_tflops,"
                     "bf16_tflops,memory_bandwidth_gbps,tdp_watts,compute_capability");
    expect_text(sku, "gpu.compute_capability", strcmp(want->model, "T4") == 0 ? "7.5" : "7.0");
    expect_text(sku, "gpu.fp16_tflops", want->fp16_tflops);
    /* NVIDIA's FP32 peaks; neither V100 nor T4 has BF16 tensor cores. */
    expect_text(sku, "gpu.fp32_tflops", strcmp(want->model, "T4") == 0 ? "8.1" : "15.7");
    expect_text(sku, "gpu.bf16_tflops", "null");
    snprintf(text, sizeof text, "%d", want->bandwidth);
    expect_text(sku, "gpu.memory_bandwidth_gbps", text);
    snprintf(text, sizeof text, "%d", want->tdp);
    expect_text(sku, "gpu.tdp_watts", text);
    snprintf(text, sizeof text, "%d", want->gpu_count);
    expect_text(sku, "gpu_count", text);
    snprintf(text, sizeof text, "%d", want->total_memory_gb);
    expect_text(sku, "total_memory_gb", text);
    expect_text(sku, "total_fp16_tflops", want->total_fp16_tflops);
    expect_str(sku, "interconnect", want->interconnect);

    ck_assert_str_eq(json_keys(sku, "prices"), "on_demand,monthly,quarterly,student");
    expect_str(sku, "prices.on_demand.amount", want->on_demand);
    expect_str(sku, "prices.on_demand.per", "hour");
    ck_assert_str_eq(json_keys(sku, "prices.on_demand"), "amount,per");
    expect_str(sku, "prices.monthly.amount", want->monthly);
    expect_str(sku, "prices.monthly.per", "month");
    expect_str(sku, "prices.monthly.hourly_equivalent", want->monthly_per_hour);
    expect_str(sku, "prices.quarterly.amount", want->quarterly);
    expect_str(sku, "prices.quarterly.per", "quarter");
    expect_str(sku, "prices.quarterly.hourly_equivalent", want->quarterly_per_hour);
    expect_str(sku, "prices.student.amount", want->student);
    expect_str(sku, "prices.student.per", "hour");
    expect_text(sku, "prices.student.eligible_segments", "[\"student\"]");
}

START_TEST(test_catalog_lists_the_five_skus_by_id)
{
    struct http_response *response = http_get(client, "/catalog");
    expect_status(response, 200);
    ck_assert_str_eq(http_header(response, "content-type"), "application/json");
    ck_assert_str_eq(json_keys(response->json, ""), "currency,price_list_version,skus");
    expect_str(response->json, "currency", "CNY");
    expect_text(response->json, "price_list_version", "1");
    ck_assert_int_eq(json_count(response->json, "skus"), 5);
    expect_join(response->json, "skus", "id", ALL_IDS);
    http_response_free(response);
}
END_TEST

/* Loop over the SKUs: the listing's entry and GET /catalog/{id} agree with
 * the seed price list, and with each other byte for byte. */
START_TEST(test_catalog_sku_figures)
{
    const struct expected_sku *want = &skus[_i];
    struct http_response *listing = http_get(client, "/catalog");
    expect_status(listing, 200);
    char path[32];
    snprintf(path, sizeof path, "skus[%d]", _i);
    json_t *entry = json_at(listing->json, path);
    ck_assert_ptr_nonnull(entry);
    expect_sku(entry, want);

    char url[64];
    snprintf(url, sizeof url, "/catalog/%s", want->id);
    struct http_response *single = http_get(client, url);
    expect_status(single, 200);
    ck_assert_str_eq(http_header(single, "content-type"), "application/json");
    ck_assert_str_eq(http_header(single, "cache-control"), CACHE_CONTROL);
    ck_assert_ptr_nonnull(http_header(single, "etag"));
    expect_sku(single->json, want);
    ck_assert_msg(json_equal(single->json, entry), "GET %s differs from the listing", url);
    http_response_free(single);
    http_response_free(listing);
}
END_TEST

START_TEST(test_catalog_unknown_sku_is_404)
{
    struct http_response *response = http_get(client, "/catalog/a100-80g-x1");
    expect_error(response, 404, "not_found", NULL);
    expect_str(response->json, "error.message", "no SKU 'a100-80g-x1'");
    http_response_free(response);

    /* A path with more segments than any route, and an empty id. */
    response = http_get(client, "/catalog/v100-16g-x1/extra");
    expect_error(response, 404, "not_found", NULL);
    http_response_free(response);
    response = http_get(client, "/catalog/");
    expect_error(response, 404, "not_found", NULL);
    http_response_free(response);
}
END_TEST

/* ---- filters and sorting ------------------------------------------------ */

struct filter_case {
    const char *query;
    const char *ids;
};

static const struct filter_case filters[] = {
    {"gpu=V100", "v100-16g-x1,v100-16g-x2,v100-32g-x4,v100-32g-x8"},
    {"gpu=t4", "t4-16g-x1"},
    {"gpu=A100", ""},
    {"min_memory_gb=16", ALL_IDS},
    {"min_memory_gb=17", "v100-32g-x4,v100-32g-x8"},
    {"min_memory_gb=32", "v100-32g-x4,v100-32g-x8"},
    {"min_memory_gb=33", ""},
    {"min_total_memory_gb=64", "v100-32g-x4,v100-32g-x8"},
    {"min_total_memory_gb=32", "v100-16g-x2,v100-32g-x4,v100-32g-x8"},
    {"min_total_memory_gb=256", "v100-32g-x8"},
    {"gpu_count=1", "t4-16g-x1,v100-16g-x1"},
    {"gpu_count=2", "v100-16g-x2"},
    {"gpu_count=8", "v100-32g-x8"},
    {"gpu_count=3", ""},
    {"max_hourly=5", "v100-16g-x1,v100-16g-x2"},
    {"max_hourly=9.90", "t4-16g-x1,v100-16g-x1,v100-16g-x2,v100-32g-x4"},
    {"max_hourly=9.89", "v100-16g-x1,v100-16g-x2,v100-32g-x4"},
    {"max_hourly=2.27", ""},
    {"sort=price", "v100-16g-x1,v100-16g-x2,v100-32g-x4,t4-16g-x1,v100-32g-x8"},
    {"sort=-price", "v100-32g-x8,t4-16g-x1,v100-32g-x4,v100-16g-x2,v100-16g-x1"},
    /* memory is the instance's total; equal totals (16 GB) keep ids ascending */
    {"sort=memory", "t4-16g-x1,v100-16g-x1,v100-16g-x2,v100-32g-x4,v100-32g-x8"},
    {"sort=-memory", "v100-32g-x8,v100-32g-x4,v100-16g-x2,t4-16g-x1,v100-16g-x1"},
    {"sort=tflops", "t4-16g-x1,v100-16g-x1,v100-16g-x2,v100-32g-x4,v100-32g-x8"},
    {"sort=-tflops", "v100-32g-x8,v100-32g-x4,v100-16g-x2,v100-16g-x1,t4-16g-x1"},
    {"sort=id", ALL_IDS},
    {"gpu=V100&min_total_memory_gb=32&sort=-price", "v100-32g-x8,v100-32g-x4,v100-16g-x2"},
    {"gpu=v100&gpu_count=1&max_hourly=2.28", "v100-16g-x1"},
    {"min_memory_gb=16&sort=price&max_hourly=10", "v100-16g-x1,v100-16g-x2,v100-32g-x4,t4-16g-x1"},
};

START_TEST(test_catalog_filter)
{
    const struct filter_case *c = &filters[_i];
    char path[256];
    snprintf(path, sizeof path, "/catalog?%s", c->query);
    struct http_response *full = http_get(client, "/catalog");
    struct http_response *response = http_get(client, path);
    expect_status(response, 200);
    ck_assert_str_eq(http_header(response, "content-type"), "application/json");
    ck_assert_str_eq(http_header(response, "cache-control"), CACHE_CONTROL);
    ck_assert_str_eq(json_keys(response->json, ""), "currency,price_list_version,skus");
    expect_str(response->json, "currency", "CNY");
    expect_text(response->json, "price_list_version", "1");
    ck_assert_msg(strcmp(json_join(response->json, "skus", "id"), c->ids) == 0,
                  "?%s selected %s, wanted %s", c->query, json_join(response->json, "skus", "id"),
                  c->ids);
    /* A listing whose body differs from the full catalog's has another
     * entity tag (a query that changes nothing, sort=id, shares it); the
     * SKU objects are the same. */
    const char *etag = http_header(response, "etag");
    ck_assert_ptr_nonnull(etag);
    if (strcmp(response->body, full->body) != 0)
        ck_assert_str_ne(etag, http_header(full, "etag"));
    if (strcmp(c->query, "sort=id") == 0)
        ck_assert_str_eq(etag, http_header(full, "etag"));
    size_t index;
    json_t *sku;
    json_array_foreach(json_at(response->json, "skus"), index, sku)
    {
        json_t *same = find_sku(full->json, json_string_value(json_object_get(sku, "id")));
        ck_assert_msg(json_equal(sku, same), "?%s: SKU %zu differs from the full listing", c->query,
                      index);
    }
    http_response_free(response);
    http_response_free(full);
}
END_TEST

struct bad_parameter {
    const char *query;
    const char *field;
};

static const struct bad_parameter bad_parameters[] = {
    {"min_memory_gb=abc", "min_memory_gb"},
    {"min_memory_gb=-16", "min_memory_gb"},
    {"min_memory_gb=", "min_memory_gb"},
    {"min_memory_gb=16.5", "min_memory_gb"},
    {"min_total_memory_gb=lots", "min_total_memory_gb"},
    {"gpu_count=0", "gpu_count"},
    {"gpu_count=two", "gpu_count"},
    {"max_hourly=-1", "max_hourly"},
    {"max_hourly=2.285", "max_hourly"},
    {"max_hourly=cheap", "max_hourly"},
    {"gpu=V100%20PCIe", "gpu"},
    {"gpu", "gpu"},
    {"gpu=", "gpu"},
    {"sort=colour", "sort"},
    {"sort=--price", "sort"},
    {"colour=red", "colour"},
    {"gpu=V100&gpu=T4", "gpu"},
    {"sort=price&sort=price", "sort"},
    {"sort=price&page=2", "page"},
};

START_TEST(test_catalog_bad_parameter)
{
    const struct bad_parameter *c = &bad_parameters[_i];
    char path[256];
    snprintf(path, sizeof path, "/catalog?%s", c->query);
    struct http_response *response = http_get(client, path);
    expect_error(response, 400, "invalid_parameter", c->field);
    ck_assert_ptr_null(http_header(response, "etag"));
    http_response_free(response);
}
END_TEST

START_TEST(test_catalog_unknown_and_repeated_parameter_messages)
{
    struct http_response *response = http_get(client, "/catalog?gpu=V100&gpu=T4");
    expect_error(response, 400, "invalid_parameter", "gpu");
    expect_str(response->json, "error.message", "parameter 'gpu' is given twice");
    http_response_free(response);
    response = http_get(client, "/catalog?colour=red");
    expect_error(response, 400, "invalid_parameter", "colour");
    ck_assert_ptr_nonnull(strstr(json_str(response->json, "error.message"), "'colour'"));
    http_response_free(response);

    /* A parameter with no name has no name to give as `field`. */
    const char *const nameless[] = {"/catalog?=x", "/catalog?=", "/catalog?gpu=V100&="};
    for (size_t i = 0; i < sizeof nameless / sizeof nameless[0]; i++) {
        response = http_get(client, nameless[i]);
        expect_status(response, 400);
        ck_assert_str_eq(response->body, "{\"error\":{\"code\":\"invalid_parameter\","
                                         "\"message\":\"a query parameter has no name\"}}");
        http_response_free(response);
    }
}
END_TEST

/* ---- billing modes and bundles --------------------------------------------- */

START_TEST(test_catalog_billing_modes)
{
    struct http_response *response = http_get(client, "/catalog/billing-modes");
    expect_status(response, 200);
    ck_assert_str_eq(http_header(response, "cache-control"), CACHE_CONTROL);
    ck_assert_ptr_nonnull(http_header(response, "etag"));
    json_t *body = response->json;
    ck_assert_str_eq(json_keys(body, ""), "billing_modes");
    expect_join(body, "billing_modes", "id", "on_demand,monthly,quarterly,student");
    expect_join(body, "billing_modes", "name", "On-demand,Monthly,Quarterly,Student");
    expect_join(body, "billing_modes", "per", "hour,month,quarter,hour");
    expect_join(body, "billing_modes", "block_hours", "0,720,2160,0");
    expect_join(body, "billing_modes", "block_days", "0,30,90,0");
    expect_join(body, "billing_modes", "list_basis_points", "10000,7500,6700,6600");
    const char *everyone = "[\"individual\",\"student\",\"startup\",\"enterprise\"]";
    expect_text(body, "billing_modes[0].eligible_segments", everyone);
    expect_text(body, "billing_modes[1].eligible_segments", everyone);
    expect_text(body, "billing_modes[2].eligible_segments", everyone);
    expect_text(body, "billing_modes[3].eligible_segments", "[\"student\"]");
    ck_assert_str_eq(json_keys(body, "billing_modes[1]"),
                     "id,name,description,per,block_hours,block_days,list_basis_points,"
                     "eligible_segments");
    http_response_free(response);
}
END_TEST

/* The Alibaba Cloud instance type behind each SKU and its host's figures
 * (migration 0005; docs/storefront.md cites the source). */
static const struct {
    const char *sku;
    const char *instance_type;
    const char *vcpus, *memory_gib, *bandwidth_gbps;
} hosts[] = {
    {"t4-16g-x1", "ecs.gn6i-c4g1.xlarge", "4", "15", "4.0"},
    {"v100-16g-x1", "ecs.gn6v-c8g1.2xlarge", "8", "32", "2.5"},
    {"v100-16g-x2", "ecs.gn6v-c8g1.4xlarge", "16", "64", "5.0"},
    {"v100-32g-x4", "ecs.gn6e-c12g1.12xlarge", "48", "368", "16.0"},
    {"v100-32g-x8", "ecs.gn6e-c12g1.24xlarge", "96", "736", "32.0"},
};

START_TEST(test_catalog_host_figures)
{
    char path[64];
    snprintf(path, sizeof path, "/catalog/%s", hosts[_i].sku);
    struct http_response *response = http_get(client, path);
    expect_status(response, 200);
    expect_str(response->json, "host.instance_type", hosts[_i].instance_type);
    expect_text(response->json, "host.vcpus", hosts[_i].vcpus);
    expect_text(response->json, "host.memory_gib", hosts[_i].memory_gib);
    expect_text(response->json, "host.bandwidth_gbps", hosts[_i].bandwidth_gbps);
    expect_text(response->json, "host.system_disk_gb", "100");
    http_response_free(response);
}
END_TEST

/* A sold-out SKU is listed and answered, saying so, never a 404. */
START_TEST(test_catalog_sold_out_is_shown)
{
    struct server own = {0};
    server_start(&own, NULL);
    server_db_exec(&own, "UPDATE skus SET available = 0 WHERE id = 't4-16g-x1'", NULL);
    server_signal(&own, SIGHUP);
    struct http_client *mine = http_client_new(own.port);
    long long deadline = suite_now_ms() + suite_wait_ms(10);
    struct http_response *response = NULL;
    for (;;) {
        http_response_free(response);
        response = http_get(mine, "/catalog/t4-16g-x1");
        if (strcmp(json_text(response->json, "available"), "false") == 0 ||
            suite_now_ms() > deadline)
            break;
        suite_sleep_ms(50);
    }
    expect_status(response, 200);
    expect_text(response->json, "available", "false");
    http_response_free(response);
    response = http_get(mine, "/catalog");
    expect_join(response->json, "skus", "id",
                "t4-16g-x1,v100-16g-x1,v100-16g-x2,v100-32g-x4,v100-32g-x8");
    http_response_free(response);
    http_client_free(mine);
    server_finish(&own);
}
END_TEST

START_TEST(test_catalog_bundles)
{
    struct http_response *response = http_get(client, "/catalog/bundles");
    expect_status(response, 200);
    ck_assert_str_eq(http_header(response, "cache-control"), CACHE_CONTROL);
    ck_assert_ptr_nonnull(http_header(response, "etag"));
    json_t *body = response->json;
    ck_assert_str_eq(json_keys(body, ""), "currency,price_list_version,name,description,bundles");
    expect_str(body, "name", "Bundles");
    expect_str(body, "currency", "CNY");
    expect_text(body, "price_list_version", "1");
    expect_join(body, "bundles", "id", "enterprise-inference-quarterly,training-starter-monthly");

    expect_str(body, "bundles[0].name", "Enterprise inference quarterly card");
    expect_str(body, "bundles[0].list_price", "84845.00");
    expect_str(body, "bundles[0].price", "57293.00");
    expect_str(body, "bundles[0].list_saving", "27552.00");
    /* For enterprises, the segment it is for: four quarters of a T4. */
    expect_str(body, "bundles[0].cheapest_alternative.segment", "enterprise");
    expect_str(body, "bundles[0].cheapest_alternative.amount", "57284.00");
    expect_str(body, "bundles[0].cheapest_alternative.summary", "4 × T4 16GB × 1: 1 quarter");
    expect_str(body, "bundles[0].saving", "-9.00");
    expect_text(body, "bundles[0].eligible_segments", "[\"enterprise\"]");
    expect_text(body, "bundles[0].contents",
                "[{\"sku\":\"t4-16g-x1\",\"quantity\":4,\"hours\":2160}]");

    expect_str(body, "bundles[1].name", "Training starter monthly card");
    expect_str(body, "bundles[1].list_price", "1642.00");
    expect_str(body, "bundles[1].price", "1231.00");
    expect_str(body, "bundles[1].list_saving", "411.00");
    /* Open to all, listed for individuals: one month, as the card. */
    expect_str(body, "bundles[1].cheapest_alternative.segment", "individual");
    expect_str(body, "bundles[1].cheapest_alternative.amount", "1231.00");
    expect_str(body, "bundles[1].saving", "0.00");
    expect_text(body, "bundles[1].eligible_segments",
                "[\"individual\",\"student\",\"startup\",\"enterprise\"]");
    expect_text(body, "bundles[1].contents",
                "[{\"sku\":\"v100-16g-x1\",\"quantity\":1,\"hours\":720}]");
    http_response_free(response);
}
END_TEST

/* ---- conditional requests, HEAD ------------------------------------------ */

START_TEST(test_catalog_etag_and_not_modified)
{
    char etag[64];
    fetch_etag("/catalog", etag);
    char again[64];
    fetch_etag("/catalog", again);
    ck_assert_str_eq(etag, again);

    char header[512];
    snprintf(header, sizeof header, "If-None-Match: %s", etag);
    struct http_response *response = get_with("/catalog", header);
    expect_status(response, 304);
    ck_assert_uint_eq(response->body_length, 0);
    ck_assert_str_eq(http_header(response, "etag"), etag);
    ck_assert_str_eq(http_header(response, "cache-control"), CACHE_CONTROL);
    ck_assert_ptr_null(http_header(response, "content-type"));
    ck_assert_str_eq(http_header(response, "content-length"), "4993");
    expect_full_length(response, "/catalog");
    http_response_free(response);

    /* A weak validator, a list that names it, and "*" all match. */
    char values[3][128];
    snprintf(values[0], sizeof values[0], "W/%s", etag);
    snprintf(values[1], sizeof values[1], "\"0000\", %s", etag);
    snprintf(values[2], sizeof values[2], "*");
    for (size_t i = 0; i < 3; i++) {
        snprintf(header, sizeof header, "If-None-Match: %s", values[i]);
        response = get_with("/catalog", header);
        ck_assert_msg(response->status == 304, "If-None-Match: %s gave %ld", values[i],
                      response->status);
        http_response_free(response);
    }

    /* Two field lines are one list (RFC 9110, 5.3): the second one's tag
     * matches, and so does its "*". */
    const char *stale = "If-None-Match: \"0123456789abcdef0123456789abcdef\"";
    snprintf(header, sizeof header, "If-None-Match: %s", etag);
    const char *const two_lines[][3] = {{stale, header, NULL}, {stale, "If-None-Match: *", NULL}};
    for (size_t i = 0; i < 2; i++) {
        response = http_request(client, "GET", "/catalog", two_lines[i], NULL);
        ck_assert_msg(response->status == 304, "%s / %s gave %ld", two_lines[i][0], two_lines[i][1],
                      response->status);
        http_response_free(response);
    }

    response = get_with("/catalog", stale);
    expect_status(response, 200);
    expect_join(response->json, "skus", "id", ALL_IDS);
    ck_assert_str_eq(http_header(response, "etag"), etag);
    http_response_free(response);
}
END_TEST

START_TEST(test_catalog_filtered_etag)
{
    char full[64], filtered[64], reordered[64], other[64];
    fetch_etag("/catalog", full);
    fetch_etag("/catalog?gpu=V100&sort=price", filtered);
    fetch_etag("/catalog?sort=price&gpu=v100", reordered);
    fetch_etag("/catalog?gpu=V100&sort=-price", other);
    ck_assert_str_ne(full, filtered);
    ck_assert_str_eq(filtered, reordered); /* the same query, canonically */
    ck_assert_str_ne(filtered, other);

    char header[512];
    snprintf(header, sizeof header, "If-None-Match: %s", filtered);
    struct http_response *response = get_with("/catalog?gpu=V100&sort=price", header);
    expect_status(response, 304);
    ck_assert_uint_eq(response->body_length, 0);
    ck_assert_str_eq(http_header(response, "etag"), filtered);
    expect_full_length(response, "/catalog?gpu=V100&sort=price");
    http_response_free(response);

    /* The filtered tag does not validate the full listing, nor the reverse. */
    response = get_with("/catalog", header);
    expect_status(response, 200);
    http_response_free(response);
    snprintf(header, sizeof header, "If-None-Match: %s", full);
    response = get_with("/catalog?gpu=V100&sort=price", header);
    expect_status(response, 200);
    expect_join(response->json, "skus", "id", "v100-16g-x1,v100-16g-x2,v100-32g-x4,v100-32g-x8");
    http_response_free(response);
}
END_TEST

/* Every cached resource has its own tag and answers If-None-Match. */
START_TEST(test_catalog_sub_resources_not_modified)
{
    const char *const paths[] = {"/catalog/v100-16g-x1", "/catalog/t4-16g-x1",
                                 "/catalog/billing-modes", "/catalog/bundles"};
    char etags[4][64];
    for (size_t i = 0; i < 4; i++) {
        fetch_etag(paths[i], etags[i]);
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(etags[i], etags[j]);
        char header[512];
        snprintf(header, sizeof header, "If-None-Match: %s", etags[i]);
        struct http_response *response = get_with(paths[i], header);
        ck_assert_msg(response->status == 304, "%s gave %ld", paths[i], response->status);
        ck_assert_uint_eq(response->body_length, 0);
        expect_full_length(response, paths[i]);
        http_response_free(response);
    }
}
END_TEST

START_TEST(test_catalog_head)
{
    const char *const paths[] = {"/catalog", "/catalog?sort=-price", "/catalog/v100-32g-x4",
                                 "/catalog/bundles"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct http_response *got = http_get(client, paths[i]);
        struct http_response *head = http_request(client, "HEAD", paths[i], NULL, NULL);
        expect_status(got, 200);
        expect_status(head, 200);
        ck_assert_uint_eq(head->body_length, 0);
        char length[32];
        snprintf(length, sizeof length, "%zu", got->body_length);
        ck_assert_str_eq(http_header(head, "content-length"), length);
        ck_assert_str_eq(http_header(head, "content-type"), "application/json");
        ck_assert_str_eq(http_header(head, "etag"), http_header(got, "etag"));
        ck_assert_str_eq(http_header(head, "cache-control"), CACHE_CONTROL);
        http_response_free(head);
        http_response_free(got);
    }
}
END_TEST

START_TEST(test_catalog_no_cors_without_configuration)
{
    struct http_response *response = get_with("/catalog", "Origin: https://shop.example");
    expect_status(response, 200);
    ck_assert_ptr_null(http_header(response, "access-control-allow-origin"));
    http_response_free(response);
    const char *const preflight[] = {"Origin: https://shop.example",
                                     "Access-Control-Request-Method: GET", NULL};
    response = http_request(client, "OPTIONS", "/catalog", preflight, NULL);
    expect_status(response, 204);
    ck_assert_str_eq(http_header(response, "allow"), "GET, HEAD, OPTIONS");
    ck_assert_ptr_null(http_header(response, "access-control-allow-origin"));
    ck_assert_ptr_null(http_header(response, "access-control-allow-methods"));
    http_response_free(response);
}
END_TEST

/* ---- CORS, configured two ways ------------------------------------------ */

/* _i = 0: a configuration file named by --config; 1: GPUQUOTE_CORS_ORIGINS. */
static void start_cors_server(struct server *server, int how)
{
    static const char *args[3];
    static const char *env[2];
    struct server_options options = {NULL, NULL, false};
    server_prepare(server);
    if (how == 0) {
        const char *path = server_path(server, "cors.json");
        FILE *file = fopen(path, "w");
        ck_assert_ptr_nonnull(file);
        fputs("{\"cors_origins\": [\"https://shop.example\", \"https://admin.example\"]}\n", file);
        ck_assert_int_eq(fclose(file), 0);
        static char config_path[SERVER_PATH_SIZE];
        snprintf(config_path, sizeof config_path, "%s", path);
        args[0] = "--config";
        args[1] = config_path;
        args[2] = NULL;
        options.args = args;
    } else {
        env[0] = "GPUQUOTE_CORS_ORIGINS=https://shop.example,https://admin.example";
        env[1] = NULL;
        options.env = env;
    }
    server_start(server, &options);
}

START_TEST(test_catalog_cors)
{
    struct server server = {0};
    start_cors_server(&server, _i);
    struct http_client *cors = http_client_new(server.port);

    const char *const preflight[] = {"Origin: https://shop.example",
                                     "Access-Control-Request-Method: GET",
                                     "Access-Control-Request-Headers: If-None-Match", NULL};
    struct http_response *response = http_request(cors, "OPTIONS", "/catalog", preflight, NULL);
    expect_status(response, 204);
    ck_assert_uint_eq(response->body_length, 0);
    ck_assert_str_eq(http_header(response, "access-control-allow-origin"), "https://shop.example");
    ck_assert_str_eq(http_header(response, "access-control-allow-methods"), "GET, HEAD, OPTIONS");
    ck_assert_str_eq(http_header(response, "access-control-allow-headers"),
                     "Content-Type, Idempotency-Key, If-None-Match, X-Request-Id");
    ck_assert_str_eq(http_header(response, "access-control-max-age"), "600");
    ck_assert_str_eq(http_header(response, "vary"), "Origin");
    http_response_free(response);

    /* A preflight for a path that does not exist is a 404 with no
     * preflight headers: there are no methods to allow. */
    response = http_request(cors, "OPTIONS", "/nowhere", preflight, NULL);
    expect_status(response, 404);
    ck_assert_str_eq(http_header(response, "access-control-allow-origin"), "https://shop.example");
    ck_assert_ptr_null(http_header(response, "access-control-allow-methods"));
    ck_assert_ptr_null(http_header(response, "access-control-allow-headers"));
    ck_assert_ptr_null(http_header(response, "access-control-max-age"));
    http_response_free(response);

    /* The second configured origin, on a POST resource. */
    const char *const quote_preflight[] = {"Origin: https://admin.example",
                                           "Access-Control-Request-Method: POST", NULL};
    response = http_request(cors, "OPTIONS", "/quote", quote_preflight, NULL);
    expect_status(response, 204);
    ck_assert_str_eq(http_header(response, "access-control-allow-origin"), "https://admin.example");
    ck_assert_str_eq(http_header(response, "access-control-allow-methods"), "POST, OPTIONS");
    http_response_free(response);

    /* The actual request: the origin echoed, response headers exposed. */
    const char *const simple[] = {"Origin: https://shop.example", NULL};
    response = http_request(cors, "GET", "/catalog/v100-16g-x1", simple, NULL);
    expect_status(response, 200);
    ck_assert_str_eq(http_header(response, "access-control-allow-origin"), "https://shop.example");
    ck_assert_str_eq(http_header(response, "access-control-expose-headers"),
                     "ETag, Location, Idempotent-Replayed, Retry-After, X-Request-Id");
    ck_assert_ptr_null(http_header(response, "access-control-allow-methods"));
    http_response_free(response);

    /* An origin not configured gets no CORS header at all. */
    const char *const stranger[] = {"Origin: https://evil.example",
                                    "Access-Control-Request-Method: GET", NULL};
    response = http_request(cors, "OPTIONS", "/catalog", stranger, NULL);
    expect_status(response, 204);
    ck_assert_ptr_null(http_header(response, "access-control-allow-origin"));
    ck_assert_ptr_null(http_header(response, "access-control-allow-methods"));
    ck_assert_ptr_null(http_header(response, "access-control-allow-headers"));
    http_response_free(response);
    response = http_request(cors, "GET", "/catalog", stranger, NULL);
    expect_status(response, 200);
    ck_assert_ptr_null(http_header(response, "access-control-allow-origin"));
    /* ... but says that the answer depends on the Origin, as does one to a
     * request without an Origin: a shared cache keeps them apart from the
     * copies it may give an allowed origin; and on the language. */
    ck_assert_str_eq(http_header(response, "vary"), "Origin, Accept-Language");
    http_response_free(response);
    response = http_get(cors, "/catalog");
    expect_status(response, 200);
    ck_assert_ptr_null(http_header(response, "access-control-allow-origin"));
    ck_assert_str_eq(http_header(response, "cache-control"), "public, max-age=60");
    ck_assert_str_eq(http_header(response, "vary"), "Origin, Accept-Language");
    http_response_free(response);

    /* Errors carry CORS too, so a browser can read them. */
    response = http_request(cors, "GET", "/catalog?sort=colour", simple, NULL);
    expect_error(response, 400, "invalid_parameter", "sort");
    ck_assert_str_eq(http_header(response, "access-control-allow-origin"), "https://shop.example");
    http_response_free(response);

    http_client_free(cors);
    server_finish(&server);
}
END_TEST

/* A large listing: 1,500 more SKUs, loaded with SIGHUP, make one of about
 * 450 KB (a listing of 1,000 SKUs once crashed the daemon). Its bytes must
 * be exactly the prefix, each SKU's own body and the closing bracket, in
 * order, and listings must survive a reload while being served. */
START_TEST(test_catalog_large_listing)
{
    struct server server = {0};
    server_start(&server, NULL);
    /* One statement per table, not 3,000 commits: a slow disk's fsyncs
     * would otherwise decide whether the test ends in time. */
    ck_assert_int_eq(
        server_db_exec(
            &server,
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
            "WHERE i < 1499) "
            "INSERT INTO skus (id, name, gpu_model_id, gpu_count, "
            "interconnect) SELECT 'bulk-' || substr(CAST(10000 + i AS TEXT), 2), 'Bulk', "
            "'v100-32g', 4, 'nvlink' FROM n",
            NULL),
        1500);
    ck_assert_int_eq(server_db_exec(&server,
                                    "INSERT INTO sku_prices (sku_id, mode_id, amount_fen) "
                                    "SELECT id, 'on_demand', 1000 FROM skus WHERE id LIKE 'bulk-%'",
                                    NULL),
                     1500);
    server_signal(&server, SIGHUP);
    ck_assert(server_wait_for_text(&server, "stderr.log", "1505 SKUs", suite_wait_ms(5)));
    struct http_client *to = http_client_new(server.port);
    struct http_response *listing = http_get(to, "/catalog?gpu_count=4");
    expect_status(listing, 200);
    ck_assert_uint_gt(strlen(listing->body), 400 * 1024);
    ck_assert_int_eq(json_count(listing->json, "skus"), 1501); /* bulk-0000..1499 + x4 */
    expect_str(listing->json, "skus[0].id", "bulk-0000");
    expect_str(listing->json, "skus[1500].id", "v100-32g-x4");
    /* Byte for byte: the prefix, then every SKU body as GET /catalog/{id}
     * serves it, separated by commas, then "]}". */
    const char *prefix = "{\"currency\":\"CNY\",\"price_list_version\":";
    ck_assert_int_eq(strncmp(listing->body, prefix, strlen(prefix)), 0);
    const char *cursor = strstr(listing->body, "\"skus\":[") + strlen("\"skus\":[");
    for (int i = 0; i < 1501; i++) {
        char path[64];
        if (i < 1500)
            snprintf(path, sizeof path, "/catalog/bulk-%04d", i);
        else
            snprintf(path, sizeof path, "/catalog/v100-32g-x4");
        struct http_response *one = http_get(to, path);
        size_t length = strlen(one->body);
        ck_assert_msg(strncmp(cursor, one->body, length) == 0, "SKU %d differs", i);
        cursor += length;
        ck_assert_int_eq(*cursor, i < 1500 ? ',' : ']');
        cursor++;
        http_response_free(one);
    }
    ck_assert_str_eq(cursor, "}");
    http_response_free(listing);
    /* A reload while listings are being served frees nothing in use. */
    server_signal(&server, SIGHUP);
    for (int i = 0; i < 20; i++) {
        struct http_response *again = http_get(to, "/catalog?gpu_count=4");
        expect_status(again, 200);
        ck_assert_int_eq(json_count(again->json, "skus"), 1501);
        http_response_free(again);
    }
    http_client_free(to);
    server_finish(&server);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_catalog");

    TCase *listing = tcase_create("listing");
    tcase_add_unchecked_fixture(listing, start_shared, stop_shared);
    tcase_add_checked_fixture(listing, open_client, close_client);
    suite_set_timeout(listing, 10);
    tcase_add_test(listing, test_catalog_lists_the_five_skus_by_id);
    tcase_add_loop_test(listing, test_catalog_sku_figures, 0, SKU_COUNT);
    tcase_add_test(listing, test_catalog_unknown_sku_is_404);
    tcase_add_loop_test(listing, test_catalog_filter, 0, (int)(sizeof filters / sizeof filters[0]));
    tcase_add_loop_test(listing, test_catalog_bad_parameter, 0,
                        (int)(sizeof bad_parameters / sizeof bad_parameters[0]));
    tcase_add_test(listing, test_catalog_unknown_and_repeated_parameter_messages);
    tcase_add_test(listing, test_catalog_billing_modes);
    tcase_add_test(listing, test_catalog_bundles);
    tcase_add_loop_test(listing, test_catalog_host_figures, 0,
                        (int)(sizeof hosts / sizeof hosts[0]));
    tcase_add_test(listing, test_catalog_sold_out_is_shown);
    tcase_add_test(listing, test_catalog_etag_and_not_modified);
    tcase_add_test(listing, test_catalog_filtered_etag);
    tcase_add_test(listing, test_catalog_sub_resources_not_modified);
    tcase_add_test(listing, test_catalog_head);
    tcase_add_test(listing, test_catalog_no_cors_without_configuration);
    suite_add_tcase(suite, listing);

    TCase *cors = tcase_create("cors");
    suite_set_timeout(cors, 20);
    tcase_add_loop_test(cors, test_catalog_cors, 0, 2);
    suite_add_tcase(suite, cors);

    TCase *large = tcase_create("large");
    suite_set_timeout(large, 30);
    tcase_add_test(large, test_catalog_large_listing);
    suite_add_tcase(suite, large);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
