/*
 * Tests of store_load_catalog(): the seeded database reads back as the exact
 * structs of the seed price list (models, SKUs with all four prices, billing modes
 * with their segment masks, bundles with their items); discount rules map
 * their NULL/'mixed'/mode columns to masks; inactive SKUs and rules and the
 * bundles that contain inactive SKUs are left out; a price UPDATE bumps the
 * price-list version; bad data fails validation; 10,000 SKUs load fast.
 *
 * Each test migrates a fresh database in its own temporary directory.
 */
#include <check.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/catalog.h"
#include "store/store.h"
#include "store_fixture.h"

static char temp_dir[512];
static char db_path[600];
static struct store *store;

/* ---- Fixture and helpers. ---- */

static void make_database_dir(void)
{
    make_temp_dir(temp_dir, "catalog");
    snprintf(db_path, sizeof db_path, "%s/test.db", temp_dir);
}

static void open_store(void)
{
    struct store_options options = {db_path, 1000, 2, true, false};
    struct gq_error err;
    ck_assert_msg(store_open(&options, &store, &err) == GQ_OK, "%s", err.message);
}

static void setup(void)
{
    make_database_dir();
    open_store();
    int applied = 0;
    struct gq_error err;
    ck_assert_msg(store_migrate(store, source_migrations(), &applied, &err) == GQ_OK, "%s",
                  err.message);
    ck_assert_int_gt(applied, 6); /* every shipped migration, 0001 on */
}

static void setup_empty(void)
{
    make_database_dir();
    open_store();
}

static void teardown(void)
{
    store_close(store);
    store = NULL;
    remove_temp_dir(temp_dir);
}

/* Runs trusted test SQL on a separate connection. */
static void exec_sql(const char *sql)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    sqlite3_exec(db, "PRAGMA foreign_keys=ON", NULL, NULL, NULL);
    char *message = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &message);
    ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, message != NULL ? message : "?");
    sqlite3_close(db);
}

static struct catalog *load(void)
{
    struct catalog *catalog = NULL;
    struct gq_error err;
    ck_assert_msg(store_load_catalog(store, &catalog, &err) == GQ_OK, "%s", err.message);
    ck_assert_ptr_nonnull(catalog);
    return catalog;
}

/* ---- The seed, exactly. ---- */

START_TEST(test_price_list_header)
{
    struct catalog *catalog = load();
    ck_assert_str_eq(catalog->currency, "CNY");
    ck_assert_int_eq(catalog->price_list_version, 1);
    ck_assert_int_gt(catalog->price_list_updated_at, 1600000000);
    ck_assert_uint_eq(catalog->n_models, 3);
    ck_assert_uint_eq(catalog->n_skus, 5);
    ck_assert_uint_eq(catalog->n_rules, 0);
    ck_assert_uint_eq(catalog->n_bundles, 2);
    catalog_free(catalog);
}
END_TEST

/* SKUs in id order, with model, cards, interconnect and the four prices
 * (on-demand, monthly, quarterly, student) in fen. */
static const struct {
    const char *id;
    const char *name;
    const char *model;
    int32_t gpu_count;
    enum interconnect interconnect;
    gq_money price[BILLING_MODE_COUNT];
} expected_skus[] = {
    {"t4-16g-x1", "T4 16GB × 1", "t4-16g", 1, INTERCONNECT_NONE, {990, 535000, 1432100, 650}},
    {"v100-16g-x1", "V100 16GB × 1", "v100-16g", 1, INTERCONNECT_NONE, {228, 123100, 330500, 150}},
    {"v100-16g-x2",
     "V100 16GB × 2",
     "v100-16g",
     2,
     INTERCONNECT_NVLINK,
     {428, 231100, 619900, 280}},
    {"v100-32g-x4",
     "V100 32GB × 4",
     "v100-32g",
     4,
     INTERCONNECT_NVLINK,
     {968, 522700, 1401800, 638}},
    {"v100-32g-x8",
     "V100 32GB × 8",
     "v100-32g",
     8,
     INTERCONNECT_NVLINK,
     {1928, 1041100, 2790700, 1268}},
};

