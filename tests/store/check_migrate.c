/*
 * Tests of the migrations runner and of what the migrations build: a fresh
 * database gets every table, the seed catalog with its exact prices and
 * price-list version 1; a re-run applies nothing; a changed file stops the
 * run before anything is applied; a new file is applied on the next run;
 * names that do not match NNNN_name.sql are ignored; a failing file is
 * rolled back whole and named in the error.
 *
 * Each test works in its own temporary directory (mkdtemp), removed after.
 * The repository's migrations are found under $GPUQUOTE_SOURCE_DIR (default
 * ".") + "/migrations".
 */
#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <nettle/base16.h>
#include <nettle/sha2.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "store/store.h"
#include "store_fixture.h"

static char temp_dir[512];
static char db_path[600];
static char migrations_root[600]; /* what the store is given */
static char migrations_copy[700]; /* its sqlite/ directory, where the files are */

/* ---- Fixture and helpers. ---- */

static void setup(void)
{
    make_temp_dir(temp_dir, "migrate");
    snprintf(db_path, sizeof db_path, "%s/test.db", temp_dir);
    snprintf(migrations_root, sizeof migrations_root, "%s/migrations", temp_dir);
    snprintf(migrations_copy, sizeof migrations_copy, "%s/sqlite", migrations_root);
}

static void teardown(void)
{
    remove_temp_dir(temp_dir);
}

static char *read_whole(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    ck_assert_msg(file != NULL, "cannot open %s", path);
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *bytes = malloc((size_t)length + 1);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_uint_eq(fread(bytes, 1, (size_t)length, file), (size_t)length);
    bytes[length] = '\0';
    fclose(file);
    *size = (size_t)length;
    return bytes;
}

static void write_file(const char *directory, const char *name, const char *text, const char *mode)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    FILE *file = fopen(path, mode);
    ck_assert_msg(file != NULL, "cannot write %s", path);
    fputs(text, file);
    fclose(file);
}

/* True for the repository's migration files: NNNN_....sql. */
static bool is_shipped_name(const char *name)
{
    size_t length = strlen(name);
    return length > 9 && name[4] == '_' && strcmp(name + length - 4, ".sql") == 0 &&
           strspn(name, "0123456789") == 4;
}

/* How many migrations the repository ships for SQLite: a migration added
 * later needs no change here. (Tests add theirs from 9001 on.) */
static int shipped_count(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/sqlite", source_migrations());
    DIR *dir = opendir(path);
    ck_assert_ptr_nonnull(dir);
    int count = 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;)
        count += is_shipped_name(entry->d_name);
    closedir(dir);
    return count;
}

/* Copies the repository's migrations into migrations_copy. */
static void copy_migrations(void)
{
    ck_assert_int_eq(mkdir(migrations_root, 0700), 0);
    ck_assert_int_eq(mkdir(migrations_copy, 0700), 0);
    char from[1024];
    snprintf(from, sizeof from, "%s/sqlite", source_migrations());
    DIR *dir = opendir(from);
    ck_assert_ptr_nonnull(dir);
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        if (!is_shipped_name(entry->d_name))
            continue;
        char path[1300];
        size_t size;
        snprintf(path, sizeof path, "%s/%s", from, entry->d_name);
        char *bytes = read_whole(path, &size);
        write_file(migrations_copy, entry->d_name, bytes, "wb");
        free(bytes);
    }
    closedir(dir);
}

static struct store *open_store(void)
{
    struct store_options options = {db_path, 1000, 2, true, false};
    struct store *store = NULL;
    struct gq_error err;
    ck_assert_int_eq(store_open(&options, &store, &err), GQ_OK);
    return store;
}

static enum gq_code migrate(const char *directory, int *applied, struct gq_error *err)
{
    struct store *store = open_store();
    enum gq_code code = store_migrate(store, directory, applied, err);
    store_close(store);
    return code;
}

