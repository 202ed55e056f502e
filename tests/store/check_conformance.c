/*
 * The store's conformance suite: one set of tests of the whole store
 * interface (store.h, and the backend's table of operations where the
 * interface hands a batch to it), run against every backend. SQLite always;
 * PostgreSQL on the server named by GPUQUOTE_TEST_POSTGRES, which `make
 * check` starts (scripts/postgres.sh): without it this program fails,
 * unless GPUQUOTE_CONFORMANCE=sqlite asks for SQLite alone.
 *
 * What a backend must do alike: migrate (and find nothing left to do the
 * second time), load the seed catalog to the fen, bump the price-list
 * version on a catalog change and tell it cheaply, load the model shapes
 * exactly as the core's fixture holds them and reload an edited one, keep a
 * quote exactly,
 * replay an idempotency key (also from another store on the same database,
 * a second replica, at the same moment: one quote per key), accept a quote
 * once (of two stores accepting at once, one wins), refuse an expired one
 * and leave it open, fail a refused quote alone in its batch, read a quote
 * stored as text before compression, and call a damaged row damaged. And
 * the customers': their own discount rules kept per customer as given (and
 * seen by a second replica at once), a quote's customer and creator kept
 * and filtered on, a key's customer, and events read for one customer.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/catalog.h"
#include "core/fixture_catalog.h"
#include "codec/price_list_document.h"
#include "codec/store_json.h"
#include "store/backend.h"
#include "store/customer_rules.h"
#include "store/store.h"
#include "store/verifications.h"
#include "store_fixture.h"
#include "support/testdb.h"
#include "util/api_key.h"

enum backend { BACKEND_SQLITE, BACKEND_POSTGRES, BACKEND_COUNT };

static const char *const backend_names[BACKEND_COUNT] = {"sqlite", "postgres"};

/* The backend of the test case being run (each TCase sets it). */
static enum backend current;
static char temp_dir[512];
static char database[TESTDB_URL_SIZE]; /* a path or a URL */
static char pg_name[TESTDB_NAME_SIZE];
static struct store *store;

/* ---- Fixture. ---- */

static struct store *open_store(unsigned pool_size)
{
    struct store_options options = {database, 2000, pool_size, true, true};
    struct store *opened = NULL;
    struct gq_error err;
    ck_assert_msg(store_open(&options, &opened, &err) == GQ_OK, "%s", err.message);
    ck_assert_str_eq(store_backend_name(opened), backend_names[current]);
    return opened;
}

static void setup(void)
{
    make_temp_dir(temp_dir, "conformance");
    if (current == BACKEND_POSTGRES) {
        testdb_create(pg_name, database);
    } else {
        pg_name[0] = '\0';
        snprintf(database, sizeof database, "%.400s/test.db", temp_dir);
    }
    store = open_store(4);
    struct gq_error err;
    ck_assert_msg(store_migrate(store, source_migrations(), NULL, &err) == GQ_OK, "%s",
                  err.message);
}

static void teardown(void)
{
    store_close(store);
    store = NULL;
    testdb_drop(pg_name);
    remove_temp_dir(temp_dir);
}

static void setup_sqlite(void)
{
    current = BACKEND_SQLITE;
    setup();
}

static void setup_postgres(void)
{
    current = BACKEND_POSTGRES;
    setup();
}

/* ---- Helpers. ---- */

/* A quote as the HTTP layer would hand it over; strings are borrowed. */
static struct stored_quote make_quote(const char *id, const char *key, int64_t created_at,
                                      int64_t expires_at)
{
    struct stored_quote quote;
    memset(&quote, 0, sizeof quote);
    snprintf(quote.id, sizeof quote.id, "%s", id);
    quote.request_json = (char *)"{\"items\":[{\"sku\":\"v100-16g-x1\"}]}";
    quote.response_json = (char *)"{\"id\":\"q\",\"status\":\"open\",\"total\":\"1641.60\"}";
    quote.idempotency_key = (char *)key;
    quote.price_list_version = 1;
    quote.created_at = created_at;
    quote.expires_at = expires_at;
    return quote;
}

static void insert_ok(struct store *into, const struct stored_quote *quote)
{
    bool replayed = true;
    struct stored_quote existing;
    memset(&existing, 0, sizeof existing);
    struct gq_error err;
    ck_assert_msg(store_quote_insert(into, quote, &replayed, &existing, &err) == GQ_OK, "%s",
                  err.message);
    ck_assert(!replayed);
}

static long long query_integer(const char *sql, const char *param)
{
    return testdb_integer(database, sql, param);
}

static int64_t now_seconds(void)
{
    return (int64_t)time(NULL);
}

/* ---- Migrations. ---- */

START_TEST(test_migrate_twice_applies_nothing_the_second_time)
{
    int applied = -1;
    struct gq_error err;
    ck_assert_int_eq(store_migrate(store, source_migrations(), &applied, &err), GQ_OK);
    ck_assert_int_eq(applied, 0);
    int pending = -1;
    char oldest[64];
    ck_assert_int_eq(
        store_pending_migrations(store, source_migrations(), &pending, oldest, sizeof oldest, &err),
        GQ_OK);
    ck_assert_int_eq(pending, 0);
    ck_assert_int_ge(query_integer("SELECT count(*) FROM schema_migrations", NULL), 4);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM schema_migrations WHERE length(checksum) = 64", NULL),
        query_integer("SELECT count(*) FROM schema_migrations", NULL));
}
END_TEST

/* ---- The catalog. ---- */

START_TEST(test_seed_catalog_loads_to_the_fen)
{
    struct catalog *catalog = NULL;
    struct gq_error err;
    ck_assert_msg(store_load_catalog(store, &catalog, &err) == GQ_OK, "%s", err.message);
    ck_assert_int_eq(catalog->price_list_version, 1);
    ck_assert_str_eq(catalog->currency, "CNY");
    ck_assert_uint_eq(catalog->n_skus, 5);
    /* Sorted by id, byte order, whatever the database's collation. */
    const char *ids[] = {"t4-16g-x1", "v100-16g-x1", "v100-16g-x2", "v100-32g-x4", "v100-32g-x8"};
    for (size_t i = 0; i < 5; i++)
        ck_assert_str_eq(catalog->skus[i].id, ids[i]);
    const struct sku *sku = catalog_find_sku(catalog, "v100-16g-x1");
    ck_assert_ptr_nonnull(sku);
    ck_assert_int_eq(sku->price[BILLING_ON_DEMAND], 228);
    ck_assert_int_eq(sku->price[BILLING_MONTHLY], 123100);
    ck_assert_int_eq(sku->price[BILLING_QUARTERLY], 330500);
    ck_assert_int_eq(sku->price[BILLING_STUDENT], 150);
    ck_assert_str_eq(sku->gpu->id, "v100-16g");
    ck_assert(sku->gpu->fp32_tflops > 15.69 && sku->gpu->fp32_tflops < 15.71);
    ck_assert(sku->gpu->bf16_tflops == 0.0);
    ck_assert_int_eq(sku->gpu->compute_capability, 70);
    const struct sku *t4 = catalog_find_sku(catalog, "t4-16g-x1");
    ck_assert_int_eq(t4->gpu->compute_capability, 75);
    ck_assert_int_eq(t4->price[BILLING_QUARTERLY], 1432100);
    ck_assert_int_eq(catalog->modes[BILLING_STUDENT].segment_mask, SEGMENT_BIT(SEGMENT_STUDENT));
    ck_assert_int_eq(catalog->modes[BILLING_QUARTERLY].block_hours, 2160);
    ck_assert_uint_eq(catalog->n_bundles, 2);
    ck_assert_str_eq(catalog->bundles[0].id, "enterprise-inference-quarterly");
    ck_assert_int_eq(catalog->bundles[0].price, 5729300);
    ck_assert_int_eq(catalog->bundles[0].list_price, 8484500);
    ck_assert_uint_eq(catalog->bundles[0].n_items, 1);
    ck_assert_int_eq(catalog->bundles[0].items[0].quantity, 4);
    ck_assert_str_eq(catalog->bundles[0].items[0].sku->id, "t4-16g-x1");
    ck_assert_uint_eq(catalog->n_rules, 0);
    catalog_free(catalog);
}
END_TEST

START_TEST(test_catalog_change_bumps_the_version)
{
    int64_t before = -1, after = -1;
    struct gq_error err;
    ck_assert_int_eq(store_price_list_version(store, &before, &err), GQ_OK);
    ck_assert_int_eq(before, 1);
    ck_assert_int_eq(testdb_exec(database,
                                 "UPDATE sku_prices SET amount_fen = 239 WHERE sku_id = ?1 AND "
                                 "mode_id = 'on_demand'",
                                 "v100-16g-x1"),
                     1);
    ck_assert_int_eq(store_price_list_version(store, &after, &err), GQ_OK);
    ck_assert_int_gt(after, before);
    struct catalog *catalog = NULL;
    ck_assert_int_eq(store_load_catalog(store, &catalog, &err), GQ_OK);
    ck_assert_int_eq(catalog->price_list_version, after);
    ck_assert_int_eq(catalog_find_sku(catalog, "v100-16g-x1")->price[BILLING_ON_DEMAND], 239);
    catalog_free(catalog);
    /* A rule added, then taken away: each bumps it again. */
    testdb_exec(database,
                "INSERT INTO discount_rules (id, name, basis_points) VALUES ('r1', 'ten', 1000)",
                NULL);
    int64_t with_rule = -1;
    ck_assert_int_eq(store_price_list_version(store, &with_rule, &err), GQ_OK);
    ck_assert_int_gt(with_rule, after);
    testdb_exec(database, "DELETE FROM discount_rules WHERE id = ?1", "r1");
    int64_t without = -1;
    ck_assert_int_eq(store_price_list_version(store, &without, &err), GQ_OK);
    ck_assert_int_gt(without, with_rule);
}
END_TEST

/* Migration 0006's shapes read back as the core's tests know them (the
 * fixture), in the order the catalog's binary search needs, whatever order
 * the database returns them in; seeding them kept the price-list version. */
START_TEST(test_model_shapes_load_as_seeded)
{
    struct catalog *catalog = NULL;
    struct gq_error err;
    ck_assert_msg(store_load_catalog(store, &catalog, &err) == GQ_OK, "%s", err.message);
    ck_assert_int_eq(catalog->price_list_version, 1);
    ck_assert_uint_eq(catalog->n_shapes, FIXTURE_SHAPE_COUNT);
    for (size_t i = 0; i < FIXTURE_SHAPE_COUNT; i++) {
        const struct fixture_shape *want = &fixture_shapes[i];
        const struct model_shape *got = &catalog->shapes[i];
        ck_assert_str_eq(got->id, want->id);
        ck_assert_str_eq(got->name, want->name);
        ck_assert_int_eq(got->layers, want->layers);
        ck_assert_int_eq(got->hidden, want->hidden);
        ck_assert_int_eq(got->heads, want->heads);
        ck_assert_int_eq(got->kv_heads, want->kv_heads);
        ck_assert_int_eq(got->intermediate, want->intermediate);
        ck_assert_int_eq(got->vocab, want->vocab);
        ck_assert_int_eq(got->sliding_window, want->sliding_window);
        ck_assert_int_eq(got->params, want->params);
        ck_assert_str_eq(got->source, want->source);
        ck_assert_int_eq(got->max_position_embeddings, want->max_position_embeddings);
    }
    ck_assert_ptr_nonnull(catalog_find_shape(catalog, "qwen2.5-7b"));
    catalog_free(catalog);
}
END_TEST

/* A shape is catalog: an edit bumps the version (every replica reloads)
 * and the next load has it. */