START_TEST(test_sku_is_exact)
{
    struct catalog *catalog = load();
    const struct sku *sku = &catalog->skus[_i];
    ck_assert_str_eq(sku->id, expected_skus[_i].id);
    ck_assert_str_eq(sku->name, expected_skus[_i].name);
    ck_assert_str_eq(sku->gpu->id, expected_skus[_i].model);
    ck_assert_int_eq(sku->gpu_count, expected_skus[_i].gpu_count);
    ck_assert_int_eq(sku->interconnect, expected_skus[_i].interconnect);
    for (int mode = 0; mode < BILLING_MODE_COUNT; mode++) {
        ck_assert_msg(sku->priced[mode], "%s has no %s price", sku->id,
                      billing_mode_id((enum billing_mode)mode));
        ck_assert_int_eq(sku->price[mode], expected_skus[_i].price[mode]);
    }
    ck_assert_ptr_eq(catalog_find_sku(catalog, expected_skus[_i].id), sku);
    catalog_free(catalog);
}
END_TEST

static const struct {
    const char *id;
    const char *name;
    int32_t memory_gb;
    const char *memory_type;
    double fp16_tflops;
    double fp32_tflops;
    int32_t bandwidth;
    int32_t tdp;
} expected_models[] = {
    {"t4-16g", "T4", 16, "GDDR6", 65.0, 8.1, 320, 70},
    {"v100-16g", "V100", 16, "HBM2", 125.0, 15.7, 900, 300},
    {"v100-32g", "V100", 32, "HBM2", 125.0, 15.7, 900, 300},
};

START_TEST(test_model_is_exact)
{
    struct catalog *catalog = load();
    const struct gpu_model *model = &catalog->models[_i];
    ck_assert_str_eq(model->id, expected_models[_i].id);
    ck_assert_str_eq(model->name, expected_models[_i].name);
    ck_assert_int_eq(model->memory_gb, expected_models[_i].memory_gb);
    ck_assert_str_eq(model->memory_type, expected_models[_i].memory_type);
    ck_assert_double_eq(model->fp16_tflops, expected_models[_i].fp16_tflops);
    ck_assert_double_eq(model->fp32_tflops, expected_models[_i].fp32_tflops);
    ck_assert_double_eq(model->bf16_tflops, 0.0); /* none has BF16 tensor cores */
    ck_assert_int_eq(model->memory_bandwidth_gbps, expected_models[_i].bandwidth);
    ck_assert_int_eq(model->tdp_watts, expected_models[_i].tdp);
    catalog_free(catalog);
}
END_TEST

static const struct {
    enum billing_mode mode;
    const char *name;
    int32_t block_hours;
    int32_t block_days;
    int32_t basis_points;
    uint32_t segment_mask;
} expected_modes[] = {
    {BILLING_ON_DEMAND, "On-demand", 0, 0, 10000, SEGMENT_MASK_ALL},
    {BILLING_MONTHLY, "Monthly", 720, 30, 7500, SEGMENT_MASK_ALL},
    {BILLING_QUARTERLY, "Quarterly", 2160, 90, 6700, SEGMENT_MASK_ALL},
    {BILLING_STUDENT, "Student", 0, 0, 6600, SEGMENT_BIT(SEGMENT_STUDENT)},
};

START_TEST(test_mode_is_exact)
{
    struct catalog *catalog = load();
    const struct billing_mode_info *info = &catalog->modes[expected_modes[_i].mode];
    ck_assert_str_eq(info->name, expected_modes[_i].name);
    ck_assert_int_eq(info->block_hours, expected_modes[_i].block_hours);
    ck_assert_int_eq(info->block_days, expected_modes[_i].block_days);
    ck_assert_int_eq(info->list_basis_points, expected_modes[_i].basis_points);
    ck_assert_uint_eq(info->segment_mask, expected_modes[_i].segment_mask);
    ck_assert_int_gt((int)strlen(info->description), 20);
    catalog_free(catalog);
}
END_TEST

