/*
 * API keys on requests: the keys in force kept in memory (a keyring,
 * loaded from the store at start and again whenever the key list's version
 * changes on any replica), a request's Authorization header checked
 * against it, and the scope a route needs.
 *
 * Checking a key costs one SHA-256 of its 49 bytes and a binary search by
 * its visible prefix, then a comparison of the hashes in constant time: no
 * database round trip on the request path. When a key was last used is
 * kept in the keyring (an atomic store per request) and written to the
 * store by the catalog watch every keys_last_used_seconds, not per
 * request.
 *
 * The keyring is immutable once built and shared by reference count, like
 * the catalog snapshot; a reload builds the next one aside.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/app.h"
#include "http/auth.h"
#include "http/rate_limit.h"
#include "http/request.h"
#include "store/store.h"
#include "util/api_key.h"
#include "util/clock.h"
#include "util/log.h"

struct key_entry {
    struct stored_key key;     /* as loaded; key.last_used_at as recorded then */
    _Atomic int64_t last_used; /* unix seconds of the latest use seen here */
    _Atomic int64_t recorded;  /* the last use written to the store */
};

struct keyring {
    atomic_uint references;
    struct app *app;           /* whose keyring receives this one's uses when it goes */
    struct key_entry *entries; /* sorted by prefix */
    size_t count;
};

/* ---- The keyring. ---- */

static int compare_prefixes(const void *a, const void *b)
{
    return strcmp(((const struct key_entry *)a)->key.prefix,
                  ((const struct key_entry *)b)->key.prefix);
}

/* A keyring of `list` (taken over: its items are copied, the list freed);
 * NULL when memory runs out. */
static struct keyring *keyring_build(struct app *app, struct key_list *list)
{
    struct keyring *ring = calloc(1, sizeof *ring);
    if (ring != NULL && list->count > 0)
        ring->entries = calloc(list->count, sizeof *ring->entries);
    if (ring == NULL || (list->count > 0 && ring->entries == NULL)) {
        free(ring);
        store_key_list_free(list);
        return NULL;
    }
    for (size_t i = 0; i < list->count; i++) {
        ring->entries[i].key = list->items[i];
        atomic_init(&ring->entries[i].last_used, list->items[i].last_used_at);
        atomic_init(&ring->entries[i].recorded, list->items[i].last_used_at);
    }
    ring->count = list->count;
    ring->app = app;
    atomic_init(&ring->references, 1);
    if (ring->count > 1) /* qsort of a NULL array is undefined, even empty */
        qsort(ring->entries, ring->count, sizeof *ring->entries, compare_prefixes);
    store_key_list_free(list);
    return ring;
}

static struct keyring *keyring_acquire(struct app *app);
static void carry_uses(const struct keyring *from, struct keyring *to);

/* The last reference to a keyring that was replaced hands its keys' uses
 * to the keyring in force: a request that used a key on the old one after
 * the swap would otherwise see its use forgotten (the new one was read
 * from the store before that use). */
static void keyring_release(struct keyring *ring)
{
    if (ring == NULL)
        return;
    if (atomic_fetch_sub_explicit(&ring->references, 1, memory_order_acq_rel) != 1)
        return;
    struct keyring *current = ring->app != NULL ? keyring_acquire(ring->app) : NULL;
    if (current != NULL) {
        carry_uses(ring, current);
        keyring_release(current);
    }
    /* The secret never was here: only hashes. Wiped all the same. */
    if (ring->entries != NULL)
        memset(ring->entries, 0, ring->count * sizeof *ring->entries);
    free(ring->entries);
    free(ring);
}

static struct keyring *keyring_acquire(struct app *app)
{
    pthread_mutex_lock(&app->keyring_lock);
    struct keyring *ring = app->keyring;
    if (ring != NULL)
        atomic_fetch_add_explicit(&ring->references, 1, memory_order_relaxed);
    pthread_mutex_unlock(&app->keyring_lock);
    return ring;
}

/* `key`'s entry in `ring` (the same id), or NULL. */
static struct key_entry *entry_of(struct keyring *ring, const struct stored_key *key)
{
    size_t low = 0, high = ring->count;
    while (low < high) { /* the first entry not before its prefix */
        size_t middle = low + (high - low) / 2;
        if (strcmp(ring->entries[middle].key.prefix, key->prefix) < 0)
            low = middle + 1;
        else
            high = middle;
    }
    for (size_t i = low; i < ring->count && strcmp(ring->entries[i].key.prefix, key->prefix) == 0;
         i++)
        if (strcmp(ring->entries[i].key.id, key->id) == 0)
            return &ring->entries[i];
    return NULL;
}

/* Each key's latest use seen on `from` becomes its latest on `to` when
 * later than what `to` has (keys gone from `to` are left: they are out of
 * force). */