START_TEST(test_shape_edit_bumps_the_version)
{
    int64_t before = -1, after = -1;
    struct gq_error err;
    ck_assert_int_eq(store_price_list_version(store, &before, &err), GQ_OK);
    ck_assert_int_eq(testdb_exec(database,
                                 "UPDATE model_shapes SET sliding_window = 8192 WHERE id = ?1",
                                 "mistral-7b"),
                     1);
    ck_assert_int_eq(store_price_list_version(store, &after, &err), GQ_OK);
    ck_assert_int_gt(after, before);
    struct catalog *catalog = NULL;
    ck_assert_int_eq(store_load_catalog(store, &catalog, &err), GQ_OK);
    ck_assert_int_eq(catalog_find_shape(catalog, "mistral-7b")->sliding_window, 8192);
    catalog_free(catalog);
}
END_TEST

START_TEST(test_quotes_do_not_bump_the_version)
{
    struct stored_quote quote = make_quote("q_version", NULL, 100, 200);
    insert_ok(store, &quote);
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_accept(store, "q_version", 150, NULL, &out, &err), GQ_OK);
    stored_quote_clear(&out);
    int64_t version = -1;
    ck_assert_int_eq(store_price_list_version(store, &version, &err), GQ_OK);
    ck_assert_int_eq(version, 1);
}
END_TEST

/* A change made through another connection ends the wait early where the
 * backend can be told (PostgreSQL's NOTIFY); SQLite's wait lasts its
 * timeout, and the version it is followed by tells the change. */
struct delayed_update {
    long delay_ms;
};

static void *update_later(void *argument)
{
    const struct delayed_update *update = argument;
    struct timespec pause = {0, update->delay_ms * 1000000L};
    nanosleep(&pause, NULL);
    testdb_exec(database,
                "UPDATE sku_prices SET amount_fen = amount_fen + 1 WHERE sku_id = ?1 AND "
                "mode_id = 'monthly'",
                "t4-16g-x1");
    return NULL;
}

static long long monotonic_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

START_TEST(test_wait_ends_on_a_change_or_the_timeout)
{
    /* The first wait connects the listener; let it settle. */
    store_wait_for_catalog_change(store, 50, -1);
    struct delayed_update update = {300};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, update_later, &update), 0);
    long long started = monotonic_ms();
    store_wait_for_catalog_change(store, 3000, -1);
    long long waited = monotonic_ms() - started;
    pthread_join(thread, NULL);
    if (current == BACKEND_POSTGRES) {
        ck_assert_msg(waited >= 250 && waited < 1500, "waited %lld ms for a NOTIFY", waited);
    } else {
        ck_assert_msg(waited >= 2900, "waited %lld ms of 3000", waited);
    }
    int64_t version = -1;
    struct gq_error err;
    ck_assert_int_eq(store_price_list_version(store, &version, &err), GQ_OK);
    ck_assert_int_eq(version, 2);
}
END_TEST

/* ---- Quotes. ---- */

START_TEST(test_quote_round_trip)
{
    struct stored_quote quote = make_quote("q_round", "key-round", 1000, 2000);
    quote.price_list_version = 7;
    insert_ok(store, &quote);
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_round", &out, &err), GQ_OK);
    ck_assert_str_eq(out.id, "q_round");
    ck_assert_str_eq(out.request_json, quote.request_json);
    ck_assert_str_eq(out.response_json, quote.response_json);
    ck_assert_str_eq(out.idempotency_key, "key-round");
    ck_assert_int_eq(out.price_list_version, 7);
    ck_assert_int_eq(out.created_at, 1000);
    ck_assert_int_eq(out.expires_at, 2000);
    ck_assert(!out.accepted);
    ck_assert_int_eq(out.accepted_at, 0);
    stored_quote_clear(&out);
    /* Stored compressed: a block and the JSON's length, no text. */
    ck_assert_int_eq(query_integer("SELECT response_size FROM quotes WHERE id = ?1", "q_round"),
                     (long long)strlen(quote.response_json));
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes WHERE id = ?1 AND response_json "
                                   "IS NULL AND response_lz4 IS NOT NULL",
                                   "q_round"),
                     1);
    ck_assert_int_eq(store_quote_get(store, "q_unknown", &out, &err), GQ_ERR_NOT_FOUND);
    ck_assert_str_eq(err.message, "no quote 'q_unknown'");
}
END_TEST

START_TEST(test_recent_requests_newest_first)
{
    struct stored_quote old = make_quote("q_old", NULL, 1000, 2000);
    struct stored_quote mid = make_quote("q_mid", NULL, 1001, 2000);
    struct stored_quote new = make_quote("q_new", NULL, 1002, 2000);
    old.request_json = (char *)"{\"n\":1}";
    mid.request_json = (char *)"{\"n\":2}";
    new.request_json = (char *)"{\"n\":3}";
    insert_ok(store, &mid);
    insert_ok(store, &new);
    insert_ok(store, &old);
    json_t *requests = NULL;
    struct gq_error err;
    ck_assert_int_eq(store_quotes_recent_requests(store, 2, &requests, &err), GQ_OK);
    ck_assert_uint_eq(json_array_size(requests), 2);
    ck_assert_str_eq(json_string_value(json_array_get(requests, 0)), "{\"n\":3}");
    ck_assert_str_eq(json_string_value(json_array_get(requests, 1)), "{\"n\":2}");
    json_decref(requests);
}
END_TEST

START_TEST(test_same_key_replays_the_first_quote)
{
    struct stored_quote first = make_quote("q_first", "key-1", 100, 200);
    insert_ok(store, &first);
    struct stored_quote second = make_quote("q_second", "key-1", 150, 250);
    bool replayed = false;
    struct stored_quote existing;
    memset(&existing, 0, sizeof existing);
    struct gq_error err;
    ck_assert_int_eq(store_quote_insert(store, &second, &replayed, &existing, &err), GQ_OK);
    ck_assert(replayed);
    ck_assert_str_eq(existing.id, "q_first");
    ck_assert_int_eq(existing.created_at, 100);
    stored_quote_clear(&existing);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes", NULL), 1);
}
END_TEST

/* Packs each of `n` saves with its quote.created and writes them through
 * the backend's batch, as the group commit does. */
static void save_batch(struct quote_save *saves, int n)
{
    struct gq_error err;
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(store_pack_response(&saves[i], &err), GQ_OK);
        ck_assert_int_eq(store_event_for_save(&saves[i], &err), GQ_OK);
        saves[i].next = i + 1 < n ? &saves[i + 1] : NULL;
    }
    ck_assert_int_eq(store_ops(store)->save_quotes(store_backend(store), &saves[0]), GQ_OK);
}

static void free_batch(struct quote_save *saves, int n)
{
    for (int i = 0; i < n; i++) {
        free(saves[i].packed.block);
        store_event_clear(saves[i].event);
        free(saves[i].event);
    }
}

/* A key and a client reference are each owner's own: the same key under
 * two owners stores two quotes (and replays within its owner), and a
 * reference lists the quotes of the owner that asks. */
START_TEST(test_keys_and_references_are_per_owner)
{
    static const char *const request =
        "{\"client_reference_id\":\"order-1\",\"items\":[{\"sku\":\"v100-16g-x1\"}]}";
    static const char *const ids[] = {"q_of_a", "q_of_b", "q_of_a_again"};
    static const char *const owners[] = {"key:a", "anon:10.0.0.1", "key:a"};
    struct quote_save saves[3];
    memset(saves, 0, sizeof saves);
    for (int i = 0; i < 3; i++) {
        saves[i].quote = make_quote(ids[i], "order-6000", 100 + i, 200);
        saves[i].quote.request_json = (char *)request;
        snprintf(saves[i].owner, sizeof saves[i].owner, "%s", owners[i]);
    }
    save_batch(saves, 3);
    ck_assert(saves[0].code == GQ_OK && !saves[0].replayed);
    ck_assert(saves[1].code == GQ_OK && !saves[1].replayed);
    ck_assert(saves[2].code == GQ_OK && saves[2].replayed);
    ck_assert_str_eq(saves[2].existing.id, "q_of_a");
    stored_quote_clear(&saves[2].existing);
    free_batch(saves, 3);

    for (int i = 0; i < 2; i++) {
        struct quote_filter mine = {
            .limit = 10, .now = 150, .client_reference_id = "order-1", .owner = owners[i]};
        struct quote_page page;
        struct gq_error err;
        ck_assert_int_eq(store_quotes_list(store, &mine, &page, &err), GQ_OK);
        ck_assert_uint_eq(page.count, 1);
        ck_assert_str_eq(page.items[0].id, ids[i]);
        store_quote_page_free(&page);
    }
}
END_TEST

/* The backend's batch as one statement: each quote's columns as given (an
 * accepted one with its time, one without a key), a key repeated in the
 * batch replaying the first, and each stored quote's event. */
START_TEST(test_a_batch_stores_each_quote_and_replays_a_repeated_key)
{
    struct quote_save saves[3];
    memset(saves, 0, sizeof saves);
    saves[0].quote = make_quote("q_first_of_key", "key-twice", 100, 200);
    saves[1].quote = make_quote("q_accepted", NULL, 110, 210);
    saves[1].quote.accepted = true;
    saves[1].quote.accepted_at = 120;
    saves[1].quote.price_list_version = 3;
    saves[1].quote.request_json = (char *)"{\"quote\":\"a \\\"quoted\\\" {brace}, 2\"}";
    saves[2].quote = make_quote("q_second_of_key", "key-twice", 130, 230);
    save_batch(saves, 3);
    ck_assert_int_eq(saves[0].code, GQ_OK);
    ck_assert(!saves[0].replayed);
    ck_assert_int_eq(saves[1].code, GQ_OK);
    ck_assert(!saves[1].replayed);
    ck_assert_int_eq(saves[2].code, GQ_OK);
    ck_assert(saves[2].replayed);
    ck_assert_str_eq(saves[2].existing.id, "q_first_of_key");
    ck_assert_int_eq(saves[2].existing.created_at, 100);
    stored_quote_clear(&saves[2].existing);
    char event_of_accepted[sizeof saves[1].event->id];
    snprintf(event_of_accepted, sizeof event_of_accepted, "%s", saves[1].event->id);
    free_batch(saves, 3);
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_accepted", &out, &err), GQ_OK);
    ck_assert_str_eq(out.request_json, saves[1].quote.request_json);
    ck_assert_str_eq(out.response_json, saves[1].quote.response_json);
    ck_assert_ptr_null(out.idempotency_key);
    ck_assert(out.accepted);
    ck_assert_int_eq(out.accepted_at, 120);
    ck_assert_int_eq(out.price_list_version, 3);
    ck_assert_int_eq(out.created_at, 110);
    ck_assert_int_eq(out.expires_at, 210);
    stored_quote_clear(&out);
    ck_assert_int_eq(store_quote_get(store, "q_second_of_key", &out, &err), GQ_ERR_NOT_FOUND);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes", NULL), 2);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM events", NULL), 2);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM events WHERE id = ?1 AND type = 'quote.created'",
                      event_of_accepted),
        1);
}
END_TEST

/* The backend's batch: three saves, the second a duplicate id (which the
 * database refuses), the third the first one's key. The first is stored,
 * the second fails alone, the third replays the first. */
START_TEST(test_a_refused_quote_fails_alone_in_its_batch)
{
    struct stored_quote existing = make_quote("q_taken", NULL, 10, 20);
    insert_ok(store, &existing);
    struct quote_save saves[3];
    memset(saves, 0, sizeof saves);
    saves[0].quote = make_quote("q_one", "key-batch", 100, 200);
    saves[1].quote = make_quote("q_taken", NULL, 100, 200);
    saves[2].quote = make_quote("q_three", "key-batch", 100, 200);
    save_batch(saves, 3);
    ck_assert_int_eq(saves[0].code, GQ_OK);
    ck_assert(!saves[0].replayed);
    ck_assert_int_eq(saves[1].code, GQ_ERR_INTERNAL);
    ck_assert(!saves[1].replayed);
    ck_assert_int_eq(saves[2].code, GQ_OK);
    ck_assert(saves[2].replayed);
    ck_assert_str_eq(saves[2].existing.id, "q_one");
    stored_quote_clear(&saves[2].existing);
    free_batch(saves, 3);
    /* The stored quote's event only: none for the refused one, nor the replay. */
    ck_assert_int_eq(query_integer("SELECT count(*) FROM events", NULL), 2);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes", NULL), 2);
    ck_assert_int_eq(query_integer("SELECT created_at FROM quotes WHERE id = ?1", "q_taken"), 10);
}
END_TEST

