/*
 * Customers through the real server, on SQLite and (the second pass)
 * PostgreSQL:
 *
 * - made, read, listed (newest first, a page at a time, by email),
 *   changed (given fields replace, null clears) and deleted;
 * - deleting erases the person: the stored row, read directly, holds no
 *   name, email, phone, company or metadata, while GET still answers the
 *   erased record (deleted: true) and the list shows it only when asked;
 *   a second DELETE is 404; the events that carried the person are
 *   rewritten around the erased record;
 * - each write's event (customer.created, .updated, .deleted, the last
 *   one carrying the erased record) and audit line, which names the
 *   fields that changed and never their values;
 * - every refusal of what a person types (email, phone, tax id by the
 *   rule it breaks, a special invoice without the company's details,
 *   control characters) is 422 naming the field, and stores nothing;
 * - the scopes: customers:write to write, customers:read to read.
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
#define TAX_ID "91350100M000100Y43"
#define FULL_CUSTOMER                                                                              \
    "{\"name\":\"李伟\",\"email\":\"li.wei@example.cn\",\"phone\":\"+86 138 0013 8000\","        \
    "\"language\":\"zh-CN\",\"company\":{\"name\":\"福州示例科技有限公司\",\"tax_id\":\"" TAX_ID   \
    "\",\"address\":\"福州市鼓楼区 1 号\",\"bank\":\"招商银行 6225 0000\","             \
    "\"invoice_type\":\"special\"},\"metadata\":{\"crm\":\"A-17\"}}"
#define UNKNOWN_CUSTOMER "cus_0123456789abcdef0123456789abcdef"

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
    struct http_client *client = http_client_new(server.port);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

/* Makes a customer of `body`; its id into `id` (40 bytes). */
static void create(const char *body, char *id)
{
    struct http_response *made = call("POST", "/customers", body);
    expect_status(made, 201);
    snprintf(id, 40, "%s", json_str(made->json, "id"));
    http_response_free(made);
}

static long long count_rows(const char *sql)
{
    return server_db_integer(&server, sql, NULL);
}

/* ---- A customer's life. ---- */

START_TEST(test_customer_made_read_and_changed)
{
    struct http_response *made = call("POST", "/customers", FULL_CUSTOMER);
    expect_status(made, 201);
    char id[40];
    snprintf(id, sizeof id, "%s", json_str(made->json, "id"));
    ck_assert_msg(strncmp(id, "cus_", 4) == 0 && strlen(id) == 36, "id %s", id);
    char location[64];
    snprintf(location, sizeof location, "/customers/%s", id);
    ck_assert_str_eq(http_header(made, "Location"), location);
    expect_str(made->json, "object", "customer");
    expect_str(made->json, "name", "李伟");
    expect_str(made->json, "email", "li.wei@example.cn");
    expect_str(made->json, "company.tax_id", TAX_ID);
    expect_str(made->json, "company.invoice_type", "special");
    expect_str(made->json, "metadata.crm", "A-17");
    expect_text(made->json, "deleted", "false");
    http_response_free(made);

    struct http_response *read = call("GET", location, NULL);
    expect_status(read, 200);
    expect_str(read->json, "phone", "+86 138 0013 8000");
    expect_str(read->json, "language", "zh-CN");
    http_response_free(read);

    /* Given fields replace, null clears, the rest stays. */
    struct http_response *changed =
        call("PATCH", location, "{\"name\":\"Li Wei\",\"phone\":null,\"language\":\"en\"}");
    expect_status(changed, 200);
    expect_str(changed->json, "name", "Li Wei");
    expect_text(changed->json, "phone", "null");
    expect_str(changed->json, "language", "en");
    expect_str(changed->json, "email", "li.wei@example.cn");
    expect_str(changed->json, "company.bank", "招商银行 6225 0000");
    http_response_free(changed);
    read = call("GET", location, NULL);
    expect_text(read->json, "phone", "null");
    expect_str(read->json, "name", "Li Wei");
    http_response_free(read);

    /* The audit names the fields changed, never their values. */
    struct http_response *audit = call("GET", "/admin/audit", NULL);
    expect_status(audit, 200);
    long lines = json_count(audit->json, "data");
    char at[64];
    snprintf(at, sizeof at, "data[%ld].action", lines - 1);
    expect_str(audit->json, at, "customer.update");
    snprintf(at, sizeof at, "data[%ld].change", lines - 1);
    ck_assert_str_eq(json_text(audit->json, at), "{\"fields\":[\"name\",\"phone\",\"language\"]}");
    snprintf(at, sizeof at, "data[%ld].change", lines - 2);
    ck_assert_str_eq(json_text(audit->json, at),
                     "{\"fields\":[\"name\",\"email\",\"phone\",\"language\",\"company\","
                     "\"metadata\"]}");
    ck_assert_ptr_null(strstr(json_text(audit->json, "data"), "li.wei@example.cn"));
    http_response_free(audit);

    /* The events: created, then updated, each the customer as it was. */
    struct http_response *events = call("GET", "/events?type=customer.updated", NULL);
    expect_status(events, 200);
    ck_assert_int_eq(json_count(events->json, "data"), 1);
    expect_str(events->json, "data[0].data.object.id", id);
    expect_str(events->json, "data[0].data.object.name", "Li Wei");
    http_response_free(events);
    events = call("GET", "/events?type=customer.created", NULL);
    expect_str(events->json, "data[0].data.object.name", "李伟");
    http_response_free(events);
}
END_TEST

