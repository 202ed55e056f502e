/*
 * Background threads (worker.h). The stop is an atomic flag and an eventfd
 * that becomes readable, so a thread that sleeps in poll() beside its own
 * descriptors (a database socket) wakes at once.
 */
#include "util/worker.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct worker {
    pthread_t thread;
    worker_function run;
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

struct worker *worker_start(const char *name, worker_function run, void *context)
{
    struct worker *worker = calloc(1, sizeof *worker);
    if (worker == NULL)
        return NULL;
    snprintf(worker->name, sizeof worker->name, "%s", name);
    worker->run = run;
    worker->context = context;
    atomic_init(&worker->stopping, false);
    worker->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (worker->wake_fd < 0) {
        free(worker);
        return NULL;
    }
    if (pthread_create(&worker->thread, NULL, run_worker, worker) != 0) {
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
    pthread_join(worker->thread, NULL);
    close(worker->wake_fd);
    free(worker);
}
