/*
 * One way to run a background thread: every thread of the server other
 * than libmicrohttpd's starts and stops here. A thread is started with a
 * function, stopped from the thread that started it, and joined at the
 * stop. The function loops until worker_stopping() (or a false
 * worker_sleep()), and may wait on worker_wake_fd() with poll() beside
 * descriptors of its own. A thread that waits on a condition variable of
 * its own (because the threads that hand it work must not make a system
 * call) is started with a waker, which worker_stop() calls to wake it.
 */
#ifndef GQ_UTIL_WORKER_H
#define GQ_UTIL_WORKER_H

#include <stdbool.h>

struct worker;

typedef void (*worker_function)(struct worker *worker, void *context);

/* Wakes a thread that waits on a condition variable of its own: called by
 * worker_stop() once worker_stopping() is true and before the join. It
 * should lock that variable's mutex, set what the thread's loop tests,
 * signal and unlock, so that the wake cannot fall between the thread's
 * test and its wait. */
typedef void (*worker_waker)(void *context);

/* Starts a thread named `name` (15 characters at most, seen in top -H)
 * running run(worker, context), with every signal blocked: signals are
 * the main thread's. NULL when a thread cannot be made. */
struct worker *worker_start(const char *name, worker_function run, void *context);

/* worker_start(), with wake(context) called at the stop. */
struct worker *worker_start_woken(const char *name, worker_function run, worker_waker wake,
                                  void *context);

/* In the thread: waits up to `timeout_ms` or until a stop is asked;
 * returns false once stopping. */
bool worker_sleep(struct worker *worker, int timeout_ms);

/* True once worker_stop() has been called. */
bool worker_stopping(const struct worker *worker);

/* A descriptor that becomes readable when the stop is asked. */
int worker_wake_fd(const struct worker *worker);

/* Asks the thread to stop (the flag, the descriptor, then the waker),
 * waits for it to return and frees the worker. NULL is fine. */
void worker_stop(struct worker *worker);

#endif