START_TEST(test_deleting_erases_the_person)
{
    char id[40], location[64];
    create(FULL_CUSTOMER, id);
    snprintf(location, sizeof location, "/customers/%s", id);

    struct http_response *deleted = call("DELETE", location, NULL);
    expect_status(deleted, 200);
    expect_str(deleted->json, "id", id);
    expect_text(deleted->json, "deleted", "true");
    expect_text(deleted->json, "name", "null");
    http_response_free(deleted);

    /* The stored row keeps its id and nothing of the person. */
    char *email = server_db_text(&server, "SELECT email FROM customers WHERE id = ?1", id);
    char *document = server_db_text(&server, "SELECT document FROM customers WHERE id = ?1", id);
    ck_assert_str_eq(email, "");
    ck_assert_str_eq(document, "{}");
    free(email);
    free(document);
    ck_assert_int_eq(server_db_integer(&server, "SELECT deleted FROM customers WHERE id = ?1", id),
                     1);

    struct http_response *read = call("GET", location, NULL);
    expect_status(read, 200);
    expect_text(read->json, "deleted", "true");
    expect_text(read->json, "email", "null");
    expect_text(read->json, "company", "null");
    expect_text(read->json, "metadata", "{}");
    http_response_free(read);

    /* Gone from the list, unless asked for. */
    struct http_response *list = call("GET", "/customers", NULL);
    ck_assert_int_eq(json_count(list->json, "data"), 0);
    http_response_free(list);
    list = call("GET", "/customers?include_deleted=true", NULL);
    ck_assert_int_eq(json_count(list->json, "data"), 1);
    expect_str(list->json, "data[0].id", id);
    http_response_free(list);

    /* Erased once: a second DELETE, or a PATCH, finds no customer. */
    struct http_response *again = call("DELETE", location, NULL);
    expect_error(again, 404, "not_found", NULL);
    http_response_free(again);
    again = call("PATCH", location, "{\"name\":\"back\"}");
    expect_error(again, 404, "not_found", NULL);
    http_response_free(again);

    /* The event carries the erased record; the audit the field names. */
    struct http_response *events = call("GET", "/events?type=customer.deleted", NULL);
    ck_assert_int_eq(json_count(events->json, "data"), 1);
    expect_text(events->json, "data[0].data.object.deleted", "true");
    expect_text(events->json, "data[0].data.object.email", "null");
    http_response_free(events);
    /* The earlier event that carried the person now carries the erased
     * record too, under its own id and type. */
    events = call("GET", "/events?type=customer.created", NULL);
    ck_assert_int_eq(json_count(events->json, "data"), 1);
    expect_str(events->json, "data[0].type", "customer.created");
    expect_str(events->json, "data[0].data.object.id", id);
    expect_text(events->json, "data[0].data.object.deleted", "true");
    expect_text(events->json, "data[0].data.object.name", "null");
    ck_assert_ptr_null(strstr(json_text(events->json, ""), "li.wei@example.cn"));
    http_response_free(events);
    struct http_response *audit = call("GET", "/admin/audit", NULL);
    long lines = json_count(audit->json, "data");
    char at[64];
    snprintf(at, sizeof at, "data[%ld].action", lines - 1);
    expect_str(audit->json, at, "customer.delete");
    snprintf(at, sizeof at, "data[%ld].change", lines - 1);
    ck_assert_str_eq(json_text(audit->json, at),
                     "{\"fields\":[\"name\",\"email\",\"phone\",\"language\",\"company\","
                     "\"metadata\"]}");
    ck_assert_ptr_null(strstr(json_text(audit->json, "data"), "13800138000"));
    ck_assert_ptr_null(strstr(json_text(audit->json, "data"), "138 0013"));
    http_response_free(audit);
}
END_TEST

