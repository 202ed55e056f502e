/*
 * Time: wall-clock seconds for what is stored and shown (RFC 3339, UTC),
 * monotonic microseconds for measuring durations and deadlines.
 */
#ifndef GQ_UTIL_CLOCK_H
#define GQ_UTIL_CLOCK_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define CLOCK_RFC3339_SIZE 32

/* Unix seconds now. */
int64_t clock_now_seconds(void);

/* Microseconds on the monotonic clock (durations only). */
int64_t clock_monotonic_us(void);

/* The time `nanoseconds` from now on `clock`, as the timed waits of
 * pthreads take it (CLOCK_REALTIME for a mutex, a condition's own clock). */
struct timespec clock_after(clockid_t clock, int64_t nanoseconds);

/* Writes "2026-11-30T17:51:19Z" into `buf` (CLOCK_RFC3339_SIZE bytes).
 * Returns `buf`. */
char *clock_format_rfc3339(int64_t unix_seconds, char buf[CLOCK_RFC3339_SIZE]);

/* Reads an RFC 3339 date-time ("2027-01-01T00:00:00Z", "…T08:00:00+08:00",
 * fractions of a second dropped) into unix seconds. False for anything
 * else, or a date that does not exist. */
bool clock_parse_rfc3339(const char *text, int64_t *unix_seconds);

#endif