START_TEST(test_bundles_are_exact)
{
    struct catalog *catalog = load();
    /* Sorted by id: enterprise-… before training-…. */
    const struct bundle *enterprise = &catalog->bundles[0];
    ck_assert_str_eq(enterprise->id, "enterprise-inference-quarterly");
    ck_assert_str_eq(enterprise->name, "Enterprise inference quarterly card");
    ck_assert_int_eq(enterprise->list_price, 8484500);
    ck_assert_int_eq(enterprise->price, 5729300);
    ck_assert_uint_eq(enterprise->segment_mask, SEGMENT_BIT(SEGMENT_ENTERPRISE));
    ck_assert_int_eq(enterprise->valid_from, 0);
    ck_assert_int_eq(enterprise->valid_until, 0);
    ck_assert_uint_eq(enterprise->n_items, 1);
    ck_assert_ptr_eq(enterprise->items[0].sku, catalog_find_sku(catalog, "t4-16g-x1"));
    ck_assert_int_eq(enterprise->items[0].quantity, 4);
    ck_assert_int_eq(enterprise->items[0].hours, 2160);

    const struct bundle *starter = catalog_find_bundle(catalog, "training-starter-monthly");
    ck_assert_ptr_eq(starter, &catalog->bundles[1]);
    ck_assert_str_eq(starter->name, "Training starter monthly card");
    ck_assert_int_eq(starter->list_price, 164200);
    ck_assert_int_eq(starter->price, 123100);
    ck_assert_uint_eq(starter->segment_mask, SEGMENT_MASK_ALL);
    ck_assert_uint_eq(starter->n_items, 1);
    ck_assert_ptr_eq(starter->items[0].sku, catalog_find_sku(catalog, "v100-16g-x1"));
    ck_assert_int_eq(starter->items[0].quantity, 1);
    ck_assert_int_eq(starter->items[0].hours, 720);
    catalog_free(catalog);
}
END_TEST

/* ---- Changes. ---- */

START_TEST(test_price_update_bumps_version)
{
    exec_sql("UPDATE sku_prices SET amount_fen = 250"
             " WHERE sku_id = 'v100-16g-x1' AND mode_id = 'on_demand'");
    struct catalog *catalog = load();
    ck_assert_int_eq(catalog->price_list_version, 2);
    ck_assert_int_eq(catalog_find_sku(catalog, "v100-16g-x1")->price[BILLING_ON_DEMAND], 250);
    catalog_free(catalog);

    exec_sql("DELETE FROM bundle_items WHERE bundle_id = 'training-starter-monthly'");
    catalog = load();
    ck_assert_int_eq(catalog->price_list_version, 3);
    ck_assert_uint_eq(catalog_find_bundle(catalog, "training-starter-monthly")->n_items, 0);
    catalog_free(catalog);
}
END_TEST

static const struct {
    const char *sql;
    long long version_after;
} bumping_changes[] = {
    {"UPDATE gpu_models SET tdp_watts = 75 WHERE id = 't4-16g'", 2},
    {"UPDATE billing_modes SET list_basis_points = 7400 WHERE id = 'monthly'", 2},
    {"DELETE FROM billing_mode_segments WHERE mode_id = 'quarterly' AND segment_id = 'student'", 2},
    {"UPDATE skus SET name = 'T4 × 1' WHERE id = 't4-16g-x1'", 2},
    {"INSERT INTO discount_rules (id, name, basis_points) VALUES ('r', 'r', 500)", 2},
    {"UPDATE bundles SET price_fen = 120000 WHERE id = 'training-starter-monthly'", 2},
    {"UPDATE bundle_items SET hours = 700 WHERE bundle_id = 'training-starter-monthly'", 2},
    {"INSERT INTO skus VALUES ('t4-16g-x2', 'T4 16GB × 2', 't4-16g', 2, 'pcie', 1, 1);"
     "INSERT INTO sku_prices VALUES ('t4-16g-x2', 'on_demand', 1980)",
     3},
    /* What the catalog says changes its bodies: the service reloads. */
    {"UPDATE sku_texts SET name = 'T4 单卡' WHERE sku_id = 't4-16g-x1' AND lang = 'zh-CN'", 2},
    {"UPDATE billing_mode_texts SET description = '' WHERE mode_id = 'student' AND lang = 'en'", 2},
    {"DELETE FROM bundle_texts WHERE bundle_id = 'training-starter-monthly' AND lang = 'zh-CN'", 2},
    {"UPDATE catalog_texts SET name = '礼包' WHERE lang = 'zh-CN'", 2},
    {"UPDATE sku_hosts SET vcpus = 10 WHERE sku_id = 't4-16g-x1'", 2},
    {"UPDATE region_texts SET name = '杭州' WHERE lang = 'zh-CN'", 2},
    {"UPDATE skus SET available = 0 WHERE id = 't4-16g-x1'", 2},
};