/* The first column of the first row of `sql` as an integer (-1: no row). */
static long long query_int(const char *sql)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *stmt;
    ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
    long long value = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

/* The first column of the first row of `sql` as text, into `out`. */
static void query_text(const char *sql, char *out, size_t size)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *stmt;
    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL), SQLITE_OK);
    out[0] = '\0';
    if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != NULL)
        snprintf(out, size, "%s", (const char *)sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

static void migrate_fresh(void)
{
    int applied = -1;
    struct gq_error err;
    ck_assert_msg(migrate(source_migrations(), &applied, &err) == GQ_OK, "%s", err.message);
    ck_assert_int_eq(applied, shipped_count());
}

/* ---- A fresh database. ---- */

static const char *const tables[] = {
    "schema_migrations",
    "price_list",
    "customer_segments",
    "gpu_models",
    "billing_modes",
    "billing_mode_segments",
    "skus",
    "sku_prices",
    "discount_rules",
    "bundles",
    "bundle_items",
    "quotes",
    "catalog_languages",
    "sku_texts",
    "billing_mode_texts",
    "bundle_texts",
    "catalog_texts",
    "regions",
    "region_texts",
    "sku_hosts",
};

START_TEST(test_fresh_has_every_table)
{
    migrate_fresh();
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", tables[_i]);
    ck_assert_msg(query_int(sql) == 1, "table %s is missing", tables[_i]);
}
END_TEST

START_TEST(test_fresh_has_price_list_version_1)
{
    migrate_fresh();
    ck_assert_int_eq(query_int("SELECT version FROM price_list"), 1);
    ck_assert_int_eq(query_int("SELECT count(*) FROM price_list"), 1);
    char currency[8];
    query_text("SELECT currency FROM price_list", currency, sizeof currency);
    ck_assert_str_eq(currency, "CNY");
    ck_assert_int_eq(query_int("SELECT count(*) FROM skus"), 5);
    ck_assert_int_eq(query_int("SELECT count(*) FROM sku_prices"), 20);
    ck_assert_int_eq(query_int("SELECT count(*) FROM discount_rules"), 0);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes"), 0);
}
END_TEST

START_TEST(test_fresh_records_every_migration)
{
    migrate_fresh();
    ck_assert_int_eq(query_int("SELECT count(*) FROM schema_migrations"), shipped_count());
    char name[64];
    query_text("SELECT name FROM schema_migrations WHERE version = 2", name, sizeof name);
    ck_assert_str_eq(name, "0002_seed_catalog.sql");

    /* The recorded checksum is the SHA-256 of the file's bytes. */
    char path[1024];
    size_t size;
    snprintf(path, sizeof path, "%s/sqlite/0002_seed_catalog.sql", source_migrations());
    char *bytes = read_whole(path, &size);
    struct sha256_ctx context;
    uint8_t digest[SHA256_DIGEST_SIZE];
    char expected[2 * SHA256_DIGEST_SIZE + 1];
    sha256_init(&context);
    sha256_update(&context, size, (const uint8_t *)bytes);
    sha256_digest(&context, sizeof digest, digest);
    base16_encode_update(expected, sizeof digest, digest);
    expected[2 * SHA256_DIGEST_SIZE] = '\0';
    free(bytes);
    char recorded[80];
    query_text("SELECT checksum FROM schema_migrations WHERE version = 2", recorded,
               sizeof recorded);
    ck_assert_str_eq(recorded, expected);
    ck_assert_int_gt(query_int("SELECT applied_at FROM schema_migrations WHERE version = 1"),
                     1600000000);
}
END_TEST

/* The seed price list: every SKU's price under every mode, in fen. */
static const struct {
    const char *sku;
    const char *mode;
    long long fen;
} seed_prices[] = {
    {"v100-16g-x1", "on_demand", 228},     {"v100-16g-x1", "monthly", 123100},
    {"v100-16g-x1", "quarterly", 330500},  {"v100-16g-x1", "student", 150},
    {"v100-16g-x2", "on_demand", 428},     {"v100-16g-x2", "monthly", 231100},
    {"v100-16g-x2", "quarterly", 619900},  {"v100-16g-x2", "student", 280},
    {"v100-32g-x4", "on_demand", 968},     {"v100-32g-x4", "monthly", 522700},
    {"v100-32g-x4", "quarterly", 1401800}, {"v100-32g-x4", "student", 638},
    {"v100-32g-x8", "on_demand", 1928},    {"v100-32g-x8", "monthly", 1041100},
    {"v100-32g-x8", "quarterly", 2790700}, {"v100-32g-x8", "student", 1268},
    {"t4-16g-x1", "on_demand", 990},       {"t4-16g-x1", "monthly", 535000},
    {"t4-16g-x1", "quarterly", 1432100},   {"t4-16g-x1", "student", 650},
};

START_TEST(test_fresh_has_seed_price)
{
    migrate_fresh();
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT amount_fen FROM sku_prices WHERE sku_id = '%s' AND mode_id = '%s'",
             seed_prices[_i].sku, seed_prices[_i].mode);
    ck_assert_int_eq(query_int(sql), seed_prices[_i].fen);
}
END_TEST

