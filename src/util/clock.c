/*
 * Wall and monotonic clocks. clock_gettime() is answered by the vDSO, so
 * reading the time costs no system call on the request path.
 */
#include "util/clock.h"

#include <stdio.h>
#include <time.h>

int64_t clock_now_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec;
}

int64_t clock_monotonic_us(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

struct timespec clock_after(clockid_t clock, int64_t nanoseconds)
{
    struct timespec at;
    clock_gettime(clock, &at);
    int64_t total = at.tv_nsec + nanoseconds;
    at.tv_sec += (time_t)(total / 1000000000);
    at.tv_nsec = (long)(total % 1000000000);
    return at;
}

char *clock_format_rfc3339(int64_t unix_seconds, char buf[CLOCK_RFC3339_SIZE])
{
    time_t seconds = (time_t)unix_seconds;
    struct tm utc;
    if (gmtime_r(&seconds, &utc) == NULL ||
        strftime(buf, CLOCK_RFC3339_SIZE, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0)
        snprintf(buf, CLOCK_RFC3339_SIZE, "1970-01-01T00:00:00Z");
    return buf;
}