START_TEST(test_any_catalog_change_bumps_version)
{
    exec_sql(bumping_changes[_i].sql);
    struct catalog *catalog = load();
    ck_assert_int_eq(catalog->price_list_version, bumping_changes[_i].version_after);
    catalog_free(catalog);
}
END_TEST

/* Names and descriptions in both languages, and the hosts (0005). */
START_TEST(test_texts_and_hosts_are_loaded)
{
    struct catalog *catalog = load();
    const struct sku *v100 = catalog_find_sku(catalog, "v100-16g-x1");
    ck_assert_str_eq(catalog_name(v100->text, GQ_LANG_EN, v100->name), "V100 16GB × 1");
    ck_assert_str_eq(catalog_name(v100->text, GQ_LANG_ZH_CN, v100->name), "V100 16GB 单卡");
    ck_assert(v100->available);
    ck_assert_ptr_nonnull(v100->host);
    ck_assert_str_eq(v100->host->instance_type, "ecs.gn6v-c8g1.2xlarge");
    ck_assert_int_eq(v100->host->vcpus, 8);
    ck_assert_int_eq(v100->host->memory_gib, 32);
    ck_assert_str_eq(v100->host->region_name[GQ_LANG_ZH_CN], "华东1（杭州）");
    ck_assert_str_eq(v100->host->region_name[GQ_LANG_EN], "China (Hangzhou)");
    ck_assert_str_eq(v100->host->software, "CUDA,PyTorch");
    ck_assert_int_eq(v100->host->provisioning_average_minutes, 10);
    const struct sku *x8 = catalog_find_sku(catalog, "v100-32g-x8");
    ck_assert_str_eq(x8->host->instance_type, "ecs.gn6e-c12g1.24xlarge");
    ck_assert_int_eq(x8->host->memory_gib, 736);
    static const char *const modes_zh[BILLING_MODE_COUNT] = {"按需计费", "包月套餐", "包季套餐",
                                                             "学生优惠"};
    for (int m = 0; m < BILLING_MODE_COUNT; m++)
        ck_assert_str_eq(catalog_name(catalog->modes[m].text, GQ_LANG_ZH_CN, NULL), modes_zh[m]);
    const struct bundle *starter = catalog_find_bundle(catalog, "training-starter-monthly");
    ck_assert_str_eq(catalog_name(starter->text, GQ_LANG_ZH_CN, NULL), "训练入门月卡");
    ck_assert_str_eq(catalog_name(catalog->bundles_text, GQ_LANG_ZH_CN, NULL), "套餐礼包");
    catalog_free(catalog);
}
END_TEST

/* A language without a row falls back to English, then to the name column;
 * a SKU without a host has none; a sold-out SKU is still loaded. */
