/*
 * The quote lifecycle against the real server, on SQLite and
 * PostgreSQL:
 * - cancel with a reason, and everything refused after it (409 naming the
 *   state), with its quote.canceled event;
 * - an accept's reference and metadata kept; an accept body with a typo
 *   refused, the quote left open;
 * - client_reference_id and metadata stored, returned and compared on a
 *   retry, and their limits;
 * - the sweeper marking a quote expired within a second of expires_at,
 *   with one quote.expired;
 * - GET /quote newest first, page by page, with no quote skipped or repeated
 *   while quotes are saved between pages, and its filters;
 * - an Idempotency-Key that outlived idempotency_ttl_seconds making a new
 *   quote;
 * - retention deleting the ended quotes past it, and only those;
 * - keyless callers' quotes deleted anonymous_quote_retention_days after
 *   they ended, and events event_retention_days after they were written
 *   (each told in the log), the rest kept.
 */
#include <check.h>
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
#define ITEM "{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,\"days\":90}"
#define QUOTE "{\"items\":[" ITEM "]}"

static struct server server;

static void start_with(const char *const *env)
{
    memset(&server, 0, sizeof server);
    struct server_options options = {.env = env};
    server_start(&server, &options);
}

static void start(void)
{
    static const char *const env[] = {"GPUQUOTE_QUOTE_SWEEP_INTERVAL_MS=100", NULL};
    start_with(env);
}

static void finish(void)
{
    server_finish(&server);
}