static const struct {
    const char *id;
    const char *model;
    int count;
    const char *interconnect;
    const char *name;
} seed_skus[] = {
    {"v100-16g-x1", "v100-16g", 1, "none", "V100 16GB × 1"},
    {"v100-16g-x2", "v100-16g", 2, "nvlink", "V100 16GB × 2"},
    {"v100-32g-x4", "v100-32g", 4, "nvlink", "V100 32GB × 4"},
    {"v100-32g-x8", "v100-32g", 8, "nvlink", "V100 32GB × 8"},
    {"t4-16g-x1", "t4-16g", 1, "none", "T4 16GB × 1"},
};

START_TEST(test_fresh_has_seed_sku)
{
    migrate_fresh();
    char sql[256], text[64];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM skus WHERE id = '%s' AND gpu_model_id = '%s'"
             " AND gpu_count = %d AND interconnect = '%s' AND active = 1",
             seed_skus[_i].id, seed_skus[_i].model, seed_skus[_i].count,
             seed_skus[_i].interconnect);
    ck_assert_int_eq(query_int(sql), 1);
    snprintf(sql, sizeof sql, "SELECT name FROM skus WHERE id = '%s'", seed_skus[_i].id);
    query_text(sql, text, sizeof text);
    ck_assert_str_eq(text, seed_skus[_i].name);
}
END_TEST

START_TEST(test_fresh_has_student_mode_for_students_only)
{
    migrate_fresh();
    char segment[32];
    query_text("SELECT group_concat(segment_id) FROM billing_mode_segments"
               " WHERE mode_id = 'student'",
               segment, sizeof segment);
    ck_assert_str_eq(segment, "student");
    ck_assert_int_eq(query_int("SELECT count(*) FROM billing_mode_segments"), 13);
    ck_assert_int_eq(query_int("SELECT block_hours FROM billing_modes WHERE id = 'quarterly'"),
                     2160);
    ck_assert_int_eq(query_int("SELECT list_basis_points FROM billing_modes WHERE id = 'monthly'"),
                     7500);
}
END_TEST

START_TEST(test_fresh_has_bundles)
{
    migrate_fresh();
    ck_assert_int_eq(query_int("SELECT list_price_fen FROM bundles"
                               " WHERE id = 'training-starter-monthly'"),
                     164200);
    ck_assert_int_eq(query_int("SELECT price_fen FROM bundles"
                               " WHERE id = 'enterprise-inference-quarterly'"),
                     5729300);
    ck_assert_int_eq(query_int("SELECT count(*) FROM bundle_items"
                               " WHERE bundle_id = 'enterprise-inference-quarterly'"
                               " AND sku_id = 't4-16g-x1' AND quantity = 4 AND hours = 2160"),
                     1);
    char segment[32];
    query_text("SELECT segment FROM bundles WHERE id = 'enterprise-inference-quarterly'", segment,
               sizeof segment);
    ck_assert_str_eq(segment, "enterprise");
}
END_TEST