START_TEST(test_bad_quote_is_refused)
{
    struct stored_quote quote = make_quote("", NULL, 1, 2);
    bool replayed;
    struct stored_quote existing;
    struct gq_error err;
    ck_assert_int_eq(store_quote_insert(store, &quote, &replayed, &existing, &err),
                     GQ_ERR_INVALID_VALUE);
    quote = make_quote("q_empty_key", "", 1, 2);
    ck_assert_int_eq(store_quote_insert(store, &quote, &replayed, &existing, &err),
                     GQ_ERR_INVALID_VALUE);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes", NULL), 0);
}
END_TEST

START_TEST(test_text_rows_from_before_compression_read_back)
{
    testdb_exec(database,
                "INSERT INTO quotes (id, status, request_json, response_json, price_list_version,"
                " created_at, expires_at) VALUES (?1, 'open', '{}', '{\"old\":true}', 1, 5, 9)",
                "q_old");
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_old", &out, &err), GQ_OK);
    ck_assert_str_eq(out.response_json, "{\"old\":true}");
    ck_assert_int_eq(out.expires_at, 9);
    stored_quote_clear(&out);
}
END_TEST

START_TEST(test_damaged_row_is_an_error_naming_the_quote)
{
    struct stored_quote quote = make_quote("q_damaged", NULL, 100, 200);
    insert_ok(store, &quote);
    testdb_exec(database, "UPDATE quotes SET response_size = response_size + 1 WHERE id = ?1",
                "q_damaged");
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_damaged", &out, &err), GQ_ERR_INTERNAL);
    ck_assert_str_eq(err.message, "quote q_damaged is stored damaged");
    ck_assert_int_eq(store_quote_accept(store, "q_damaged", 150, NULL, &out, &err),
                     GQ_ERR_INTERNAL);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes WHERE status = 'open'", NULL), 1);
}
END_TEST

/* ---- Event bodies (migration 0011). ---- */

/* A quote's object, long and repetitive as one is. */
static char *long_object(void)
{
    size_t size = 4096;
    char *object = malloc(size);
    ck_assert_ptr_nonnull(object);
    size_t used = (size_t)snprintf(object, size, "{\"items\":[");
    for (int i = 0; i < 40; i++)
        used +=
            (size_t)snprintf(object + used, size - used,
                             "%s{\"sku\":\"v100-16g-x1\",\"total\":\"1641.60\"}", i > 0 ? "," : "");
    snprintf(object + used, size - used, "]}");
    return object;
}

/* An event's body is stored as an LZ4 block and its length, and reads back
 * byte for byte, alone and in a page. */
START_TEST(test_event_body_is_stored_compressed)
{
    char *object = long_object();
    struct gq_error err;
    ck_assert_msg(store_event_publish(store, "price_list.published", object, &err) == GQ_OK, "%s",
                  err.message);
    struct event_page page = {0};
    ck_assert_int_eq(store_events_read(store, NULL, NULL, NULL, 10, &page, &err), GQ_OK);
    ck_assert_uint_eq(page.count, 1);
    const char *body = page.items[0].body;
    ck_assert_ptr_nonnull(strstr(body, object));
    ck_assert_int_eq(query_integer("SELECT count(*) FROM events WHERE body IS NULL", NULL), 1);
    ck_assert_int_eq(query_integer("SELECT body_size FROM events", NULL), (long long)strlen(body));
    ck_assert_int_lt(query_integer("SELECT length(body_lz4) FROM events", NULL),
                     (long long)strlen(body) / 4);
    struct store_event one;
    ck_assert_int_eq(store_event_get(store, page.items[0].id, &one, &err), GQ_OK);
    ck_assert_str_eq(one.body, body);
    store_event_clear(&one);
    store_event_page_free(&page);
    free(object);
}
END_TEST

START_TEST(test_event_text_rows_from_before_compression_read_back)
{
    testdb_exec(database,
                "INSERT INTO events (id, type, created_at, body)"
                " VALUES (?1, 'quote.created', 5, '{\"old\":true}')",
                "evt_old");
    struct store_event out;
    struct gq_error err;
    ck_assert_int_eq(store_event_get(store, "evt_old", &out, &err), GQ_OK);
    ck_assert_str_eq(out.body, "{\"old\":true}");
    store_event_clear(&out);
}
END_TEST

START_TEST(test_damaged_event_is_an_error_naming_it)
{
    char *object = long_object();
    struct gq_error err;
    ck_assert_int_eq(store_event_publish(store, "price_list.published", object, &err), GQ_OK);
    testdb_exec(database, "UPDATE events SET body_size = body_size + 1 WHERE type = ?1",
                "price_list.published");
    struct event_page page = {0};
    ck_assert_int_eq(store_events_read(store, NULL, NULL, NULL, 10, &page, &err), GQ_ERR_INTERNAL);
    ck_assert_ptr_nonnull(strstr(err.message, " is stored damaged"));
    ck_assert_int_eq(strncmp(err.message, "event evt_", 10), 0);
    store_event_page_free(&page);
    free(object);
}
END_TEST

/* ---- Accept. ---- */

START_TEST(test_accept_once_then_refuse)
{
    struct stored_quote quote = make_quote("q_accept", NULL, 100, 200);
    insert_ok(store, &quote);
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_accept(store, "q_accept", 150, NULL, &out, &err), GQ_OK);
    ck_assert(out.accepted);
    ck_assert_int_eq(out.accepted_at, 150);
    stored_quote_clear(&out);
    ck_assert_int_eq(store_quote_accept(store, "q_accept", 160, NULL, &out, &err),
                     GQ_ERR_QUOTE_NOT_OPEN);
    ck_assert_int_eq(query_integer("SELECT accepted_at FROM quotes WHERE id = ?1", "q_accept"),
                     150);
    ck_assert_int_eq(store_quote_accept(store, "q_nobody", 150, NULL, &out, &err),
                     GQ_ERR_NOT_FOUND);
}
END_TEST

START_TEST(test_accept_expired_is_refused_and_left_open)
{
    struct stored_quote quote = make_quote("q_late", NULL, 100, 200);
    insert_ok(store, &quote);
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_accept(store, "q_late", 200, NULL, &out, &err),
                     GQ_ERR_QUOTE_EXPIRED);
    ck_assert_str_eq(err.message, "quote 'q_late' expired at 1970-01-01T00:03:20Z");
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes WHERE id = ?1 AND status = 'open' "
                                   "AND accepted_at IS NULL",
                                   "q_late"),
                     1);
}
END_TEST

/* ---- Two replicas on one database. ---- */

enum { RACES = 16 };

struct replica_work {
    struct store *store;
    pthread_barrier_t *start;
    int index; /* which replica */
    int outcomes[RACES];
    char ids[RACES][STORE_QUOTE_ID_SIZE];
};

/* Each replica saves RACES quotes with the keys race-0.. at the same
 * moment as the other, under ids of its own. */
static void *save_same_keys(void *argument)
{
    struct replica_work *work = argument;
    pthread_barrier_wait(work->start);
    for (int i = 0; i < RACES; i++) {
        char id[STORE_QUOTE_ID_SIZE], key[32];
        snprintf(id, sizeof id, "q_r%d_%d", work->index, i);
        snprintf(key, sizeof key, "race-%d", i);
        struct stored_quote quote = make_quote(id, key, now_seconds(), now_seconds() + 600);
        bool replayed = false;
        struct stored_quote existing;
        memset(&existing, 0, sizeof existing);
        struct gq_error err;
        enum gq_code code = store_quote_insert(work->store, &quote, &replayed, &existing, &err);
        work->outcomes[i] = code != GQ_OK ? -1 : replayed ? 1 : 0;
        snprintf(work->ids[i], sizeof work->ids[i], "%s", replayed ? existing.id : id);
        stored_quote_clear(&existing);
    }
    return NULL;
}

START_TEST(test_two_replicas_one_quote_per_key)
{
    struct store *other = open_store(4);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    struct replica_work works[2] = {{store, &start, 0, {0}, {{0}}}, {other, &start, 1, {0}, {{0}}}};
    pthread_t threads[2];
    for (int r = 0; r < 2; r++)
        ck_assert_int_eq(pthread_create(&threads[r], NULL, save_same_keys, &works[r]), 0);
    for (int r = 0; r < 2; r++)
        pthread_join(threads[r], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < RACES; i++) {
        /* One stored it, the other replayed it: the same quote to both. */
        ck_assert_msg(works[0].outcomes[i] >= 0 && works[1].outcomes[i] >= 0,
                      "key %d failed: %d %d", i, works[0].outcomes[i], works[1].outcomes[i]);
        ck_assert_int_eq(works[0].outcomes[i] + works[1].outcomes[i], 1);
        ck_assert_str_eq(works[0].ids[i], works[1].ids[i]);
    }
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes", NULL), RACES);
    store_close(other);
}
END_TEST

struct accept_work {
    struct store *store;
    pthread_barrier_t *start;
    enum gq_code codes[RACES];
};

static void *accept_all(void *argument)
{
    struct accept_work *work = argument;
    pthread_barrier_wait(work->start);
    for (int i = 0; i < RACES; i++) {
        char id[STORE_QUOTE_ID_SIZE];
        snprintf(id, sizeof id, "q_a%d", i);
        struct stored_quote out;
        struct gq_error err;
        work->codes[i] = store_quote_accept(work->store, id, now_seconds(), NULL, &out, &err);
        if (work->codes[i] == GQ_OK)
            stored_quote_clear(&out);
    }
    return NULL;
}

START_TEST(test_two_replicas_accept_once)
{
    for (int i = 0; i < RACES; i++) {
        char id[STORE_QUOTE_ID_SIZE];
        snprintf(id, sizeof id, "q_a%d", i);
        struct stored_quote quote = make_quote(id, NULL, now_seconds(), now_seconds() + 600);
        insert_ok(store, &quote);
    }
    struct store *other = open_store(4);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    struct accept_work works[2] = {{store, &start, {0}}, {other, &start, {0}}};
    pthread_t threads[2];
    for (int r = 0; r < 2; r++)
        ck_assert_int_eq(pthread_create(&threads[r], NULL, accept_all, &works[r]), 0);
    for (int r = 0; r < 2; r++)
        pthread_join(threads[r], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < RACES; i++) {
        enum gq_code a = works[0].codes[i], b = works[1].codes[i];
        ck_assert_msg((a == GQ_OK && b == GQ_ERR_QUOTE_NOT_OPEN) ||
                          (b == GQ_OK && a == GQ_ERR_QUOTE_NOT_OPEN),
                      "quote %d: %s and %s", i, gq_code_name(a), gq_code_name(b));
    }
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes WHERE status = 'accepted'", NULL),
                     RACES);
    store_close(other);
}
END_TEST

struct sweep_work {
    struct store *store;
    pthread_barrier_t *start;
    int marked;
    enum gq_code code;
    /* What it expires (or deletes): NULL, quotes (store_quotes_expire). */
    enum gq_code (*expire)(struct store *store, int64_t now, int limit, int *count,
                           struct gq_error *err);
};

/* A replica's sweeper: small batches until nothing is due. */
static void *sweep_all(void *argument)
{
    struct sweep_work *work = argument;
    pthread_barrier_wait(work->start);
    for (int round = 0; round < 100; round++) {
        int count = 0;
        struct gq_error err;
        work->code = (work->expire != NULL ? work->expire : store_quotes_expire)(
            work->store, now_seconds(), 7, &count, &err);
        if (work->code != GQ_OK || count == 0)
            break;
        work->marked += count;
    }
    return NULL;
}

/* Two replicas sweeping at once mark each due quote once, each with one
 * quote.expired, and leave the quotes not due. */