START_TEST(test_missing_texts_fall_back_and_sold_out_stays)
{
    exec_sql("DELETE FROM sku_texts WHERE sku_id = 't4-16g-x1';"
             "DELETE FROM bundle_texts WHERE bundle_id = 'training-starter-monthly' AND lang = "
             "'zh-CN';"
             "DELETE FROM sku_hosts WHERE sku_id = 't4-16g-x1';"
             "UPDATE skus SET available = 0 WHERE id = 't4-16g-x1'");
    struct catalog *catalog = load();
    const struct sku *t4 = catalog_find_sku(catalog, "t4-16g-x1");
    ck_assert_ptr_nonnull(t4);
    ck_assert(!t4->available);
    ck_assert_ptr_null(t4->host);
    ck_assert_str_eq(catalog_name(t4->text, GQ_LANG_ZH_CN, t4->name), "T4 16GB × 1");
    ck_assert_str_eq(catalog_description(t4->text, GQ_LANG_ZH_CN, NULL), "");
    const struct bundle *starter = catalog_find_bundle(catalog, "training-starter-monthly");
    ck_assert_str_eq(catalog_name(starter->text, GQ_LANG_ZH_CN, starter->name),
                     "Training starter monthly card");
    catalog_free(catalog);
}
END_TEST

START_TEST(test_quotes_do_not_bump_version)
{
    exec_sql("INSERT INTO quotes (id, request_json, response_json, price_list_version,"
             " created_at, expires_at) VALUES ('q', '{}', '{}', 1, 100, 200)");
    struct catalog *catalog = load();
    ck_assert_int_eq(catalog->price_list_version, 1);
    catalog_free(catalog);
}
END_TEST

START_TEST(test_inactive_sku_and_its_bundle_are_left_out)
{
    exec_sql("UPDATE skus SET active = 0 WHERE id = 't4-16g-x1'");
    struct catalog *catalog = load();
    ck_assert_uint_eq(catalog->n_skus, 4);
    ck_assert_ptr_null(catalog_find_sku(catalog, "t4-16g-x1"));
    ck_assert_str_eq(catalog->skus[0].id, "v100-16g-x1");
    ck_assert_uint_eq(catalog->n_bundles, 1);
    ck_assert_str_eq(catalog->bundles[0].id, "training-starter-monthly");
    ck_assert_ptr_null(catalog_find_bundle(catalog, "enterprise-inference-quarterly"));
    catalog_free(catalog);
}
END_TEST

START_TEST(test_discount_rules_map_to_masks)
{
    exec_sql("INSERT INTO discount_rules (id, name, segment, billing, min_quantity,"
             " basis_points, valid_from, valid_until, priority, stackable) VALUES"
             " ('startup-monthly', 'Start-up monthly', 'startup', 'monthly', 1,"
             "  1000, 1700000000, 1800000000, 20, 1);"
             "INSERT INTO discount_rules (id, name, billing, sku_id, min_quantity,"
             " fixed_amount_fen, priority) VALUES"
             " ('mixed-fixed', 'Mixed plan bonus', 'mixed', 'v100-32g-x8', 2, 5000, 10);"
             "INSERT INTO discount_rules (id, name, fixed_amount_fen, active)"
             " VALUES ('retired', 'Retired', 100, 0);"
             "INSERT INTO discount_rules (id, name, basis_points, priority)"
             " VALUES ('everyone', 'Everyone', 300, 30);");
    struct catalog *catalog = load();
    ck_assert_uint_eq(catalog->n_rules, 3);

    const struct discount_rule *mixed = &catalog->rules[0]; /* priority 10 */
    ck_assert_str_eq(mixed->id, "mixed-fixed");
    ck_assert_uint_eq(mixed->segment_mask, SEGMENT_MASK_ALL);
    ck_assert_uint_eq(mixed->billing_mask, DISCOUNT_BILLING_MIXED);
    ck_assert_str_eq(mixed->sku_id, "v100-32g-x8");
    ck_assert_int_eq(mixed->min_quantity, 2);
    ck_assert_int_eq(mixed->kind, DISCOUNT_FIXED);
    ck_assert_int_eq(mixed->fixed_amount, 5000);
    ck_assert_int_eq(mixed->valid_from, 0);
    ck_assert_int_eq(mixed->valid_until, 0);
    ck_assert(!mixed->stackable);

    const struct discount_rule *startup = &catalog->rules[1]; /* priority 20 */
    ck_assert_str_eq(startup->id, "startup-monthly");
    ck_assert_str_eq(startup->name, "Start-up monthly");
    ck_assert_uint_eq(startup->segment_mask, SEGMENT_BIT(SEGMENT_STARTUP));
    ck_assert_uint_eq(startup->billing_mask, 1u << BILLING_MONTHLY);
    ck_assert_ptr_null(startup->sku_id);
    ck_assert_int_eq(startup->kind, DISCOUNT_PERCENT);
    ck_assert_int_eq(startup->basis_points, 1000);
    ck_assert_int_eq(startup->valid_from, 1700000000);
    ck_assert_int_eq(startup->valid_until, 1800000000);
    ck_assert_int_eq(startup->priority, 20);
    ck_assert(startup->stackable);

    const struct discount_rule *everyone = &catalog->rules[2];
    ck_assert_str_eq(everyone->id, "everyone");
    ck_assert_uint_eq(everyone->billing_mask, DISCOUNT_BILLING_ALL);
    ck_assert_int_eq(everyone->min_quantity, 1);
    ck_assert_int_eq(everyone->basis_points, 300);
    catalog_free(catalog);
}
END_TEST

