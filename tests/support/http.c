/*
 * The libcurl wrapper of the integration tests, and the contract log.
 *
 * Each request resets the easy handle's options (curl_easy_reset keeps its
 * connection cache, so keep-alive survives) and collects the headers of the
 * final response only: an interim "100 Continue" starts the list afresh.
 */
#include "support/http.h"

#include <check.h>
#include <ctype.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "support/suite.h"

#define REQUEST_SECONDS 10.0
/* Chunked uploads go out in pieces of at most this many bytes. */
#define CHUNK_BYTES 4096

struct http_client {
    CURL *curl;
    uint16_t port;
    bool unlogged;          /* its responses stay out of the contract log */
    char authorization[96]; /* "Authorization: Bearer ..."; "" sends none */
};

/* The keys servers of this process made at their start, by port. */
#define REGISTERED_KEYS 64
static struct {
    uint16_t port;
    char key[64];
} registered[REGISTERED_KEYS];

void http_register_key(uint16_t port, const char *key)
{
    size_t free_slot = REGISTERED_KEYS;
    for (size_t i = 0; i < REGISTERED_KEYS; i++) {
        if (registered[i].port == port || (registered[i].port == 0 && free_slot == REGISTERED_KEYS))
            free_slot = i;
        if (registered[i].port == port)
            break;
    }
    if (free_slot == REGISTERED_KEYS)
        free_slot = (size_t)port % REGISTERED_KEYS; /* the oldest servers are long gone */
    registered[free_slot].port = port;
    snprintf(registered[free_slot].key, sizeof registered[free_slot].key, "%s", key);
}

static const char *registered_key(uint16_t port)
{
    for (size_t i = 0; i < REGISTERED_KEYS; i++)
        if (registered[i].port == port)
            return registered[i].key;
    return NULL;
}

void http_client_set_key(struct http_client *client, const char *key)
{
    if (key == NULL || key[0] == '\0')
        client->authorization[0] = '\0';
    else
        snprintf(client->authorization, sizeof client->authorization, "Authorization: Bearer %s",
                 key);
}

struct upload {
    const char *data;
    size_t left;
};

struct http_client *http_client_new(uint16_t port)
{
    struct http_client *client = calloc(1, sizeof *client);
    ck_assert_ptr_nonnull(client);
    client->curl = curl_easy_init();
    ck_assert_ptr_nonnull(client->curl);
    client->port = port;
    http_client_set_key(client, registered_key(port));
    return client;
}

struct http_client *http_client_keyless(uint16_t port)
{
    struct http_client *client = http_client_new(port);
    http_client_set_key(client, NULL);
    return client;
}

void http_client_unlogged(struct http_client *client)
{
    client->unlogged = true;
}

void http_client_free(struct http_client *client)
{
    if (client == NULL)
        return;
    curl_easy_cleanup(client->curl);
    free(client);
}

/* ---- collecting the response ---------------------------------------------- */

static size_t collect_body(char *data, size_t size, size_t count, void *context)
{
    struct http_response *response = context;
    size_t bytes = size * count;
    char *grown = realloc(response->body, response->body_length + bytes + 1);
    if (grown == NULL)
        return 0;
    memcpy(grown + response->body_length, data, bytes);
    response->body = grown;
    response->body_length += bytes;
    response->body[response->body_length] = '\0';
    return bytes;
}

static void clear_headers(struct http_response *response)
{
    for (size_t i = 0; i < response->n_headers; i++) {
        free(response->headers[i].name);
        free(response->headers[i].value);
    }
    free(response->headers);
    response->headers = NULL;
    response->n_headers = 0;
}

