/*
 * Tests of stored quotes: insert and get round-trip every field; an
 * idempotency key replays the first quote and writes nothing; accepting
 * moves an open quote to accepted at `now`, refuses an expired one (leaving
 * it open), and is a no-op the second time; unknown ids are NOT_FOUND; a
 * database locked by another connection gives GQ_ERR_RETRY_LATER and writes
 * nothing; saves queued together are written in one transaction (group
 * commit) with an outcome each; several threads share the pool without
 * losing a quote; a response is stored compressed and a damaged one is an
 * error, never a wrong quote.
 *
 * Each test migrates a fresh database in its own temporary directory.
 */
#include <check.h>
#include <ftw.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "codec/store_json.h"
#include "store/store.h"
#include "store_fixture.h"

static char temp_dir[512];
static char db_path[600];
static struct store *store;

#define BUSY_TIMEOUT_MS 50

/* ---- Fixture and helpers. ---- */

static void setup(void)
{
    make_temp_dir(temp_dir, "quotes");
    snprintf(db_path, sizeof db_path, "%s/test.db", temp_dir);
    struct store_options options = {db_path, BUSY_TIMEOUT_MS, 4, true, false};
    struct gq_error err;
    ck_assert_msg(store_open(&options, &store, &err) == GQ_OK, "%s", err.message);
    ck_assert_msg(store_migrate(store, source_migrations(), NULL, &err) == GQ_OK, "%s",
                  err.message);
}

static void teardown(void)
{
    store_close(store);
    store = NULL;
    remove_temp_dir(temp_dir);
}

/* Closes the fixture's store and opens it again with another busy timeout
 * and pool size (the database stays). */
static void reopen_store(int busy_timeout_ms, int pool_size)
{
    store_close(store);
    struct store_options options = {db_path, busy_timeout_ms, pool_size, false, false};
    struct gq_error err;
    ck_assert_msg(store_open(&options, &store, &err) == GQ_OK, "%s", err.message);
}

static long long query_int(const char *sql)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *stmt;
    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL), SQLITE_OK);
    long long value = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

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

static void insert_ok(const struct stored_quote *quote)
{
    bool replayed = true;
    struct stored_quote existing;
    memset(&existing, 0, sizeof existing);
    struct gq_error err;
    ck_assert_msg(store_quote_insert(store, quote, &replayed, &existing, &err) == GQ_OK, "%s",
                  err.message);
    ck_assert(!replayed);
    ck_assert_ptr_null(existing.request_json); /* untouched */
}

/* Another connection that holds the write lock until released. */
static sqlite3 *hold_write_lock(void)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    return db;
}

static void release_write_lock(sqlite3 *db)
{
    ck_assert_int_eq(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* `size` - 1 printable bytes that LZ4 cannot shrink (a fixed xorshift
 * sequence), so that quotes fill the WAL as a real quote's text used to. */
/* A JSON object, as every stored response is (its quote.created event
 * holds it), whose one string does not compress. */
static void fill_incompressible(char *text, size_t size)
{
    uint32_t state = 2463534242u;
    memcpy(text, "{\"x\":\"", 6);
    for (size_t i = 6; i + 3 < size; i++) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        text[i] = (char)('0' + state % 75); /* '0'..'z', no quote */
        if (text[i] == '\\')
            text[i] = '_'; /* nor a backslash, which would begin an escape */
    }
    memcpy(text + size - 3, "\"}", 3);
}

/* Runs `sql` on its own connection (the test's hand on the database). */
static void exec_sql(const char *sql)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
    sqlite3_close(db);
}

/* ---- Insert and get. ---- */

START_TEST(test_insert_get_round_trip)
{
    struct stored_quote quote = make_quote("q_0123456789abcdef", "key-1", 1700000000, 1700086400);
    quote.price_list_version = 7;
    insert_ok(&quote);

    struct stored_quote got;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_0123456789abcdef", &got, &err), GQ_OK);
    ck_assert_str_eq(got.id, "q_0123456789abcdef");
    ck_assert(!got.accepted);
    ck_assert_str_eq(got.request_json, quote.request_json);
    ck_assert_str_eq(got.response_json, quote.response_json);
    ck_assert_str_eq(got.idempotency_key, "key-1");
    ck_assert_int_eq(got.price_list_version, 7);
    ck_assert_int_eq(got.created_at, 1700000000);
    ck_assert_int_eq(got.expires_at, 1700086400);
    ck_assert_int_eq(got.accepted_at, 0);
    stored_quote_clear(&got);
    ck_assert_ptr_null(got.request_json);
}
END_TEST

START_TEST(test_insert_without_key_stores_null_key)
{
    struct stored_quote quote = make_quote("q_nokey", NULL, 100, 200);
    insert_ok(&quote);
    struct stored_quote second = make_quote("q_nokey2", NULL, 100, 200);
    insert_ok(&second); /* NULL keys do not collide */
    struct stored_quote got;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_nokey", &got, &err), GQ_OK);
    ck_assert_ptr_null(got.idempotency_key);
    stored_quote_clear(&got);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE idempotency_key IS NULL"), 2);
}
END_TEST

