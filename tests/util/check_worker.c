/*
 * Tests of the background-thread helper: a thread runs named and with
 * every signal blocked, sleeps until its timeout or its stop, and a thread
 * that waits on a condition variable of its own is woken by its waker,
 * called once the stop is visible.
 */
#include "util/worker.h"

#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"

/* What the thread saw of itself, read after the join. */
struct observed {
    char name[16];
    bool usr1_blocked;
    bool term_blocked;
    int sleeps_timed_out;
    bool sleep_after_stop;
    atomic_bool in_long_sleep; /* set just before the sleep only a stop ends */
};

static void observe(struct worker *worker, void *context)
{
    struct observed *seen = context;
    pthread_getname_np(pthread_self(), seen->name, sizeof seen->name);
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    seen->usr1_blocked = sigismember(&mask, SIGUSR1) == 1;
    seen->term_blocked = sigismember(&mask, SIGTERM) == 1;
    while (seen->sleeps_timed_out < 2 && worker_sleep(worker, 1))
        seen->sleeps_timed_out++;
    atomic_store(&seen->in_long_sleep, true);
    while (worker_sleep(worker, 60 * 1000))
        continue;
    seen->sleep_after_stop = worker_sleep(worker, 0);
}

START_TEST(test_thread_is_named_blocks_signals_and_sleeps)
{
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, NULL); /* the starter blocks nothing */
    struct observed seen = {0};
    struct worker *worker = worker_start("gq-test", observe, &seen);
    ck_assert_ptr_nonnull(worker);
    struct timespec pause = {0, 1000 * 1000};
    while (!atomic_load(&seen.in_long_sleep))
        nanosleep(&pause, NULL);
    int64_t started_us = clock_monotonic_us();
    worker_stop(worker); /* wakes the 60 s sleep at once */
    ck_assert_int_lt(clock_monotonic_us() - started_us, 10 * 1000 * 1000);
    ck_assert_str_eq(seen.name, "gq-test");
    ck_assert(seen.usr1_blocked);
    ck_assert(seen.term_blocked);
    ck_assert_int_eq(seen.sleeps_timed_out, 2);
    ck_assert(!seen.sleep_after_stop);
}
END_TEST

/* A thread that waits, without a timeout, on a condition variable of its
 * own: only its waker can end the wait. */
struct waiter {
    struct worker *worker;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stopping;
    int wakes;
    bool stop_visible_to_waker;
    bool returned;
};

static void wait_for_stop(struct worker *worker, void *context)
{
    (void)worker;
    struct waiter *waiter = context;
    pthread_mutex_lock(&waiter->lock);
    while (!waiter->stopping)
        pthread_cond_wait(&waiter->wake, &waiter->lock);
    waiter->returned = true;
    pthread_mutex_unlock(&waiter->lock);
}

static void wake_waiter(void *context)
{
    struct waiter *waiter = context;
    pthread_mutex_lock(&waiter->lock);
    waiter->wakes++;
    waiter->stop_visible_to_waker = worker_stopping(waiter->worker);
    waiter->stopping = true;
    pthread_cond_signal(&waiter->wake);
    pthread_mutex_unlock(&waiter->lock);
}

START_TEST(test_waker_ends_a_condition_wait)
{
    struct waiter waiter = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};
    waiter.worker = worker_start_woken("gq-test-waiter", wait_for_stop, wake_waiter, &waiter);
    ck_assert_ptr_nonnull(waiter.worker);
    worker_stop(waiter.worker);
    ck_assert(waiter.returned);
    ck_assert_int_eq(waiter.wakes, 1);
    ck_assert(waiter.stop_visible_to_waker);
}
END_TEST

static Suite *worker_suite(void)
{
    Suite *suite = suite_create("worker");
    TCase *tc = tcase_create("worker");
    tcase_add_test(tc, test_thread_is_named_blocks_signals_and_sleeps);
    tcase_add_test(tc, test_waker_ends_a_condition_wait);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(worker_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