/* CHECK constraints refuse money that is not a positive integer. */
START_TEST(test_schema_refuses_real_money)
{
    migrate_fresh();
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db,
                                  "UPDATE sku_prices SET amount_fen = 2.5"
                                  " WHERE sku_id = 't4-16g-x1' AND mode_id = 'on_demand'",
                                  NULL, NULL, NULL),
                     SQLITE_CONSTRAINT);
    ck_assert_int_eq(sqlite3_exec(db,
                                  "INSERT INTO discount_rules (id, name, basis_points,"
                                  " fixed_amount_fen) VALUES ('both', 'both', 100, 100)",
                                  NULL, NULL, NULL),
                     SQLITE_CONSTRAINT);
    sqlite3_close(db);
    ck_assert_int_eq(query_int("SELECT version FROM price_list"), 1);
}
END_TEST

/* ---- Re-runs. ---- */

START_TEST(test_rerun_applies_nothing)
{
    migrate_fresh();
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(source_migrations(), &applied, &err), GQ_OK);
    ck_assert_int_eq(applied, 0);
    ck_assert_int_eq(query_int("SELECT count(*) FROM schema_migrations"), shipped_count());
    ck_assert_int_eq(query_int("SELECT version FROM price_list"), 1);
}
END_TEST

START_TEST(test_changed_file_stops_everything)
{
    copy_migrations();
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(migrations_root, &applied, &err), GQ_OK);
    write_file(migrations_copy, "0002_seed_catalog.sql", "-- an edit\n", "ab");
    write_file(migrations_copy, "9001_new_table.sql", "CREATE TABLE extra (x INTEGER);\n", "wb");

    ck_assert_int_eq(migrate(migrations_root, &applied, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_int_eq(err.code, GQ_ERR_INVALID_VALUE);
    ck_assert_int_eq(applied, 0);
    ck_assert_ptr_nonnull(
        strstr(err.message, "migration 0002_seed_catalog.sql was changed after it was applied"));
    ck_assert_int_eq(query_int("SELECT count(*) FROM schema_migrations"), shipped_count());
    ck_assert_int_eq(query_int("SELECT count(*) FROM sqlite_master WHERE name = 'extra'"), 0);
}
END_TEST

START_TEST(test_new_file_is_applied_on_rerun)
{
    copy_migrations();
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(migrations_root, &applied, &err), GQ_OK);
    ck_assert_int_eq(applied, shipped_count());
    write_file(migrations_copy, "9001_raise_t4.sql",
               "UPDATE sku_prices SET amount_fen = 1000\n"
               " WHERE sku_id = 't4-16g-x1' AND mode_id = 'on_demand';\n",
               "wb");

    ck_assert_msg(migrate(migrations_root, &applied, &err) == GQ_OK, "%s", err.message);
    ck_assert_int_eq(applied, 1);
    ck_assert_int_eq(query_int("SELECT amount_fen FROM sku_prices"
                               " WHERE sku_id = 't4-16g-x1' AND mode_id = 'on_demand'"),
                     1000);
    ck_assert_int_eq(query_int("SELECT count(*) FROM schema_migrations"), shipped_count() + 1);
    /* The price change made a new price list. */
    ck_assert_int_eq(query_int("SELECT version FROM price_list"), 2);
}
END_TEST

/* Takes migrations out of migrations_copy (kept aside, in memory) and
 * puts them back, to migrate a database the way an older checkout did. */
#define COMPRESSED_QUOTES "0004_compressed_quote_responses.sql"
#define HELD_MAX 64
static struct {
    char name[256];
    char *sql;
} held_back[HELD_MAX];
static size_t n_held_back;

/* `name` (0004) and every migration after it, as a checkout that had
 * none of them. */