static void carry_uses(const struct keyring *from, struct keyring *to)
{
    for (size_t i = 0; i < from->count; i++) {
        int64_t used = atomic_load(&from->entries[i].last_used);
        struct key_entry *entry = entry_of(to, &from->entries[i].key);
        if (entry == NULL)
            continue;
        int64_t seen = atomic_load(&entry->last_used);
        while (seen < used && !atomic_compare_exchange_weak(&entry->last_used, &seen, used))
            ;
    }
}

/* The uses of `ring`'s keys not yet written. */
static void record_uses(struct app *app, struct keyring *ring)
{
    if (ring == NULL)
        return;
    struct stored_key *used = NULL;
    size_t count = 0;
    for (size_t i = 0; i < ring->count; i++) {
        int64_t last = atomic_load(&ring->entries[i].last_used);
        if (last <= atomic_load(&ring->entries[i].recorded))
            continue;
        struct stored_key *grown = realloc(used, (count + 1) * sizeof *used);
        if (grown == NULL)
            break;
        used = grown;
        used[count] = ring->entries[i].key;
        used[count].last_used_at = last;
        count++;
    }
    struct gq_error err;
    if (count > 0 && store_keys_touch(app->store, used, count, &err) != GQ_OK) {
        log_warning("keys' last use not recorded: %s", err.message);
    } else {
        for (size_t i = 0, j = 0; i < ring->count && j < count; i++)
            if (strcmp(ring->entries[i].key.id, used[j].id) == 0)
                atomic_store(&ring->entries[i].recorded, used[j++].last_used_at);
    }
    free(used);
}

void keyring_record_uses(struct app *app)
{
    if (app->store == NULL) /* no database to record in: the request fuzzer's keys */
        return;
    struct keyring *ring = keyring_acquire(app);
    record_uses(app, ring);
    keyring_release(ring);
}

/* Reads and installs are serialised: otherwise the catalog watch could read
 * the keys just before a revocation commits and install that older set just
 * after the handler that revoked installed the newer one, bringing the
 * revoked key back until the next change. Under the lock each reload reads
 * a state no older than the one installed before it. */
bool keyring_reload(struct app *app)
{
    struct key_list list = {0};
    struct gq_error err;
    pthread_mutex_lock(&app->keys_reload_lock);
    bool loaded = store_keys_read(app->store, false, &list, &err) == GQ_OK;
    if (!loaded)
        log_error("keys not loaded: %s; the keys loaded before stay in force", err.message);
    else
        loaded = keyring_install(app, &list);
    pthread_mutex_unlock(&app->keys_reload_lock);
    return loaded;
}

/* Whether two keyrings hold the same keys with the same scopes and names:
 * a reload that changes nothing (the catalog watch's first poll reloads
 * the keys read at start) is not logged again. */
static bool same_keys(const struct keyring *a, const struct keyring *b)
{
    if (a == NULL || b == NULL || a->count != b->count)
        return false;
    for (size_t i = 0; i < a->count; i++) {
        const struct stored_key *x = &a->entries[i].key, *y = &b->entries[i].key;
        if (strcmp(x->id, y->id) != 0 || x->scopes != y->scopes || strcmp(x->name, y->name) != 0)
            return false;
    }
    return true;
}

bool keyring_install(struct app *app, struct key_list *list)
{
    size_t count = list->count;
    struct keyring *next = keyring_build(app, list);
    if (next == NULL) {
        log_error("keys not loaded: out of memory");
        return false;
    }
    keyring_record_uses(app); /* the set that goes keeps no unwritten use */
    pthread_mutex_lock(&app->keyring_lock);
    struct keyring *previous = app->keyring;
    app->keyring = next;
    pthread_mutex_unlock(&app->keyring_lock);
    bool changed = !same_keys(previous, next);
    keyring_release(previous);
    if (changed)
        log_info("keys loaded: %zu in force", count);
    return true;
}

void keyring_clear(struct app *app)
{
    keyring_record_uses(app);
    pthread_mutex_lock(&app->keyring_lock);
    struct keyring *ring = app->keyring;
    app->keyring = NULL;
    pthread_mutex_unlock(&app->keyring_lock);
    keyring_release(ring);
}

/* The entry whose secret hashes to `hash`, among those of `prefix`; the
 * hashes are compared in constant time. NULL when none. */
static struct key_entry *find_key(struct keyring *ring, const char *prefix, const char *hash)
{
    size_t low = 0, high = ring->count;
    while (low < high) { /* the first entry not before `prefix` */
        size_t middle = low + (high - low) / 2;
        if (strcmp(ring->entries[middle].key.prefix, prefix) < 0)
            low = middle + 1;
        else
            high = middle;
    }
    struct key_entry *found = NULL;
    for (size_t i = low; i < ring->count && strcmp(ring->entries[i].key.prefix, prefix) == 0; i++)
        if (api_key_hash_equal(ring->entries[i].key.hash, hash))
            found = &ring->entries[i];
    return found;
}

