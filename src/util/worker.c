/*
 * Background threads (worker.h). The stop is an atomic flag and an eventfd
 * that becomes readable, so a thread that sleeps in poll() beside its own
 * descriptors (a database socket) wakes at once; a thread that waits on a
 * condition variable instead is woken by its waker.
 */
#include "util/worker.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct worker {
    pthread_t thread;
    worker_function run;
    worker_waker wake;
    void *context;
    char name[16];
    int wake_fd;
    atomic_bool stopping;
};

static void *run_worker(void *argument)
{
    struct worker *worker = argument;
    pthread_setname_np(pthread_self(), worker->name);
    worker->run(worker, worker->context);
    return NULL;
}

/* The thread inherits the mask it is created with: every signal blocked,
 * so SIGTERM and friends reach the main thread, which waits for them. */
static bool spawn(struct worker *worker)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&worker->thread, NULL, run_worker, worker);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc == 0;
}

struct worker *worker_start(const char *name, worker_function run, void *context)
{
    return worker_start_woken(name, run, NULL, context);
}

struct worker *worker_start_woken(const char *name, worker_function run, worker_waker wake,
                                  void *context)
{
    struct worker *worker = calloc(1, sizeof *worker);
    if (worker == NULL)
        return NULL;
    snprintf(worker->name, sizeof worker->name, "%s", name);
    worker->run = run;
    worker->wake = wake;
    worker->context = context;
    atomic_init(&worker->stopping, false);
    worker->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (worker->wake_fd < 0) {
        free(worker);
        return NULL;
    }
    if (!spawn(worker)) {
        close(worker->wake_fd);
        free(worker);
        return NULL;
    }
    return worker;
}

bool worker_stopping(const struct worker *worker)
{
    return atomic_load(&worker->stopping);
}

int worker_wake_fd(const struct worker *worker)
{
    return worker->wake_fd;
}

bool worker_sleep(struct worker *worker, int timeout_ms)
{
    if (worker_stopping(worker))
        return false;
    struct pollfd wake = {.fd = worker->wake_fd, .events = POLLIN};
    while (poll(&wake, 1, timeout_ms) < 0 && errno == EINTR)
        continue;
    return !worker_stopping(worker);
}

void worker_stop(struct worker *worker)
{
    if (worker == NULL)
        return;
    atomic_store(&worker->stopping, true);
    uint64_t one = 1;
    ssize_t written = write(worker->wake_fd, &one, sizeof one);
    (void)written; /* the counter cannot overflow from one write */
    if (worker->wake != NULL)
        worker->wake(worker->context);
    pthread_join(worker->thread, NULL);
    close(worker->wake_fd);
    free(worker);
}
