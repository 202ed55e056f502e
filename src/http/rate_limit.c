/*
 * Rate limits (OWASP API4): a token bucket per client address for calls
 * without a key, one per key for calls with one, and a smaller one per
 * address for saved quotes without a key (they write to the database).
 * A request takes a token or is answered 429 rate_limited with Retry-After,
 * the seconds until its bucket holds one again.
 *
 * The buckets are this process's: behind a balancer each replica limits on
 * its own, so a client's limit across N replicas is up to N times a
 * replica's. They live in hash tables split into shards, each with its own
 * mutex, so that threads rarely wait for one another; a table that grows
 * past its room forgets the buckets idle longest (a full bucket is what a
 * forgotten one becomes again).
 *
 * Tokens and rates are doubles: they count requests, not money.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "http/app.h"
#include "http/rate_limit.h"
#include "http/request.h"
#include "util/clock.h"
#include "util/config.h"

#define SHARDS 16
#define SHARD_ROOM 4096 /* buckets a shard keeps: 65,536 clients in all */
#define KEY_SIZE 48

struct bucket {
    char key[KEY_SIZE]; /* an address or a key id; "" when free */
    double tokens;
    int64_t updated_us; /* monotonic */
};

struct shard {
    pthread_mutex_t lock;
    struct bucket *buckets; /* open addressing, SHARD_ROOM slots */
    size_t used;
};

/* One kind of limit: its rate, its burst and its buckets. */
struct limit {
    double per_second; /* 0: no limit */
    double burst;
    struct shard shards[SHARDS];
};

struct rate_limits {
    struct limit keyless, key, keyless_saves;
};

/* ---- One limit. ---- */

static uint32_t hash_of(const char *key)
{
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (; *key != '\0'; key++)
        hash = (hash ^ (uint8_t)*key) * 16777619u;
    return hash;
}

/* Where `hash` starts its search in a shard (the low bits chose the shard). */
static size_t first_slot(uint32_t hash)
{
    return (hash / SHARDS) % SHARD_ROOM;
}

static bool limit_init(struct limit *limit, double per_second, double burst)
{
    limit->per_second = per_second;
    limit->burst = burst > 1 ? burst : 1;
    for (int i = 0; i < SHARDS; i++) {
        limit->shards[i].buckets =
            per_second > 0 ? calloc(SHARD_ROOM, sizeof(struct bucket)) : NULL;
        if (per_second > 0 && limit->shards[i].buckets == NULL)
            return false;
        pthread_mutex_init(&limit->shards[i].lock, NULL);
    }
    return true;
}

static void limit_free(struct limit *limit)
{
    for (int i = 0; i < SHARDS; i++) {
        free(limit->shards[i].buckets);
        pthread_mutex_destroy(&limit->shards[i].lock);
    }
}

/* Forgets every bucket idle for a second or more (a full one is what it
 * would be again), or every bucket when none is: room for new clients. */
static void forget_idle(struct shard *shard, int64_t now_us)
{
    size_t before = shard->used;
    for (size_t i = 0; i < SHARD_ROOM; i++) {
        struct bucket *bucket = &shard->buckets[i];
        if (bucket->key[0] != '\0' && now_us - bucket->updated_us >= 1000000) {
            bucket->key[0] = '\0';
            shard->used--;
        }
    }
    if (shard->used == before) {
        memset(shard->buckets, 0, SHARD_ROOM * sizeof *shard->buckets);
        shard->used = 0;
    }
    /* The chains of open addressing have holes now: rebuilt. */
    struct bucket *old = malloc(SHARD_ROOM * sizeof *old);
    if (old == NULL)
        return;
    memcpy(old, shard->buckets, SHARD_ROOM * sizeof *old);
    memset(shard->buckets, 0, SHARD_ROOM * sizeof *shard->buckets);
    for (size_t i = 0; i < SHARD_ROOM; i++) {
        if (old[i].key[0] == '\0')
            continue;
        size_t slot = first_slot(hash_of(old[i].key));
        while (shard->buckets[slot].key[0] != '\0')
            slot = (slot + 1) % SHARD_ROOM;
        shard->buckets[slot] = old[i];
    }
    free(old);
}