/* ---- A request's key. ---- */

static enum gq_code refuse(struct http_request *request, enum gq_msg message, struct gq_error *err)
{
    request->key_refused = true;
    return gq_fail_msg(err, GQ_ERR_UNAUTHENTICATED, "Authorization", message);
}

/* The token of "Bearer <token>" (the scheme in any case, RFC 6750), or
 * NULL with its length 0 when the header has another form. */
static const char *bearer_token(const char *header, size_t *length)
{
    *length = 0;
    header += strspn(header, " \t");
    if (strncasecmp(header, "Bearer", 6) != 0 || (header[6] != ' ' && header[6] != '\t'))
        return NULL;
    const char *token = header + 6 + strspn(header + 6, " \t");
    size_t size = strlen(token);
    while (size > 0 && (token[size - 1] == ' ' || token[size - 1] == '\t'))
        size--;
    *length = size;
    return size > 0 ? token : NULL;
}

enum gq_code auth_identify(struct http_request *request, struct gq_error *err)
{
    if (request->authorization == NULL)
        return GQ_OK;
    if (request->authorizations > 1)
        return refuse(request, MSG_AUTHORIZATION_FORM, err);
    size_t length;
    const char *token = bearer_token(request->authorization, &length);
    if (token == NULL)
        return refuse(request, MSG_AUTHORIZATION_FORM, err);
    if (!api_key_is_well_formed(token, length))
        return refuse(request, MSG_KEY_INVALID, err);
    char hash[API_KEY_HASH_SIZE], prefix[API_KEY_VISIBLE + 1];
    api_key_hash(token, length, hash);
    memcpy(prefix, token, API_KEY_VISIBLE);
    prefix[API_KEY_VISIBLE] = '\0';
    struct keyring *ring = keyring_acquire(request->app);
    struct key_entry *entry = ring != NULL ? find_key(ring, prefix, hash) : NULL;
    if (entry != NULL) {
        request->has_key = true;
        memcpy(request->key_id, entry->key.id, sizeof request->key_id);
        memcpy(request->key_name, entry->key.name, sizeof request->key_name);
        request->key_scopes = entry->key.scopes;
        memcpy(request->key_customer, entry->key.customer_id, sizeof request->key_customer);
        int64_t now = clock_now_seconds();
        if (atomic_load_explicit(&entry->last_used, memory_order_relaxed) < now)
            atomic_store_explicit(&entry->last_used, now, memory_order_relaxed);
    }
    keyring_release(ring);
    return entry != NULL ? GQ_OK : refuse(request, MSG_KEY_INVALID, err);
}

enum gq_code auth_require(const struct http_request *request, unsigned scope, struct gq_error *err)
{
    if (scope == SCOPE_NONE)
        return GQ_OK;
    const char *name = api_scope_name(scope);
    if (!request->has_key)
        return gq_fail_msg(err, GQ_ERR_UNAUTHENTICATED, "Authorization", MSG_KEY_REQUIRED,
                           MSG_TEXT(name));
    if ((request->key_scopes & scope) != scope)
        return gq_fail_msg(err, GQ_ERR_FORBIDDEN, "Authorization", MSG_KEY_LACKS_SCOPE,
                           MSG_TEXT(name));
    return GQ_OK;
}

struct audit_entry auth_audit_entry(const struct http_request *request, const char *action,
                                    const char *target, const char *change)
{
    struct audit_entry entry = {
        .key_id = request->has_key ? request->key_id : NULL,
        .key_name = request->has_key ? request->key_name : NULL,
        .client = request->client[0] != '\0' ? request->client : "unknown",
        .request_id = request->request_id,
        .action = action,
        .target = target,
        .change = change,
    };
    return entry;
}

/* ---- Start and stop. ---- */

bool auth_start(struct app *app)
{
    char bad[64];
    if (!address_prefixes_parse(app->config->trusted_proxies, app->trusted_proxies,
                                &app->n_trusted_proxies, bad, sizeof bad)) {
        log_error("trusted_proxies: '%s' is not an address or a prefix", bad);
        return false;
    }
    app->rate_limits = rate_limits_new(app->config);
    if (app->rate_limits == NULL) {
        log_error("out of memory making the rate limits");
        return false;
    }
    return keyring_reload(app);
}

void auth_stop(struct app *app)
{
    if (app->store != NULL)
        keyring_clear(app);
    rate_limits_free(app->rate_limits);
    app->rate_limits = NULL;
}