START_TEST(test_same_key_replays_first_quote)
{
    struct stored_quote first = make_quote("q_first", "retry-me", 100, 1000);
    insert_ok(&first);

    struct stored_quote again = make_quote("q_second", "retry-me", 150, 1050);
    again.request_json = (char *)"{\"different\":true}";
    bool replayed = false;
    struct stored_quote existing;
    memset(&existing, 0, sizeof existing);
    struct gq_error err;
    ck_assert_int_eq(store_quote_insert(store, &again, &replayed, &existing, &err), GQ_OK);
    ck_assert(replayed);
    ck_assert_str_eq(existing.id, "q_first");
    ck_assert_str_eq(existing.request_json, first.request_json); /* caller compares for 409 */
    ck_assert_int_eq(existing.created_at, 100);
    stored_quote_clear(&existing);

    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes"), 1);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE id = 'q_second'"), 0);
}
END_TEST

START_TEST(test_duplicate_id_is_refused)
{
    struct stored_quote quote = make_quote("q_dup", NULL, 100, 200);
    insert_ok(&quote);
    struct stored_quote other = make_quote("q_dup", NULL, 300, 400);
    bool replayed = true;
    struct stored_quote existing;
    struct gq_error err;
    ck_assert_int_eq(store_quote_insert(store, &other, &replayed, &existing, &err),
                     GQ_ERR_INTERNAL);
    ck_assert(!replayed);
    ck_assert_int_eq(query_int("SELECT created_at FROM quotes WHERE id = 'q_dup'"), 100);
}
END_TEST

/* The store refuses `quote` as invalid and writes nothing. */
static void expect_refused(const struct stored_quote *quote)
{
    bool replayed;
    struct stored_quote existing;
    struct gq_error err;
    ck_assert_int_eq(store_quote_insert(store, quote, &replayed, &existing, &err),
                     GQ_ERR_INVALID_VALUE);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes"), 0);
}

static const char *const bad_ids[] = {"", "0123456789012345678901234567890123456789"};

START_TEST(test_bad_quote_is_refused)
{
    struct stored_quote quote = make_quote("q_ok", NULL, 100, 200);
    if (bad_ids[_i][0] == '\0')
        quote.id[0] = '\0';
    else
        memset(quote.id, 'x', sizeof quote.id); /* no terminator */
    expect_refused(&quote);
}
END_TEST

/* A quote's text is stored as an LZ4 block with its length, a quarter of
 * the size for a quote's repetitive JSON, and read back byte for byte. */
START_TEST(test_response_is_stored_compressed)
{
    static char response[6000];
    size_t used = (size_t)snprintf(response, sizeof response, "{\"items\":[");
    for (int i = 0; i < 40; i++)
        used += (size_t)snprintf(response + used, sizeof response - used,
                                 "%s{\"billing\":\"monthly\",\"amount\":\"%d.00\","
                                 "\"plan\":{\"summary\":\"1 month\",\"units\":1}}",
                                 i > 0 ? "," : "", 1231 + i);
    snprintf(response + used, sizeof response - used, "]}");
    struct stored_quote quote = make_quote("q_packed", NULL, 100, 200);
    quote.response_json = response;
    insert_ok(&quote);

    ck_assert_int_eq(query_int("SELECT response_size FROM quotes WHERE id = 'q_packed'"
                               " AND response_json IS NULL"),
                     (long long)strlen(response));
    ck_assert_int_lt(query_int("SELECT length(response_lz4) FROM quotes"),
                     (long long)strlen(response) / 4);
    struct stored_quote got;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_packed", &got, &err), GQ_OK);
    ck_assert_str_eq(got.response_json, response);
    stored_quote_clear(&got);
}
END_TEST

/* Ways a stored block can be damaged (by a disk, or a hand with sqlite3). */
static const char *const damage[] = {
    "UPDATE quotes SET response_size = response_size + 1", /* longer than the block */
    "UPDATE quotes SET response_size = response_size - 1", /* shorter */
    "UPDATE quotes SET response_lz4 = X'F0FFFFFFFF41'",    /* literals past its end */
    "UPDATE quotes SET response_lz4 = X''",                /* empty */
    "UPDATE quotes SET response_size = 2113929216",        /* more than LZ4 expands to */
    /* Well-formed, six literal bytes with a NUL among them. */
    "UPDATE quotes SET response_lz4 = X'60414243004445', response_size = 6",
};

/* A damaged response is GQ_ERR_INTERNAL naming the quote, on reading and
 * on accepting (which reads it too): never a wrong or truncated quote. */