static void hold_back_migration(const char *name)
{
    int from = atoi(name);
    DIR *dir = opendir(migrations_copy);
    ck_assert_ptr_nonnull(dir);
    n_held_back = 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        if (!is_shipped_name(entry->d_name) || atoi(entry->d_name) < from)
            continue;
        ck_assert_uint_lt(n_held_back, HELD_MAX);
        char path[1300];
        size_t size;
        snprintf(path, sizeof path, "%s/%.255s", migrations_copy, entry->d_name);
        snprintf(held_back[n_held_back].name, sizeof held_back[0].name, "%s", entry->d_name);
        held_back[n_held_back].sql = read_whole(path, &size);
        n_held_back++;
    }
    closedir(dir);
    for (size_t i = 0; i < n_held_back; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%.255s", migrations_copy, held_back[i].name);
        ck_assert_int_eq(unlink(path), 0);
    }
}

static void restore_migration(const char *name)
{
    (void)name;
    for (size_t i = 0; i < n_held_back; i++) {
        write_file(migrations_copy, held_back[i].name, held_back[i].sql, "wb");
        free(held_back[i].sql);
        held_back[i].sql = NULL;
    }
    n_held_back = 0;
}

/* 0003 adds each GPU model's FP32 and BF16 peaks to a database already in
 * use: the figures change no price, so the price list version a stored
 * quote names, and its time, stay as they were (the triggers bump the
 * version on every row the migration updates). */
START_TEST(test_precision_peaks_keep_the_price_list_version)
{
    copy_migrations();
    char peaks[1024];
    snprintf(peaks, sizeof peaks, "%s/0003_precision_peaks.sql", migrations_copy);
    size_t size;
    char *sql = read_whole(peaks, &size);
    ck_assert_int_eq(unlink(peaks), 0);
    hold_back_migration(COMPRESSED_QUOTES); /* applied after 0003, as it would be */
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(migrations_root, &applied, &err), GQ_OK);
    ck_assert_int_eq(applied, 2); /* 0001 and 0002: 0003 taken out, 0004 on are held back */
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db,
                                  "UPDATE sku_prices SET amount_fen = 239 WHERE sku_id = "
                                  "'v100-16g-x1' AND mode_id = 'on_demand';"
                                  "UPDATE price_list SET updated_at = 1700000000",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    ck_assert_int_eq(query_int("SELECT version FROM price_list"), 2);

    write_file(migrations_copy, "0003_precision_peaks.sql", sql, "wb");
    free(sql);
    restore_migration(COMPRESSED_QUOTES);
    ck_assert_msg(migrate(migrations_root, &applied, &err) == GQ_OK, "%s", err.message);
    ck_assert_int_eq(applied, shipped_count() - 2); /* 0003, and 0004 on */
    /* Neither do 0006's model shapes. */
    ck_assert_int_eq(query_int("SELECT count(*) FROM model_shapes"), 11);
    ck_assert_int_eq(query_int("SELECT version FROM price_list"), 2);
    ck_assert_int_eq(query_int("SELECT updated_at FROM price_list"), 1700000000);
    ck_assert_int_eq(query_int("SELECT count(*) FROM gpu_models WHERE fp32_tflops IS NULL"), 0);
    ck_assert_int_eq(query_int("SELECT count(*) FROM gpu_models WHERE bf16_tflops IS NULL"), 3);
    ck_assert_int_eq(query_int("SELECT count(*) FROM sqlite_temp_master"), 0);
}
END_TEST

/* Names that are not ^[0-9]{4}_[a-z0-9_]+\.sql$ are not migrations. */
static const char *const ignored_names[] = {
    "README.md",      "0003-dash.sql", "003_short.sql", "0003_Upper.sql",
    "0003_x.sql.bak", "0003_.sql",     "00030_x.sql",   "x0003_x.sql",
};

