/*
 * The process's own figures as Prometheus client libraries export them
 * (process_cpu_seconds_total and the rest), read from /proc/self.
 */
#ifndef GQ_UTIL_PROCESS_STATS_H
#define GQ_UTIL_PROCESS_STATS_H

#include <stdbool.h>
#include <stdint.h>

struct process_stats {
    double cpu_seconds; /* user + system */
    uint64_t resident_bytes;
    uint64_t virtual_bytes;
    uint64_t open_fds;
    uint64_t max_fds;          /* the soft limit */
    double start_time_seconds; /* unix time */
};

/* Fills *out; false when /proc/self cannot be read (*out is then zeroed,
 * and the caller leaves the series out). */
bool process_stats_read(struct process_stats *out);

#endif