START_TEST(test_damaged_response_is_an_error)
{
    struct stored_quote quote = make_quote("q_damaged", NULL, 100, 4000000000);
    insert_ok(&quote);
    exec_sql(damage[_i]);
    struct stored_quote got;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_damaged", &got, &err), GQ_ERR_INTERNAL);
    ck_assert_str_eq(err.message, "quote q_damaged is stored damaged");
    ck_assert_int_eq(store_quote_accept(store, "q_damaged", 200, NULL, &got, &err),
                     GQ_ERR_INTERNAL);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE status = 'open'"), 1);
}
END_TEST

/* An empty response cannot be stored: it is no quote. */
START_TEST(test_empty_response_is_refused)
{
    struct stored_quote quote = make_quote("q_empty", NULL, 100, 200);
    quote.response_json = (char *)"";
    expect_refused(&quote);
}
END_TEST

START_TEST(test_unknown_id_is_not_found)
{
    struct stored_quote got;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_missing", &got, &err), GQ_ERR_NOT_FOUND);
    ck_assert_int_eq(err.code, GQ_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "q_missing"));
    ck_assert_int_eq(store_quote_accept(store, "q_missing", 100, NULL, &got, &err),
                     GQ_ERR_NOT_FOUND);
}
END_TEST

/* A stored quote keeps the price-list version it was priced under. */
START_TEST(test_quote_keeps_its_price_list_version)
{
    struct stored_quote quote = make_quote("q_v1", NULL, 100, 200);
    insert_ok(&quote);
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db,
                                  "UPDATE sku_prices SET amount_fen = 300"
                                  " WHERE sku_id = 'v100-16g-x1' AND mode_id = 'on_demand'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    ck_assert_int_eq(query_int("SELECT version FROM price_list"), 2);
    struct stored_quote got;
    struct gq_error err;
    ck_assert_int_eq(store_quote_get(store, "q_v1", &got, &err), GQ_OK);
    ck_assert_int_eq(got.price_list_version, 1);
    stored_quote_clear(&got);
}
END_TEST

/* ---- Accept. ---- */

START_TEST(test_accept_open_quote)
{
    struct stored_quote quote = make_quote("q_acc", NULL, 1000, 2000);
    insert_ok(&quote);
    struct stored_quote accepted;
    struct gq_error err;
    ck_assert_int_eq(store_quote_accept(store, "q_acc", 1500, NULL, &accepted, &err), GQ_OK);
    ck_assert(accepted.accepted);
    ck_assert_int_eq(accepted.accepted_at, 1500);
    ck_assert_str_eq(accepted.id, "q_acc");
    ck_assert_str_eq(accepted.response_json, quote.response_json);
    stored_quote_clear(&accepted);

    struct stored_quote got;
    ck_assert_int_eq(store_quote_get(store, "q_acc", &got, &err), GQ_OK);
    ck_assert(got.accepted);
    ck_assert_int_eq(got.accepted_at, 1500);
    stored_quote_clear(&got);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE status = 'accepted'"), 1);
}
END_TEST

/* expires_at is exclusive: at expires_at the quote is already expired. */
static const int64_t expired_at[] = {2000, 2001, 999999};

START_TEST(test_accept_expired_quote_is_refused)
{
    struct stored_quote quote = make_quote("q_old", NULL, 1000, 2000);
    insert_ok(&quote);
    struct stored_quote out;
    memset(&out, 0, sizeof out);
    struct gq_error err;
    ck_assert_int_eq(store_quote_accept(store, "q_old", expired_at[_i], NULL, &out, &err),
                     GQ_ERR_QUOTE_EXPIRED);
    ck_assert_ptr_null(out.request_json); /* untouched */
    ck_assert_ptr_nonnull(strstr(err.message, "q_old"));
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE id = 'q_old'"
                               " AND status = 'open' AND accepted_at IS NULL"),
                     1);
}
END_TEST

/* A second accept is refused (of two replicas accepting at once, one
 * wins) and changes nothing: the quote stays accepted at the first time. */
START_TEST(test_accept_twice_is_refused_and_changes_nothing)
{
    struct stored_quote quote = make_quote("q_twice", NULL, 1000, 2000);
    insert_ok(&quote);
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_accept(store, "q_twice", 1200, NULL, &out, &err), GQ_OK);
    stored_quote_clear(&out);
    memset(&out, 0, sizeof out);
    ck_assert_int_eq(store_quote_accept(store, "q_twice", 1300, NULL, &out, &err),
                     GQ_ERR_QUOTE_NOT_OPEN);
    ck_assert_str_eq(err.message, "quote 'q_twice' is accepted already (at 1970-01-01T00:20:00Z)");
    ck_assert_ptr_null(out.response_json); /* nothing handed back */
    /* Later, even after expiry: still accepted at 1200. */
    ck_assert_int_eq(store_quote_accept(store, "q_twice", 5000, NULL, &out, &err),
                     GQ_ERR_QUOTE_NOT_OPEN);
    struct stored_quote now;
    ck_assert_int_eq(store_quote_get(store, "q_twice", &now, &err), GQ_OK);
    ck_assert(now.accepted);
    ck_assert_int_eq(now.accepted_at, 1200);
    stored_quote_clear(&now);
}
END_TEST

