/*
 * Whose a saved quote's Idempotency-Key and client_reference_id are, against
 * the real server, on SQLite and PostgreSQL:
 * - a keyless caller that saves first under an order system's key does not
 *   make the order system's save answer 409: each gets its own quote, and
 *   each retry replays its own;
 * - two keys' namespaces are apart (the same key, the same reference);
 * - a keyless caller cannot plant a client_reference_id in front of an
 *   order system's, nor save metadata, nor more than 10 items and bundles.
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
#define ITEM "{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,\"days\":90}"
#define OTHER_ITEM                                                                                 \
    "{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":4,\"days\":30}"
#define QUOTE "{\"items\":[" ITEM "]}"

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

/* Sends as `key` (its secret), or keyless when `key` is NULL. */
static struct http_response *call_as(const char *key, const char *method, const char *path,
                                     const char *body, const char *extra_header)
{
    struct http_client *client = http_client_keyless(server.port);
    if (key != NULL)
        http_client_set_key(client, key);
    const char *const headers[] = {JSON_TYPE, extra_header, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

/* A key with quotes:write and quotes:read; its secret into secret[64]. */
static void make_key(const char *name, char secret[64])
{
    char body[160];
    snprintf(body, sizeof body, "{\"name\":\"%s\",\"scopes\":[\"quotes:write\",\"quotes:read\"]}",
             name);
    struct http_response *made = call_as(server.admin_key, "POST", "/admin/keys", body, NULL);
    expect_status(made, 201);
    snprintf(secret, 64, "%s", json_str(made->json, "secret"));
    http_response_free(made);
}

/* Saves `body` as `key` with `header`, expecting 201; the quote's id into id[40]. */
static void save_as(const char *key, const char *body, const char *header, char id[40])
{
    struct http_response *made = call_as(key, "POST", "/quote", body, header);
    expect_status(made, 201);
    snprintf(id, 40, "%s", json_str(made->json, "id"));
    http_response_free(made);
}

static long long quotes_stored(void)
{
    return server_db_integer(&server, "SELECT count(*) FROM quotes", NULL);
}

START_TEST(test_keyless_key_does_not_squat_an_order_systems)
{
    char order_system[64], squat[40], real[40], again[40];
    make_key("order system", order_system);
    save_as(NULL, QUOTE, "Idempotency-Key: order-6000", squat);
    save_as(order_system, "{\"items\":[" OTHER_ITEM "]}", "Idempotency-Key: order-6000", real);
    ck_assert_str_ne(real, squat);
    ck_assert_int_eq(quotes_stored(), 2);

    /* Each retry replays its own quote. */
    save_as(order_system, "{\"items\":[" OTHER_ITEM "]}", "Idempotency-Key: order-6000", again);
    ck_assert_str_eq(again, real);
    save_as(NULL, QUOTE, "Idempotency-Key: order-6000", again);
    ck_assert_str_eq(again, squat);
    ck_assert_int_eq(quotes_stored(), 2);
    char *owner = server_db_text(&server, "SELECT owner FROM quotes WHERE id = ?1", squat);
    ck_assert_str_eq(owner, "anon:127.0.0.1");
    free(owner);
}
END_TEST

START_TEST(test_two_keys_namespaces_apart)
{
    char first[64], second[64], mine[40], theirs[40];
    make_key("first shop", first);
    make_key("second shop", second);
    const char *body = "{\"client_reference_id\":\"order-42\",\"items\":[" ITEM "]}";
    save_as(first, body, "Idempotency-Key: order-42", mine);
    save_as(second, body, "Idempotency-Key: order-42", theirs);
    ck_assert_str_ne(mine, theirs);

    const char *keys[] = {first, second};
    const char *ids[] = {mine, theirs};
    for (int i = 0; i < 2; i++) {
        struct http_response *listed =
            call_as(keys[i], "GET", "/quote?client_reference_id=order-42", NULL, NULL);
        expect_status(listed, 200);
        ck_assert_str_eq(json_join(listed->json, "data", "id"), ids[i]);
        http_response_free(listed);
    }
}
END_TEST

START_TEST(test_planted_reference_is_refused)
{
    char order_system[64], real[40];
    make_key("order system", order_system);
    const char *body = "{\"client_reference_id\":\"order-7777\",\"items\":[" ITEM "]}";
    save_as(order_system, body, NULL, real);
    struct http_response *planted = call_as(NULL, "POST", "/quote", body, NULL);
    expect_error(planted, 403, "forbidden", "client_reference_id");
    http_response_free(planted);

    struct http_response *listed =
        call_as(order_system, "GET", "/quote?client_reference_id=order-7777", NULL, NULL);
    expect_status(listed, 200);
    ck_assert_str_eq(json_join(listed->json, "data", "id"), real);
    http_response_free(listed);
    ck_assert_int_eq(quotes_stored(), 1);
}
END_TEST

/* A body of `count` items, saved or not. */
static void items_body(char *body, size_t size, int count, const char *save)
{
    snprintf(body, size, "{\"save\":%s,\"items\":[", save);
    for (int i = 0; i < count; i++)
        snprintf(body + strlen(body), size - strlen(body), "%s" ITEM, i > 0 ? "," : "");
    snprintf(body + strlen(body), size - strlen(body), "]}");
}

START_TEST(test_keyless_save_bounded)
{
    char body[4096], id[40];
    items_body(body, sizeof body, 11, "true");
    struct http_response *many = call_as(NULL, "POST", "/quote", body, NULL);
    expect_error(many, 422, "out_of_range", "items");
    http_response_free(many);
    struct http_response *metadata = call_as(
        NULL, "POST", "/quote", "{\"metadata\":{\"team\":\"nlp\"},\"items\":[" ITEM "]}", NULL);
    expect_error(metadata, 403, "forbidden", "metadata");
    http_response_free(metadata);
    ck_assert_int_eq(quotes_stored(), 0);

    /* Ten are saved; eleven are priced when not saved, and with a key. */
    items_body(body, sizeof body, 10, "true");
    save_as(NULL, body, NULL, id);
    items_body(body, sizeof body, 11, "false");
    struct http_response *priced = call_as(NULL, "POST", "/quote", body, NULL);
    expect_status(priced, 200);
    http_response_free(priced);
    items_body(body, sizeof body, 11, "true");
    save_as(server.admin_key, body, NULL, id);
    ck_assert_int_eq(quotes_stored(), 2);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_quote_owner");
    TCase *owner = tcase_create("owner");
    tcase_add_checked_fixture(owner, start, finish);
    tcase_set_timeout(owner, 60);
    tcase_add_test(owner, test_keyless_key_does_not_squat_an_order_systems);
    tcase_add_test(owner, test_two_keys_namespaces_apart);
    tcase_add_test(owner, test_planted_reference_is_refused);
    tcase_add_test(owner, test_keyless_save_bounded);
    suite_add_tcase(suite, owner);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
