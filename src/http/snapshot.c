/*
 * Catalog snapshots: an immutable catalog plus the bodies rendered from it
 * once (the full GET /catalog, each SKU, billing modes, bundles) and their
 * entity tags, shared by reference count and swapped atomically on reload.
 *
 * Requests never wait on the database: a reload builds the next snapshot
 * off to the side and publishing it is a pointer swap under a mutex held
 * for a few instructions.
 */
#include <nettle/base16.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"

void snapshot_etag(const char *first, size_t first_length, const char *second,
                   size_t second_length, char etag[48])
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

/* Serialises `value` (stolen) into `out`; false when memory runs out. */
static bool render_into(json_t *value, struct rendered *out)
{
    out->body = render_dump(value);
    if (out->body == NULL)
        return false;
    out->length = strlen(out->body);
    snapshot_etag(out->body, out->length, "", 0, out->etag);
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

size_t snapshot_listing_length(const struct snapshot *snapshot, const size_t *indices,
                               size_t count)
{
    size_t total = snapshot->catalog_prefix_length + 2; /* the prefix, "]}" */
    for (size_t i = 0; i < count; i++)
        total += snapshot->skus[indices ? indices[i] : i].length + (i > 0); /* "," between */
    return total;
}

char *snapshot_render_listing(const struct snapshot *snapshot, const size_t *indices,
                              size_t count, size_t *length)
{
    size_t total = snapshot_listing_length(snapshot, indices, count);
    char *body = malloc(total + 1);
    if (body == NULL)
        return NULL;
    char *end = body;
    memcpy(end, snapshot->catalog_prefix, snapshot->catalog_prefix_length);
    end += snapshot->catalog_prefix_length;
    for (size_t i = 0; i < count; i++) {
        const struct rendered *sku = &snapshot->skus[indices ? indices[i] : i];
        if (i > 0)
            *end++ = ',';
        memcpy(end, sku->body, sku->length);
        end += sku->length;
    }
    memcpy(end, "]}", 3);
    *length = (size_t)(end + 2 - body);
    return body;
}

static bool render_full_catalog(struct snapshot *snapshot)
{
    struct rendered *full = &snapshot->catalog_body;
    full->body = snapshot_render_listing(snapshot, NULL, snapshot->catalog->n_skus, &full->length);
    if (full->body == NULL)
        return false;
    snapshot_etag(full->body, full->length, "", 0, full->etag);
    return true;
}

static void free_snapshot(struct snapshot *snapshot)
{
    if (snapshot->skus != NULL)
        for (size_t i = 0; i < snapshot->catalog->n_skus; i++)
            free(snapshot->skus[i].body);
    free(snapshot->skus);
    free(snapshot->catalog_body.body);
    free(snapshot->billing_modes.body);
    free(snapshot->bundles.body);
    free(snapshot->catalog_prefix);
    catalog_free(snapshot->catalog);
    free(snapshot);
}

static bool render_everything(struct snapshot *snapshot)
{
    const struct catalog *catalog = snapshot->catalog;
    snapshot->skus = calloc(catalog->n_skus ? catalog->n_skus : 1, sizeof *snapshot->skus);
    if (snapshot->skus == NULL)
        return false;
    for (size_t i = 0; i < catalog->n_skus; i++)
        if (!render_into(catalog_render_sku(catalog, &catalog->skus[i]), &snapshot->skus[i]))
            return false;
    snapshot->catalog_prefix = render_catalog_prefix(catalog);
    if (snapshot->catalog_prefix == NULL)
        return false;
    snapshot->catalog_prefix_length = strlen(snapshot->catalog_prefix);
    return render_full_catalog(snapshot) &&
           render_into(catalog_render_billing_modes(catalog), &snapshot->billing_modes) &&
           render_into(catalog_render_bundles(catalog), &snapshot->bundles);
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