START_TEST(test_two_replicas_expire_each_quote_once)
{
    enum { DUE = 60 };
    for (int i = 0; i < DUE + 5; i++) {
        char id[STORE_QUOTE_ID_SIZE];
        snprintf(id, sizeof id, "q_e%d", i);
        int64_t created = now_seconds() - 100;
        struct stored_quote quote =
            make_quote(id, NULL, created, i < DUE ? created + 10 : created + 100000);
        insert_ok(store, &quote);
    }
    struct store *other = open_store(4);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    struct sweep_work works[2] = {{store, &start, 0, GQ_OK, NULL}, {other, &start, 0, GQ_OK, NULL}};
    pthread_t threads[2];
    for (int r = 0; r < 2; r++)
        ck_assert_int_eq(pthread_create(&threads[r], NULL, sweep_all, &works[r]), 0);
    for (int r = 0; r < 2; r++)
        pthread_join(threads[r], NULL);
    pthread_barrier_destroy(&start);
    ck_assert_int_eq(works[0].code, GQ_OK);
    ck_assert_int_eq(works[1].code, GQ_OK);
    ck_assert_int_eq(works[0].marked + works[1].marked, DUE);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes WHERE status = 'expired'", NULL),
                     DUE);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM events WHERE type = 'quote.expired'", NULL), DUE);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes WHERE status = 'open'", NULL), 5);
    store_close(other);
}
END_TEST

/* Cancel, list, release a key, delete what ended: the store's lifecycle
 * operations, each against the rows they must and must not touch. */
START_TEST(test_lifecycle_operations)
{
    int64_t now = now_seconds();
    struct stored_quote a = make_quote("q_l1", "key-l1", now - 30, now + 600);
    struct stored_quote b = make_quote("q_l2", NULL, now - 20, now + 600);
    struct stored_quote c = make_quote("q_l3", NULL, now - 10, now + 600);
    insert_ok(store, &a);
    insert_ok(store, &b);
    insert_ok(store, &c);
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_cancel(store, "q_l2", now, "too dear", &out, &err), GQ_OK);
    ck_assert_str_eq(out.cancel_reason, "too dear");
    ck_assert_int_eq(out.canceled_at, now);
    stored_quote_clear(&out);
    ck_assert_int_eq(store_quote_cancel(store, "q_l2", now, NULL, &out, &err),
                     GQ_ERR_QUOTE_NOT_OPEN);
    ck_assert_str_eq(err.state, "canceled");
    ck_assert_int_eq(store_quote_accept(store, "q_l3", now, "{\"reference\":\"PO\"}", &out, &err),
                     GQ_OK);
    ck_assert_str_eq(out.acceptance, "{\"reference\":\"PO\"}");
    stored_quote_clear(&out);

    struct quote_filter all = {.limit = 2, .now = now};
    struct quote_page page;
    ck_assert_int_eq(store_quotes_list(store, &all, &page, &err), GQ_OK);
    ck_assert_uint_eq(page.count, 2);
    ck_assert(page.has_more);
    ck_assert_str_eq(page.items[0].id, "q_l3");
    ck_assert_str_eq(page.items[1].id, "q_l2");
    store_quote_page_free(&page);
    struct quote_filter after = {.limit = 2, .now = now, .starting_after = "q_l2"};
    ck_assert_int_eq(store_quotes_list(store, &after, &page, &err), GQ_OK);
    ck_assert_uint_eq(page.count, 1);
    ck_assert(!page.has_more);
    ck_assert_str_eq(page.items[0].id, "q_l1");
    store_quote_page_free(&page);
    struct quote_filter canceled = {.limit = 10, .now = now, .status = "canceled"};
    ck_assert_int_eq(store_quotes_list(store, &canceled, &page, &err), GQ_OK);
    ck_assert_uint_eq(page.count, 1);
    ck_assert_str_eq(page.items[0].id, "q_l2");
    store_quote_page_free(&page);
    struct quote_filter unknown = {.limit = 10, .now = now, .starting_after = "q_none"};
    ck_assert_int_eq(store_quotes_list(store, &unknown, &page, &err), GQ_ERR_INVALID_PARAMETER);

    bool released = false;
    ck_assert_int_eq(store_quote_release_key(store, "q_l1", "key-other", &released, &err), GQ_OK);
    ck_assert(!released);
    ck_assert_int_eq(store_quote_release_key(store, "q_l1", "key-l1", &released, &err), GQ_OK);
    ck_assert(released);

    int count = -1;
    ck_assert_int_eq(store_quotes_delete_ended(store, now, 0, 10, &count, &err), GQ_OK);
    ck_assert_int_eq(count, 0); /* canceled at `now`: not before it */
    ck_assert_int_eq(store_quotes_delete_ended(store, now + 1, 0, 10, &count, &err), GQ_OK);
    ck_assert_int_eq(count, 1);
    ck_assert_int_eq(store_quotes_delete_ended(store, now + 1, now + 1, 10, &count, &err), GQ_OK);
    ck_assert_int_eq(count, 1); /* the accepted one, now that it is asked for */
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes", NULL), 1);
}
END_TEST

/* ---- Health. ---- */

START_TEST(test_health_answers)
{
    struct gq_error err;
    ck_assert_int_eq(store_ping(store, NULL), GQ_OK);
    ck_assert_int_eq(store_check_writable(store, &err), GQ_OK);
    ck_assert_int_eq(store_check_storage(store, &err), GQ_OK);
}
END_TEST

/* ---- Price lists (migration 0008). ---- */

static struct audit_entry test_audit(const char *action)
{
    struct audit_entry audit = {.client = "conformance", .action = action};
    return audit;
}

/* One quote saved through the backend's batch; returns its deliveries_due. */
static bool save_one_for_deliveries(const char *id)
{
    struct quote_save save;
    memset(&save, 0, sizeof save);
    save.quote = make_quote(id, NULL, 100, 200);
    save_batch(&save, 1);
    ck_assert_int_eq(save.code, GQ_OK);
    free_batch(&save, 1);
    return save.deliveries_due;
}

/* A batch tells whether its events fanned out to a webhook delivery, so
 * that the sender is woken only then. */
START_TEST(test_a_batch_tells_whether_deliveries_are_due)
{
    ck_assert(!save_one_for_deliveries("q_no_endpoint"));
    struct stored_endpoint accepted_only = {.id = "we_00000000000000000000000000000001",
                                            .url = (char *)"https://example.com/hook",
                                            .description = (char *)"",
                                            .events = (char *)" quote.accepted ",
                                            .secret = (char *)"whsec_dGVzdA==",
                                            .enabled = true};
    struct audit_entry audit = test_audit("webhook_endpoint.create");
    audit.target = "we_test";
    audit.change = "{}";
    struct gq_error err;
    ck_assert_int_eq(store_endpoint_create(store, &accepted_only, &audit, &err), GQ_OK);
    ck_assert(!save_one_for_deliveries("q_other_type"));
    struct stored_endpoint created = accepted_only;
    snprintf(created.id, sizeof created.id, "we_00000000000000000000000000000002");
    created.events = (char *)" quote.created ";
    ck_assert_int_eq(store_endpoint_create(store, &created, &audit, &err), GQ_OK);
    ck_assert(save_one_for_deliveries("q_subscribed"));
    ck_assert_int_eq(query_integer("SELECT count(*) FROM webhook_deliveries", NULL), 1);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = ?1", created.id),
        1);
}
END_TEST

/* ---- Customers (migration 0013). ---- */

static struct stored_customer test_customer(const char *id, const char *email, const char *document)
{
    struct stored_customer customer = {
        .email = (char *)email, .document = (char *)document, .created_at = 100, .updated_at = 100};
    snprintf(customer.id, sizeof customer.id, "%s", id);
    return customer;
}

static void write_customer_ok(bool create, const struct stored_customer *customer, const char *type)
{
    struct audit_entry audit = test_audit("customer.write");
    audit.target = customer->id;
    audit.change = "{\"fields\":[]}";
    struct gq_error err;
    ck_assert_int_eq(store_customer_write(store, create, customer, type,
                                          "{\"object\":\"customer\"}", &audit, &err),
                     GQ_OK);
}

/* Written with its event and audit line, read back, listed newest first
 * by email, erased once: an erased customer is never written again. */
START_TEST(test_customers_written_listed_and_erased)
{
    const char *a = "cus_00000000000000000000000000000001";
    const char *b = "cus_00000000000000000000000000000002";
    const char *c = "cus_00000000000000000000000000000003";
    struct stored_customer first = test_customer(a, "x@example.cn", "{\"name\":\"A\"}");
    struct stored_customer second = test_customer(b, NULL, "{}");
    struct stored_customer third = test_customer(c, "x@example.cn", "{\"name\":\"C\"}");
    write_customer_ok(true, &first, STORE_EVENT_CUSTOMER_CREATED);
    write_customer_ok(true, &second, STORE_EVENT_CUSTOMER_CREATED);
    write_customer_ok(true, &third, STORE_EVENT_CUSTOMER_CREATED);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM events WHERE type = 'customer.created'", NULL), 3);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM audit_log WHERE target = ?1", a), 1);

    struct gq_error err;
    struct stored_customer read;
    ck_assert_int_eq(store_customer_get(store, a, &read, &err), GQ_OK);
    ck_assert_str_eq(read.email, "x@example.cn");
    ck_assert_str_eq(read.document, "{\"name\":\"A\"}");
    ck_assert(!read.deleted);
    ck_assert_int_eq(read.created_at, 100);
    store_customer_clear(&read);
    ck_assert_int_eq(store_customer_get(store, b, &read, &err), GQ_OK);
    ck_assert_ptr_null(read.email);
    store_customer_clear(&read);

    struct customer_filter by_email = {.email = "x@example.cn", .limit = 1};
    struct customer_page page;
    ck_assert_int_eq(store_customers_read(store, &by_email, &page, &err), GQ_OK);
    ck_assert_uint_eq(page.count, 1);
    ck_assert_str_eq(page.items[0].id, c);
    ck_assert(page.has_more);
    store_customer_page_free(&page);
    by_email.starting_after = c;
    ck_assert_int_eq(store_customers_read(store, &by_email, &page, &err), GQ_OK);
    ck_assert_uint_eq(page.count, 1);
    ck_assert_str_eq(page.items[0].id, a);
    ck_assert(!page.has_more);
    store_customer_page_free(&page);

    struct stored_customer erased = test_customer(a, NULL, "{}");
    erased.deleted = true;
    erased.updated_at = 200;
    write_customer_ok(false, &erased, STORE_EVENT_CUSTOMER_DELETED);
    ck_assert_int_eq(store_customer_get(store, a, &read, &err), GQ_OK);
    ck_assert(read.deleted);
    ck_assert_ptr_null(read.email);
    ck_assert_str_eq(read.document, "{}");
    ck_assert_int_eq(read.updated_at, 200);
    store_customer_clear(&read);
    struct customer_filter live = {.limit = 10};
    ck_assert_int_eq(store_customers_read(store, &live, &page, &err), GQ_OK);
    ck_assert_uint_eq(page.count, 2);
    store_customer_page_free(&page);
    live.include_deleted = true;
    ck_assert_int_eq(store_customers_read(store, &live, &page, &err), GQ_OK);
    ck_assert_uint_eq(page.count, 3);
    store_customer_page_free(&page);

    /* Erased once: a second write finds no customer and writes nothing. */
    struct audit_entry audit = test_audit("customer.write");
    audit.target = a;
    audit.change = "{}";
    ck_assert_int_eq(store_customer_write(store, false, &first, STORE_EVENT_CUSTOMER_UPDATED, "{}",
                                          &audit, &err),
                     GQ_ERR_NOT_FOUND);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM events WHERE type = 'customer.updated'", NULL), 0);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM audit_log WHERE target = ?1", a), 2);
    ck_assert_int_eq(store_customer_get(store, "cus_00000000000000000000000000000009", &read, &err),
                     GQ_ERR_NOT_FOUND);
}
END_TEST

/* ---- Verifications (migration 0016). ---- */

