/*
 * Logging: one JSON line per request (the access log) and plain lines for
 * start-up, shutdown and errors.
 *
 * The access log must not cost a request a system call: log_access() copies
 * its line into a shared buffer under a mutex and returns; a writer thread
 * flushes the buffer to standard output when it is a quarter full or every
 * 200 ms. When the buffer is full the line is dropped and counted (never
 * blocking a request); the count is reported on the next flush.
 */
#ifndef GQ_UTIL_LOG_H
#define GQ_UTIL_LOG_H

#include <stddef.h>
#include <stdint.h>

/* Starts the writer thread. `access_enabled` false makes log_access() a
 * no-op. Returns 0, or -1 when the thread cannot start. */
int log_start(int access_fd, int access_enabled);

/* Flushes what is buffered and stops the writer thread. Safe to call when
 * log_start() was never called. */
void log_stop(void);

/* One request, as the access log records it. Strings may be NULL. */
struct access_entry {
    const char *request_id; /* as sent in X-Request-Id */
    const char *client;     /* the peer's address as text */
    const char *method;
    const char *path;  /* decoded, as routed */
    const char *query; /* as sent, after the '?'; NULL or "" when none */
    unsigned status;   /* 0: nothing was queued */
    uint64_t bytes;    /* body bytes of the answer */
    int64_t microseconds;
    const char *interrupted; /* why it did not complete (a short word); NULL if it did */
};

/* Appends {"ts":"...","request_id":...,"client":...,"method":...,
 * "path":...,"query":...,"status":...,"bytes":...,"us":...,
 * "interrupted":...} with strings JSON-escaped, `path` and `query` cut at
 * 256 bytes each. "request_id", "client" and "method" are left out when
 * unknown, "query" when empty and "interrupted" when the request
 * completed. */
void log_access(const struct access_entry *entry);

/* A human line on standard error, "gpuquote: <level>: <message>", written
 * at once. For rare events: start-up, stop, reloads, and a request thread
 * only for a 500, never on a request's normal path. */
void log_info(const char *format, ...) __attribute__((format(printf, 1, 2)));
void log_warning(const char *format, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