START_TEST(test_list_pages_and_email_filter)
{
    char first[40], second[40], third[40];
    create("{\"email\":\"a@example.cn\"}", first);
    create("{\"email\":\"b@example.cn\"}", second);
    create("{\"email\":\"a@example.cn\",\"name\":\"again\"}", third);

    struct http_response *page = call("GET", "/customers?limit=2", NULL);
    expect_status(page, 200);
    ck_assert_int_eq(json_count(page->json, "data"), 2);
    expect_str(page->json, "data[0].id", third); /* newest first */
    expect_str(page->json, "data[1].id", second);
    expect_text(page->json, "has_more", "true");
    http_response_free(page);
    char path[128];
    snprintf(path, sizeof path, "/customers?limit=2&starting_after=%s", second);
    page = call("GET", path, NULL);
    ck_assert_int_eq(json_count(page->json, "data"), 1);
    expect_str(page->json, "data[0].id", first);
    expect_text(page->json, "has_more", "false");
    http_response_free(page);

    page = call("GET", "/customers?email=a@example.cn", NULL);
    ck_assert_int_eq(json_count(page->json, "data"), 2);
    expect_str(page->json, "data[0].id", third);
    expect_str(page->json, "data[1].id", first);
    http_response_free(page);

    struct http_response *bad = call("GET", "/customers?include_deleted=yes", NULL);
    expect_error(bad, 400, "invalid_parameter", "include_deleted");
    http_response_free(bad);
    bad = call("GET", "/customers/" UNKNOWN_CUSTOMER, NULL);
    expect_error(bad, 404, "not_found", NULL);
    http_response_free(bad);
    bad = call("GET", "/customers/cus_nope", NULL);
    expect_error(bad, 404, "not_found", NULL);
    http_response_free(bad);
}
END_TEST

/* ---- Refusals. ---- */

static const struct refusal {
    const char *body;
    const char *code, *field;
} refusals[] = {
    {"{\"email\":\"li.wei\"}", "invalid_value", "email"},
    {"{\"email\":\"li.wei@localhost\"}", "invalid_value", "email"},
    {"{\"email\":\"li wei@example.cn\"}", "invalid_value", "email"},
    {"{\"email\":\"a@b@example.cn\"}", "invalid_value", "email"},
    {"{\"phone\":\"+86 138 0013\"}", "invalid_value", "phone"},
    {"{\"phone\":\"12800138000\"}", "invalid_value", "phone"},
    {"{\"phone\":\"+86 138 0013 800\"}", "invalid_value", "phone"},
    {"{\"language\":\"fr\"}", "invalid_value", "language"},
    {"{\"name\":\"\"}", "out_of_range", "name"},
    {"{\"name\":\"Li\\u0007Wei\"}", "invalid_value", "name"},
    {"{\"name\":7}", "invalid_type", "name"},
    {"{\"nickname\":\"x\"}", "unknown_field", "nickname"},
    {"{\"company\":{\"tax_id\":\"91350100M000100Y4\"}}", "invalid_value", "company.tax_id"},
    {"{\"company\":{\"tax_id\":\"91350100M000100O43\"}}", "invalid_value", "company.tax_id"},
    {"{\"company\":{\"tax_id\":\"9135A100M000100Y43\"}}", "invalid_value", "company.tax_id"},
    {"{\"company\":{\"tax_id\":\"91350100M000100Y44\"}}", "invalid_value", "company.tax_id"},
    {"{\"company\":{\"invoice_type\":\"vat\"}}", "invalid_value", "company.invoice_type"},
    {"{\"company\":{\"name\":\"X\",\"tax_id\":\"" TAX_ID "\",\"address\":\"Y\","
     "\"invoice_type\":\"special\"}}",
     "missing_field", "company.bank"},
    {"{\"company\":{\"invoice_type\":\"special\"}}", "missing_field", "company.name"},
    {"{\"company\":{\"vat\":\"x\"}}", "unknown_field", "company.vat"},
    {"{\"metadata\":{\"k\":7}}", "invalid_type", "metadata.k"},
};

