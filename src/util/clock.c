/*
 * Wall and monotonic clocks. clock_gettime() is answered by the vDSO, so
 * reading the time costs no system call on the request path.
 */
#include "util/clock.h"

#include <stdio.h>
#include <string.h>
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

/* `count` digits at `text` as a number; -1 when they are not digits. */
static int digits(const char *text, int count)
{
    int value = 0;
    for (int i = 0; i < count; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

static bool is_leap(int year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

/* Days from 1970-01-01 to the date (proleptic Gregorian). */
static int64_t days_from_epoch(int year, int month, int day)
{
    int y = year - (month <= 2);
    int era = (y >= 0 ? y : y - 399) / 400;
    int year_of_era = y - era * 400;
    int day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return (int64_t)era * 146097 + day_of_era - 719468;
}

bool clock_parse_rfc3339(const char *text, int64_t *unix_seconds)
{
    static const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (strlen(text) < 20 || text[4] != '-' || text[7] != '-' ||
        (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':')
        return false;
    int year = digits(text, 4), month = digits(text + 5, 2), day = digits(text + 8, 2);
    int hour = digits(text + 11, 2), minute = digits(text + 14, 2), second = digits(text + 17, 2);
    if (year < 1970 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 ||
        minute > 59 || second < 0 || second > 59)
        return false;
    int last = month_days[month - 1] + (month == 2 && is_leap(year));
    if (day > last)
        return false;
    const char *rest = text + 19;
    if (*rest == '.') { /* a fraction of a second, dropped */
        rest++;
        if (*rest < '0' || *rest > '9')
            return false;
        while (*rest >= '0' && *rest <= '9')
            rest++;
    }
    int offset = 0;
    if ((*rest == 'Z' || *rest == 'z') && rest[1] == '\0') {
        offset = 0;
    } else if ((*rest == '+' || *rest == '-') && strlen(rest) == 6 && rest[3] == ':') {
        int hours = digits(rest + 1, 2), minutes = digits(rest + 4, 2);
        if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59)
            return false;
        offset = (hours * 60 + minutes) * 60 * (*rest == '+' ? 1 : -1);
    } else {
        return false;
    }
    *unix_seconds =
        days_from_epoch(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
    return true;
}