static struct stored_verification test_verification(const char *id, const char *customer,
                                                    int64_t created_at, int64_t expires_at)
{
    struct stored_verification verification = {
        .created_at = created_at, .expires_at = expires_at, .evidence = (char *)"report no. 7"};
    snprintf(verification.id, sizeof verification.id, "%s", id);
    snprintf(verification.customer_id, sizeof verification.customer_id, "%s", customer);
    snprintf(verification.segment, sizeof verification.segment, "student");
    return verification;
}

static size_t count_verifications(const char *customer, int64_t live_at)
{
    struct verification_list list;
    struct gq_error err;
    ck_assert_int_eq(store_verifications_read(store, customer, NULL, live_at, &list, &err), GQ_OK);
    size_t count = list.count;
    store_verification_list_free(&list);
    return count;
}

/* Made only for a live customer, with its event and audit line; read
 * back; revoked once; its evidence cleared by the customer's erasure. */
START_TEST(test_verifications_made_revoked_and_erased)
{
    const char *cus = "cus_00000000000000000000000000000011";
    const char *ver = "ver_00000000000000000000000000000001";
    struct stored_customer customer = test_customer(cus, NULL, "{}");
    write_customer_ok(true, &customer, STORE_EVENT_CUSTOMER_CREATED);
    int64_t now = now_seconds();
    struct audit_entry audit = test_audit("customer.verification.create");
    audit.target = ver;
    audit.change = "{}";
    struct gq_error err;
    struct stored_verification made = test_verification(ver, cus, now, now + 1000);
    ck_assert_int_eq(store_verification_create(store, &made, &audit, &err), GQ_OK);
    struct stored_verification orphan =
        test_verification("ver_00000000000000000000000000000002",
                          "cus_00000000000000000000000000000019", now, now + 1000);
    ck_assert_int_eq(store_verification_create(store, &orphan, &audit, &err), GQ_ERR_NOT_FOUND);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM events WHERE type = 'customer.verification.created'",
                      NULL),
        1);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM audit_log WHERE target = ?1", ver), 1);

    struct verification_list list;
    ck_assert_int_eq(store_verifications_read(store, cus, ver, 0, &list, &err), GQ_OK);
    ck_assert_uint_eq(list.count, 1);
    ck_assert_str_eq(list.items[0].segment, "student");
    ck_assert_str_eq(list.items[0].evidence, "report no. 7");
    ck_assert_int_eq(list.items[0].expires_at, now + 1000);
    ck_assert_int_eq(list.items[0].revoked_at, 0);
    store_verification_list_free(&list);
    ck_assert_uint_eq(count_verifications(cus, now), 1);
    ck_assert_uint_eq(count_verifications(cus, now + 1000), 0); /* expired at expires_at */

    made.revoked_at = now;
    bool revoked = false;
    ck_assert_int_eq(store_verification_revoke(store, &made, &audit, &revoked, &err), GQ_OK);
    ck_assert(revoked);
    ck_assert_int_eq(store_verification_revoke(store, &made, &audit, &revoked, &err), GQ_OK);
    ck_assert(!revoked);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM events WHERE type = 'customer.verification.revoked'",
                      NULL),
        1);
    ck_assert_uint_eq(count_verifications(cus, now), 0);
    ck_assert_uint_eq(count_verifications(cus, 0), 1);

    struct stored_customer erased = test_customer(cus, NULL, "{}");
    erased.deleted = true;
    write_customer_ok(false, &erased, STORE_EVENT_CUSTOMER_DELETED);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM customer_verifications WHERE evidence IS NULL", NULL),
        1);
}
END_TEST

/* Two replicas sweeping at once mark each due verification once, each
 * with one customer.verification.expired, and leave the rest. */
START_TEST(test_two_replicas_expire_each_verification_once)
{
    enum { DUE = 30 };
    const char *cus = "cus_00000000000000000000000000000012";
    struct stored_customer customer = test_customer(cus, NULL, "{}");
    write_customer_ok(true, &customer, STORE_EVENT_CUSTOMER_CREATED);
    struct audit_entry audit = test_audit("customer.verification.create");
    audit.change = "{}";
    int64_t now = now_seconds();
    for (int i = 0; i < DUE + 3; i++) {
        char id[STORE_ID_SIZE];
        snprintf(id, sizeof id, "ver_%032d", i);
        audit.target = id;
        struct stored_verification verification =
            test_verification(id, cus, now - 100, i < DUE ? now - 10 : now + 100000);
        struct gq_error err;
        ck_assert_int_eq(store_verification_create(store, &verification, &audit, &err), GQ_OK);
    }
    struct store *other = open_store(4);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    struct sweep_work works[2] = {{store, &start, 0, GQ_OK, store_verifications_expire},
                                  {other, &start, 0, GQ_OK, store_verifications_expire}};
    pthread_t threads[2];
    for (int r = 0; r < 2; r++)
        ck_assert_int_eq(pthread_create(&threads[r], NULL, sweep_all, &works[r]), 0);
    for (int r = 0; r < 2; r++)
        pthread_join(threads[r], NULL);
    pthread_barrier_destroy(&start);
    ck_assert_int_eq(works[0].code, GQ_OK);
    ck_assert_int_eq(works[1].code, GQ_OK);
    ck_assert_int_eq(works[0].marked + works[1].marked, DUE);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM events WHERE type = 'customer.verification.expired'",
                      NULL),
        DUE);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM customer_verifications WHERE expired_at IS NULL", NULL),
        3);
    ck_assert_uint_eq(count_verifications(cus, now), 3);
    store_close(other);
}
END_TEST

/* ---- Retention. ---- */

/* Runs one retention batch of `limit` before `before`: how many it deleted. */
static int retention_batch(enum store_retention kind, int64_t before, int limit)
{
    int count = -1;
    struct gq_error err;
    ck_assert_msg(store_retention_delete(store, kind, before, limit, &count, &err) == GQ_OK, "%s",
                  err.message);
    return count;
}

static void insert_event(const char *id, const char *created_at_sql)
{
    char sql[200];
    snprintf(sql, sizeof sql,
             "INSERT INTO events (id, type, created_at, body) VALUES (?1, 'quote.created', %s, "
             "'{}')",
             created_at_sql);
    ck_assert_int_eq(testdb_exec(database, sql, id), 1);
}

static void insert_delivery(const char *event_id, const char *endpoint_id, const char *status)
{
    char sql[300];
    snprintf(sql, sizeof sql,
             "INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status, next_attempt_at,"
             " created_at, updated_at) VALUES ('whd_' || ?1, '%s', ?1, '%s', 0, 0, 0)",
             endpoint_id, status);
    ck_assert_int_eq(testdb_exec(database, sql, event_id), 1);
}

/* Events written before the cut-off go, a batch at a time, with their
 * deliveries, attempts and customer links; one still pending to an enabled
 * endpoint stays (it is being retried), one pending to a disabled endpoint
 * does not; an event of the cut-off's second stays. */
START_TEST(test_retention_deletes_old_events_with_their_deliveries)
{
    const char *cus = "cus_00000000000000000000000000000021";
    struct stored_customer customer = test_customer(cus, NULL, "{}");
    write_customer_ok(true, &customer,
                      STORE_EVENT_CUSTOMER_CREATED); /* of now, before any endpoint */
    testdb_exec(database,
                "INSERT INTO webhook_endpoints (id, url, events, secret, created_at, updated_at)"
                " VALUES (?1, 'https://example.com/hook', ' * ', 'whsec_dGVzdA==', 0, 0)",
                "we_on");
    testdb_exec(database,
                "INSERT INTO webhook_endpoints (id, url, events, secret, enabled, created_at,"
                " updated_at) VALUES (?1, 'https://example.com/off', ' * ', 'whsec_dGVzdA==',"
                " 1 = 0, 0, 0)",
                "we_off");
    insert_event("evt_sent", "100");
    insert_delivery("evt_sent", "we_on", "succeeded");
    testdb_exec(database,
                "INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, duration_ms)"
                " VALUES ('whd_' || ?1, 1, 0, 200, 5)",
                "evt_sent");
    insert_event("evt_retried", "200");
    insert_delivery("evt_retried", "we_on", "pending");
    insert_event("evt_abandoned", "300");
    insert_delivery("evt_abandoned", "we_off", "pending");
    insert_event("evt_linked", "400");
    testdb_exec(database,
                "INSERT INTO customer_events (event_id, customer_id) VALUES ('evt_linked', ?1)",
                cus);
    insert_event("evt_at_cutoff", "1000");

    ck_assert_int_eq(retention_batch(STORE_RETAIN_EVENTS, 1000, 2), 2);
    ck_assert_int_eq(retention_batch(STORE_RETAIN_EVENTS, 1000, 2), 1);
    ck_assert_int_eq(retention_batch(STORE_RETAIN_EVENTS, 1000, 2), 0);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM events WHERE created_at < 1000", NULL), 1);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM events WHERE id = ?1", "evt_retried"), 1);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM events WHERE id = ?1", "evt_at_cutoff"),
                     1);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM events WHERE type = ?1", STORE_EVENT_CUSTOMER_CREATED),
        1);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM webhook_deliveries", NULL), 1);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM webhook_deliveries WHERE event_id = ?1", "evt_retried"),
        1);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM webhook_attempts", NULL), 0);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM customer_events WHERE event_id = ?1", "evt_linked"), 0);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM customer_events WHERE customer_id = ?1", cus), 1);
}
END_TEST

static enum gq_code delete_events_before(struct store *into, int64_t before, int limit, int *count,
                                         struct gq_error *err)
{
    return store_retention_delete(into, STORE_RETAIN_EVENTS, before, limit, count, err);
}

/* Two replicas deleting old events at once delete each once, with its
 * delivery, and leave the newer ones. */
START_TEST(test_two_replicas_delete_each_old_event_once)
{
    enum { OLD = 60 };
    testdb_exec(database,
                "INSERT INTO webhook_endpoints (id, url, events, secret, created_at, updated_at)"
                " VALUES (?1, 'https://example.com/hook', ' * ', 'whsec_dGVzdA==', 0, 0)",
                "we_on");
    testdb_exec(database,
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 65)"
                " INSERT INTO events (id, type, created_at, body) SELECT 'evt_' || i,"
                " 'quote.created', CASE WHEN i <= 60 THEN i ELSE 4000000000 END, '{}' FROM n",
                NULL);
    testdb_exec(database,
                "INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status,"
                " next_attempt_at, created_at, updated_at) SELECT 'whd_' || id, ?1, id,"
                " 'succeeded', 0, 0, 0 FROM events",
                "we_on");
    struct store *other = open_store(4);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    struct sweep_work works[2] = {{store, &start, 0, GQ_OK, delete_events_before},
                                  {other, &start, 0, GQ_OK, delete_events_before}};
    pthread_t threads[2];
    for (int r = 0; r < 2; r++)
        ck_assert_int_eq(pthread_create(&threads[r], NULL, sweep_all, &works[r]), 0);
    for (int r = 0; r < 2; r++)
        pthread_join(threads[r], NULL);
    pthread_barrier_destroy(&start);
    ck_assert_int_eq(works[0].code, GQ_OK);
    ck_assert_int_eq(works[1].code, GQ_OK);
    ck_assert_int_eq(works[0].marked + works[1].marked, OLD);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM events", NULL), 5);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM webhook_deliveries", NULL), 5);
    store_close(other);
}
END_TEST

/* A quote of owner `owner` ended by `end_sql` (an UPDATE's SET list, or
 * NULL for an open one). */
static void insert_owned_quote(const char *id, const char *owner, const char *end_sql)
{
    struct stored_quote quote = make_quote(id, NULL, 50, 600);
    insert_ok(store, &quote);
    char sql[300];
    snprintf(sql, sizeof sql, "UPDATE quotes SET owner = '%s'%s%s WHERE id = ?1", owner,
             end_sql != NULL ? ", " : "", end_sql != NULL ? end_sql : "");
    ck_assert_int_eq(testdb_exec(database, sql, id), 1);
}