START_TEST(test_other_names_are_ignored)
{
    copy_migrations();
    write_file(migrations_copy, ignored_names[_i], "THIS IS NOT SQL;\n", "wb");
    int applied = -1;
    struct gq_error err;
    ck_assert_msg(migrate(migrations_root, &applied, &err) == GQ_OK, "%s: %s", ignored_names[_i],
                  err.message);
    ck_assert_int_eq(applied, shipped_count());
}
END_TEST

START_TEST(test_failing_file_is_rolled_back_and_named)
{
    copy_migrations();
    write_file(migrations_copy, "9001_broken.sql",
               "CREATE TABLE half_done (x INTEGER);\n"
               "UPDATE sku_prices SET amount_fen = 1 WHERE sku_id = 't4-16g-x1';\n"
               "INSERT INTO nowhere VALUES (1);\n",
               "wb");
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(migrations_root, &applied, &err), GQ_ERR_INTERNAL);
    ck_assert_int_eq(applied, shipped_count()); /* every shipped one went in before it */
    ck_assert_ptr_nonnull(strstr(err.message, "9001_broken.sql"));
    ck_assert_ptr_nonnull(strstr(err.message, "no such table: nowhere"));
    ck_assert_int_eq(query_int("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'"), 0);
    ck_assert_int_eq(query_int("SELECT amount_fen FROM sku_prices"
                               " WHERE sku_id = 't4-16g-x1' AND mode_id = 'on_demand'"),
                     990);
    ck_assert_int_eq(query_int("SELECT count(*) FROM schema_migrations"), shipped_count());
    ck_assert_int_eq(query_int("SELECT version FROM price_list"), 1);
}
END_TEST

START_TEST(test_duplicate_version_is_refused)
{
    copy_migrations();
    write_file(migrations_copy, "0002_another.sql", "SELECT 1;\n", "wb");
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(migrations_root, &applied, &err), GQ_ERR_INVALID_VALUE);
    ck_assert_int_eq(applied, 0);
    ck_assert_ptr_nonnull(strstr(err.message, "0002_another.sql"));
    ck_assert_int_eq(query_int("SELECT count(*) FROM sqlite_master WHERE type = 'table'"), 0);
}
END_TEST

START_TEST(test_missing_directory_is_not_ready)
{
    char missing[700];
    snprintf(missing, sizeof missing, "%s/no-such-dir", temp_dir);
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(missing, &applied, &err), GQ_ERR_NOT_READY);
    ck_assert_ptr_nonnull(strstr(err.message, "no-such-dir"));
    ck_assert_int_eq(applied, 0);
}
END_TEST

/* 0004 rebuilds the quotes table for compressed responses: a quote stored
 * before it keeps every column, its text included, and reads back through
 * the store as it was stored; a quote stored after it is compressed. */
START_TEST(test_quotes_stored_before_compression_are_kept)
{
    copy_migrations();
    hold_back_migration(COMPRESSED_QUOTES);
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(migrations_root, &applied, &err), GQ_OK);
    ck_assert_int_eq(applied, 3);
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db,
                                  "INSERT INTO quotes (id, status, request_json, response_json,"
                                  " price_list_version, created_at, expires_at, accepted_at,"
                                  " idempotency_key) VALUES ('q_old', 'accepted', '{\"r\":1}',"
                                  " '{\"total\":\"1641.60\"}', 1, 100, 200, 150, 'key-1')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);

    restore_migration(COMPRESSED_QUOTES);
    ck_assert_msg(migrate(migrations_root, &applied, &err) == GQ_OK, "%s", err.message);
    ck_assert_int_eq(applied, shipped_count() - 3); /* 0004 on */
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE response_lz4 IS NULL"
                               " AND response_size IS NULL AND idempotency_key = 'key-1'"),
                     1);
    struct store *store = open_store();
    struct stored_quote old;
    ck_assert_int_eq(store_quote_get(store, "q_old", &old, &err), GQ_OK);
    ck_assert_str_eq(old.response_json, "{\"total\":\"1641.60\"}");
    ck_assert_str_eq(old.request_json, "{\"r\":1}");
    ck_assert_str_eq(old.idempotency_key, "key-1");
    ck_assert(old.accepted);
    ck_assert_int_eq(old.accepted_at, 150);
    ck_assert_int_eq(old.expires_at, 200);
    stored_quote_clear(&old);

    struct stored_quote fresh = {.id = "q_new",
                                 .request_json = (char *)"{}",
                                 .response_json = (char *)"{\"total\":\"9.90\"}",
                                 .price_list_version = 1,
                                 .created_at = 100,
                                 .expires_at = 200};
    bool replayed = true;
    struct stored_quote existing;
    ck_assert_int_eq(store_quote_insert(store, &fresh, &replayed, &existing, &err), GQ_OK);
    ck_assert(!replayed);
    store_close(store);
    ck_assert_int_eq(query_int("SELECT response_size FROM quotes WHERE id = 'q_new'"
                               " AND response_json IS NULL AND response_lz4 IS NOT NULL"),
                     16);
}
END_TEST