static size_t collect_header(char *data, size_t size, size_t count, void *context)
{
    struct http_response *response = context;
    size_t bytes = size * count;
    if (bytes >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        clear_headers(response);
        return bytes;
    }
    const char *colon = memchr(data, ':', bytes);
    if (colon == NULL)
        return bytes;
    size_t name_length = (size_t)(colon - data);
    const char *value = colon + 1;
    size_t value_length = bytes - name_length - 1;
    while (value_length > 0 && (*value == ' ' || *value == '\t'))
        value++, value_length--;
    while (value_length > 0 && isspace((unsigned char)value[value_length - 1]))
        value_length--;
    struct http_header *grown =
        realloc(response->headers, (response->n_headers + 1) * sizeof *grown);
    if (grown == NULL)
        return 0;
    response->headers = grown;
    struct http_header *header = &response->headers[response->n_headers++];
    header->name = strndup(data, name_length);
    header->value = strndup(value, value_length);
    if (header->name == NULL || header->value == NULL)
        return 0;
    for (char *c = header->name; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    return bytes;
}

static size_t send_chunk(char *buffer, size_t size, size_t count, void *context)
{
    struct upload *upload = context;
    size_t room = size * count;
    size_t piece = upload->left < room ? upload->left : room;
    if (piece > CHUNK_BYTES)
        piece = CHUNK_BYTES;
    memcpy(buffer, upload->data, piece);
    upload->data += piece;
    upload->left -= piece;
    return piece;
}

const char *http_header(const struct http_response *response, const char *name)
{
    for (size_t i = 0; i < response->n_headers; i++)
        if (strcasecmp(response->headers[i].name, name) == 0)
            return response->headers[i].value;
    return NULL;
}

bool http_closes(const struct http_response *response)
{
    const char *connection = http_header(response, "connection");
    return connection != NULL && strcasecmp(connection, "close") == 0;
}

static bool is_json_type(const char *type)
{
    return type != NULL && strncasecmp(type, "application/json", 16) == 0;
}

/* ---- the contract log ------------------------------------------------------ */

static json_t *logged_headers(const struct http_response *response)
{
    json_t *headers = json_object();
    for (size_t i = 0; i < response->n_headers; i++) {
        const struct http_header *header = &response->headers[i];
        json_t *previous = json_object_get(headers, header->name);
        if (previous == NULL) {
            json_object_set_new(headers, header->name, json_string(header->value));
            continue;
        }
        char *joined = NULL;
        if (asprintf(&joined, "%s, %s", json_string_value(previous), header->value) >= 0) {
            json_object_set_new(headers, header->name, json_string(joined));
            free(joined);
        }
    }
    return headers;
}

static json_t *logged_body(const struct http_response *response)
{
    if (response->body_length == 0)
        return json_null();
    if (response->json != NULL)
        return json_incref(response->json);
    /* A body that is not UTF-8 (a PDF) is logged by its size: the
     * contract documents its media type, not its bytes. */
    json_t *text = json_stringn(response->body, response->body_length);
    return text != NULL ? text : json_sprintf("(%zu bytes, not UTF-8)", response->body_length);
}

/* One line per response, written with one write(2) on an O_APPEND file so
 * that lines of tests running in parallel never interleave. */
static void log_contract(const char *method, const char *path, const struct http_response *response)
{
    const char *log_path = getenv("GPUQUOTE_CONTRACT_LOG");
    if (log_path == NULL || log_path[0] == '\0' || response->status == 0)
        return;
    json_t *line = json_pack("{s:s, s:s%, s:i, s:o, s:o}", "method", method, "path", path,
                             strcspn(path, "?"), "status", (int)response->status, "headers",
                             logged_headers(response), "body", logged_body(response));
    char *text = line ? json_dumps(line, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(line);
    int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (text != NULL && fd >= 0) {
        size_t length = strlen(text);
        text[length] = '\n'; /* replaces the NUL: write length + 1 bytes */
        ssize_t written = write(fd, text, length + 1);
        (void)written;
    }
    if (fd >= 0)
        close(fd);
    free(text);
}

/* ---- requests -------------------------------------------------------------- */

static struct curl_slist *build_headers(const struct http_client *client,
                                        const char *const *headers, bool chunked)
{
    struct curl_slist *list = NULL;
    bool expect = false, authorization = false;
    for (size_t i = 0; headers != NULL && headers[i] != NULL; i++) {
        list = curl_slist_append(list, headers[i]);
        expect = expect || strncasecmp(headers[i], "Expect:", 7) == 0;
        authorization = authorization || strncasecmp(headers[i], "Authorization:", 14) == 0;
    }
    if (!authorization && client->authorization[0] != '\0')
        list = curl_slist_append(list, client->authorization);
    if (!expect)
        list = curl_slist_append(list, "Expect:");
    if (chunked)
        list = curl_slist_append(list, "Transfer-Encoding: chunked");
    return list;
}

static struct http_response *perform(struct http_client *client, const char *method,
                                     const char *path, const char *const *headers, const char *body,
                                     size_t body_length, bool chunked)
{
    struct http_response *response = calloc(1, sizeof *response);
    ck_assert_ptr_nonnull(response);
    CURL *curl = client->curl;
    curl_easy_reset(curl);
    char url[2048];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", (unsigned)client->port, path);
    struct curl_slist *list = build_headers(client, headers, chunked);
    struct upload upload = {body, body ? body_length : 0};
    char error[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, suite_wait_ms(REQUEST_SECONDS));
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, response);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, collect_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, response);
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (chunked) {
        curl_easy_setopt(curl, CURLOPT_POST, 1L);
        curl_easy_setopt(curl, CURLOPT_READFUNCTION, send_chunk);
        curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
    } else if (body != NULL || strcmp(method, "POST") == 0) {
        /* A POST without a body still says Content-Length: 0. */
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)upload.left);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body ? body : "");
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    CURLcode code = curl_easy_perform(curl);
    curl_slist_free_all(list);
    response->curl_code = (int)code;
    if (code == CURLE_OK) {
        long connects = 0;
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response->status);
        curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
        curl_easy_getinfo(curl, CURLINFO_LOCAL_PORT, &response->local_port);
        response->reused_connection = connects == 0;
    } else {
        int length = snprintf(response->error, sizeof response->error, "%s: %s",
                              curl_easy_strerror(code), error);
        if (length < 0)
            snprintf(response->error, sizeof response->error, "libcurl error %d", (int)code);
    }
    if (response->body == NULL) {
        response->body = calloc(1, 1);
        ck_assert_ptr_nonnull(response->body);
    }
    if (is_json_type(http_header(response, "content-type")))
        response->json = json_loadb(response->body, response->body_length, 0, NULL);
    if (!client->unlogged)
        log_contract(method, path, response);
    return response;
}

