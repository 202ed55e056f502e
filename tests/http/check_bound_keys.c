/*
 * Keys bound to a customer through the real server, on SQLite and (the
 * second pass) PostgreSQL. One server serves every test; each test makes
 * its own customers and keys, so none sees another's quotes.
 *
 * - a key made with `customer` saves every quote for that customer (a
 *   body naming none is its customer's; one naming another is 403
 *   forbidden naming customer.id, and nothing is stored);
 * - it reads, prints, accepts and cancels only that customer's quotes:
 *   another customer's is 404 not_found, as if it did not exist, and is
 *   left as it was;
 * - GET /quote lists only its customer's quotes, whatever customer= says;
 * - GET /events shows only the events of its customer, and GET
 *   /events/{id} of another's is 404;
 * - such a key cannot hold a scope of the business's (422 naming scopes),
 *   nor be made for a customer unknown or erased (404 naming customer);
 *   GET /admin/keys shows its customer.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/suite.h"

#define JSON_TYPE "Content-Type: application/json"
#define ITEM "{\"sku\":\"v100-16g-x1\",\"hours_per_day\":8,\"days\":90,\"billing\":\"cheapest\"}"
#define OWN_SCOPES "[\"quotes:write\",\"quotes:read\",\"quotes:accept\"]"

static struct server server;

static void start(void)
{
    memset(&server, 0, sizeof server);
    server_start(&server, NULL);
}

static void finish(void)
{
    server_finish_shared(&server);
}

/* A call with `key` (ADMIN: the server's admin key). */
static const char ADMIN[] = "admin";