static struct http_response *call_with(const char *method, const char *path, const char *body,
                                       const char *extra_header)
{
    struct http_client *client = http_client_new(server.port);
    const char *const headers[] = {JSON_TYPE, extra_header, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

static struct http_response *call(const char *method, const char *path, const char *body)
{
    return call_with(method, path, body, NULL);
}

/* Saves a quote of `body`; its id into id[40]. */
static void save(const char *body, char id[40])
{
    struct http_response *made = call("POST", "/quote", body);
    expect_status(made, 201);
    snprintf(id, 40, "%s", json_str(made->json, "id"));
    http_response_free(made);
}

static long long events_of(const char *type)
{
    char path[96];
    snprintf(path, sizeof path, "/events?limit=100&type=%s", type);
    struct http_response *events = call("GET", path, NULL);
    expect_status(events, 200);
    long long count = (long long)json_array_size(json_at(events->json, "data"));
    http_response_free(events);
    return count;
}

START_TEST(test_cancel_then_nothing_else)
{
    char id[40], path[96];
    save(QUOTE, id);
    snprintf(path, sizeof path, "/quote/%s/cancel", id);
    struct http_response *canceled = call("POST", path, "{\"reason\":\"customer chose T4\"}");
    expect_status(canceled, 200);
    expect_str(canceled->json, "status", "canceled");
    expect_str(canceled->json, "cancellation_reason", "customer chose T4");
    ck_assert(json_is_string(json_at(canceled->json, "status_transitions.canceled_at")));
    ck_assert(json_is_null(json_at(canceled->json, "status_transitions.accepted_at")));
    http_response_free(canceled);

    struct http_response *again = call("POST", path, NULL);
    expect_error_state(again, 409, "quote_not_open", "canceled");
    http_response_free(again);
    snprintf(path, sizeof path, "/quote/%s/accept", id);
    struct http_response *accept = call("POST", path, NULL);
    expect_error_state(accept, 409, "quote_not_open", "canceled");
    http_response_free(accept);

    snprintf(path, sizeof path, "/quote/%s", id);
    struct http_response *read = call("GET", path, NULL);
    expect_str(read->json, "status", "canceled");
    http_response_free(read);
    ck_assert_int_eq(events_of("quote.canceled"), 1);
    ck_assert_int_eq(events_of("quote.accepted"), 0);
    ck_assert_int_eq(
        server_db_integer(&server,
                          "SELECT COUNT(*) FROM quotes WHERE id = ?1 AND "
                          "status = 'canceled' AND cancel_reason = 'customer chose T4'",
                          id),
        1);
}
END_TEST

START_TEST(test_accept_keeps_reference_and_metadata)
{
    char id[40], path[96];
    save(QUOTE, id);
    snprintf(path, sizeof path, "/quote/%s/accept", id);
    struct http_response *typo = call("POST", path, "{\"referense\":\"PO-1\"}");
    expect_error(typo, 422, "unknown_field", "referense");
    http_response_free(typo);
    struct http_response *accepted =
        call("POST", path, "{\"reference\":\"PO-2026-118\",\"metadata\":{\"buyer\":\"lab-3\"}}");
    expect_status(accepted, 200);
    expect_str(accepted->json, "status", "accepted");
    expect_str(accepted->json, "acceptance.reference", "PO-2026-118");
    expect_str(accepted->json, "acceptance.metadata.buyer", "lab-3");
    expect_str(accepted->json, "status_transitions.accepted_at",
               json_str(accepted->json, "accepted_at"));
    http_response_free(accepted);
    struct http_response *again = call("POST", path, "{}");
    expect_error_state(again, 409, "quote_not_open", "accepted");
    http_response_free(again);
    snprintf(path, sizeof path, "/quote/%s/cancel", id);
    struct http_response *cancel = call("POST", path, NULL);
    expect_error_state(cancel, 409, "quote_not_open", "accepted");
    http_response_free(cancel);
    ck_assert_int_eq(events_of("quote.accepted"), 1);
}
END_TEST

START_TEST(test_references_and_metadata)
{
    const char *body = "{\"client_reference_id\":\"order-77\",\"metadata\":{\"team\":\"nlp\","
                       "\"cost_center\":\"4410\"},\"items\":[" ITEM "]}";
    struct http_response *made = call_with("POST", "/quote", body, "Idempotency-Key: meta-1");
    expect_status(made, 201);
    expect_str(made->json, "client_reference_id", "order-77");
    expect_str(made->json, "metadata.team", "nlp");
    expect_str(made->json, "metadata.cost_center", "4410");
    char path[96];
    snprintf(path, sizeof path, "/quote/%s", json_str(made->json, "id"));
    http_response_free(made);
    struct http_response *read = call("GET", path, NULL);
    expect_str(read->json, "metadata.team", "nlp");
    http_response_free(read);

    /* A retry with other metadata is another request. */
    struct http_response *other = call_with(
        "POST", "/quote",
        "{\"client_reference_id\":\"order-77\",\"metadata\":{\"team\":\"cv\"},\"items\":[" ITEM
        "]}",
        "Idempotency-Key: meta-1");
    expect_error(other, 409, "idempotency_conflict", "Idempotency-Key");
    http_response_free(other);

    char many[4096] = "{\"items\":[" ITEM "],\"metadata\":{";
    for (int i = 0; i < 51; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s\"k%d\":\"v\"", i ? "," : "",
                 i);
    strcat(many, "}}");
    char long_key[256], long_value[800], long_reference[400];
    snprintf(long_key, sizeof long_key, "{\"items\":[" ITEM "],\"metadata\":{\"%041d\":\"v\"}}", 0);
    snprintf(long_value, sizeof long_value,
             "{\"items\":[" ITEM "],\"metadata\":{\"k\":\"%0501d\"}}", 0);
    snprintf(long_reference, sizeof long_reference,
             "{\"items\":[" ITEM "],\"client_reference_id\":\"%0201d\"}", 0);
    static const struct {
        const char *code, *field;
    } want[] = {{"out_of_range", "metadata"},
                {"out_of_range", "metadata"},
                {"out_of_range", "metadata.k"},
                {"out_of_range", "client_reference_id"},
                {"invalid_type", "metadata.n"}};
    const char *const bodies[] = {many, long_key, long_value, long_reference,
                                  "{\"items\":[" ITEM "],\"metadata\":{\"n\":5}}"};
    long long before = server_db_integer(&server, "SELECT COUNT(*) FROM quotes", NULL);
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        struct http_response *refused = call("POST", "/quote", bodies[i]);
        expect_error(refused, 422, want[i].code, want[i].field);
        http_response_free(refused);
    }
    ck_assert_int_eq(server_db_integer(&server, "SELECT COUNT(*) FROM quotes", NULL), before);
}
END_TEST

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(test_sweeper_expires_on_time)
{
    char id[40];
    save(QUOTE, id);
    /* Due now: the sweeper (every 100 ms here) marks it within a second. */
    double due = now_seconds();
    ck_assert_int_eq(
        server_db_exec(&server, "UPDATE quotes SET expires_at = created_at WHERE id = ?1", id), 1);
    double marked = 0;
    while (now_seconds() < due + 5) {
        if (server_db_integer(&server,
                              "SELECT COUNT(*) FROM quotes WHERE id = ?1 AND status = 'expired'",
                              id) == 1) {
            marked = now_seconds();
            break;
        }
        usleep(20000);
    }
    ck_assert_msg(marked > 0, "not marked expired within 5 s");
    fprintf(stderr, "check_lifecycle: marked expired %.3f s after it was due\n", marked - due);
    ck_assert_msg(marked - due < 1.0, "marked %.3f s late", marked - due);
    usleep(300000); /* a few more sweeps: still one event */
    ck_assert_int_eq(events_of("quote.expired"), 1);
    char path[96];
    snprintf(path, sizeof path, "/quote/%s", id);
    struct http_response *read = call("GET", path, NULL);
    expect_str(read->json, "status", "expired");
    ck_assert(json_is_string(json_at(read->json, "status_transitions.expired_at")));
    http_response_free(read);
    snprintf(path, sizeof path, "/quote/%s/cancel", id);
    struct http_response *cancel = call("POST", path, NULL);
    expect_error_state(cancel, 409, "quote_expired", "expired");
    http_response_free(cancel);
}
END_TEST

/* The ids of a listing page, joined by commas. */
static void page_ids(const char *path, char *out, size_t size, bool *has_more, char *last)
{
    struct http_response *page = call("GET", path, NULL);
    expect_status(page, 200);
    snprintf(out, size, "%s", json_join(page->json, "data", "id"));
    *has_more = json_is_true(json_at(page->json, "has_more"));
    size_t n = json_array_size(json_at(page->json, "data"));
    if (n > 0)
        snprintf(last, 40, "%s",
                 json_str(json_array_get(json_at(page->json, "data"), n - 1), "id"));
    http_response_free(page);
}

START_TEST(test_listing_pages_newest_first)
{
    char ids[5][40], body[256];
    for (int i = 0; i < 5; i++) {
        snprintf(body, sizeof body, "{\"client_reference_id\":\"order-%d\",\"items\":[" ITEM "]}",
                 i);
        save(body, ids[i]);
    }
    /* Newest first (within a second the ids order them): every quote once,
     * while two more are saved between pages. */
    char seen[512] = "", page[256], last[40] = "", path[128];
    bool more = true;
    int pages = 0;
    snprintf(path, sizeof path, "/quote?limit=2");
    while (more && pages < 10) {
        page_ids(path, page, sizeof page, &more, last);
        snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s%s", seen[0] ? "," : "", page);
        char extra[40];
        if (pages < 2)
            save(QUOTE, extra); /* newer than any cursor: on no later page */
        snprintf(path, sizeof path, "/quote?limit=2&starting_after=%s", last);
        pages++;
    }
    ck_assert_int_eq(pages, 3);
    int found = 0;
    for (int i = 0; i < 5; i++)
        found += strstr(seen, ids[i]) != NULL;
    ck_assert_msg(found == 5, "pages %s miss some of the five", seen);
    ck_assert_uint_eq(strlen(seen), 5 * strlen(ids[0]) + 4); /* five ids, none twice */

    snprintf(path, sizeof path, "/quote/%s/accept", ids[3]);
    struct http_response *accepted = call("POST", path, NULL);
    expect_status(accepted, 200);
    http_response_free(accepted);
    page_ids("/quote?status=accepted", page, sizeof page, &more, last);
    ck_assert_str_eq(page, ids[3]);
    page_ids("/quote?client_reference_id=order-1", page, sizeof page, &more, last);
    ck_assert_str_eq(page, ids[1]);
    page_ids("/quote?created_lt=2001-01-01T00:00:00Z", page, sizeof page, &more, last);
    ck_assert_str_eq(page, "");
    ck_assert(!more);

    static const char *const bad[] = {
        "/quote?limit=0",     "/quote?limit=101",
        "/quote?status=lost", "/quote?starting_after=q_nope",
        "/quote?colour=red",  "/quote?starting_after=q_0123456789abcdef0123456789abcdef"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct http_response *refused = call("GET", bad[i], NULL);
        expect_status(refused, 400);
        expect_str(refused->json, "error.code", "invalid_parameter");
        http_response_free(refused);
    }
}
END_TEST

START_TEST(test_idempotency_key_outlives_its_ttl)
{
    finish();
    static const char *const env[] = {"GPUQUOTE_IDEMPOTENCY_TTL_SECONDS=1", NULL};
    start_with(env);
    struct http_response *first = call_with("POST", "/quote", QUOTE, "Idempotency-Key: ttl-1");
    expect_status(first, 201);
    char first_id[40];
    snprintf(first_id, sizeof first_id, "%s", json_str(first->json, "id"));
    http_response_free(first);
    /* The key's quote made more than a second ago. */
    ck_assert_int_eq(server_db_exec(&server,
                                    "UPDATE quotes SET created_at = created_at - 5 WHERE id = ?1",
                                    first_id),
                     1);
    struct http_response *second = call_with("POST", "/quote", QUOTE, "Idempotency-Key: ttl-1");
    expect_status(second, 201);
    ck_assert_str_ne(json_str(second->json, "id"), first_id);
    ck_assert_ptr_null(http_header(second, "Idempotent-Replayed"));
    char second_id[40];
    snprintf(second_id, sizeof second_id, "%s", json_str(second->json, "id"));
    http_response_free(second);
    struct http_response *third = call_with("POST", "/quote", QUOTE, "Idempotency-Key: ttl-1");
    expect_status(third, 201);
    expect_str(third->json, "id", second_id); /* within the key's life: the replay */
    http_response_free(third);
    ck_assert_int_eq(server_db_integer(&server,
                                       "SELECT COUNT(*) FROM quotes WHERE id = ?1 AND "
                                       "idempotency_key IS NULL",
                                       first_id),
                     1);
}
END_TEST

START_TEST(test_retention_deletes_only_what_ended_long_ago)
{
    finish();
    static const char *const env[] = {"GPUQUOTE_QUOTE_SWEEP_INTERVAL_MS=100",
                                      "GPUQUOTE_QUOTE_RETENTION_DAYS=1", NULL};
    start_with(env);
    char old_canceled[40], old_expired[40], new_expired[40], old_accepted[40], open[40];
    save(QUOTE, old_canceled);
    save(QUOTE, old_expired);
    save(QUOTE, new_expired);
    save(QUOTE, old_accepted);
    save(QUOTE, open);
    /* Two days ago is past one day of retention; now is not. */
    server_db_exec(&server,
                   "UPDATE quotes SET created_at = created_at - 200000, expires_at = "
                   "expires_at - 200000 WHERE id IN (?1)",
                   old_canceled);
    server_db_exec(&server,
                   "UPDATE quotes SET status = 'canceled', canceled_at = created_at WHERE id = ?1",
                   old_canceled);
    server_db_exec(&server,
                   "UPDATE quotes SET created_at = created_at - 200000, expires_at = created_at "
                   "- 200000 WHERE id = ?1",
                   old_expired);
    server_db_exec(&server, "UPDATE quotes SET expires_at = created_at WHERE id = ?1", new_expired);
    server_db_exec(&server,
                   "UPDATE quotes SET created_at = created_at - 200000, expires_at = created_at "
                   "- 190000, status = 'accepted', accepted_at = created_at - 199000 WHERE id = ?1",
                   old_accepted);
    /* The sweeper marks both expired (one two days ago: expired_at is the
     * sweep's time, so it is kept a day more) and deletes the canceled. A
     * sweep may come between the updates above, so both are waited for. */
    for (int i = 0;
         i < 100 * suite_slowness() &&
         (server_db_integer(&server, "SELECT COUNT(*) FROM quotes WHERE id = ?1", old_canceled) ==
              1 ||
          server_db_integer(&server, "SELECT COUNT(*) FROM quotes WHERE status = 'expired'", NULL) <
              2);
         i++)
        usleep(20000);
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT COUNT(*) FROM quotes WHERE id = ?1", old_canceled), 0);
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT COUNT(*) FROM quotes WHERE status = 'expired'", NULL),
        2);
    /* Ended long ago by the sweeper's clock too: deleted at the next sweep. */
    server_db_exec(&server, "UPDATE quotes SET expired_at = expires_at WHERE id = ?1", old_expired);
    for (int i = 0;
         i < 100 * suite_slowness() && server_db_integer(&server,
                                                         "SELECT COUNT(*) FROM quotes WHERE id = "
                                                         "?1",
                                                         old_expired) == 1;
         i++)
        usleep(20000);
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT COUNT(*) FROM quotes WHERE id = ?1", old_expired), 0);
    /* Kept: the one that expired now, the accepted one (no retention for
     * accepted quotes unless configured), the open one. */
    ck_assert_int_eq(server_db_integer(&server, "SELECT COUNT(*) FROM quotes", NULL), 3);
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT COUNT(*) FROM quotes WHERE id = ?1", old_accepted), 1);
    ck_assert_int_eq(server_db_integer(&server, "SELECT COUNT(*) FROM quotes WHERE id = ?1", open),
                     1);
}
END_TEST