/* ---- Busy database. ---- */

START_TEST(test_busy_insert_retries_later_and_writes_nothing)
{
    sqlite3 *holder = hold_write_lock();
    struct stored_quote quote = make_quote("q_busy", "busy-key", 100, 200);
    bool replayed = true;
    struct stored_quote existing;
    memset(&existing, 0, sizeof existing);
    struct gq_error err;
    ck_assert_int_eq(store_quote_insert(store, &quote, &replayed, &existing, &err),
                     GQ_ERR_RETRY_LATER);
    ck_assert_str_eq(err.message, "database is busy, retry");
    ck_assert(!replayed);
    release_write_lock(holder);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes"), 0);

    /* The pool recovered: the same insert now goes through. */
    insert_ok(&quote);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE id = 'q_busy'"), 1);
}
END_TEST

START_TEST(test_busy_accept_retries_later_and_leaves_quote_open)
{
    struct stored_quote quote = make_quote("q_busy_acc", NULL, 100, 200);
    insert_ok(&quote);
    sqlite3 *holder = hold_write_lock();
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_accept(store, "q_busy_acc", 150, NULL, &out, &err),
                     GQ_ERR_RETRY_LATER);
    /* Reads still work under WAL while another connection writes. */
    ck_assert_int_eq(store_quote_get(store, "q_busy_acc", &out, &err), GQ_OK);
    ck_assert(!out.accepted);
    stored_quote_clear(&out);
    release_write_lock(holder);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE status = 'open'"), 1);
}
END_TEST

/* ---- Group commit. ---- */

/* Counts the callbacks of saves submitted without waiting. */
struct save_probe {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int done;
};

static void probe_count(struct save_probe *probe)
{
    pthread_mutex_lock(&probe->lock);
    probe->done++;
    pthread_cond_signal(&probe->changed);
    pthread_mutex_unlock(&probe->lock);
}

static void count_done(struct quote_save *save)
{
    probe_count(save->context);
}

static void probe_init(struct save_probe *probe)
{
    pthread_mutex_init(&probe->lock, NULL);
    pthread_cond_init(&probe->changed, NULL);
    probe->done = 0;
}

static void probe_wait(struct save_probe *probe, int count)
{
    pthread_mutex_lock(&probe->lock);
    while (probe->done < count)
        pthread_cond_wait(&probe->changed, &probe->lock);
    pthread_mutex_unlock(&probe->lock);
    pthread_cond_destroy(&probe->changed);
    pthread_mutex_destroy(&probe->lock);
}

static void submit_all(struct quote_save *saves, int count, struct save_probe *probe)
{
    for (int i = 0; i < count; i++) {
        saves[i].on_done = count_done;
        saves[i].context = probe;
        store_quote_submit(store, &saves[i]);
    }
}

/* MANY_SAVES saves of quotes "<prefix>0", "<prefix>1"..., more than two
 * batches' worth; static storage, rewritten by each call. */
#define MANY_SAVES 300

static struct quote_save *many_saves(const char *prefix)
{
    static struct quote_save saves[MANY_SAVES];
    memset(saves, 0, sizeof saves);
    for (int i = 0; i < MANY_SAVES; i++) {
        char id[STORE_QUOTE_ID_SIZE];
        snprintf(id, sizeof id, "%.20s%d", prefix, i);
        saves[i].quote = make_quote(id, NULL, 100, 200); /* copies the id */
    }
    return saves;
}

/* Saves queued together while another connection holds the lock land in
 * one transaction; each gets its own outcome there: a repeated key replays
 * the quote stored just before it in the same transaction, and a refused
 * quote (a bad one, a duplicate id) undoes only itself. */
START_TEST(test_batch_gives_each_save_its_outcome)
{
    /* Time to submit the eight and release the lock, however slow the
     * machine, before a batch gives up on the lock. */
    reopen_store(5000, 4);
    struct quote_save saves[8];
    memset(saves, 0, sizeof saves);
    saves[0].quote = make_quote("q_b0", "batch-key", 100, 200);
    saves[1].quote = make_quote("q_b1", NULL, 100, 200);
    saves[2].quote = make_quote("q_b2", "batch-key", 100, 200);
    saves[3].quote = make_quote("", NULL, 100, 200);     /* no id: refused */
    saves[4].quote = make_quote("q_b1", NULL, 100, 200); /* duplicate id */
    saves[5].quote = make_quote("q_b5", NULL, 100, 200);
    saves[6].quote = make_quote("q_b6", "other-key", 100, 200);
    saves[7].quote = make_quote("q_b7", NULL, 100, 200);
    struct save_probe probe;
    probe_init(&probe);
    sqlite3 *holder = hold_write_lock();
    submit_all(saves, 8, &probe);
    release_write_lock(holder);
    probe_wait(&probe, 8);

    enum gq_code expected[8] = {GQ_OK,           GQ_OK, GQ_OK, GQ_ERR_INVALID_VALUE,
                                GQ_ERR_INTERNAL, GQ_OK, GQ_OK, GQ_OK};
    for (int i = 0; i < 8; i++) {
        ck_assert_msg(saves[i].code == expected[i], "save %d: code %d (%s)", i, saves[i].code,
                      saves[i].err.message);
        ck_assert_int_eq(saves[i].replayed, i == 2);
    }
    ck_assert_str_eq(saves[2].existing.id, "q_b0");
    ck_assert_str_eq(saves[2].existing.idempotency_key, "batch-key");
    stored_quote_clear(&saves[2].existing);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes"), 5);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE id IN "
                               "('q_b0', 'q_b1', 'q_b5', 'q_b6', 'q_b7')"),
                     5);
}
END_TEST