/* Keyless callers' quotes that ended (canceled, expired or accepted)
 * before the cut-off go, a batch at a time; open ones, ones that ended at
 * the cut-off, keyed ones and ones of no owner stay. */
START_TEST(test_retention_deletes_ended_anonymous_quotes)
{
    insert_owned_quote("q_anon_canceled", "anon:10.0.0.1",
                       "status = 'canceled', canceled_at = 100");
    insert_owned_quote("q_anon_expired", "anon:10.0.0.1", "status = 'expired', expired_at = 700");
    insert_owned_quote("q_anon_accepted", "anon:10.0.0.2",
                       "status = 'accepted', accepted_at = 300");
    insert_owned_quote("q_anon_at_cutoff", "anon:10.0.0.1",
                       "status = 'expired', expired_at = 1000");
    insert_owned_quote("q_anon_open", "anon:10.0.0.1", NULL);
    insert_owned_quote("q_keyed", "key:key_1", "status = 'canceled', canceled_at = 100");
    insert_owned_quote("q_no_owner", "", "status = 'canceled', canceled_at = 100");

    ck_assert_int_eq(retention_batch(STORE_RETAIN_ANONYMOUS_QUOTES, 1000, 2), 2);
    ck_assert_int_eq(retention_batch(STORE_RETAIN_ANONYMOUS_QUOTES, 1000, 2), 1);
    ck_assert_int_eq(retention_batch(STORE_RETAIN_ANONYMOUS_QUOTES, 1000, 2), 0);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes", NULL), 4);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes WHERE owner LIKE 'anon:%' AND"
                                   " (status = 'open' OR expired_at = 1000)",
                                   NULL),
                     2);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes WHERE id = ?1", "q_keyed"), 1);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes WHERE id = ?1", "q_no_owner"), 1);
}
END_TEST

static const struct sku *sku_of(const struct catalog *catalog, const char *id)
{
    const struct sku *sku = catalog_find_sku(catalog, id);
    ck_assert_msg(sku != NULL, "no SKU %s", id);
    return sku;
}

/* A new draft of the active list; its number. */
static int64_t new_draft(void)
{
    struct audit_entry audit = test_audit("price_list.create");
    int64_t version = 0;
    struct gq_error err;
    ck_assert_msg(store_price_list_create(store, time(NULL), &audit, &version, &err) == GQ_OK, "%s",
                  err.message);
    return version;
}

static enum gq_code set_price(int64_t version, const char *sku, const char *mode, int64_t fen,
                              struct gq_error *err)
{
    json_t *record =
        json_pack("{s:s, s:s, s:I}", "sku_id", sku, "mode_id", mode, "amount_fen", (json_int_t)fen);
    struct price_list_edit edit = {PRICE_LIST_PRICE, sku, mode, record, NULL};
    struct audit_entry audit = test_audit("price_list.edit");
    enum gq_code code = price_list_document_edit_list(store, version, &edit, &audit, err);
    json_decref(record);
    return code;
}

/* How many audit lines there are with `action`. */
static size_t audit_count(const char *action)
{
    struct audit_page page;
    struct gq_error err;
    ck_assert_int_eq(store_audit_read(store, 0, NULL, 100, &page, &err), GQ_OK);
    size_t count = 0;
    for (size_t i = 0; i < page.count; i++)
        count += strcmp(page.items[i].action, action) == 0;
    store_audit_page_free(&page);
    return count;
}

START_TEST(test_the_seed_is_price_list_1_active)
{
    struct price_list_set set;
    struct gq_error err;
    ck_assert_int_eq(store_price_lists_read(store, &set, &err), GQ_OK);
    ck_assert_uint_eq(set.count, 1);
    ck_assert_int_eq(set.items[0].version, 1);
    ck_assert_int_eq(set.items[0].state, PRICE_LIST_ACTIVE);
    ck_assert_int_gt(set.items[0].effective_at, 0);
    store_price_list_set_free(&set);
    int64_t version;
    ck_assert_int_eq(store_price_list_at(store, time(NULL), &version, &err), GQ_OK);
    ck_assert_int_eq(version, 1);
    ck_assert_int_eq(store_price_list_at(store, 1000, &version, &err), GQ_ERR_NOT_FOUND);
}
END_TEST

/* Draft -> edit -> diff -> publish later -> nothing before the instant ->
 * active at it, with the catalog tables rewritten and numbered as the list. */
START_TEST(test_price_list_cycle_switches_at_the_instant)
{
    struct gq_error err;
    int64_t draft = new_draft();
    ck_assert_int_eq(draft, 2);
    ck_assert_int_eq(set_price(draft, "v100-16g-x1", "on_demand", 250, &err), GQ_OK);

    json_t *diff = NULL;
    ck_assert_int_eq(price_list_document_diff_list(store, draft, &diff, &err), GQ_OK);
    ck_assert_uint_eq(json_array_size(diff), 1);
    json_t *change = json_array_get(diff, 0);
    ck_assert_str_eq(json_string_value(json_object_get(change, "entity")), "price");
    ck_assert_str_eq(json_string_value(json_object_get(change, "id")), "v100-16g-x1/on_demand");
    ck_assert_str_eq(json_string_value(json_object_get(change, "field")), "amount");
    ck_assert_str_eq(json_string_value(json_object_get(change, "old")), "2.28");
    ck_assert_str_eq(json_string_value(json_object_get(change, "new")), "2.50");
    json_decref(diff);

    /* The draft's catalog has the new price; the tables still the old. */
    struct catalog *catalog;
    ck_assert_int_eq(store_price_list_catalog(store, draft, &catalog, &err), GQ_OK);
    ck_assert_int_eq(sku_of(catalog, "v100-16g-x1")->price[BILLING_ON_DEMAND], 250);
    ck_assert_int_eq(catalog->price_list_version, draft);
    catalog_free(catalog);

    int64_t now = time(NULL), at = now + 100;
    struct audit_entry audit = test_audit("price_list.publish");
    bool activated = true;
    struct price_list_publish_check check = {.allow_revert = true};
    ck_assert_int_eq(store_price_list_publish(store, draft, at, now,
                                              price_list_document_publish_check, &check, &audit,
                                              &activated, &err),
                     GQ_OK);
    ck_assert(!activated);
    int64_t due, version, made;
    ck_assert_int_eq(store_price_list_next_due(store, &due, &err), GQ_OK);
    ck_assert_int_eq(due, at);
    ck_assert_int_eq(store_price_list_at(store, at - 1, &version, &err), GQ_OK);
    ck_assert_int_eq(version, 1);
    ck_assert_int_eq(store_price_list_at(store, at, &version, &err), GQ_OK);
    ck_assert_int_eq(version, draft);
    /* A published list is not edited. */
    ck_assert_int_eq(set_price(draft, "v100-16g-x1", "on_demand", 260, &err),
                     GQ_ERR_PRICE_LIST_NOT_DRAFT);

    /* One second early: nothing. */
    ck_assert_int_eq(store_price_lists_activate_due(store, at - 1, &made, &err), GQ_OK);
    ck_assert_int_eq(made, 0);
    ck_assert_int_eq(store_load_catalog(store, &catalog, &err), GQ_OK);
    ck_assert_int_eq(catalog->price_list_version, 1);
    ck_assert_int_eq(sku_of(catalog, "v100-16g-x1")->price[BILLING_ON_DEMAND], 228);
    catalog_free(catalog);

    /* At the instant: active, the tables rewritten, numbered 2. */
    ck_assert_int_eq(store_price_lists_activate_due(store, at, &made, &err), GQ_OK);
    ck_assert_int_eq(made, draft);
    ck_assert_int_eq(store_price_lists_activate_due(store, at, &made, &err), GQ_OK);
    ck_assert_int_eq(made, 0); /* once */
    ck_assert_int_eq(store_price_list_version(store, &version, &err), GQ_OK);
    ck_assert_int_eq(version, draft);
    ck_assert_int_eq(store_load_catalog(store, &catalog, &err), GQ_OK);
    ck_assert_int_eq(catalog->price_list_version, draft);
    ck_assert_int_eq(sku_of(catalog, "v100-16g-x1")->price[BILLING_ON_DEMAND], 250);
    ck_assert_int_eq(sku_of(catalog, "v100-16g-x1")->price[BILLING_MONTHLY], 123100);
    ck_assert_uint_eq(catalog->n_skus, 5);
    ck_assert_uint_eq(catalog->n_bundles, 2);
    ck_assert_ptr_nonnull(sku_of(catalog, "v100-16g-x1")->host); /* hosts kept */
    ck_assert_str_eq(sku_of(catalog, "t4-16g-x1")->text[GQ_LANG_ZH_CN].name, "T4 16GB 单卡");
    catalog_free(catalog);

    struct price_list_set set;
    ck_assert_int_eq(store_price_lists_read(store, &set, &err), GQ_OK);
    ck_assert_uint_eq(set.count, 2);
    ck_assert_int_eq(set.items[0].state, PRICE_LIST_ACTIVE);
    ck_assert_int_eq(set.items[1].state, PRICE_LIST_SUPERSEDED);
    ck_assert_int_eq(set.items[1].superseded_at, at);
    store_price_list_set_free(&set);
    /* List 1 keeps its content: its catalog is the seed's. */
    ck_assert_int_eq(store_price_list_catalog(store, 1, &catalog, &err), GQ_OK);
    ck_assert_int_eq(sku_of(catalog, "v100-16g-x1")->price[BILLING_ON_DEMAND], 228);
    catalog_free(catalog);

    ck_assert_uint_eq(audit_count("price_list.create"), 1);
    ck_assert_uint_eq(audit_count("price_list.edit"), 1);
    ck_assert_uint_eq(audit_count("price_list.publish"), 1);
    ck_assert_uint_eq(audit_count("price_list.activate"), 1);
}
END_TEST

