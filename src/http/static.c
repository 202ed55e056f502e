/*
 * GET / and GET /static/{name}: the storefront page, as any static server
 * would send it, so that the same files also work from another origin.
 *
 * The files of web/ are built into the binary (scripts/embed-web.sh writes
 * the table, as openapi_blob.S embeds the contract), each with a gzip -9
 * copy and an entity tag made at build time: nothing is compressed or
 * hashed per request. A client that accepts gzip gets the copy with
 * `Content-Encoding: gzip` (the charting library, the largest file, is a
 * third of its size so). With `web_dir` configured the files are read from that
 * directory on every request instead, uncompressed, so that a developer
 * sees an edit without rebuilding.
 *
 * The page uses only the public API. Its Content-Security-Policy allows
 * scripts, styles and connections to this origin only: the page loads
 * nothing from elsewhere, and works offline.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http/app.h"
#include "http/reply.h"
#include "http/request.h"
#include "http/snapshot.h"
#include "http/static.h"

/* One built-in file (scripts/embed-web.sh writes the table). */
struct web_asset {
    const char *name; /* under web/: "index.html", "static/app.js" */
    const char *data;
    uint64_t size;
    const char *etag; /* quoted */
    const char *gzip;
    uint64_t gzip_size;
    const char *gzip_etag;
};

extern const struct web_asset gq_web_assets[];
extern const uint64_t gq_web_asset_count;

/* Files read from web_dir are at most this large. */
#define WEB_FILE_MAX ((size_t)16 << 20)

#define PAGE_SECURITY_POLICY                                                                       \
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "                    \
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "              \
    "frame-ancestors 'none'"

static const struct {
    const char *extension;
    const char *type;
} content_types[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".json", "application/json"},
    {".txt", "text/plain; charset=utf-8"},
    {".png", "image/png"},
};

static const char *content_type_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot != NULL && i < sizeof content_types / sizeof content_types[0]; i++)
        if (strcmp(dot, content_types[i].extension) == 0)
            return content_types[i].type;
    return "application/octet-stream";
}

/* A name of one path segment a file of web/static/ may have: letters,
 * digits, '.', '-', '_', and not starting with a dot (no "..", no hidden
 * files). */
static bool is_plain_name(const char *name)
{
    if (name[0] == '\0' || name[0] == '.')
        return false;
    for (const char *c = name; *c != '\0'; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '-' || *c == '_'))
            return false;
    return true;
}

/* True when Accept-Encoding accepts gzip: "gzip" or "x-gzip" (or "*")
 * with a weight other than 0. */
static bool accepts_gzip(const char *value)
{
    bool star = false;
    while (value != NULL && *value != '\0') {
        value += strspn(value, " \t,");
        size_t token = strcspn(value, " \t;,");
        const char *params = value + token;
        size_t rest = strcspn(params, ",");
        /* "q=0", "q=0.0", "q=0.00", "q=0.000": refused */
        const char *q = strstr(params, "q=");
        bool refused = q != NULL && (size_t)(q - params) < rest && q[2] == '0' &&
                       strspn(q + 3, ".0") == strcspn(q + 3, " \t,");
        if (!refused && ((token == 4 && strncasecmp(value, "gzip", 4) == 0) ||
                         (token == 6 && strncasecmp(value, "x-gzip", 6) == 0)))
            return true;
        if (!refused && token == 1 && value[0] == '*')
            star = true;
        value = params + rest;
    }
    return star;
}

static const struct web_asset *find_asset(const char *name)
{
    for (uint64_t i = 0; i < gq_web_asset_count; i++)
        if (strcmp(gq_web_assets[i].name, name) == 0)
            return &gq_web_assets[i];
    return NULL;
}

static void add_page_headers(struct MHD_Response *response, const char *name)
{
    MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
    if (strcmp(name, "index.html") == 0) {
        MHD_add_response_header(response, "Content-Security-Policy", PAGE_SECURITY_POLICY);
        MHD_add_response_header(response, "Referrer-Policy", "no-referrer");
    }
}

static enum MHD_Result reply_missing(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_RESOURCE,
                          MSG_TEXT(request->path));
}

static enum MHD_Result reply_builtin(struct http_request *request, const char *name)
{
    const struct web_asset *asset = find_asset(name);
    if (asset == NULL)
        return reply_missing(request);
    request->vary_accept_encoding = true;
    bool gzip = accepts_gzip(
        MHD_lookup_connection_value(request->connection, MHD_HEADER_KIND, "Accept-Encoding"));
    const char *body = gzip ? asset->gzip : asset->data;
    size_t length = (size_t)(gzip ? asset->gzip_size : asset->size);
    const char *etag = gzip ? asset->gzip_etag : asset->etag;
    if (reply_etag_matches(request, etag))
        return reply_not_modified(request, length, etag);
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_PERSISTENT);
    if (response != NULL) {
        if (gzip)
            MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
        add_page_headers(response, name);
    }
    return reply_cacheable(request, response, content_type_of(name), length, etag);
}

/* The whole of web_dir/name into a new buffer; NULL (errno set) when it
 * cannot be read or is no regular file. */
static char *read_file(const char *dir, const char *name, size_t *length)
{
    char path[4096];
    int written = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (written < 0 || (size_t)written >= sizeof path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    struct stat info;
    char *data = NULL;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && (size_t)info.st_size <= WEB_FILE_MAX)
        data = malloc((size_t)info.st_size + 1);
    size_t done = 0;
    while (data != NULL && done < (size_t)info.st_size) {
        ssize_t got = read(fd, data + done, (size_t)info.st_size - done);
        if (got <= 0) {
            free(data);
            data = NULL;
            break;
        }
        done += (size_t)got;
    }
    close(fd);
    *length = done;
    return data;
}

static enum MHD_Result reply_from_directory(struct http_request *request, const char *name)
{
    size_t length = 0;
    char *body = read_file(request->app->config->web_dir, name, &length);
    if (body == NULL)
        return reply_missing(request);
    char etag[48];
    snapshot_etag(body, length, "", 0, etag);
    if (reply_etag_matches(request, etag)) {
        free(body);
        return reply_not_modified(request, length, etag);
    }
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, body, MHD_RESPMEM_MUST_FREE);
    if (response == NULL)
        free(body);
    else
        add_page_headers(response, name);
    return reply_cacheable(request, response, content_type_of(name), length, etag);
}

static enum MHD_Result reply_file(struct http_request *request, const char *name)
{
    if (request->app->config->web_dir != NULL)
        return reply_from_directory(request, name);
    return reply_builtin(request, name);
}

enum MHD_Result static_handle_index(struct http_request *request)
{
    return reply_file(request, "index.html");
}

enum MHD_Result static_handle_asset(struct http_request *request)
{
    if (!is_plain_name(request->path_id))
        return reply_missing(request);
    char name[sizeof request->path_id + sizeof "static/"];
    snprintf(name, sizeof name, "static/%s", request->path_id);
    return reply_file(request, name);
}