/* A quote whose insert rolls the whole transaction back (here a trigger
 * that raises ROLLBACK; in life a full disk or an I/O error) fails the
 * whole batch: the quotes before it were rolled back with it, and the ones
 * after it are not written one by one outside the transaction. */
START_TEST(test_rolled_back_batch_fails_every_save)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db,
                                  "CREATE TRIGGER roll_back BEFORE INSERT ON quotes "
                                  "WHEN NEW.id = 'q_r1' BEGIN SELECT RAISE(ROLLBACK, 'boom'); END",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    reopen_store(5000, 4); /* a busy timeout long enough to queue behind */
    struct quote_save blocker = {.quote = make_quote("q_blocker", NULL, 100, 200)};
    struct quote_save saves[3];
    memset(saves, 0, sizeof saves);
    saves[0].quote = make_quote("q_r0", NULL, 100, 200);
    saves[1].quote = make_quote("q_r1", NULL, 100, 200);
    saves[2].quote = make_quote("q_r2", NULL, 100, 200);
    struct save_probe probe;
    probe_init(&probe);
    ck_assert_int_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    /* The writer takes the blocker alone and waits for the lock; the three
     * then queue together, one batch. */
    submit_all(&blocker, 1, &probe);
    usleep(500 * 1000);
    submit_all(saves, 3, &probe);
    ck_assert_int_eq(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
    probe_wait(&probe, 4);
    sqlite3_close(db);
    for (int i = 0; i < 3; i++)
        ck_assert_msg(saves[i].code == GQ_ERR_INTERNAL, "save %d: code %d", i, saves[i].code);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE id LIKE 'q_r%'"), 0);
}
END_TEST

/* A batch that cannot take the lock fails every save in it and writes
 * nothing. */
START_TEST(test_locked_batch_fails_every_save)
{
    struct quote_save saves[3];
    memset(saves, 0, sizeof saves);
    saves[0].quote = make_quote("q_l0", NULL, 100, 200);
    saves[1].quote = make_quote("q_l1", "locked-key", 100, 200);
    saves[2].quote = make_quote("q_l2", NULL, 100, 200);
    struct save_probe probe;
    probe_init(&probe);
    sqlite3 *holder = hold_write_lock();
    submit_all(saves, 3, &probe);
    probe_wait(&probe, 3); /* each waits out the 50 ms busy timeout */
    release_write_lock(holder);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(saves[i].code, GQ_ERR_RETRY_LATER);
        ck_assert_str_eq(saves[i].err.message, "database is busy, retry");
        ck_assert(!saves[i].replayed);
    }
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes"), 0);
}
END_TEST

/* A save submitted once the caller has learnt that the lock was busy did
 * not wait behind the failed batch and is tried: here the first save's
 * callback, which runs on the writer thread, frees the lock and submits a
 * second save, which is stored. (It once failed with the saves that had
 * queued while the batch waited.) */
struct retry_after_busy {
    sqlite3 *holder;
    struct quote_save retry;
    struct save_probe *probe;
};

static void release_and_retry(struct quote_save *save)
{
    struct retry_after_busy *state = save->context;
    sqlite3_exec(state->holder, "ROLLBACK", NULL, NULL, NULL);
    state->retry.on_done = count_done;
    state->retry.context = state->probe;
    state->retry.quote = save->quote;
    store_quote_submit(store, &state->retry);
    probe_count(state->probe);
}

START_TEST(test_save_after_a_busy_failure_is_tried)
{
    struct save_probe probe;
    probe_init(&probe);
    struct retry_after_busy state = {.holder = hold_write_lock(), .probe = &probe};
    struct quote_save first = {.quote = make_quote("q_retried", NULL, 100, 200),
                               .on_done = release_and_retry,
                               .context = &state};
    store_quote_submit(store, &first);
    probe_wait(&probe, 2);
    sqlite3_close(state.holder);
    ck_assert_int_eq(first.code, GQ_ERR_RETRY_LATER);
    ck_assert_msg(state.retry.code == GQ_OK, "retry: %s", state.retry.err.message);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE id = 'q_retried'"), 1);
}
END_TEST