struct http_response *http_request(struct http_client *client, const char *method, const char *path,
                                   const char *const *headers, const char *body)
{
    return perform(client, method, path, headers, body, body ? strlen(body) : 0, false);
}

struct http_response *http_request_sized(struct http_client *client, const char *method,
                                         const char *path, const char *const *headers,
                                         const char *body, size_t length)
{
    return perform(client, method, path, headers, body, length, false);
}

struct http_response *http_request_chunked(struct http_client *client, const char *method,
                                           const char *path, const char *const *headers,
                                           const char *body)
{
    return perform(client, method, path, headers, body, body ? strlen(body) : 0, true);
}

struct http_response *http_get(struct http_client *client, const char *path)
{
    return perform(client, "GET", path, NULL, NULL, 0, false);
}

struct http_response *http_post_json(struct http_client *client, const char *path, const char *body)
{
    const char *const headers[] = {"Content-Type: application/json", NULL};
    return perform(client, "POST", path, headers, body, body ? strlen(body) : 0, false);
}

struct http_response *http_once(uint16_t port, const char *method, const char *path,
                                const char *const *headers, const char *body)
{
    struct http_client *client = http_client_new(port);
    struct http_response *response =
        perform(client, method, path, headers, body, body ? strlen(body) : 0, false);
    http_client_free(client);
    return response;
}

void http_response_free(struct http_response *response)
{
    if (response == NULL)
        return;
    clear_headers(response);
    free(response->body);
    json_decref(response->json);
    free(response);
}
