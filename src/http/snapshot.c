/*
 * Catalog snapshots: an immutable catalog plus the bodies rendered from it
 * once per language (the full GET /catalog, each SKU, billing modes,
 * bundles) and their entity tags, shared by reference count and swapped
 * atomically on reload. A request picks its language's bodies; nothing is
 * rendered per request.
 *
 * Requests never wait on the database: a reload builds the next snapshot
 * off to the side and publishing it is a pointer swap under a mutex held
 * for a few instructions.
 */
#include <nettle/base16.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>

#include "codec/bodies.h"
#include "core/catalog.h"
#include "http/app.h"
#include "http/snapshot.h"
#include "store/store.h"
#include "util/log.h"

void snapshot_etag(const char *first, size_t first_length, const char *second, size_t second_length,
                   char etag[48])
{
    struct sha256_ctx context;
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_init(&context);
    sha256_update(&context, first_length, (const uint8_t *)first);
    sha256_update(&context, second_length, (const uint8_t *)second);
    sha256_digest(&context, sizeof digest, digest);
    etag[0] = '"';
    base16_encode_update(etag + 1, 16, digest);
    etag[1 + BASE16_ENCODE_LENGTH(16)] = '"';
    etag[2 + BASE16_ENCODE_LENGTH(16)] = '\0';
}

/* Serialises `value` (stolen) into `out`, tagged by its language and its
 * bytes (two languages whose texts are alike still differ by
 * Content-Language); false when memory runs out. */
static bool render_into(json_t *value, enum gq_lang lang, struct rendered *out)
{
    out->body = render_dump(value);
    if (out->body == NULL)
        return false;
    out->length = strlen(out->body);
    const char *tag = gq_lang_tag(lang);
    snapshot_etag(tag, strlen(tag), out->body, out->length, out->etag);
    return true;
}

/* The text before the SKU array of every catalog listing; filtered
 * listings are this prefix, the chosen SKU bodies and "]}". */
static char *render_catalog_prefix(const struct catalog *catalog)
{
    json_t *head = json_pack("{s:s, s:I}", "currency", catalog->currency, "price_list_version",
                             (json_int_t)catalog->price_list_version);
    if (head == NULL)
        return NULL;
    char *text = json_dumps(head, JSON_COMPACT);
    json_decref(head);
    if (text == NULL)
        return NULL;
    /* Replace the closing brace with the opening of the SKU array. */
    size_t length = strlen(text);
    char *prefix = realloc(text, length + sizeof ",\"skus\":[");
    if (prefix == NULL) {
        free(text);
        return NULL;
    }
    memcpy(prefix + length - 1, ",\"skus\":[", sizeof ",\"skus\":[");
    return prefix;
}

size_t snapshot_listing_length(const struct snapshot *snapshot, enum gq_lang lang,
                               const size_t *indices, size_t count)
{
    const struct rendered *skus = snapshot->in[lang].skus;
    size_t total = snapshot->catalog_prefix_length + 2; /* the prefix, "]}" */
    for (size_t i = 0; i < count; i++)
        total += skus[indices ? indices[i] : i].length + (i > 0); /* "," between */
    return total;
}

char *snapshot_render_listing(const struct snapshot *snapshot, enum gq_lang lang,
                              const size_t *indices, size_t count, size_t *length)
{
    size_t total = snapshot_listing_length(snapshot, lang, indices, count);
    char *body = malloc(total + 1);
    if (body == NULL)
        return NULL;
    char *end = body;
    memcpy(end, snapshot->catalog_prefix, snapshot->catalog_prefix_length);
    end += snapshot->catalog_prefix_length;
    for (size_t i = 0; i < count; i++) {
        const struct rendered *sku = &snapshot->in[lang].skus[indices ? indices[i] : i];
        if (i > 0)
            *end++ = ',';
        memcpy(end, sku->body, sku->length);
        end += sku->length;
    }
    memcpy(end, "]}", 3);
    *length = (size_t)(end + 2 - body);
    return body;
}

static bool render_full_catalog(struct snapshot *snapshot, enum gq_lang lang)
{
    struct rendered *full = &snapshot->in[lang].catalog_body;
    full->body =
        snapshot_render_listing(snapshot, lang, NULL, snapshot->catalog->n_skus, &full->length);
    if (full->body == NULL)
        return false;
    const char *tag = gq_lang_tag(lang);
    snapshot_etag(tag, strlen(tag), full->body, full->length, full->etag);
    return true;
}