static long long monotonic_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Behind a batch that waited out the busy timeout, the saves queued
 * meanwhile fail at once: 300 saves are at least three batches, which would
 * take three busy timeouts (6 s) one after another; they take about one.
 * The bound leaves 3 s for a slow machine (sanitizers, a loaded CI host). */
START_TEST(test_locked_database_fails_the_queue_in_one_timeout)
{
    reopen_store(2000, 4);
    enum { COUNT = MANY_SAVES };
    struct quote_save *saves = many_saves("q_queued_");
    struct save_probe probe;
    probe_init(&probe);
    sqlite3 *holder = hold_write_lock();
    long long started = monotonic_ms();
    submit_all(saves, COUNT, &probe);
    probe_wait(&probe, COUNT);
    long long waited = monotonic_ms() - started;
    release_write_lock(holder);
    for (int i = 0; i < COUNT; i++)
        ck_assert_int_eq(saves[i].code, GQ_ERR_RETRY_LATER);
    ck_assert_msg(waited >= 2000 && waited < 5000, "all failed after %lld ms", waited);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes"), 0);
}
END_TEST

/* A write waits one busy timeout in all, not one for this process's writer
 * and another for the database: an accept begun 1 s into a save that waits
 * 4 s for another process's lock gets this process's lock at 4 s, and then
 * waits only the 1 s it has left (not 4 more): 4 s in all, not 7. */
START_TEST(test_write_behind_a_waiting_writer_gives_up_in_one_timeout)
{
    reopen_store(4000, 4);
    struct stored_quote quote = make_quote("q_late_accept", NULL, 100, 200);
    insert_ok(&quote);
    sqlite3 *holder = hold_write_lock();
    struct save_probe probe;
    probe_init(&probe);
    struct quote_save blocked = {.quote = make_quote("q_blocked", NULL, 100, 200)};
    submit_all(&blocked, 1, &probe);
    struct timespec pause = {1, 0};
    nanosleep(&pause, NULL);
    long long started = monotonic_ms();
    struct stored_quote out;
    struct gq_error err;
    ck_assert_int_eq(store_quote_accept(store, "q_late_accept", 150, NULL, &out, &err),
                     GQ_ERR_RETRY_LATER);
    long long waited = monotonic_ms() - started;
    probe_wait(&probe, 1);
    release_write_lock(holder);
    ck_assert_int_eq(blocked.code, GQ_ERR_RETRY_LATER);
    ck_assert_msg(waited >= 3900 && waited < 6000, "the accept gave up after %lld ms", waited);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE status = 'open'"), 1);
}
END_TEST

/* Closing the store writes what is queued before it returns. */
START_TEST(test_close_writes_queued_saves)
{
    enum { COUNT = MANY_SAVES };
    struct quote_save *saves = many_saves("q_close_");
    struct save_probe probe;
    probe_init(&probe);
    submit_all(saves, COUNT, &probe);
    store_close(store);
    store = NULL;
    ck_assert_int_eq(probe.done, COUNT); /* every callback ran before the close returned */
    probe_wait(&probe, COUNT);
    for (int i = 0; i < COUNT; i++)
        ck_assert_msg(saves[i].code == GQ_OK, "save %d: %s", i, saves[i].err.message);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes"), COUNT);
}
END_TEST

/* ---- Threads. ---- */

#define THREADS 8
#define QUOTES_PER_THREAD 200

struct worker {
    int number;
    int failures;
    int replays;
};

/* Inserts QUOTES_PER_THREAD quotes; every tenth one reuses a key shared by
 * all threads for that slot, so exactly one thread stores it. */
static void *insert_many(void *argument)
{
    struct worker *worker = argument;
    for (int i = 0; i < QUOTES_PER_THREAD; i++) {
        char id[STORE_QUOTE_ID_SIZE], key[32];
        snprintf(id, sizeof id, "q_t%d_%d", worker->number, i);
        snprintf(key, sizeof key, "shared-%d", i);
        struct stored_quote quote = make_quote(id, i % 10 == 0 ? key : NULL, 100, 200);
        bool replayed = false;
        struct stored_quote existing;
        memset(&existing, 0, sizeof existing);
        struct gq_error err;
        if (store_quote_insert(store, &quote, &replayed, &existing, &err) != GQ_OK)
            worker->failures++;
        if (replayed)
            worker->replays++;
        stored_quote_clear(&existing);
    }
    return NULL;
}

START_TEST(test_threads_share_the_pool)
{
    /* A generous timeout: here the lock is only ever held for one insert. */
    reopen_store(5000, 3);

    pthread_t threads[THREADS];
    struct worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (struct worker){i, 0, 0};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, insert_many, &workers[i]), 0);
    }
    int failures = 0, replays = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        failures += workers[i].failures;
        replays += workers[i].replays;
    }
    ck_assert_int_eq(failures, 0);
    int keyed = QUOTES_PER_THREAD / 10;
    ck_assert_int_eq(replays, keyed * (THREADS - 1));
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes"),
                     THREADS * QUOTES_PER_THREAD - keyed * (THREADS - 1));
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes WHERE idempotency_key IS NOT NULL"),
                     keyed);
}
END_TEST

