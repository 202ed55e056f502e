/*
 * GET /quote/{id}/pdf through the real server: a saved quote (V100 16GB ×
 * 1, 8 h a day for 90 days on demand: 1641.60) as a PDF, read back with
 * poppler's pdftotext for every field a 报价单 has (seller from the
 * seller_* settings, customer "—", number, date and validity in China
 * Standard Time, the row's quantity, usage, plan, unit price and amount,
 * each discount by name, subtotal, total, the total in capital numerals,
 * the VAT note, the seal and signature box), in Chinese and in English;
 * pdffonts shows every font embedded as a subset. With
 * GPUQUOTE_SCREENSHOT_DIR set, each PDF's first page is rendered there as
 * a PNG (pdftoppm) for review.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/expect.h"
#include "support/http.h"
#include "support/server.h"
#include "support/suite.h"

#define JSON_TYPE "Content-Type: application/json"
#define QUOTE                                                                                      \
    "{\"items\":[{\"sku\":\"v100-16g-x1\",\"billing\":\"on_demand\",\"hours_per_day\":8,"          \
    "\"days\":90}],\"save\":true}"

static struct server server;

static void start(void)
{
    static const char *const env[] = {"GPUQUOTE_SELLER_NAME=杭州云算科技有限公司",
                                      "GPUQUOTE_SELLER_ADDRESS=浙江省杭州市西湖区文三路 90 号",
                                      "GPUQUOTE_SELLER_PHONE=0571-8888 6666",
                                      "GPUQUOTE_SELLER_EMAIL=sales@example.cn",
                                      "GPUQUOTE_SELLER_TAX_ID=91330106MA27XK1Q3D",
                                      "GPUQUOTE_SELLER_BANK=招商银行杭州分行",
                                      "GPUQUOTE_SELLER_ACCOUNT=5719 0312 3456 789",
                                      "GPUQUOTE_CATALOG_POLL_MS=50",
                                      NULL};
    memset(&server, 0, sizeof server);
    struct server_options options = {.env = env};
    server_start(&server, &options);
}

static void finish(void)
{
    server_finish(&server);
}

static struct http_response *call(const char *method, const char *path, const char *header,
                                  const char *body)
{
    struct http_client *client = http_client_new(server.port);
    const char *const headers[] = {body != NULL ? JSON_TYPE : header, body ? header : NULL, NULL};
    struct http_response *response = http_request(client, method, path, headers, body);
    http_client_free(client);
    return response;
}

/* Saves the quote; returns its JSON (the caller frees it). */
static json_t *save_quote(void)
{
    struct http_response *made = call("POST", "/quote", NULL, QUOTE);
    expect_status(made, 201);
    json_t *quote = json_incref(made->json);
    http_response_free(made);
    return quote;
}

/* The output of `command` (run by the shell), NUL-terminated. */
static char *run(const char *command)
{
    FILE *pipe = popen(command, "r");
    ck_assert_msg(pipe != NULL, "cannot run %s", command);
    size_t size = 0, capacity = 65536;
    char *out = malloc(capacity);
    size_t got;
    while ((got = fread(out + size, 1, capacity - size - 1, pipe)) > 0) {
        size += got;
        if (capacity - size < 2)
            out = realloc(out, capacity *= 2);
    }
    out[size] = '\0';
    ck_assert_int_eq(pclose(pipe), 0);
    return out;
}

/* Fetches the quote's PDF with `header` (or `query`), checks its headers,
 * writes it to <server dir>/<name>.pdf and returns pdftotext's text. */
static char *fetch_pdf_text(const char *id, const char *query, const char *header,
                            const char *language, const char *name)
{
    char path[128], file[SERVER_PATH_SIZE + 32], command[2 * SERVER_PATH_SIZE + 128];
    snprintf(path, sizeof path, "/quote/%s/pdf%s", id, query);
    struct http_response *pdf = call("GET", path, header, NULL);
    expect_status(pdf, 200);
    ck_assert_str_eq(http_header(pdf, "content-type"), "application/pdf");
    ck_assert_str_eq(http_header(pdf, "content-language"), language);
    ck_assert_msg(pdf->body_length > 1000 && memcmp(pdf->body, "%PDF-", 5) == 0,
                  "not a PDF: %zu bytes", pdf->body_length);
    snprintf(file, sizeof file, "%s/%s.pdf", server.dir, name);
    FILE *out = fopen(file, "wb");
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(fwrite(pdf->body, 1, pdf->body_length, out), pdf->body_length);
    fclose(out);
    http_response_free(pdf);
    const char *shots = getenv("GPUQUOTE_SCREENSHOT_DIR");
    if (shots != NULL && shots[0] != '\0') {
        snprintf(command, sizeof command, "pdftoppm -png -r 100 -f 1 -l 1 -singlefile '%s' '%s/%s'",
                 file, shots, name);
        free(run(command));
    }
    snprintf(command, sizeof command, "pdftotext -enc UTF-8 '%s' -", file);
    return run(command);
}