/* The bucket of `key` (made full when new), in a locked shard. */
static struct bucket *find_bucket(const struct limit *limit, struct shard *shard, const char *key,
                                  uint32_t hash, int64_t now_us)
{
    if (shard->used * 4 >= SHARD_ROOM * 3)
        forget_idle(shard, now_us);
    size_t slot = first_slot(hash);
    while (shard->buckets[slot].key[0] != '\0') {
        if (strcmp(shard->buckets[slot].key, key) == 0)
            return &shard->buckets[slot];
        slot = (slot + 1) % SHARD_ROOM;
    }
    struct bucket *bucket = &shard->buckets[slot];
    snprintf(bucket->key, sizeof bucket->key, "%s", key);
    bucket->tokens = limit->burst;
    bucket->updated_us = now_us;
    shard->used++;
    return bucket;
}

/* Takes a token of `key`'s bucket: 0, or the seconds until one is there. */
static unsigned limit_take(struct limit *limit, const char *key)
{
    if (limit->per_second <= 0)
        return 0;
    uint32_t hash = hash_of(key);
    struct shard *shard = &limit->shards[hash % SHARDS];
    int64_t now_us = clock_monotonic_us();
    pthread_mutex_lock(&shard->lock);
    struct bucket *bucket = find_bucket(limit, shard, key, hash, now_us);
    double refilled =
        bucket->tokens + (double)(now_us - bucket->updated_us) / 1e6 * limit->per_second;
    bucket->tokens = refilled < limit->burst ? refilled : limit->burst;
    bucket->updated_us = now_us;
    unsigned wait = 0;
    if (bucket->tokens >= 1.0)
        bucket->tokens -= 1.0;
    else
        wait = (unsigned)ceil((1.0 - bucket->tokens) / limit->per_second);
    pthread_mutex_unlock(&shard->lock);
    return wait;
}

/* ---- The limits of the service. ---- */

struct rate_limits *rate_limits_new(const struct gq_config *config)
{
    struct rate_limits *limits = calloc(1, sizeof *limits);
    if (limits == NULL)
        return NULL;
    bool made =
        limit_init(&limits->keyless, config->rate_limit_keyless_per_second,
                   config->rate_limit_keyless_burst) &&
        limit_init(&limits->key, config->rate_limit_key_per_second, config->rate_limit_key_burst) &&
        limit_init(&limits->keyless_saves, config->rate_limit_keyless_saves_per_minute / 60.0,
                   config->rate_limit_keyless_saves_per_minute); /* a minute's at once */
    if (!made) {
        rate_limits_free(limits);
        return NULL;
    }
    return limits;
}

void rate_limits_free(struct rate_limits *limits)
{
    if (limits == NULL)
        return;
    limit_free(&limits->keyless);
    limit_free(&limits->key);
    limit_free(&limits->keyless_saves);
    free(limits);
}

enum gq_code rate_limits_take(struct http_request *request, bool saving, struct gq_error *err)
{
    struct rate_limits *limits = request->app->rate_limits;
    if (limits == NULL)
        return GQ_OK;
    const char *address = request->client[0] != '\0' ? request->client : "unknown";
    unsigned wait;
    if (saving) /* the call's own token is taken already */
        wait = request->has_key ? 0 : limit_take(&limits->keyless_saves, address);
    else
        wait = request->has_key ? limit_take(&limits->key, request->key_id)
                                : limit_take(&limits->keyless, address);
    if (wait == 0)
        return GQ_OK;
    request->retry_after_seconds = wait;
    return gq_fail_msg(err, GQ_ERR_RATE_LIMITED, NULL, MSG_RATE_LIMITED, MSG_INT(wait));
}