static long long file_size(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (long long)info.st_size : -1;
}

/* Checkpoints run in the background: the pages of quotes reach the
 * database file without any writer copying them, and the WAL is restarted
 * instead of growing with every quote ever stored. 12,000 quotes of ~5 KB
 * put about 24,000 pages (100 MB) through the WAL; without checkpoints the
 * WAL would hold them all and the database file stay at its first pages. */
START_TEST(test_wal_is_checkpointed_in_the_background)
{
    /* The restart checkpoint holds writers back while it copies and syncs;
     * on a slow disk that is longer than the fixture's 50 ms busy timeout. */
    reopen_store(5000, 4);
    static char response[5000];
    fill_incompressible(response, sizeof response);
    for (int i = 0; i < 12000; i++) {
        char id[STORE_QUOTE_ID_SIZE];
        snprintf(id, sizeof id, "q_wal_%d", i);
        struct stored_quote quote = make_quote(id, NULL, 100, 200);
        quote.response_json = response;
        insert_ok(&quote);
    }
    char wal_file[720];
    snprintf(wal_file, sizeof wal_file, "%s-wal", db_path);
    long long database = 0;
    for (int waited = 0; waited < 10000 && database < 40 * 1024 * 1024; waited += 10) {
        database = file_size(db_path);
        usleep(10000);
    }
    ck_assert_int_gt(database, 40 * 1024 * 1024); /* most of the ~60 MB inserted */
    /* How long the WAL grew meanwhile depends on the disk: writers go on
     * while a checkpoint syncs (under other processes' I/O that took
     * seconds, and the WAL reached 270 MB). What must hold is that it is
     * restarted: once it is, the next write trims the file back to
     * journal_size_limit (8 MB). */
    long long wal = file_size(wal_file);
    int after = 0;
    for (; after < 500 && wal > 8 * 1024 * 1024; after++) {
        char id[STORE_QUOTE_ID_SIZE];
        snprintf(id, sizeof id, "q_wal_after_%d", after);
        struct stored_quote quote = make_quote(id, NULL, 100, 200);
        insert_ok(&quote);
        usleep(20 * 1000);
        wal = file_size(wal_file);
    }
    ck_assert_int_le(wal, 8 * 1024 * 1024);
    ck_assert_int_eq(query_int("SELECT count(*) FROM quotes"), 12000 + after);
}
END_TEST

/* Inserts `count` quotes of ~5 KB named q_<prefix>_<n>; returns how many
 * the store refused. */
static int insert_large_quotes(const char *prefix, int count)
{
    static char response[5000];
    fill_incompressible(response, sizeof response);
    int refused = 0;
    for (int i = 0; i < count; i++) {
        char id[STORE_QUOTE_ID_SIZE];
        snprintf(id, sizeof id, "q_%s_%d", prefix, i);
        struct stored_quote quote = make_quote(id, NULL, 100, 200);
        quote.response_json = response;
        bool replayed = false;
        struct stored_quote existing;
        memset(&existing, 0, sizeof existing);
        struct gq_error err;
        if (store_quote_insert(store, &quote, &replayed, &existing, &err) != GQ_OK)
            refused++;
        stored_quote_clear(&existing);
    }
    return refused;
}

/* A reader in another process (a backup, a shell with a transaction open)
 * keeps the WAL from being restarted. Saves go on meanwhile: the restart
 * must not wait for the reader with the write mutex held, which made each
 * save wait the whole busy timeout and fail. Once the reader leaves, the
 * WAL is restarted and trimmed again. */