static void expect_says(const char *text, const char *needle)
{
    ck_assert_msg(strstr(text, needle) != NULL, "the PDF does not say \"%s\":\n%s", needle, text);
}

/* "2026-12-06 09:47": an RFC 3339 UTC time of the quote in China Standard
 * Time, computed here independently of the server. */
static void shanghai_time(const json_t *quote, const char *key, char out[32])
{
    const char *utc = json_string_value(json_object_get(quote, key));
    ck_assert_ptr_nonnull(utc);
    struct tm tm = {0};
    ck_assert_ptr_nonnull(strptime(utc, "%Y-%m-%dT%H:%M:%SZ", &tm));
    time_t local = timegm(&tm) + 8 * 3600;
    gmtime_r(&local, &tm);
    strftime(out, 32, "%Y-%m-%d %H:%M", &tm);
}

START_TEST(test_pdf_in_chinese_has_every_field)
{
    json_t *quote = save_quote();
    const char *id = json_string_value(json_object_get(quote, "id"));
    char *text = fetch_pdf_text(id, "?lang=zh-CN", "Accept-Language: en", "zh-CN", "quote-pdf-zh");
    char created[32], expires[32], line[96];
    shanghai_time(quote, "created_at", created);
    shanghai_time(quote, "expires_at", expires);
    static const char *const fields[] = {"报价单",
                                         "供方",
                                         "杭州云算科技有限公司",
                                         "浙江省杭州市西湖区文三路 90 号",
                                         "0571-8888 6666",
                                         "sales@example.cn",
                                         "91330106MA27XK1Q3D",
                                         "招商银行杭州分行",
                                         "5719 0312 3456 789",
                                         "需方",
                                         "名称：—",
                                         "V100 16GB",
                                         "每天 8 小时，共 90 天",
                                         "按需",
                                         "¥2.28/小时",
                                         "¥1,641.60",
                                         "小计",
                                         "合计",
                                         "壹仟陆佰肆拾壹元陆角整",
                                         "UTC+08:00",
                                         "北京时间",
                                         "含增值税",
                                         "供方（盖章）",
                                         "签字"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        expect_says(text, fields[i]);
    snprintf(line, sizeof line, "报价单号：%s", id);
    expect_says(text, line);
    snprintf(line, sizeof line, "报价日期：%s", created);
    expect_says(text, line);
    snprintf(line, sizeof line, "有效期至：%s", expires);
    expect_says(text, line);
    ck_assert_msg(strstr(text, "Quotation") == NULL, "English in the Chinese PDF:\n%s", text);
    free(text);
    json_decref(quote);
}
END_TEST

START_TEST(test_pdf_in_english_from_accept_language)
{
    json_t *quote = save_quote();
    const char *id = json_string_value(json_object_get(quote, "id"));
    char *text = fetch_pdf_text(id, "", "Accept-Language: en-US,en;q=0.9", "en", "quote-pdf-en");
    char created[32], line[96];
    shanghai_time(quote, "created_at", created);
    static const char *const fields[] = {"Quotation",
                                         "Seller",
                                         "Customer",
                                         "Name: —",
                                         "杭州云算科技有限公司",
                                         "V100 16GB",
                                         "8 h/day for 90 days",
                                         "On demand",
                                         "¥2.28/h",
                                         "¥1,641.60",
                                         "Subtotal",
                                         "Total",
                                         "UTC+08:00",
                                         "include VAT",
                                         "Seller (seal)",
                                         "Signature"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        expect_says(text, fields[i]);
    snprintf(line, sizeof line, "Date: %s", created);
    expect_says(text, line);
    ck_assert_msg(strstr(text, "壹仟") == NULL, "capital numerals in English:\n%s", text);
    free(text);
    json_decref(quote);
}
END_TEST

/* Every font is embedded, as a subset, the Chinese one among them. */
START_TEST(test_pdf_embeds_font_subsets)
{
    json_t *quote = save_quote();
    char *text = fetch_pdf_text(json_string_value(json_object_get(quote, "id")), "?lang=zh-CN",
                                NULL, "zh-CN", "fonts");
    char command[SERVER_PATH_SIZE + 64];
    snprintf(command, sizeof command, "pdffonts '%s/fonts.pdf'", server.dir);
    char *fonts = run(command);
    int cjk = 0, listed = 0;
    for (char *row = strtok(fonts, "\n"); row != NULL; row = strtok(NULL, "\n")) {
        if (strncmp(row, "name", 4) == 0 || row[0] == '-')
            continue;
        listed++;
        ck_assert_msg(strstr(row, " yes yes ") != NULL, "not an embedded subset: %s", row);
        if (strstr(row, "CID") != NULL && (strstr(row, "WenQuanYi") || strstr(row, "CJK")))
            cjk++;
    }
    ck_assert_int_gt(listed, 0);
    ck_assert_int_gt(cjk, 0);
    free(fonts);
    free(text);
    json_decref(quote);
}
END_TEST

/* A discount of the published price list is printed by its name. */
START_TEST(test_pdf_names_each_discount)
{
    struct http_response *draft = call("POST", "/admin/price-lists", NULL, "{}");
    expect_status(draft, 201);
    char path[128];
    snprintf(path, sizeof path, "/admin/price-lists/%lld/discount-rules/autumn",
             (long long)json_integer_value(json_object_get(draft->json, "version")));
    struct http_response *rule = call("PUT", path, NULL,
                                      "{\"name\":\"Autumn offer\",\"sku\":\"v100-16g-x1\","
                                      "\"basis_points\":1000}");
    expect_status(rule, 200);
    snprintf(path, sizeof path, "/admin/price-lists/%lld/publish",
             (long long)json_integer_value(json_object_get(draft->json, "version")));
    struct http_response *published = call("POST", path, NULL, "{}");
    expect_status(published, 200);
    json_t *quote = NULL;
    for (int tries = 0; tries < 100; tries++) { /* the poller picks the list up */
        quote = save_quote();
        if (strcmp(json_string_value(json_object_get(quote, "discount_total")), "0.00") != 0)
            break;
        json_decref(quote);
        quote = NULL;
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    ck_assert_msg(quote != NULL, "the discount never applied");
    char *text = fetch_pdf_text(json_string_value(json_object_get(quote, "id")), "?lang=en", NULL,
                                "en", "quote-pdf-discount");
    expect_says(text, "Discount: Autumn offer");
    expect_says(text, "-¥164.16");
    expect_says(text, "¥1,477.44");
    free(text);
    json_decref(quote);
    http_response_free(draft);
    http_response_free(rule);
    http_response_free(published);
}
END_TEST

START_TEST(test_pdf_refusals)
{
    json_t *quote = save_quote();
    char path[128];
    snprintf(path, sizeof path, "/quote/%s/pdf?lang=fr",
             json_string_value(json_object_get(quote, "id")));
    struct http_response *french = call("GET", path, NULL, NULL);
    expect_error(french, 400, "invalid_parameter", "lang");
    snprintf(path, sizeof path, "/quote/%s/pdf?colour=red",
             json_string_value(json_object_get(quote, "id")));
    struct http_response *colour = call("GET", path, NULL, NULL);
    expect_error(colour, 400, "invalid_parameter", "colour");
    struct http_response *unknown =
        call("GET", "/quote/q_00000000000000000000000000000000/pdf", NULL, NULL);
    expect_error(unknown, 404, "not_found", NULL);
    struct http_response *malformed = call("GET", "/quote/nope/pdf", NULL, NULL);
    expect_error(malformed, 404, "not_found", NULL);
    http_response_free(french);
    http_response_free(colour);
    http_response_free(unknown);
    http_response_free(malformed);
    json_decref(quote);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("quote_pdf");
    TCase *cases = tcase_create("pdf");
    tcase_add_checked_fixture(cases, start, finish);
    suite_set_timeout(cases, 30);
    tcase_add_test(cases, test_pdf_in_chinese_has_every_field);
    tcase_add_test(cases, test_pdf_in_english_from_accept_language);
    tcase_add_test(cases, test_pdf_embeds_font_subsets);
    tcase_add_test(cases, test_pdf_names_each_discount);
    tcase_add_test(cases, test_pdf_refusals);
    suite_add_tcase(suite, cases);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
