/*
 * Process figures from /proc/self/stat, /proc/self/fd and /proc/stat
 * (proc(5)), as the Prometheus client libraries read them.
 */
#include "util/process_stats.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* /proc/self/stat's fields after the command name (which may hold spaces
 * and parentheses, hence the last ')'), numbered from 3 as proc(5) does. */
#define STAT_UTIME 14
#define STAT_STIME 15
#define STAT_STARTTIME 22
#define STAT_VSIZE 23
#define STAT_RSS 24

/* Reads fields 3..STAT_RSS of /proc/self/stat into fields[]; false when it
 * cannot. */
static bool read_stat_fields(unsigned long long fields[STAT_RSS + 1])
{
    char line[1024];
    FILE *file = fopen("/proc/self/stat", "r");
    if (file == NULL)
        return false;
    bool read = fgets(line, sizeof line, file) != NULL;
    fclose(file);
    const char *at = read ? strrchr(line, ')') : NULL;
    if (at == NULL)
        return false;
    at += 2;                /* ") " */
    at += strcspn(at, " "); /* field 3, the state, is a letter */
    for (int field = 4; field <= STAT_RSS; field++) {
        char *end;
        fields[field] = strtoull(at, &end, 10);
        if (end == at)
            return false;
        at = end;
    }
    return true;
}

/* The boot time (unix seconds) from /proc/stat's btime line; 0 when absent. */
static unsigned long long boot_time(void)
{
    FILE *file = fopen("/proc/stat", "r");
    if (file == NULL)
        return 0;
    char line[256];
    unsigned long long seconds = 0;
    while (fgets(line, sizeof line, file) != NULL)
        if (sscanf(line, "btime %llu", &seconds) == 1)
            break;
    fclose(file);
    return seconds;
}

/* The descriptors open, not counting the one that lists them. */
static uint64_t count_open_fds(void)
{
    DIR *directory = opendir("/proc/self/fd");
    if (directory == NULL)
        return 0;
    uint64_t count = 0;
    const struct dirent *entry;
    while ((entry = readdir(directory)) != NULL)
        if (entry->d_name[0] != '.')
            count++;
    closedir(directory);
    return count > 0 ? count - 1 : 0;
}

bool process_stats_read(struct process_stats *out)
{
    memset(out, 0, sizeof *out);
    unsigned long long fields[STAT_RSS + 1];
    if (!read_stat_fields(fields))
        return false;
    double ticks = (double)sysconf(_SC_CLK_TCK);
    long page = sysconf(_SC_PAGESIZE);
    if (ticks <= 0 || page <= 0)
        return false;
    out->cpu_seconds = (double)(fields[STAT_UTIME] + fields[STAT_STIME]) / ticks;
    out->virtual_bytes = fields[STAT_VSIZE];
    out->resident_bytes = fields[STAT_RSS] * (uint64_t)page;
    out->start_time_seconds = (double)boot_time() + (double)fields[STAT_STARTTIME] / ticks;
    out->open_fds = count_open_fds();
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0)
        out->max_fds = limit.rlim_cur == RLIM_INFINITY ? 0 : (uint64_t)limit.rlim_cur;
    return true;
}
