/*
 * Connections that make no progress (slow_clients.c).
 */
#ifndef GQ_HTTP_SLOW_CLIENTS_H
#define GQ_HTTP_SLOW_CLIENTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* A watch over one listener's open connections and a thread that cuts
 * those whose request does not arrive in time, whose client does not take
 * its answer in time, or that idle while the listener runs out of room. */
struct slow_clients;

/* One connection as the watch sees it, kept in the connection's own state.
 * The list links belong to the watch. */
struct watched_connection {
    struct watched_connection *previous, *next;
    int socket;
    _Atomic int64_t deadline_us;          /* monotonic; 0 once the request has arrived */
    _Atomic int64_t idle_since_us;        /* waiting for a request since; 0 while one is on */
    _Atomic int64_t response_deadline_us; /* the last answer's; 0 when none is pending */
    atomic_bool cut;                      /* the watch shut its socket down */
};

/* What the watch holds a listener's connections to. */
struct slow_clients_limits {
    unsigned idle_seconds;     /* libmicrohttpd's idle timeout */
    unsigned request_seconds;  /* a request must arrive within this */
    unsigned response_seconds; /* an answer must be taken within this */
    unsigned connection_limit; /* the listener's; room is kept under it */
};

/* Starts the watch's thread. NULL when a thread cannot be made. */
struct slow_clients *slow_clients_start(const struct slow_clients_limits *limits);

/* Stops the thread and frees the watch; every connection must have been
 * removed. NULL is ignored. */
void slow_clients_stop(struct slow_clients *watch);

/* A connection opened on `socket`: it now waits for its first request.
 * When it takes the room kept for new connections, the connections that
 * have waited longest for a request are closed. */
void slow_clients_add(struct slow_clients *watch, struct watched_connection *connection,
                      int socket);

/* The connection closes; called before its socket is closed. */
void slow_clients_remove(struct slow_clients *watch, struct watched_connection *connection);

/* The connection's last request is over; it waits for the next one. */
void slow_clients_awaiting_request(const struct slow_clients *watch,
                                   struct watched_connection *connection);

/* A request line arrived at `started_us`: the rest of the request has
 * until the request deadline (and the watch's grace). */
void slow_clients_request_begun(const struct slow_clients *watch,
                                struct watched_connection *connection, int64_t started_us);

/* The whole request has arrived: it is handled without a deadline. */
void slow_clients_request_arrived(struct watched_connection *connection);

/* An answer has been queued: the client has until the response deadline
 * to take it. */
void slow_clients_answer_queued(const struct slow_clients *watch,
                                struct watched_connection *connection);

/* True when the watch cut the connection. */
bool slow_clients_was_cut(const struct watched_connection *connection);

#endif
