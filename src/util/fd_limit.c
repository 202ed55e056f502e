/*
 * The open-files budget (fd_limit.h): what the server holds open besides
 * its HTTP connections, counted from its configuration, and
 * connection_limit lowered to what the limit leaves.
 */
#include "util/fd_limit.h"

#include <sys/resource.h>

/* Standard input, output (the access log) and error (the error log). */
#define STANDARD_STREAMS 3u
/* libmicrohttpd wakes each polling thread through an inter-thread channel:
 * an eventfd, or a pipe's two ends where there is none. */
#define ITC_PER_THREAD 2u
/* The metrics listener's own connection limit (http/server.c). */
#define METRICS_CONNECTIONS 16u
/* A database connection: SQLite holds the file, its -wal and its -shm;
 * PostgreSQL one socket. */
#define PER_DATABASE_CONNECTION 3u
/* Beside the pool of threads + 2: SQLite's checkpointer or PostgreSQL's
 * LISTEN connection. */
#define EXTRA_DATABASE_CONNECTIONS 3u
/* A delivery: its socket and the threaded resolver's socket pair. */
#define PER_WEBHOOK_TRANSFER 3u
/* The multi handle's wake-up pair and the sender's nudge eventfd. */
#define WEBHOOK_SENDER_OWN 3u
/* An eventfd for each background worker (util/worker.c): the log writer,
 * the catalog watch, the sweeper, the webhook sender, the group-commit
 * writer, the SQLite checkpointer and the two listeners' slow-client
 * watches. A new worker thread raises this. */
#define WORKERS 8u
/* Files open for a moment: /proc for the metrics, web_dir's files, the
 * migrations, libcurl's CA bundle, resolver sockets. */
#define MARGIN 32u

uint64_t fd_limit_raise(void)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return 0;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_cur < limit.rlim_max) {
        struct rlimit raised = {limit.rlim_max, limit.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            limit.rlim_cur = limit.rlim_max;
    }
    return limit.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)limit.rlim_cur;
}

unsigned fd_limit_reserved(const struct gq_config *config, unsigned webhook_transfers)
{
    unsigned threads = config->threads > 0 ? config->threads : 1;
    /* The pool's threads and the daemon that owns them. */
    unsigned http = 1 + (threads + 1) * ITC_PER_THREAD;
    unsigned metrics =
        config->metrics_listen != NULL ? 1 + ITC_PER_THREAD + METRICS_CONNECTIONS : 0;
    unsigned database = (threads + EXTRA_DATABASE_CONNECTIONS) * PER_DATABASE_CONNECTION;
    unsigned webhooks =
        webhook_transfers > 0 ? webhook_transfers * PER_WEBHOOK_TRANSFER + WEBHOOK_SENDER_OWN : 0;
    return STANDARD_STREAMS + http + metrics + database + webhooks + WORKERS + MARGIN;
}

bool fd_limit_fit(struct gq_config *config, uint64_t limit, unsigned reserved)
{
    if (limit == 0 || limit >= (uint64_t)config->connection_limit + reserved)
        return false;
    unsigned fits = limit > reserved ? (unsigned)(limit - reserved) : 1;
    config->connection_limit = fits;
    if (config->per_ip_connection_limit_is_share)
        config->per_ip_connection_limit =
            fits >= CONFIG_PER_IP_SHARE ? fits / CONFIG_PER_IP_SHARE : 1;
    else if (config->per_ip_connection_limit > fits)
        config->per_ip_connection_limit = fits;
    return true;
}