START_TEST(test_reader_holding_the_wal_does_not_stall_saves)
{
    reopen_store(300, 4);
    ck_assert_int_eq(insert_large_quotes("before", 100), 0);
    sqlite3 *reader;
    ck_assert_int_eq(sqlite3_open_v2(db_path, &reader, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(reader, "BEGIN; SELECT count(*) FROM quotes;", NULL, NULL, NULL),
                     SQLITE_OK);
    /* ~6,000 WAL pages: three times past the restart threshold. */
    ck_assert_int_eq(insert_large_quotes("held", 3000), 0);
    char wal_file[720];
    snprintf(wal_file, sizeof wal_file, "%s-wal", db_path);
    ck_assert_int_gt(file_size(wal_file), 20 * 1024 * 1024); /* kept: the reader needs it */

    ck_assert_int_eq(sqlite3_exec(reader, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(reader);
    usleep(2100 * 1000); /* past the longest pause after a restart that could not finish */
    long long wal = file_size(wal_file);
    for (int round = 0; round < 100 && wal > 10 * 1024 * 1024; round++) {
        char prefix[24];
        snprintf(prefix, sizeof prefix, "after%d", round);
        ck_assert_int_eq(insert_large_quotes(prefix, 20), 0);
        usleep(20 * 1000);
        wal = file_size(wal_file);
    }
    ck_assert_int_le(wal, 10 * 1024 * 1024); /* journal_size_limit: 8 MB */
}
END_TEST

/* An event wraps its object's bytes as they are, and refuses what is no
 * object. */
START_TEST(test_event_made_around_its_object)
{
    struct store_event event;
    struct gq_error err;
    const char *object = " {\"id\":\"q_1\",\"hours\":16.1} ";
    ck_assert_int_eq(store_event_make(STORE_EVENT_QUOTE_CREATED, object, &event, &err), GQ_OK);
    ck_assert_int_eq(strncmp(event.id, "evt_", 4), 0);
    ck_assert_str_eq(event.type, "quote.created");
    char want[256];
    char created[32];
    time_t at = (time_t)event.created_at;
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&at));
    snprintf(want, sizeof want,
             "{\"id\":\"%s\",\"object\":\"event\",\"type\":\"quote.created\","
             "\"created_at\":\"%s\",\"data\":{\"object\":%s}}",
             event.id, created, object);
    ck_assert_str_eq(event.body, want); /* 16.1 stays 16.1: not re-printed */
    store_event_clear(&event);
    ck_assert_int_eq(store_event_make(STORE_EVENT_QUOTE_CREATED, "[1]", &event, &err),
                     GQ_ERR_INVALID_VALUE);
    ck_assert_int_eq(store_event_make(STORE_EVENT_QUOTE_CREATED, "{", &event, &err),
                     GQ_ERR_INVALID_VALUE);
    ck_assert_ptr_null(event.body);
}
END_TEST

static Suite *quotes_suite(void)
{
    Suite *suite = suite_create("store_quotes");
    TCase *basic = tcase_create("insert_get");
    tcase_add_checked_fixture(basic, setup, teardown);
    tcase_add_test(basic, test_insert_get_round_trip);
    tcase_add_test(basic, test_event_made_around_its_object);
    tcase_add_test(basic, test_insert_without_key_stores_null_key);
    tcase_add_test(basic, test_same_key_replays_first_quote);
    tcase_add_test(basic, test_duplicate_id_is_refused);
    tcase_add_loop_test(basic, test_bad_quote_is_refused, 0,
                        (int)(sizeof bad_ids / sizeof bad_ids[0]));
    tcase_add_test(basic, test_unknown_id_is_not_found);
    tcase_add_test(basic, test_response_is_stored_compressed);
    tcase_add_loop_test(basic, test_damaged_response_is_an_error, 0,
                        (int)(sizeof damage / sizeof damage[0]));
    tcase_add_test(basic, test_empty_response_is_refused);
    tcase_add_test(basic, test_quote_keeps_its_price_list_version);
    suite_add_tcase(suite, basic);

    TCase *accept = tcase_create("accept");
    tcase_add_checked_fixture(accept, setup, teardown);
    tcase_add_test(accept, test_accept_open_quote);
    tcase_add_loop_test(accept, test_accept_expired_quote_is_refused, 0,
                        (int)(sizeof expired_at / sizeof expired_at[0]));
    tcase_add_test(accept, test_accept_twice_is_refused_and_changes_nothing);
    suite_add_tcase(suite, accept);

    TCase *busy = tcase_create("busy");
    tcase_add_checked_fixture(busy, setup, teardown);
    tcase_add_test(busy, test_busy_insert_retries_later_and_writes_nothing);
    tcase_add_test(busy, test_busy_accept_retries_later_and_leaves_quote_open);
    suite_add_tcase(suite, busy);

    TCase *threads = tcase_create("threads");
    tcase_add_checked_fixture(threads, setup, teardown);
    tcase_add_test(threads, test_batch_gives_each_save_its_outcome);
    tcase_add_test(threads, test_locked_batch_fails_every_save);
    tcase_add_test(threads, test_save_after_a_busy_failure_is_tried);
    tcase_add_test(threads, test_rolled_back_batch_fails_every_save);
    tcase_add_test(threads, test_close_writes_queued_saves);
    tcase_add_test(threads, test_locked_database_fails_the_queue_in_one_timeout);
    tcase_add_test(threads, test_write_behind_a_waiting_writer_gives_up_in_one_timeout);
    tcase_set_timeout(threads, 60);
    tcase_add_test(threads, test_threads_share_the_pool);
    tcase_add_test(threads, test_wal_is_checkpointed_in_the_background);
    tcase_add_test(threads, test_reader_holding_the_wal_does_not_stall_saves);
    suite_add_tcase(suite, threads);
    return suite;
}

int main(void)
{
    /* The events of accepts and publications carry the API's JSON, as in the server. */
    store_set_render(&codec_store_render);
    SRunner *runner = srunner_create(quotes_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