/* Each refusal changes nothing: no diff, no audit line. */
START_TEST(test_price_list_refusals_change_nothing)
{
    struct gq_error err;
    int64_t draft = new_draft();
    /* 720 x 2.28 = 1641.60: one fen more is refused. */
    ck_assert_int_eq(set_price(draft, "v100-16g-x1", "monthly", 164161, &err),
                     GQ_ERR_PRICE_ABOVE_HOURLY);
    ck_assert_str_eq(err.field, "prices.monthly");
    ck_assert_int_eq(set_price(draft, "v100-16g-x1", "monthly", 164160, &err), GQ_OK);
    ck_assert_int_eq(set_price(draft, "v100-16g-x1", "monthly", 123100, &err), GQ_OK);
    ck_assert_int_eq(set_price(draft, "no-such-sku", "monthly", 100, &err), GQ_ERR_NOT_FOUND);

    json_t *bundle = json_pack("{s:s, s:s, s:s, s:i, s:i, s:n, s:n, s:n}", "id", "b1", "name", "B",
                               "description", "", "list_price_fen", 200000, "price_fen", 100000,
                               "segment", "valid_from", "valid_until");
    json_t *children = json_pack("{s:[{s:s, s:i, s:i}]}", "bundle_items", "sku_id", "x9",
                                 "quantity", 1, "hours", 10);
    struct price_list_edit edit = {PRICE_LIST_BUNDLE, "b1", NULL, bundle, children};
    struct audit_entry audit = test_audit("price_list.edit");
    ck_assert_int_eq(price_list_document_edit_list(store, draft, &edit, &audit, &err),
                     GQ_ERR_UNKNOWN_SKU);
    ck_assert_str_eq(err.field, "contents[0].sku");
    json_decref(bundle);
    json_decref(children);

    json_t *rule = json_pack("{s:s, s:s, s:n, s:n, s:n, s:i, s:i, s:n, s:i, s:i, s:i, s:i}", "id",
                             "r1", "name", "R", "segment", "billing", "sku_id", "min_quantity", 1,
                             "basis_points", 500, "fixed_amount_fen", "valid_from", 2000000000,
                             "valid_until", 1900000000, "priority", 0, "stackable", 0);
    struct price_list_edit rule_edit = {PRICE_LIST_DISCOUNT_RULE, "r1", NULL, rule, NULL};
    enum gq_code code = price_list_document_edit_list(store, draft, &rule_edit, &audit, &err);
    ck_assert_msg(code == GQ_ERR_INVALID_VALIDITY, "%d %s", code, err.message);
    json_decref(rule);

    /* A SKU in a bundle is not deleted; a GPU model a SKU uses neither. */
    struct price_list_edit delete_sku = {PRICE_LIST_SKU, "v100-16g-x1", NULL, NULL, NULL};
    ck_assert_int_eq(price_list_document_edit_list(store, draft, &delete_sku, &audit, &err),
                     GQ_ERR_INVALID_VALUE);
    struct price_list_edit delete_model = {PRICE_LIST_GPU_MODEL, "t4-16g", NULL, NULL, NULL};
    ck_assert_int_eq(price_list_document_edit_list(store, draft, &delete_model, &audit, &err),
                     GQ_ERR_INVALID_VALUE);

    json_t *diff = NULL;
    ck_assert_int_eq(price_list_document_diff_list(store, draft, &diff, &err), GQ_OK);
    ck_assert_uint_eq(json_array_size(diff), 0); /* 1231.00 -> 1641.60 -> 1231.00 */
    json_decref(diff);
    ck_assert_uint_eq(audit_count("price_list.edit"), 2);

    /* Deleting a SKU no bundle has takes its prices along; published now,
     * the catalog has four SKUs and says so at once. */
    struct price_list_edit delete_x8 = {PRICE_LIST_SKU, "v100-32g-x8", NULL, NULL, NULL};
    ck_assert_int_eq(price_list_document_edit_list(store, draft, &delete_x8, &audit, &err), GQ_OK);
    bool activated = false;
    struct price_list_publish_check check = {.allow_revert = true};
    int64_t now = time(NULL);
    struct audit_entry publish = test_audit("price_list.publish");
    ck_assert_int_eq(store_price_list_publish(store, draft, 0, now,
                                              price_list_document_publish_check, &check, &publish,
                                              &activated, &err),
                     GQ_OK);
    ck_assert(activated);
    struct catalog *catalog;
    ck_assert_int_eq(store_load_catalog(store, &catalog, &err), GQ_OK);
    ck_assert_uint_eq(catalog->n_skus, 4);
    ck_assert_ptr_null(catalog_find_sku(catalog, "v100-32g-x8"));
    ck_assert_int_eq(catalog->price_list_version, draft);
    catalog_free(catalog);
}
END_TEST

/* A direct SQL edit (for emergencies) still bumps the version, and never
 * to a number a draft holds: no two contents share a number. */
START_TEST(test_a_direct_edit_skips_a_drafts_number)
{
    struct gq_error err;
    int64_t draft = new_draft();
    ck_assert_int_eq(draft, 2);
    ck_assert_int_eq(testdb_exec(database,
                                 "UPDATE sku_prices SET amount_fen = 239 WHERE sku_id = ?1 AND "
                                 "mode_id = 'on_demand'",
                                 "v100-16g-x1"),
                     1);
    int64_t version = 0;
    ck_assert_int_eq(store_price_list_version(store, &version, &err), GQ_OK);
    ck_assert_int_eq(version, 3); /* 2 is the draft's */
    struct catalog *catalog;
    ck_assert_int_eq(store_load_catalog(store, &catalog, &err), GQ_OK);
    ck_assert_int_eq(catalog->price_list_version, 3);
    ck_assert_int_eq(sku_of(catalog, "v100-16g-x1")->price[BILLING_ON_DEMAND], 239);
    catalog_free(catalog);
    ck_assert_int_eq(new_draft(), 4);
}
END_TEST

/* ---- Customers' own rules, quotes, keys and events (0019, 0021, 0022). ---- */

static const char *const cus_a = "cus_000000000000000000000000000000a1";
static const char *const cus_b = "cus_000000000000000000000000000000b2";

/* Customers A and B, live. */
static void two_customers(void)
{
    struct stored_customer a = test_customer(cus_a, NULL, "{}");
    struct stored_customer b = test_customer(cus_b, NULL, "{}");
    write_customer_ok(true, &a, STORE_EVENT_CUSTOMER_CREATED);
    write_customer_ok(true, &b, STORE_EVENT_CUSTOMER_CREATED);
}

/* Puts (document) or deletes (NULL) rule `rule` of `customer` through
 * `into` at `now`: whether a row was written. */
static bool write_rule(struct store *into, const char *customer, const char *rule,
                       const char *document, int64_t now)
{
    struct audit_entry audit = test_audit("customer.rule.write");
    audit.target = customer;
    audit.change = "{}";
    bool done = true;
    struct gq_error err;
    ck_assert_msg(store_customer_rule_write(into, customer, rule, document, now, &audit, &done,
                                            &err) == GQ_OK,
                  "%s", err.message);
    return done;
}

/* A rule as it should read back. */
struct expected_rule {
    const char *id, *document;
    int64_t created_at, updated_at;
};

/* Reads the rules of `customer` through `from`: `count` of them, the one
 * at `at` (when any) as `expected`. */
static void expect_rules(struct store *from, const char *customer, size_t count, size_t at,
                         struct expected_rule expected)
{
    struct customer_rule_list list;
    struct gq_error err;
    ck_assert_msg(store_customer_rules_read(from, customer, &list, &err) == GQ_OK, "%s",
                  err.message);
    ck_assert_uint_eq(list.count, count);
    if (count > 0) {
        ck_assert_str_eq(list.items[at].id, expected.id);
        ck_assert_str_eq(list.items[at].document, expected.document);
        ck_assert_int_eq(list.items[at].created_at, expected.created_at);
        ck_assert_int_eq(list.items[at].updated_at, expected.updated_at);
    }
    store_customer_rule_list_free(&list);
}

/* Documents with their window as the API took it: spacing, key order and
 * the zone offset are the caller's, and come back byte for byte. */
static const char *const rule_v1 =
    "{\"id\":\"r1\", \"valid_until\":\"2027-01-01T00:00:00+08:00\","
    "\"valid_from\":\"2026-01-01T00:00:00+08:00\",\"percent_off\":12}";
static const char *const rule_v2 =
    "{\"id\":\"r1\",\"valid_from\":\"2026-06-01T00:00:00Z\",\"percent_off\":15}";
static const char *const rule_of_b = "{\"id\":\"r1\",\"percent_off\":40}";

/* Put, read in rule-id order, replaced (its creation time kept), deleted
 * once, per customer: the other customer's rule of the same id is left as
 * it was; an unknown or erased customer gets none, and nothing is audited
 * that was not written. */
START_TEST(test_customer_rules_put_replaced_and_deleted_per_customer)
{
    two_customers();
    ck_assert(write_rule(store, cus_a, "r1", rule_v1, 1000));
    ck_assert(write_rule(store, cus_a, "r0", "{\"id\":\"r0\"}", 1001));
    ck_assert(write_rule(store, cus_b, "r1", rule_of_b, 1002));

    expect_rules(store, cus_a, 2, 0, (struct expected_rule){"r0", "{\"id\":\"r0\"}", 1001, 1001});
    expect_rules(store, cus_a, 2, 1, (struct expected_rule){"r1", rule_v1, 1000, 1000});

    ck_assert(write_rule(store, cus_a, "r1", rule_v2, 2000));
    expect_rules(store, cus_a, 2, 1, (struct expected_rule){"r1", rule_v2, 1000, 2000});

    ck_assert(write_rule(store, cus_a, "r1", NULL, 3000));
    ck_assert(!write_rule(store, cus_a, "r1", NULL, 3001));
    ck_assert(!write_rule(store, cus_b, "r0", NULL, 3002));
    expect_rules(store, cus_a, 1, 0, (struct expected_rule){"r0", "{\"id\":\"r0\"}", 1001, 1001});
    expect_rules(store, cus_b, 1, 0, (struct expected_rule){"r1", rule_of_b, 1002, 1002});

    const char *unknown = "cus_000000000000000000000000000000c3";
    ck_assert(!write_rule(store, unknown, "r1", rule_v1, 4000));
    expect_rules(store, unknown, 0, 0, (struct expected_rule){0});
    struct stored_customer erased = test_customer(cus_b, NULL, "{}");
    erased.deleted = true;
    write_customer_ok(false, &erased, STORE_EVENT_CUSTOMER_DELETED);
    ck_assert(!write_rule(store, cus_b, "r2", rule_v1, 4001));
    ck_assert_int_eq(query_integer("SELECT count(*) FROM customer_discount_rules", NULL), 2);
    ck_assert_uint_eq(audit_count("customer.rule.write"), 5);
}
END_TEST

/* Two replicas on one database: a rule written through one is read
 * through the other at once, replaced and deleted the same way. */
START_TEST(test_two_replicas_see_each_others_rules_at_once)
{
    two_customers();
    struct store *other = open_store(4);
    expect_rules(other, cus_a, 0, 0, (struct expected_rule){0});
    ck_assert(write_rule(store, cus_a, "r1", rule_v1, 1000));
    expect_rules(other, cus_a, 1, 0, (struct expected_rule){"r1", rule_v1, 1000, 1000});
    ck_assert(write_rule(other, cus_a, "r1", rule_v2, 2000));
    expect_rules(store, cus_a, 1, 0, (struct expected_rule){"r1", rule_v2, 1000, 2000});
    ck_assert(write_rule(other, cus_a, "r1", NULL, 3000));
    expect_rules(store, cus_a, 0, 0, (struct expected_rule){0});
    store_close(other);
}
END_TEST

/* The ids of the quotes `filter` lists at 150, newest first, joined by
 * spaces into `out`. */