static struct http_response *call_with(const char *key, const char *method, const char *path,
                                       const char *body)
{
    struct http_client *client = http_client_new(server.port);
    if (key != ADMIN)
        http_client_set_key(client, key);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

/* A new customer's id (64 bytes). */
static void create_customer(char *id)
{
    struct http_response *made = call_with(ADMIN, "POST", "/customers", "{\"name\":\"韩梅梅\"}");
    expect_status(made, 201);
    snprintf(id, 64, "%s", json_str(made->json, "id"));
    http_response_free(made);
}

/* POST /admin/keys for `customer` with `scopes_json`; the answer. */
static struct http_response *request_key(const char *customer, const char *scopes_json)
{
    char body[256];
    snprintf(body, sizeof body, "{\"name\":\"storefront\",\"scopes\":%s,\"customer\":\"%s\"}",
             scopes_json, customer);
    return call_with(ADMIN, "POST", "/admin/keys", body);
}

/* A key bound to `customer` holding OWN_SCOPES: its secret (64 bytes). */
static void make_bound_key(const char *customer, char *secret)
{
    struct http_response *made = request_key(customer, OWN_SCOPES);
    expect_status(made, 201);
    expect_str(made->json, "customer", customer);
    snprintf(secret, 64, "%s", json_str(made->json, "secret"));
    http_response_free(made);
}

/* POST /quote of ITEM, saved, with `customer_json` as its "customer"
 * member (NULL: none). */
static struct http_response *save_quote(const char *key, const char *customer_json)
{
    char body[512];
    snprintf(body, sizeof body, "{%s%s%s\"items\":[" ITEM "],\"save\":true}",
             customer_json ? "\"customer\":" : "", customer_json ? customer_json : "",
             customer_json ? "," : "");
    return call_with(key, "POST", "/quote", body);
}

/* Saves a quote for `customer` with the admin key; its id (64 bytes). */
static void admin_quote_for(const char *customer, char *id)
{
    char named[96];
    snprintf(named, sizeof named, "{\"id\":\"%s\"}", customer);
    struct http_response *r = save_quote(ADMIN, named);
    expect_status(r, 201);
    snprintf(id, 64, "%s", json_str(r->json, "id"));
    http_response_free(r);
}

static const char *quote_path(char *path, size_t size, const char *id, const char *tail)
{
    snprintf(path, size, "/quote/%s%s", id, tail);
    return path;
}

/* The quote's status as the admin key reads it. */
static void expect_status_of(const char *id, const char *want)
{
    char path[96];
    struct http_response *r = call_with(ADMIN, "GET", quote_path(path, sizeof path, id, ""), NULL);
    expect_status(r, 200);
    expect_str(r->json, "status", want);
    http_response_free(r);
}

START_TEST(test_saves_for_its_customer_only)
{
    char mine[64], theirs[64], key[64], named[96];
    create_customer(mine);
    create_customer(theirs);
    make_bound_key(mine, key);
    struct http_response *r = save_quote(key, NULL);
    expect_status(r, 201);
    expect_str(r->json, "customer.id", mine);
    http_response_free(r);
    snprintf(named, sizeof named, "{\"id\":\"%s\"}", mine);
    r = save_quote(key, named);
    expect_status(r, 201);
    expect_str(r->json, "customer.id", mine);
    http_response_free(r);
    snprintf(named, sizeof named, "{\"id\":\"%s\"}", theirs);
    r = save_quote(key, named);
    expect_error(r, 403, "forbidden", "customer.id");
    ck_assert_ptr_nonnull(strstr(json_str(r->json, "error.message"), mine));
    http_response_free(r);
    char query[96];
    snprintf(query, sizeof query, "/quote?limit=100&customer=%s", theirs);
    r = call_with(ADMIN, "GET", query, NULL);
    expect_status(r, 200);
    ck_assert_int_eq(json_count(r->json, "data"), 0);
    http_response_free(r);
}
END_TEST

START_TEST(test_another_customers_quote_is_404)
{
    char mine[64], theirs[64], key[64], own_id[64], their_id[64], path[128];
    create_customer(mine);
    create_customer(theirs);
    make_bound_key(mine, key);
    admin_quote_for(mine, own_id);
    admin_quote_for(theirs, their_id);
    struct http_response *r =
        call_with(key, "GET", quote_path(path, sizeof path, own_id, ""), NULL);
    expect_status(r, 200);
    expect_str(r->json, "id", own_id);
    http_response_free(r);
    static const char *const reads[] = {"", "/pdf"};
    for (size_t i = 0; i < 2; i++) {
        r = call_with(key, "GET", quote_path(path, sizeof path, their_id, reads[i]), NULL);
        expect_error(r, 404, "not_found", NULL);
        http_response_free(r);
    }
    static const char *const ends[] = {"/accept", "/cancel"};
    for (size_t i = 0; i < 2; i++) {
        r = call_with(key, "POST", quote_path(path, sizeof path, their_id, ends[i]), NULL);
        expect_error(r, 404, "not_found", NULL);
        http_response_free(r);
    }
    expect_status_of(their_id, "open");
    r = call_with(key, "POST", quote_path(path, sizeof path, own_id, "/accept"), NULL);
    expect_status(r, 200);
    expect_str(r->json, "status", "accepted");
    http_response_free(r);
}
END_TEST

START_TEST(test_cancels_its_own)
{
    char mine[64], key[64], own_id[64], path[128];
    create_customer(mine);
    make_bound_key(mine, key);
    admin_quote_for(mine, own_id);
    struct http_response *r =
        call_with(key, "POST", quote_path(path, sizeof path, own_id, "/cancel"), NULL);
    expect_status(r, 200);
    expect_str(r->json, "status", "canceled");
    http_response_free(r);
}
END_TEST

START_TEST(test_lists_its_customers_quotes)
{
    char mine[64], theirs[64], key[64], own_id[64], their_id[64], query[128];
    create_customer(mine);
    create_customer(theirs);
    make_bound_key(mine, key);
    admin_quote_for(mine, own_id);
    admin_quote_for(theirs, their_id);
    struct http_response *r = call_with(key, "GET", "/quote?limit=100", NULL);
    expect_status(r, 200);
    ck_assert_int_eq(json_count(r->json, "data"), 1);
    expect_str(r->json, "data[0].id", own_id);
    http_response_free(r);
    snprintf(query, sizeof query, "/quote?customer=%s", theirs);
    r = call_with(key, "GET", query, NULL);
    expect_status(r, 200);
    ck_assert_int_eq(json_count(r->json, "data"), 0);
    http_response_free(r);
    r = call_with(ADMIN, "GET", "/quote?limit=100", NULL);
    expect_status(r, 200);
    ck_assert_int_ge(json_count(r->json, "data"), 2);
    http_response_free(r);
}
END_TEST

/* Counts in one page of GET /events the events that concern another
 * customer than `customer` (or none), and notes the id of quote `quote`'s
 * quote.created event (64 bytes) when it is there. Returns whether more
 * follow; `after` becomes the page's last id. */
static bool scan_events(json_t *page, const char *customer, const char *quote, char *id,
                        long *foreign, char *after)
{
    size_t index;
    json_t *event;
    json_array_foreach(json_object_get(page, "data"), index, event)
    {
        const char *type = json_str(event, "type");
        bool of_quote = strncmp(type, "quote.", 6) == 0;
        const char *whose =
            json_optional_str(event, of_quote ? "data.object.customer.id" : "data.object.id");
        if (!of_quote && strcmp(type, "customer.created") != 0)
            whose = "";
        *foreign += strcmp(whose, customer) != 0;
        if (strcmp(type, "quote.created") == 0 &&
            strcmp(json_str(event, "data.object.id"), quote) == 0)
            snprintf(id, 64, "%s", json_str(event, "id"));
        snprintf(after, 64, "%s", json_str(event, "id"));
    }
    return json_is_true(json_object_get(page, "has_more"));
}

/* Every event `key` sees in GET /events, page by page: the id of quote
 * `quote`'s quote.created event (64 bytes; "" when none), and how many
 * concern another customer than `customer`. */
static void find_quote_event(const char *key, const char *customer, const char *quote, char *id,
                             long *foreign)
{
    char after[64] = "", path[128];
    bool more = true;
    id[0] = '\0';
    *foreign = 0;
    while (more) {
        snprintf(path, sizeof path, "/events?limit=100%s%s", after[0] ? "&starting_after=" : "",
                 after);
        struct http_response *r = call_with(key, "GET", path, NULL);
        expect_status(r, 200);
        more = scan_events(r->json, customer, quote, id, foreign, after);
        http_response_free(r);
    }
}

START_TEST(test_events_of_its_customer)
{
    char mine[64], theirs[64], key[64], own_id[64], their_id[64], event_id[64], path[96];
    create_customer(mine);
    create_customer(theirs);
    make_bound_key(mine, key);
    admin_quote_for(mine, own_id);
    admin_quote_for(theirs, their_id);
    long foreign;
    find_quote_event(key, mine, own_id, event_id, &foreign);
    ck_assert_str_ne(event_id, "");
    ck_assert_int_eq(foreign, 0);
    find_quote_event(key, mine, their_id, event_id, &foreign);
    ck_assert_str_eq(event_id, "");
    find_quote_event(ADMIN, theirs, their_id, event_id, &foreign);
    ck_assert_str_ne(event_id, ""); /* the admin sees it: the bound key does not */
    snprintf(path, sizeof path, "/events/%s", event_id);
    struct http_response *r = call_with(key, "GET", path, NULL);
    expect_error(r, 404, "not_found", NULL);
    http_response_free(r);
    r = call_with(ADMIN, "GET", path, NULL);
    expect_status(r, 200);
    http_response_free(r);
}
END_TEST

START_TEST(test_key_for_customer_is_checked)
{
    char mine[64], gone[64], key[64];
    create_customer(mine);
    create_customer(gone);
    static const char *const admin_scopes[] = {"[\"quotes:read\",\"keys:write\"]",
                                               "[\"catalog:write\"]",
                                               "[\"customers:verify\"]",
                                               "[\"metrics:read\"]",
                                               "[\"webhooks:write\"]",
                                               "[\"customers:read\"]",
                                               "[\"customers:write\"]"};
    for (size_t i = 0; i < sizeof admin_scopes / sizeof admin_scopes[0]; i++) {
        struct http_response *r = request_key(mine, admin_scopes[i]);
        expect_error(r, 422, "invalid_value", "scopes");
        http_response_free(r);
    }
    char path[96];
    snprintf(path, sizeof path, "/customers/%s", gone);
    struct http_response *r = call_with(ADMIN, "DELETE", path, NULL);
    expect_status(r, 200);
    http_response_free(r);
    const char *const missing[] = {"cus_0123456789abcdef0123456789abcdef", "nobody", gone};
    for (size_t i = 0; i < 3; i++) {
        r = request_key(missing[i], OWN_SCOPES);
        expect_error(r, 404, "not_found", "customer");
        http_response_free(r);
    }
    make_bound_key(mine, key);
    r = call_with(ADMIN, "GET", "/admin/keys", NULL);
    expect_status(r, 200);
    ck_assert_ptr_nonnull(strstr(json_join(r->json, "data", "customer"), mine));
    http_response_free(r);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_bound_keys");
    TCase *keys = tcase_create("bound_keys");
    tcase_add_unchecked_fixture(keys, start, finish);
    tcase_add_test(keys, test_saves_for_its_customer_only);
    tcase_add_test(keys, test_another_customers_quote_is_404);
    tcase_add_test(keys, test_cancels_its_own);
    tcase_add_test(keys, test_lists_its_customers_quotes);
    tcase_add_test(keys, test_events_of_its_customer);
    tcase_add_test(keys, test_key_for_customer_is_checked);
    suite_set_timeout(keys, 60);
    suite_add_tcase(suite, keys);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
