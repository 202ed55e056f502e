/*
 * A pool of database connections: a stack of idle ones under a mutex; a
 * thread that finds it empty waits on a condition variable. Each backend
 * keeps its own kind of connection in it.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#include "store/backend.h"

struct store_pool {
    pthread_mutex_t lock;
    pthread_cond_t available;
    void **all;  /* every connection added, for closing */
    void **idle; /* stack of idle connections */
    unsigned capacity, count, n_idle;
};

struct store_pool *store_pool_new(unsigned capacity)
{
    assert(capacity > 0);
    struct store_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        return NULL;
    pool->all = calloc(capacity, sizeof *pool->all);
    pool->idle = calloc(capacity, sizeof *pool->idle);
    if (pool->all == NULL || pool->idle == NULL || pthread_mutex_init(&pool->lock, NULL) != 0) {
        free(pool->all);
        free(pool->idle);
        free(pool);
        return NULL;
    }
    if (pthread_cond_init(&pool->available, NULL) != 0) {
        pthread_mutex_destroy(&pool->lock);
        free(pool->all);
        free(pool->idle);
        free(pool);
        return NULL;
    }
    pool->capacity = capacity;
    return pool;
}

void store_pool_add(struct store_pool *pool, void *connection)
{
    assert(pool->count < pool->capacity);
    pool->all[pool->count++] = connection;
    store_pool_checkin(pool, connection);
}

void *store_pool_checkout(struct store_pool *pool)
{
    pthread_mutex_lock(&pool->lock);
    while (pool->n_idle == 0)
        pthread_cond_wait(&pool->available, &pool->lock);
    void *connection = pool->idle[--pool->n_idle];
    pthread_mutex_unlock(&pool->lock);
    return connection;
}

void store_pool_checkin(struct store_pool *pool, void *connection)
{
    pthread_mutex_lock(&pool->lock);
    assert(pool->n_idle < pool->count);
    pool->idle[pool->n_idle++] = connection;
    pthread_cond_signal(&pool->available);
    pthread_mutex_unlock(&pool->lock);
}

unsigned store_pool_size(const struct store_pool *pool)
{
    return pool->count;
}

void *store_pool_connection(const struct store_pool *pool, unsigned i)
{
    assert(i < pool->count);
    return pool->all[i];
}

void store_pool_free(struct store_pool *pool)
{
    if (pool == NULL)
        return;
    assert(pool->n_idle == pool->count); /* nothing checked out */
    pthread_cond_destroy(&pool->available);
    pthread_mutex_destroy(&pool->lock);
    free(pool->all);
    free(pool->idle);
    free(pool);
}