static const char *listed(struct quote_filter filter, char *out, size_t size)
{
    filter.limit = 10;
    filter.now = 150;
    struct quote_page page;
    struct gq_error err;
    ck_assert_msg(store_quotes_list(store, &filter, &page, &err) == GQ_OK, "%s", err.message);
    out[0] = '\0';
    for (size_t i = 0; i < page.count; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s", i > 0 ? " " : "", page.items[i].id);
    store_quote_page_free(&page);
    return out;
}

/* A quote keeps whom it is for and who saved it: read back with its
 * customer, found by each filter (and both at once), never by another
 * customer's or another key's; its events concern its customer. */
START_TEST(test_quotes_by_customer_and_creator)
{
    static const char *const ids[] = {"q_for_a", "q_for_b", "q_for_none"};
    static const char *const customers[] = {"cus_000000000000000000000000000000a1",
                                            "cus_000000000000000000000000000000b2", ""};
    static const char *const creators[] = {"key_1", "anonymous", "key_1"};
    struct quote_save saves[3];
    memset(saves, 0, sizeof saves);
    for (int i = 0; i < 3; i++) {
        saves[i].quote = make_quote(ids[i], NULL, 100 + i, 200);
        snprintf(saves[i].customer_id, sizeof saves[i].customer_id, "%s", customers[i]);
        snprintf(saves[i].created_by, sizeof saves[i].created_by, "%s", creators[i]);
    }
    save_batch(saves, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(saves[i].code, GQ_OK);
    free_batch(saves, 3);

    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_for_a", &out, &err), GQ_OK);
    ck_assert_str_eq(out.customer_id, cus_a);
    stored_quote_clear(&out);
    ck_assert_int_eq(store_quote_get(store, "q_for_none", &out, &err), GQ_OK);
    ck_assert_str_eq(out.customer_id, "");
    stored_quote_clear(&out);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM quotes WHERE customer_id IS NULL", NULL),
                     1);
    ck_assert_int_eq(
        query_integer("SELECT count(*) FROM quotes WHERE id = 'q_for_b' AND created_by = ?1",
                      "anonymous"),
        1);

    char ids_listed[200];
    ck_assert_str_eq(
        listed((struct quote_filter){.customer_id = cus_a}, ids_listed, sizeof ids_listed),
        "q_for_a");
    ck_assert_str_eq(
        listed((struct quote_filter){.customer_id = cus_b}, ids_listed, sizeof ids_listed),
        "q_for_b");
    ck_assert_str_eq(
        listed((struct quote_filter){.customer_id = "cus_000000000000000000000000000000c3"},
               ids_listed, sizeof ids_listed),
        "");
    ck_assert_str_eq(
        listed((struct quote_filter){.created_by = "key_1"}, ids_listed, sizeof ids_listed),
        "q_for_none q_for_a");
    ck_assert_str_eq(
        listed((struct quote_filter){.created_by = "anonymous"}, ids_listed, sizeof ids_listed),
        "q_for_b");
    ck_assert_str_eq(listed((struct quote_filter){.customer_id = cus_a, .created_by = "key_1"},
                            ids_listed, sizeof ids_listed),
                     "q_for_a");
    ck_assert_str_eq(listed((struct quote_filter){.customer_id = cus_b, .created_by = "key_1"},
                            ids_listed, sizeof ids_listed),
                     "");

    /* Accepted, read back from the store: its event concerns its customer too. */
    ck_assert_int_eq(store_quote_accept(store, "q_for_a", 150, NULL, &out, &err), GQ_OK);
    ck_assert_str_eq(out.customer_id, cus_a);
    stored_quote_clear(&out);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM events WHERE customer_id = ?1", cus_a), 2);
    ck_assert_int_eq(query_integer("SELECT count(*) FROM events WHERE customer_id IS NULL", NULL),
                     1);
}
END_TEST

static struct stored_key new_key(const char *name, const char *customer)
{
    struct stored_key key;
    char secret[API_KEY_SIZE];
    struct gq_error err;
    ck_assert_int_eq(store_key_new(name, 1u, 1000, &key, secret, &err), GQ_OK);
    snprintf(key.customer_id, sizeof key.customer_id, "%s", customer);
    struct audit_entry audit = test_audit("key.create");
    audit.target = key.id;
    audit.change = "{}";
    ck_assert_msg(store_key_create(store, &key, &audit, &err) == GQ_OK, "%s", err.message);
    return key;
}

/* A key bound to a customer reads back bound, by id, in the list and once
 * revoked; a key of the business itself reads back with none. */
START_TEST(test_a_bound_keys_customer_reads_back)
{
    two_customers();
    struct stored_key bound = new_key("bound", cus_a);
    struct stored_key free_key = new_key("business", "");
    struct stored_key out;
    struct gq_error err;
    ck_assert_int_eq(store_key_get(store, bound.id, &out, &err), GQ_OK);
    ck_assert_str_eq(out.customer_id, cus_a);
    ck_assert_int_eq(store_key_get(store, free_key.id, &out, &err), GQ_OK);
    ck_assert_str_eq(out.customer_id, "");
    ck_assert_int_eq(query_integer("SELECT count(*) FROM api_keys WHERE customer_id IS NULL", NULL),
                     1);

    struct key_list list;
    ck_assert_int_eq(store_keys_read(store, false, &list, &err), GQ_OK);
    ck_assert_uint_eq(list.count, 2);
    for (size_t i = 0; i < list.count; i++)
        ck_assert_str_eq(list.items[i].customer_id,
                         strcmp(list.items[i].id, bound.id) == 0 ? cus_a : "");
    store_key_list_free(&list);

    struct audit_entry audit = test_audit("key.revoke");
    audit.target = bound.id;
    audit.change = "{}";
    bool was_revoked = true;
    ck_assert_int_eq(store_key_revoke(store, bound.id, 2000, &audit, &out, &was_revoked, &err),
                     GQ_OK);
    ck_assert(!was_revoked);
    ck_assert_str_eq(out.customer_id, cus_a);
}
END_TEST

/* The events read for `customer` (NULL: any) of `type` (NULL: any),
 * oldest first, `limit` a page, into `out` (at most `size`, bodies left
 * out): how many. */
static size_t events_for(const char *type, const char *customer, size_t limit,
                         struct store_event *out, size_t size)
{
    size_t count = 0;
    char after[STORE_ID_SIZE] = "";
    for (;;) {
        struct event_page page;
        struct gq_error err;
        ck_assert_msg(store_events_read(store, type, customer, after[0] ? after : NULL, limit,
                                        &page, &err) == GQ_OK,
                      "%s", err.message);
        for (size_t i = 0; i < page.count; i++, count++) {
            ck_assert_uint_lt(count, size);
            out[count] = (struct store_event){.created_at = page.items[i].created_at};
            snprintf(out[count].id, sizeof out[count].id, "%s", page.items[i].id);
            snprintf(out[count].type, sizeof out[count].type, "%s", page.items[i].type);
            snprintf(out[count].customer_id, sizeof out[count].customer_id, "%s",
                     page.items[i].customer_id);
        }
        bool more = page.has_more;
        if (page.count > 0)
            snprintf(after, sizeof after, "%s", page.items[page.count - 1].id);
        store_event_page_free(&page);
        if (!more)
            return count;
    }
}

/* Events read for one customer are that customer's alone, page after page
 * (its own, its quotes'), never another's, never one of no customer, nor
 * one written before events said whom they concern. */
START_TEST(test_events_read_for_one_customer_are_its_own)
{
    insert_event("evt_0000_before_0021", "50"); /* customer_id NULL, as migrated */
    two_customers();
    struct gq_error err;
    ck_assert_int_eq(
        store_event_publish(store, STORE_EVENT_PRICE_LIST_PUBLISHED, "{\"n\":1}", &err), GQ_OK);
    struct quote_save saves[3];
    memset(saves, 0, sizeof saves);
    static const char *const ids[] = {"q_a_1", "q_b_1", "q_a_2"};
    static const char *const customers[] = {"cus_000000000000000000000000000000a1",
                                            "cus_000000000000000000000000000000b2",
                                            "cus_000000000000000000000000000000a1"};
    for (int i = 0; i < 3; i++) {
        saves[i].quote = make_quote(ids[i], NULL, 100 + i, 200);
        snprintf(saves[i].customer_id, sizeof saves[i].customer_id, "%s", customers[i]);
    }
    save_batch(saves, 3);
    free_batch(saves, 3);

    struct store_event read[10];
    ck_assert_uint_eq(events_for(NULL, NULL, 2, read, 10), 7);
    ck_assert_str_eq(read[0].id, "evt_0000_before_0021");
    ck_assert_uint_eq(events_for(NULL, cus_a, 1, read, 10), 3);
    ck_assert_str_eq(read[0].type, STORE_EVENT_CUSTOMER_CREATED);
    ck_assert_str_eq(read[1].type, STORE_EVENT_QUOTE_CREATED);
    ck_assert_str_eq(read[2].type, STORE_EVENT_QUOTE_CREATED);
    for (size_t i = 0; i < 3; i++)
        ck_assert_str_eq(read[i].customer_id, cus_a);
    ck_assert_uint_eq(events_for(NULL, cus_b, 1, read, 10), 2);
    ck_assert_str_eq(read[0].customer_id, cus_b);
    ck_assert_str_eq(read[1].customer_id, cus_b);
    ck_assert_uint_eq(events_for(STORE_EVENT_QUOTE_CREATED, cus_b, 10, read, 10), 1);
    ck_assert_uint_eq(events_for(NULL, "cus_000000000000000000000000000000c3", 10, read, 10), 0);
}
END_TEST

/* ---- The suite. ---- */

static void add_tests(TCase *tcase)
{
    tcase_add_test(tcase, test_migrate_twice_applies_nothing_the_second_time);
    tcase_add_test(tcase, test_seed_catalog_loads_to_the_fen);
    tcase_add_test(tcase, test_catalog_change_bumps_the_version);
    tcase_add_test(tcase, test_model_shapes_load_as_seeded);
    tcase_add_test(tcase, test_shape_edit_bumps_the_version);
    tcase_add_test(tcase, test_quotes_do_not_bump_the_version);
    tcase_add_test(tcase, test_wait_ends_on_a_change_or_the_timeout);
    tcase_add_test(tcase, test_quote_round_trip);
    tcase_add_test(tcase, test_recent_requests_newest_first);
    tcase_add_test(tcase, test_lifecycle_operations);
    tcase_add_test(tcase, test_same_key_replays_the_first_quote);
    tcase_add_test(tcase, test_a_batch_stores_each_quote_and_replays_a_repeated_key);
    tcase_add_test(tcase, test_keys_and_references_are_per_owner);
    tcase_add_test(tcase, test_a_refused_quote_fails_alone_in_its_batch);
    tcase_add_test(tcase, test_a_batch_tells_whether_deliveries_are_due);
    tcase_add_test(tcase, test_bad_quote_is_refused);
    tcase_add_test(tcase, test_text_rows_from_before_compression_read_back);
    tcase_add_test(tcase, test_damaged_row_is_an_error_naming_the_quote);
    tcase_add_test(tcase, test_event_body_is_stored_compressed);
    tcase_add_test(tcase, test_event_text_rows_from_before_compression_read_back);
    tcase_add_test(tcase, test_damaged_event_is_an_error_naming_it);
    tcase_add_test(tcase, test_accept_once_then_refuse);
    tcase_add_test(tcase, test_accept_expired_is_refused_and_left_open);
    tcase_add_test(tcase, test_two_replicas_one_quote_per_key);
    tcase_add_test(tcase, test_two_replicas_accept_once);
    tcase_add_test(tcase, test_two_replicas_expire_each_quote_once);
    tcase_add_test(tcase, test_health_answers);
    tcase_add_test(tcase, test_the_seed_is_price_list_1_active);
    tcase_add_test(tcase, test_price_list_cycle_switches_at_the_instant);
    tcase_add_test(tcase, test_price_list_refusals_change_nothing);
    tcase_add_test(tcase, test_a_direct_edit_skips_a_drafts_number);
    tcase_add_test(tcase, test_customers_written_listed_and_erased);
    tcase_add_test(tcase, test_verifications_made_revoked_and_erased);
    tcase_add_test(tcase, test_two_replicas_expire_each_verification_once);
    tcase_add_test(tcase, test_retention_deletes_old_events_with_their_deliveries);
    tcase_add_test(tcase, test_retention_deletes_ended_anonymous_quotes);
    tcase_add_test(tcase, test_two_replicas_delete_each_old_event_once);
    tcase_add_test(tcase, test_customer_rules_put_replaced_and_deleted_per_customer);
    tcase_add_test(tcase, test_two_replicas_see_each_others_rules_at_once);
    tcase_add_test(tcase, test_quotes_by_customer_and_creator);
    tcase_add_test(tcase, test_a_bound_keys_customer_reads_back);
    tcase_add_test(tcase, test_events_read_for_one_customer_are_its_own);
    tcase_set_timeout(tcase, 30);
}

static Suite *conformance_suite(bool with_postgres)
{
    Suite *suite = suite_create("store_conformance");
    TCase *sqlite = tcase_create("sqlite");
    tcase_add_checked_fixture(sqlite, setup_sqlite, teardown);
    add_tests(sqlite);
    suite_add_tcase(suite, sqlite);
    if (with_postgres) {
        TCase *postgres = tcase_create("postgres");
        tcase_add_checked_fixture(postgres, setup_postgres, teardown);
        add_tests(postgres);
        suite_add_tcase(suite, postgres);
    }
    return suite;
}

int main(void)
{
    const char *url = getenv("GPUQUOTE_TEST_POSTGRES");
    const char *only = getenv("GPUQUOTE_CONFORMANCE");
    bool sqlite_only = only != NULL && strcmp(only, "sqlite") == 0;
    if (!sqlite_only && (url == NULL || url[0] == '\0')) {
        fprintf(stderr, "check_conformance: GPUQUOTE_TEST_POSTGRES names no PostgreSQL server "
                        "(make check starts one); GPUQUOTE_CONFORMANCE=sqlite runs SQLite alone\n");
        return EXIT_FAILURE;
    }
    /* The events of accepts and publications carry the API's JSON, as in the server. */
    store_set_render(&codec_store_render);
    SRunner *runner = srunner_create(conformance_suite(!sqlite_only));
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
