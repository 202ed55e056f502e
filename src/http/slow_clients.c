/*
 * Keeps every open connection of a listener moving: a connection holds one
 * of the listener's few slots, and one that makes no progress is cut.
 *
 * libmicrohttpd 0.9.75 resets its idle timeout on every byte it receives
 * or sends, and much of a request never reaches the access handler: the
 * request line and headers (the handler is first called once they are
 * whole), and a chunked body's chunk sizes, extensions and trailers. A
 * client sending any of these a byte at a time, or reading an answer a
 * byte at a time, could hold a connection for days. This watch keeps a
 * deadline for every open connection:
 *
 * - waiting for a request (just opened, or its last request answered):
 *   the idle timeout plus the request deadline, so a connection that idles
 *   as long as allowed still has the whole deadline for its request;
 * - reading a request: the request deadline from its request line;
 * - sending an answer: the response deadline from the moment it was
 *   queued, for as long as the kernel still holds bytes the client has not
 *   taken (an answer handed to the kernel whole is not yet read).
 *
 * A request being handled (between its arrival and its answer) has no
 * deadline: it is never cut. The request deadlines are extended by a
 * grace: a request whose end (the headers' end, the last chunk) arrives
 * just after its deadline gets its 408 from the handler (server.c), and
 * only a request still arriving a second later is cut without an answer.
 * (Body data that reaches the handler after the deadline is cut by the
 * handler itself, at once.)
 *
 * Under pressure, as nginx and Envoy do, idle connections give way. From
 * half the listener's connection limit on, the idle timeout shrinks in
 * proportion towards IDLE_FLOOR_US, reached when only the room kept for
 * new connections is left (ROOM_DIVISOR); and when a new connection would
 * take that room, the longest-idle connections are closed at once, so a
 * new client (a probe of /healthz or /readyz, a scrape) always finds a
 * slot. Closing a connection that waits for a request is allowed by HTTP
 * at any time; a client that had just begun sending one retries it.
 *
 * A thread looks at every connection a few times a second and shuts a late
 * connection's socket down (a slow reader's with a reset, so that the
 * bytes the kernel still holds are dropped); libmicrohttpd then reads the
 * end of the stream and closes the connection in its own thread, the
 * normal way. The watch's lock is held from that look to the shutdown, and
 * a connection leaves the watch (under the same lock) before
 * libmicrohttpd closes its socket, so the socket shut down is never
 * another connection's. The per-request calls touch only the connection's
 * own atomics, never the lock.
 */
#include <linux/sockios.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include "http/slow_clients.h"
#include "util/clock.h"
#include "util/worker.h"

/* How long after its deadline a request still arriving is cut: the end of
 * a request that arrives within it is answered 408. */
#define GRACE_US ((int64_t)1000 * 1000)
/* How often the thread looks: a late connection is cut at most this long
 * after its deadline and grace. */
#define LOOK_INTERVAL_MS 250
/* The shortest idle timeout under pressure. */
#define IDLE_FLOOR_US ((int64_t)1000 * 1000)
/* The room kept free for new connections: a sixteenth of the limit (at
 * least one). */
#define ROOM_DIVISOR 16

struct slow_clients {
    struct worker *worker;
    pthread_mutex_t lock; /* guards the list and the counts */
    int64_t idle_us;      /* libmicrohttpd's idle timeout */
    int64_t request_us;   /* the request deadline */
    int64_t response_us;  /* the response deadline */
    unsigned limit;       /* the listener's connection limit */
    unsigned open;        /* connections in the list */
    unsigned cut;         /* of those, the ones already cut */
    struct watched_connection *first;
};

/* Connections that hold a slot and are not already on their way out. */
static unsigned live_connections(const struct slow_clients *watch)
{
    return watch->open - watch->cut;
}

/* The most live connections before the longest idle give way. */
static unsigned without_room(const struct slow_clients *watch)
{
    unsigned room = watch->limit / ROOM_DIVISOR;
    return watch->limit - (room > 0 ? room : 1);
}

/* The idle timeout at the present load: the configured one up to half the
 * limit, then shrinking in proportion to IDLE_FLOOR_US at without_room(). */