/* Saves a quote of `body` without a key; its id into id[40]. */
static void save_keyless(const char *body, char id[40])
{
    struct http_client *client = http_client_keyless(server.port);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *made = http_request(client, "POST", "/quote", headers, body);
    expect_status(made, 201);
    snprintf(id, 40, "%s", json_str(made->json, "id"));
    http_response_free(made);
    http_client_free(client);
}

/* Defaults: 7 days for keyless callers' quotes, 30 for events. The rows
 * are made old in the database, as the days cannot be waited for. */
START_TEST(test_retention_of_anonymous_quotes_and_events)
{
    char old_anonymous[40], recent_anonymous[40], old_keyed[40], open[40];
    save_keyless(QUOTE, old_anonymous);
    save_keyless(QUOTE, recent_anonymous);
    save(QUOTE, old_keyed);
    save_keyless(QUOTE, open);
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT COUNT(*) FROM quotes WHERE owner LIKE 'anon:%'", NULL),
        3);
    char path[96];
    snprintf(path, sizeof path, "/quote/%s", old_anonymous);
    struct http_response *found = call("GET", path, NULL);
    expect_status(found, 200);
    http_response_free(found);
    long long events = server_db_integer(&server, "SELECT COUNT(*) FROM events", NULL);
    ck_assert_int_eq(events, 4);
    /* Ended 8 days ago (past 7), and 6 days ago (not yet). */
    static const char ENDED_8_DAYS_AGO[] =
        "UPDATE quotes SET status = 'canceled', canceled_at = created_at - 691200 WHERE id = ?1";
    server_db_exec(&server, ENDED_8_DAYS_AGO, old_anonymous);
    server_db_exec(&server, ENDED_8_DAYS_AGO, old_keyed);
    server_db_exec(&server,
                   "UPDATE quotes SET status = 'canceled', canceled_at = created_at - 518400"
                   " WHERE id = ?1",
                   recent_anonymous);
    /* One event written 31 days ago. */
    server_db_exec(&server,
                   "UPDATE events SET created_at = created_at - 2678400"
                   " WHERE id = (SELECT min(id) FROM events)",
                   NULL);
    long wait_ms = 5000L * suite_slowness();
    ck_assert(server_wait_for_text(&server, "stderr.log",
                                   "anonymous quotes deleted past their retention: 1", wait_ms));
    ck_assert(server_wait_for_text(&server, "stderr.log", "events deleted past their retention: 1",
                                   wait_ms));
    ck_assert_int_eq(
        server_db_integer(&server, "SELECT COUNT(*) FROM quotes WHERE id = ?1", old_anonymous), 0);
    ck_assert_int_eq(server_db_integer(&server, "SELECT COUNT(*) FROM quotes", NULL), 3);
    ck_assert_int_eq(server_db_integer(&server, "SELECT COUNT(*) FROM events", NULL), events - 1);
    struct http_response *gone = call("GET", path, NULL);
    expect_status(gone, 404);
    http_response_free(gone);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_lifecycle");
    TCase *lifecycle = tcase_create("lifecycle");
    tcase_add_checked_fixture(lifecycle, start, finish);
    tcase_add_test(lifecycle, test_cancel_then_nothing_else);
    tcase_add_test(lifecycle, test_accept_keeps_reference_and_metadata);
    tcase_add_test(lifecycle, test_references_and_metadata);
    tcase_add_test(lifecycle, test_sweeper_expires_on_time);
    tcase_add_test(lifecycle, test_listing_pages_newest_first);
    tcase_add_test(lifecycle, test_idempotency_key_outlives_its_ttl);
    tcase_add_test(lifecycle, test_retention_deletes_only_what_ended_long_ago);
    tcase_add_test(lifecycle, test_retention_of_anonymous_quotes_and_events);
    tcase_set_timeout(lifecycle, 60);
    suite_add_tcase(suite, lifecycle);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