START_TEST(test_sku_without_on_demand_price_fails_validation)
{
    exec_sql("DELETE FROM sku_prices WHERE sku_id = 'v100-16g-x2' AND mode_id = 'on_demand'");
    struct catalog *catalog = (struct catalog *)1;
    struct gq_error err;
    ck_assert_int_eq(store_load_catalog(store, &catalog, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_ptr_null(catalog);
    ck_assert_ptr_nonnull(strstr(err.message, "v100-16g-x2"));
}
END_TEST

/* Training in fp32 is timed at a model's FP32 peak: a model without one is
 * refused, and a BF16 peak, where given, is read. */
START_TEST(test_model_without_fp32_peak_fails_validation)
{
    exec_sql("UPDATE gpu_models SET bf16_tflops = 130.5 WHERE id = 'v100-32g'");
    struct catalog *catalog = load();
    ck_assert_double_eq(catalog->models[2].bf16_tflops, 130.5);
    catalog_free(catalog);
    exec_sql("UPDATE gpu_models SET fp32_tflops = NULL WHERE id = 't4-16g'");
    catalog = (struct catalog *)1;
    struct gq_error err;
    ck_assert_int_eq(store_load_catalog(store, &catalog, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_ptr_null(catalog);
    ck_assert_str_eq(err.message, "GPU model 't4-16g' has no fp32_tflops (its FP32 peak: UPDATE "
                                  "gpu_models SET fp32_tflops = ... WHERE id = 't4-16g')");
}
END_TEST

START_TEST(test_missing_billing_mode_fails)
{
    exec_sql("DELETE FROM sku_prices WHERE mode_id = 'student';"
             "DELETE FROM billing_modes WHERE id = 'student'");
    struct catalog *catalog = NULL;
    struct gq_error err;
    ck_assert_int_eq(store_load_catalog(store, &catalog, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_ptr_null(catalog);
    ck_assert_ptr_nonnull(strstr(err.message, "student"));
}
END_TEST

/* 10,000 more SKUs (the benchmark fixture's size) load in well under a
 * second and come back sorted, with their prices. */
START_TEST(test_ten_thousand_skus_load_fast)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_stmt *sku, *price;
    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "INSERT INTO skus VALUES (?1, ?1, 'v100-32g', 4,"
                                        " 'nvlink', 1, 1)",
                                        -1, &sku, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(
        sqlite3_prepare_v2(db, "INSERT INTO sku_prices VALUES (?1, ?2, ?3)", -1, &price, NULL),
        SQLITE_OK);
    static const char *const modes[] = {"on_demand", "monthly", "quarterly", "student"};
    for (int i = 0; i < 10000; i++) {
        char id[32];
        snprintf(id, sizeof id, "bench-%05d", 9999 - i); /* inserted in reverse */
        sqlite3_bind_text(sku, 1, id, -1, SQLITE_TRANSIENT);
        ck_assert_int_eq(sqlite3_step(sku), SQLITE_DONE);
        sqlite3_reset(sku);
        for (int mode = 0; mode < 4; mode++) {
            sqlite3_bind_text(price, 1, id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(price, 2, modes[mode], -1, SQLITE_STATIC);
            sqlite3_bind_int64(price, 3, 1000 + i + mode);
            ck_assert_int_eq(sqlite3_step(price), SQLITE_DONE);
            sqlite3_reset(price);
        }
    }
    sqlite3_finalize(sku);
    sqlite3_finalize(price);
    ck_assert_int_eq(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    struct catalog *catalog = load();
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds =
        (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    ck_assert_uint_eq(catalog->n_skus, 10005);
    ck_assert_str_eq(catalog->skus[0].id, "bench-00000");
    ck_assert_str_eq(catalog->skus[9999].id, "bench-09999");
    const struct sku *last = catalog_find_sku(catalog, "bench-00000"); /* inserted last */
    ck_assert_int_eq(last->price[BILLING_ON_DEMAND], 1000 + 9999);
    ck_assert_int_eq(last->price[BILLING_STUDENT], 1000 + 9999 + 3);
    ck_assert_int_eq(catalog->price_list_version, 1 + 50000);
    ck_assert_msg(seconds < 1.0, "loading 10,005 SKUs took %.3f s", seconds);
    catalog_free(catalog);
}
END_TEST

/* ---- Not migrated. ---- */

START_TEST(test_unmigrated_database_is_not_ready)
{
    struct catalog *catalog = NULL;
    struct gq_error err;
    ck_assert_int_eq(store_load_catalog(store, &catalog, &err), GQ_ERR_NOT_READY);
    ck_assert_ptr_null(catalog);
    ck_assert_ptr_nonnull(strstr(err.message, "gpuquote migrate"));
}
END_TEST

static Suite *catalog_suite(void)
{
    Suite *suite = suite_create("store_catalog_load");
    TCase *seed = tcase_create("seed");
    tcase_add_checked_fixture(seed, setup, teardown);
    tcase_add_test(seed, test_price_list_header);
    tcase_add_loop_test(seed, test_sku_is_exact, 0,
                        (int)(sizeof expected_skus / sizeof expected_skus[0]));
    tcase_add_loop_test(seed, test_model_is_exact, 0,
                        (int)(sizeof expected_models / sizeof expected_models[0]));
    tcase_add_loop_test(seed, test_mode_is_exact, 0,
                        (int)(sizeof expected_modes / sizeof expected_modes[0]));
    tcase_add_test(seed, test_bundles_are_exact);
    suite_add_tcase(suite, seed);

    TCase *changes = tcase_create("changes");
    tcase_add_checked_fixture(changes, setup, teardown);
    tcase_set_timeout(changes, 30);
    tcase_add_test(changes, test_price_update_bumps_version);
    tcase_add_loop_test(changes, test_any_catalog_change_bumps_version, 0,
                        (int)(sizeof bumping_changes / sizeof bumping_changes[0]));
    tcase_add_test(changes, test_quotes_do_not_bump_version);
    tcase_add_test(changes, test_texts_and_hosts_are_loaded);
    tcase_add_test(changes, test_missing_texts_fall_back_and_sold_out_stays);
    tcase_add_test(changes, test_inactive_sku_and_its_bundle_are_left_out);
    tcase_add_test(changes, test_discount_rules_map_to_masks);
    tcase_add_test(changes, test_sku_without_on_demand_price_fails_validation);
    tcase_add_test(changes, test_missing_billing_mode_fails);
    tcase_add_test(changes, test_model_without_fp32_peak_fails_validation);
    tcase_add_test(changes, test_ten_thousand_skus_load_fast);
    suite_add_tcase(suite, changes);

    TCase *empty = tcase_create("empty");
    tcase_add_checked_fixture(empty, setup_empty, teardown);
    tcase_add_test(empty, test_unmigrated_database_is_not_ready);
    suite_add_tcase(suite, empty);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(catalog_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
