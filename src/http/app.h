/*
 * The application context every request reaches through request->app: the
 * configuration, the store, the current catalog snapshot and keys, the
 * rate limits and the counters, and the flags the server's start and stop
 * set. main.c makes it; the transport and the handlers share it.
 */
#ifndef GQ_HTTP_APP_H
#define GQ_HTTP_APP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "util/address.h"
#include "util/config.h"

struct keyring;
struct metrics;
struct rate_limits;
struct snapshot;
struct store;

struct app {
    const struct gq_config *config;
    struct store *store;
    pthread_mutex_t snapshot_lock;    /* guards `snapshot` (the pointer only) */
    pthread_mutex_t reload_lock;      /* one reload at a time, so none publishes an older one */
    struct snapshot *snapshot;        /* current catalog; NULL until loaded */
    atomic_int active_requests;       /* between first call and completion */
    atomic_int saves_in_flight;       /* quotes handed to the store, not yet handed back */
    atomic_bool closing_saves;        /* the daemon is about to stop: no quote may be handed over */
    atomic_bool stopping;             /* SIGTERM: every answer closes its connection */
    atomic_bool refusing;             /* the daemon is stopping: no request may begin */
    pthread_mutex_t keyring_lock;     /* guards `keyring` (the pointer only) */
    pthread_mutex_t keys_reload_lock; /* one keys reload at a time, so none installs an older set */
    struct keyring *keyring;          /* the keys in force (auth.c); NULL until loaded */
    struct rate_limits *rate_limits;  /* the token buckets (rate_limit.c) */
    /* trusted_proxies, parsed: peers whose client_address_header is believed. */
    struct address_prefix trusted_proxies[ADDRESS_PREFIXES_MAX];
    size_t n_trusted_proxies;
    /* The request counters (metrics.c); NULL counts nothing. */
    struct metrics *metrics;
};

#endif