/* 0011 rebuilds the events table for compressed bodies: an event written
 * before it keeps its text and its deliveries' reference, and reads back
 * through the store as it was written; an event written after it is
 * compressed. */
#define COMPRESSED_EVENTS "0011_compressed_event_bodies.sql"
START_TEST(test_events_written_before_compression_are_kept)
{
    copy_migrations();
    hold_back_migration(COMPRESSED_EVENTS);
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(migrations_root, &applied, &err), GQ_OK);
    ck_assert_int_eq(applied, 10);
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db,
                                  "INSERT INTO events (id, type, created_at, body) VALUES"
                                  " ('evt_old', 'quote.created', 100, '{\"id\":\"evt_old\"}')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);

    restore_migration(COMPRESSED_EVENTS);
    ck_assert_msg(migrate(migrations_root, &applied, &err) == GQ_OK, "%s", err.message);
    ck_assert_int_eq(applied, shipped_count() - 10); /* 0011 on */
    ck_assert_int_eq(query_int("SELECT count(*) FROM events WHERE body_lz4 IS NULL"
                               " AND body_size IS NULL AND created_at = 100"),
                     1);
    struct store *store = open_store();
    struct store_event old;
    ck_assert_int_eq(store_event_get(store, "evt_old", &old, &err), GQ_OK);
    ck_assert_str_eq(old.body, "{\"id\":\"evt_old\"}");
    ck_assert_str_eq(old.type, "quote.created");
    store_event_clear(&old);
    ck_assert_int_eq(store_event_publish(store, "price_list.published", "{\"version\":2}", &err),
                     GQ_OK);
    store_close(store);
    ck_assert_int_eq(query_int("SELECT count(*) FROM events WHERE type = 'price_list.published'"
                               " AND body IS NULL AND body_lz4 IS NOT NULL AND body_size > 0"),
                     1);
}
END_TEST

/* A database migrated by a newer version (its migrations have no file
 * here) is served, and the two it applied are counted and the newest named;
 * a recorded migration below the newest file (deleted since) is not one. */