static int64_t idle_timeout_now(const struct slow_clients *watch)
{
    int64_t floor = watch->idle_us < IDLE_FLOOR_US ? watch->idle_us : IDLE_FLOOR_US;
    int64_t from = watch->limit / 2, to = without_room(watch);
    int64_t live = live_connections(watch);
    if (live <= from)
        return watch->idle_us;
    if (live >= to)
        return floor;
    return floor + (watch->idle_us - floor) * (to - live) / (to - from);
}

/* Shuts the connection's socket down; the caller holds the lock. With
 * `drop_unsent`, the bytes the kernel still holds for the client are
 * dropped (a reset when libmicrohttpd closes the socket), so that a slow
 * reader does not go on reading from a closed connection. */
static void cut(struct slow_clients *watch, struct watched_connection *connection, bool drop_unsent)
{
    if (atomic_load_explicit(&connection->cut, memory_order_relaxed))
        return;
    if (drop_unsent) {
        struct linger reset = {.l_onoff = 1, .l_linger = 0};
        setsockopt(connection->socket, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    }
    atomic_store_explicit(&connection->cut, true, memory_order_release);
    watch->cut++;
    shutdown(connection->socket, SHUT_RDWR);
}

/* Cuts the connection if its request's deadline and grace have passed;
 * the caller holds the lock. The exchange fails, and nothing is cut, when
 * libmicrohttpd's thread has moved the deadline meanwhile (the request
 * arrived whole). */
static void cut_if_late(struct slow_clients *watch, struct watched_connection *connection,
                        int64_t now_us)
{
    int64_t deadline = atomic_load_explicit(&connection->deadline_us, memory_order_acquire);
    if (deadline == 0 || now_us <= deadline + GRACE_US)
        return;
    if (atomic_compare_exchange_strong(&connection->deadline_us, &deadline, 0))
        cut(watch, connection, false);
}

/* Cuts a connection that has waited for a request since `since`; the
 * caller holds the lock. The exchange fails, and nothing is cut, when a
 * request has begun meanwhile. */
static bool cut_idle(struct slow_clients *watch, struct watched_connection *connection,
                     int64_t since)
{
    if (!atomic_compare_exchange_strong(&connection->idle_since_us, &since, 0))
        return false;
    cut(watch, connection, false);
    return true;
}

/* Cuts the connection if it has waited for a request longer than
 * `idle_us`; the caller holds the lock. */
static void cut_if_idle(struct slow_clients *watch, struct watched_connection *connection,
                        int64_t now_us, int64_t idle_us)
{
    int64_t since = atomic_load_explicit(&connection->idle_since_us, memory_order_acquire);
    if (since != 0 && now_us - since > idle_us)
        cut_idle(watch, connection, since);
}

/* Cuts a connection whose answer the client has not taken by the response
 * deadline: the kernel still holds some of it. An answer taken whole ends
 * the deadline. The caller holds the lock. */
static void cut_if_slow_reader(struct slow_clients *watch, struct watched_connection *connection,
                               int64_t now_us)
{
    int64_t deadline =
        atomic_load_explicit(&connection->response_deadline_us, memory_order_acquire);
    if (deadline == 0 || now_us <= deadline)
        return;
    int unsent = 0;
    if (ioctl(connection->socket, SIOCOUTQ, &unsent) == 0 && unsent == 0) {
        /* Taken whole; once its request is over, nothing is left to wait for. */
        if (atomic_load_explicit(&connection->idle_since_us, memory_order_acquire) != 0)
            atomic_compare_exchange_strong(&connection->response_deadline_us, &deadline, 0);
        return;
    }
    cut(watch, connection, true);
}

/* Closes the connection that has waited longest for a request, other than
 * `spared` (unless a request begins on it meanwhile); false when none
 * waits. The caller holds the lock. */
static bool cut_longest_idle(struct slow_clients *watch, const struct watched_connection *spared)
{
    struct watched_connection *longest = NULL;
    int64_t longest_since = 0;
    for (struct watched_connection *c = watch->first; c != NULL; c = c->next) {
        int64_t since = atomic_load_explicit(&c->idle_since_us, memory_order_acquire);
        if (c != spared && since != 0 && !atomic_load(&c->cut) &&
            (longest == NULL || since < longest_since)) {
            longest = c;
            longest_since = since;
        }
    }
    if (longest == NULL)
        return false;
    cut_idle(watch, longest, longest_since);
    return true;
}

/* Keeps room for new connections by closing the longest idle ones. */
static void keep_room(struct slow_clients *watch, const struct watched_connection *spared)
{
    while (live_connections(watch) > without_room(watch) && cut_longest_idle(watch, spared))
        ;
}

static void watch_deadlines(struct worker *worker, void *context)
{
    struct slow_clients *watch = context;
    while (worker_sleep(worker, LOOK_INTERVAL_MS)) {
        pthread_mutex_lock(&watch->lock);
        int64_t now_us = clock_monotonic_us();
        int64_t idle_us = idle_timeout_now(watch);
        for (struct watched_connection *c = watch->first; c != NULL; c = c->next) {
            cut_if_late(watch, c, now_us);
            if (idle_us < watch->idle_us)
                cut_if_idle(watch, c, now_us, idle_us);
            cut_if_slow_reader(watch, c, now_us);
        }
        keep_room(watch, NULL);
        pthread_mutex_unlock(&watch->lock);
    }
}

struct slow_clients *slow_clients_start(const struct slow_clients_limits *limits)
{
    struct slow_clients *watch = calloc(1, sizeof *watch);
    if (watch == NULL)
        return NULL;
    watch->idle_us = (int64_t)limits->idle_seconds * 1000000;
    watch->request_us = (int64_t)limits->request_seconds * 1000000;
    watch->response_us = (int64_t)limits->response_seconds * 1000000;
    watch->limit = limits->connection_limit;
    pthread_mutex_init(&watch->lock, NULL);
    watch->worker = worker_start("gq-slow-clients", watch_deadlines, watch);
    if (watch->worker == NULL) {
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
    worker_stop(watch->worker);
    pthread_mutex_destroy(&watch->lock);
    free(watch);
}

void slow_clients_add(struct slow_clients *watch, struct watched_connection *connection, int socket)
{
    connection->socket = socket;
    atomic_store(&connection->cut, false);
    atomic_store(&connection->response_deadline_us, 0);
    slow_clients_awaiting_request(watch, connection);
    pthread_mutex_lock(&watch->lock);
    connection->previous = NULL;
    connection->next = watch->first;
    if (watch->first != NULL)
        watch->first->previous = connection;
    watch->first = connection;
    watch->open++;
    keep_room(watch, connection);
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
    watch->open--;
    if (atomic_load(&connection->cut))
        watch->cut--;
    pthread_mutex_unlock(&watch->lock);
}

void slow_clients_awaiting_request(const struct slow_clients *watch,
                                   struct watched_connection *connection)
{
    int64_t now_us = clock_monotonic_us();
    atomic_store_explicit(&connection->deadline_us, now_us + watch->idle_us + watch->request_us,
                          memory_order_release);
    atomic_store_explicit(&connection->idle_since_us, now_us, memory_order_release);
}

void slow_clients_request_begun(const struct slow_clients *watch,
                                struct watched_connection *connection, int64_t started_us)
{
    atomic_store_explicit(&connection->idle_since_us, 0, memory_order_release);
    atomic_store_explicit(&connection->deadline_us, started_us + watch->request_us,
                          memory_order_release);
}

void slow_clients_request_arrived(struct watched_connection *connection)
{
    atomic_store_explicit(&connection->deadline_us, 0, memory_order_release);
}

void slow_clients_answer_queued(const struct slow_clients *watch,
                                struct watched_connection *connection)
{
    atomic_store_explicit(&connection->response_deadline_us,
                          clock_monotonic_us() + watch->response_us, memory_order_release);
}

bool slow_clients_was_cut(const struct watched_connection *connection)
{
    return atomic_load_explicit(&connection->cut, memory_order_acquire);
}
