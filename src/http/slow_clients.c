/*
 * Cuts connections whose request does not arrive in time.
 *
 * libmicrohttpd 0.9.75 resets its idle timeout on every byte it receives,
 * and much of a request never reaches the access handler: the request line
 * and headers (the handler is first called once they are whole), and a
 * chunked body's chunk sizes, extensions and trailers. A client sending
 * any of these a byte at a time could hold a connection for days (16 KB at
 * one byte every 29 s). This watch keeps a deadline for every open
 * connection until its request has arrived whole:
 *
 * - waiting for a request (just opened, or its last request answered):
 *   the idle timeout plus the request deadline, so a connection that idles
 *   as long as allowed still has the whole deadline for its request;
 * - reading a request: the request deadline from its request line.
 *
 * Each is extended by a grace: a request whose end (the headers' end, the
 * last chunk) arrives just after its deadline gets its 408 from the
 * handler (server.c), and only a request still arriving a second later is
 * cut without an answer. (Body data that reaches the handler after the
 * deadline is cut by the handler itself, at once.) A thread looks at
 * every deadline a few times a second and shuts a late connection's socket
 * down; libmicrohttpd then reads the end of the stream and closes the
 * connection in its own thread, the normal way. The watch's lock is held
 * from that look to the shutdown, and a connection leaves the watch (under
 * the same lock) before libmicrohttpd closes its socket, so the socket shut
 * down is never another connection's.
 */
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "http/http.h"
#include "util/clock.h"

/* How long after its deadline a request still arriving is cut: the end of
 * a request that arrives within it is answered 408. */
#define GRACE_US ((int64_t)1000 * 1000)
/* How often the thread looks: a late connection is cut at most this long
 * after its deadline and grace. */
#define LOOK_INTERVAL_NS (250L * 1000 * 1000)

struct slow_clients {
    pthread_t thread;
    pthread_mutex_t lock; /* guards the list and `stopping` */
    pthread_cond_t wake;  /* signalled to stop */
    bool stopping;
    int64_t idle_us;    /* libmicrohttpd's idle timeout */
    int64_t request_us; /* the request deadline */
    struct watched_connection *first;
};

/* Cuts the connection if its deadline and grace have passed; the caller
 * holds the lock. The exchange fails, and nothing is cut, when
 * libmicrohttpd's thread has moved the deadline meanwhile (the request
 * arrived whole). */
static void cut_if_late(struct watched_connection *connection, int64_t now_us)
{
    int64_t deadline = atomic_load_explicit(&connection->deadline_us, memory_order_acquire);
    if (deadline == 0 || now_us <= deadline + GRACE_US)
        return;
    if (!atomic_compare_exchange_strong(&connection->deadline_us, &deadline, 0))
        return;
    atomic_store_explicit(&connection->cut, true, memory_order_release);
    shutdown(connection->socket, SHUT_RDWR);
}

static void *watch_deadlines(void *argument)
{
    struct slow_clients *watch = argument;
    pthread_mutex_lock(&watch->lock);
    while (!watch->stopping) {
        struct timespec at = clock_after(CLOCK_MONOTONIC, LOOK_INTERVAL_NS);
        pthread_cond_timedwait(&watch->wake, &watch->lock, &at);
        int64_t now_us = clock_monotonic_us();
        for (struct watched_connection *c = watch->first; c != NULL; c = c->next)
            cut_if_late(c, now_us);
    }
    pthread_mutex_unlock(&watch->lock);
    return NULL;
}

struct slow_clients *slow_clients_start(unsigned idle_seconds, unsigned request_seconds)
{
    struct slow_clients *watch = calloc(1, sizeof *watch);
    if (watch == NULL)
        return NULL;
    watch->idle_us = (int64_t)idle_seconds * 1000000;
    watch->request_us = (int64_t)request_seconds * 1000000;
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    bool made = pthread_cond_init(&watch->wake, &attributes) == 0;
    pthread_condattr_destroy(&attributes);
    if (!made) {
        free(watch);
        return NULL;
    }
    pthread_mutex_init(&watch->lock, NULL);
    if (pthread_create(&watch->thread, NULL, watch_deadlines, watch) != 0) {
        pthread_cond_destroy(&watch->wake);
        pthread_mutex_destroy(&watch->lock);
        free(watch);
        return NULL;
    }
    return watch;
}

void slow_clients_stop(struct slow_clients *watch)
{
    if (watch == NULL)
        return;
    pthread_mutex_lock(&watch->lock);
    watch->stopping = true;
    pthread_cond_signal(&watch->wake);
    pthread_mutex_unlock(&watch->lock);
    pthread_join(watch->thread, NULL);
    pthread_cond_destroy(&watch->wake);
    pthread_mutex_destroy(&watch->lock);
    free(watch);
}

void slow_clients_add(struct slow_clients *watch, struct watched_connection *connection, int socket)
{
    connection->socket = socket;
    atomic_store(&connection->cut, false);
    slow_clients_awaiting_request(watch, connection);
    pthread_mutex_lock(&watch->lock);
    connection->previous = NULL;
    connection->next = watch->first;
    if (watch->first != NULL)
        watch->first->previous = connection;
    watch->first = connection;
    pthread_mutex_unlock(&watch->lock);
}

void slow_clients_remove(struct slow_clients *watch, struct watched_connection *connection)
{
    pthread_mutex_lock(&watch->lock);
    if (connection->previous != NULL)
        connection->previous->next = connection->next;
    else
        watch->first = connection->next;
    if (connection->next != NULL)
        connection->next->previous = connection->previous;
    pthread_mutex_unlock(&watch->lock);
}

void slow_clients_awaiting_request(const struct slow_clients *watch,
                                   struct watched_connection *connection)
{
    atomic_store_explicit(&connection->deadline_us,
                          clock_monotonic_us() + watch->idle_us + watch->request_us,
                          memory_order_release);
}

void slow_clients_request_begun(const struct slow_clients *watch,
                                struct watched_connection *connection, int64_t started_us)
{
    atomic_store_explicit(&connection->deadline_us, started_us + watch->request_us,
                          memory_order_release);
}

void slow_clients_request_arrived(struct watched_connection *connection)
{
    atomic_store_explicit(&connection->deadline_us, 0, memory_order_release);
}

bool slow_clients_was_cut(const struct watched_connection *connection)
{
    return atomic_load_explicit(&connection->cut, memory_order_acquire);
}
