/*
 * A real Prometheus server for a test (Debian's prometheus package,
 * /usr/bin/prometheus): started in a temporary directory of its own (under
 * suite_temp_root()) with a one-target scrape configuration, on a free
 * loopback port, scraping every second; queried through its HTTP API.
 *
 * It leads a process group of its own and dies with the test process
 * (PR_SET_PDEATHSIG); prometheus_stop() ends the group (SIGTERM, then
 * SIGKILL) and removes the directory whatever state it is in, so call it
 * from the test's teardown too: it is safe to call twice, and on a
 * Prometheus that never started.
 */
#ifndef GQ_TESTS_SUPPORT_PROMETHEUS_H
#define GQ_TESTS_SUPPORT_PROMETHEUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct prometheus {
    pid_t pid; /* 0 when not running */
    uint16_t port;
    char dir[256];
};

/* Starts Prometheus scraping http://127.0.0.1:target_port/metrics (job
 * "gpuquote") and waits until it answers /-/ready. Fails the test when it
 * does not start. */
void prometheus_start(struct prometheus *prometheus, uint16_t target_port);

/* The value of the first series of the instant query `query` (PromQL, not
 * yet URL-encoded), waiting up to `timeout_ms` until the query has one and
 * it is `wanted` (then returns it) — so the first scrape may be awaited.
 * Returns the last value read (NaN when there was none) when the time runs
 * out. */
double prometheus_query_until(struct prometheus *prometheus, const char *query, double wanted,
                              long timeout_ms);

/* Stops the process group and removes the directory. */
void prometheus_stop(struct prometheus *prometheus);

/* Runs `promtool check metrics` on `exposition`; returns its exit status
 * and puts what it printed (lint complaints) in *output, for the caller to
 * free. */
int promtool_check_metrics(const char *exposition, char **output);

#endif
