/*
 * One way to run a background thread: started with a function, woken or
 * stopped from any thread, joined at the stop. The function loops until
 * worker_stopping() (or a false worker_sleep()), and may wait on
 * worker_wake_fd() with poll() beside descriptors of its own.
 */
#ifndef GQ_UTIL_WORKER_H
#define GQ_UTIL_WORKER_H

#include <stdbool.h>

struct worker;

typedef void (*worker_function)(struct worker *worker, void *context);

/* Starts a thread named `name` (15 characters at most, seen in top -H)
 * running run(worker, context). NULL when a thread cannot be made. */
struct worker *worker_start(const char *name, worker_function run, void *context);

/* In the thread: waits up to `timeout_ms` or until a stop is asked;
 * returns false once stopping. */
bool worker_sleep(struct worker *worker, int timeout_ms);

/* True once worker_stop() has been called. */
bool worker_stopping(const struct worker *worker);

/* A descriptor that becomes readable when the stop is asked. */
int worker_wake_fd(const struct worker *worker);

/* Asks the thread to stop, waits for it to return and frees the worker.
 * NULL is fine. */
void worker_stop(struct worker *worker);

#endif