/* The tax id's refusals say which rule broke, in their message. */
static const char *const tax_id_words[] = {"18 characters", "never uses", "division",
                                           "check character"};

START_TEST(test_refusals_name_the_field_and_store_nothing)
{
    const struct refusal *refusal = &refusals[_i];
    struct http_response *refused = call("POST", "/customers", refusal->body);
    expect_error(refused, 422, refusal->code, refusal->field);
    if (_i >= 12 && _i <= 15)
        ck_assert_msg(strstr(json_str(refused->json, "error.message"), tax_id_words[_i - 12]), "%s",
                      json_str(refused->json, "error.message"));
    http_response_free(refused);
    ck_assert_int_eq(count_rows("SELECT count(*) FROM customers"), 0);

    /* The same body refused by PATCH changes nothing. */
    char id[40], location[64];
    create("{\"name\":\"kept\"}", id);
    snprintf(location, sizeof location, "/customers/%s", id);
    refused = call("PATCH", location, refusal->body);
    expect_error(refused, 422, refusal->code, refusal->field);
    http_response_free(refused);
    struct http_response *read = call("GET", location, NULL);
    expect_str(read->json, "name", "kept");
    http_response_free(read);
    ck_assert_int_eq(count_rows("SELECT count(*) FROM events WHERE type = 'customer.updated'"), 0);
}
END_TEST

/* ---- Scopes. ---- */

static void make_key(const char *scopes_json, char *secret)
{
    char body[256];
    snprintf(body, sizeof body, "{\"name\":\"customers test\",\"scopes\":%s}", scopes_json);
    struct http_response *made = call("POST", "/admin/keys", body);
    expect_status(made, 201);
    snprintf(secret, 64, "%s", json_str(made->json, "secret"));
    http_response_free(made);
}

static struct http_response *call_with(const char *key, const char *method, const char *path,
                                       const char *body)
{
    struct http_client *client = http_client_keyless(server.port);
    http_client_set_key(client, key);
    const char *const headers[] = {JSON_TYPE, NULL};
    struct http_response *response =
        http_request(client, method, path, body ? headers : NULL, body);
    http_client_free(client);
    return response;
}

START_TEST(test_scopes)
{
    char reader[64], writer[64], quotes[64];
    make_key("[\"customers:read\"]", reader);
    make_key("[\"customers:write\"]", writer);
    make_key("[\"quotes:write\",\"quotes:read\"]", quotes);

    struct http_response *r = call_with(NULL, "POST", "/customers", "{}");
    expect_error(r, 401, "unauthenticated", "Authorization");
    http_response_free(r);
    r = call_with(reader, "POST", "/customers", "{}");
    expect_error(r, 403, "forbidden", "Authorization");
    ck_assert_ptr_nonnull(strstr(json_str(r->json, "error.message"), "customers:write"));
    http_response_free(r);
    r = call_with(quotes, "GET", "/customers", NULL);
    expect_error(r, 403, "forbidden", "Authorization");
    http_response_free(r);

    r = call_with(writer, "POST", "/customers", "{\"name\":\"scoped\"}");
    expect_status(r, 201);
    char location[64];
    snprintf(location, sizeof location, "/customers/%s", json_str(r->json, "id"));
    http_response_free(r);
    r = call_with(writer, "GET", location, NULL);
    expect_error(r, 403, "forbidden", "Authorization");
    http_response_free(r);
    r = call_with(reader, "GET", location, NULL);
    expect_status(r, 200);
    http_response_free(r);
    r = call_with(reader, "DELETE", location, NULL);
    expect_error(r, 403, "forbidden", "Authorization");
    http_response_free(r);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_customers");
    TCase *life = tcase_create("life");
    tcase_add_checked_fixture(life, start, finish);
    tcase_add_test(life, test_customer_made_read_and_changed);
    tcase_add_test(life, test_deleting_erases_the_person);
    tcase_add_test(life, test_list_pages_and_email_filter);
    tcase_add_test(life, test_scopes);
    suite_set_timeout(life, 30);
    suite_add_tcase(suite, life);

    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, start, finish);
    tcase_add_loop_test(refused, test_refusals_name_the_field_and_store_nothing, 0,
                        (int)(sizeof refusals / sizeof refusals[0]));
    suite_set_timeout(refused, 60);
    suite_add_tcase(suite, refused);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