START_TEST(test_migrations_of_a_newer_version_are_counted)
{
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(source_migrations(), &applied, &err), GQ_OK);
    struct store *store = open_store();
    int unknown = -1;
    char newest[64];
    ck_assert_int_eq(
        store_unknown_migrations(store, source_migrations(), &unknown, newest, sizeof newest, &err),
        GQ_OK);
    ck_assert_int_eq(unknown, 0);
    ck_assert_str_eq(newest, "");
    store_close(store);

    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ck_assert_int_eq(
        sqlite3_exec(db,
                     "INSERT INTO schema_migrations VALUES "
                     "(9005, '9005_future.sql', 'x', 1), (9006, '9006_later.sql', 'y', 2), "
                     "(0, '0000_since_deleted.sql', 'z', 0)",
                     NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
    ck_assert_int_eq(migrate(source_migrations(), &applied, &err), GQ_OK);
    ck_assert_int_eq(applied, 0);
    store = open_store();
    ck_assert_int_eq(
        store_unknown_migrations(store, source_migrations(), &unknown, newest, sizeof newest, &err),
        GQ_OK);
    ck_assert_int_eq(unknown, 2);
    ck_assert_str_eq(newest, "9006_later.sql");
    store_close(store);
}
END_TEST

/* A directory with no migration in it (mistyped, or a README only) is
 * refused, by the check that runs before the database is created too. */
START_TEST(test_empty_directory_is_refused)
{
    char root[700], empty[720];
    snprintf(root, sizeof root, "%s/empty-migrations", temp_dir);
    snprintf(empty, sizeof empty, "%s/sqlite", root);
    ck_assert_int_eq(mkdir(root, 0700), 0);
    ck_assert_int_eq(mkdir(empty, 0700), 0);
    char readme[760];
    snprintf(readme, sizeof readme, "%s/README.md", empty);
    FILE *file = fopen(readme, "w");
    ck_assert_ptr_nonnull(file);
    fclose(file);
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(migrate(root, &applied, &err), GQ_ERR_NOT_READY);
    char expected[800];
    snprintf(expected, sizeof expected, "migrations directory %s has no migration (NNNN_name.sql)",
             empty);
    ck_assert_str_eq(err.message, expected);
    ck_assert_int_eq(applied, 0);
    ck_assert_int_eq(store_check_migrations(db_path, root, &err), GQ_ERR_NOT_READY);
    ck_assert_str_eq(err.message, expected);
}
END_TEST

static Suite *migrate_suite(void)
{
    Suite *suite = suite_create("store_migrate");
    TCase *fresh = tcase_create("fresh");
    tcase_add_checked_fixture(fresh, setup, teardown);
    tcase_add_loop_test(fresh, test_fresh_has_every_table, 0,
                        (int)(sizeof tables / sizeof tables[0]));
    tcase_add_test(fresh, test_fresh_has_price_list_version_1);
    tcase_add_test(fresh, test_fresh_records_every_migration);
    tcase_add_loop_test(fresh, test_fresh_has_seed_price, 0,
                        (int)(sizeof seed_prices / sizeof seed_prices[0]));
    tcase_add_loop_test(fresh, test_fresh_has_seed_sku, 0,
                        (int)(sizeof seed_skus / sizeof seed_skus[0]));
    tcase_add_test(fresh, test_fresh_has_student_mode_for_students_only);
    tcase_add_test(fresh, test_fresh_has_bundles);
    tcase_add_test(fresh, test_schema_refuses_real_money);
    suite_add_tcase(suite, fresh);

    TCase *rerun = tcase_create("rerun");
    tcase_add_checked_fixture(rerun, setup, teardown);
    tcase_add_test(rerun, test_rerun_applies_nothing);
    tcase_add_test(rerun, test_changed_file_stops_everything);
    tcase_add_test(rerun, test_new_file_is_applied_on_rerun);
    tcase_add_test(rerun, test_precision_peaks_keep_the_price_list_version);
    tcase_add_test(rerun, test_quotes_stored_before_compression_are_kept);
    tcase_add_test(rerun, test_events_written_before_compression_are_kept);
    tcase_add_loop_test(rerun, test_other_names_are_ignored, 0,
                        (int)(sizeof ignored_names / sizeof ignored_names[0]));
    tcase_add_test(rerun, test_failing_file_is_rolled_back_and_named);
    tcase_add_test(rerun, test_duplicate_version_is_refused);
    tcase_add_test(rerun, test_missing_directory_is_not_ready);
    tcase_add_test(rerun, test_empty_directory_is_refused);
    tcase_add_test(rerun, test_migrations_of_a_newer_version_are_counted);
    suite_add_tcase(suite, rerun);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(migrate_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