static void free_snapshot(struct snapshot *snapshot)
{
    for (int lang = 0; lang < GQ_LANG_COUNT; lang++) {
        struct snapshot_bodies *bodies = &snapshot->in[lang];
        if (bodies->skus != NULL)
            for (size_t i = 0; i < snapshot->catalog->n_skus; i++)
                free(bodies->skus[i].body);
        free(bodies->skus);
        free(bodies->catalog_body.body);
        free(bodies->billing_modes.body);
        free(bodies->bundles.body);
    }
    free(snapshot->catalog_prefix);
    catalog_free(snapshot->catalog);
    free(snapshot);
}

static bool render_language(struct snapshot *snapshot, enum gq_lang lang)
{
    const struct catalog *catalog = snapshot->catalog;
    struct snapshot_bodies *bodies = &snapshot->in[lang];
    bodies->skus = calloc(catalog->n_skus ? catalog->n_skus : 1, sizeof *bodies->skus);
    if (bodies->skus == NULL)
        return false;
    for (size_t i = 0; i < catalog->n_skus; i++)
        if (!render_into(catalog_render_sku(catalog, &catalog->skus[i], lang), lang,
                         &bodies->skus[i]))
            return false;
    return render_full_catalog(snapshot, lang) &&
           render_into(catalog_render_billing_modes(catalog, lang), lang, &bodies->billing_modes) &&
           render_into(catalog_render_bundles(catalog, lang), lang, &bodies->bundles);
}

/* Every body, once per language: a request only picks one. */
static bool render_everything(struct snapshot *snapshot)
{
    snapshot->catalog_prefix = render_catalog_prefix(snapshot->catalog);
    if (snapshot->catalog_prefix == NULL)
        return false;
    snapshot->catalog_prefix_length = strlen(snapshot->catalog_prefix);
    for (int lang = 0; lang < GQ_LANG_COUNT; lang++)
        if (!render_language(snapshot, (enum gq_lang)lang))
            return false;
    return true;
}

struct snapshot *snapshot_build(struct catalog *catalog)
{
    struct snapshot *snapshot = calloc(1, sizeof *snapshot);
    if (snapshot == NULL) {
        catalog_free(catalog);
        return NULL;
    }
    snapshot->catalog = catalog;
    atomic_init(&snapshot->references, 1);
    if (!render_everything(snapshot)) {
        free_snapshot(snapshot);
        return NULL;
    }
    return snapshot;
}

struct snapshot *snapshot_acquire(struct app *app)
{
    pthread_mutex_lock(&app->snapshot_lock);
    struct snapshot *snapshot = app->snapshot;
    if (snapshot != NULL)
        atomic_fetch_add_explicit(&snapshot->references, 1, memory_order_relaxed);
    pthread_mutex_unlock(&app->snapshot_lock);
    return snapshot;
}

void snapshot_release(struct snapshot *snapshot)
{
    if (snapshot == NULL)
        return;
    if (atomic_fetch_sub_explicit(&snapshot->references, 1, memory_order_acq_rel) == 1)
        free_snapshot(snapshot);
}

void snapshot_publish(struct app *app, struct snapshot *next)
{
    pthread_mutex_lock(&app->snapshot_lock);
    struct snapshot *previous = app->snapshot;
    app->snapshot = next;
    pthread_mutex_unlock(&app->snapshot_lock);
    snapshot_release(previous);
}

/* A failed load, and what is served meanwhile: the catalog loaded before
 * stays in use, which the operator needs to read. */
static void log_load_failure(struct app *app, const char *reason)
{
    struct snapshot *current = snapshot_acquire(app);
    if (current != NULL)
        log_error("catalog not loaded: %s; still serving price list version %lld", reason,
                  (long long)current->catalog->price_list_version);
    else
        log_error("catalog not loaded: %s", reason);
    snapshot_release(current);
}

bool snapshot_reload(struct app *app)
{
    pthread_mutex_lock(&app->reload_lock);
    struct catalog *catalog;
    struct gq_error err;
    bool loaded = store_load_catalog(app->store, &catalog, &err) == GQ_OK;
    if (!loaded) {
        log_load_failure(app, err.message);
        pthread_mutex_unlock(&app->reload_lock);
        return false;
    }
    int64_t version = catalog->price_list_version;
    size_t skus = catalog->n_skus;
    struct snapshot *snapshot = snapshot_build(catalog);
    if (snapshot == NULL) {
        log_load_failure(app, "out of memory");
        pthread_mutex_unlock(&app->reload_lock);
        return false;
    }
    snapshot_publish(app, snapshot);
    pthread_mutex_unlock(&app->reload_lock);
    log_info("catalog loaded: price list version %lld, %zu SKUs", (long long)version, skus);
    return true;
}
