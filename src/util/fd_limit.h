/*
 * The open-files limit and the connections that fit in it. A server whose
 * connection_limit is above what its RLIMIT_NOFILE leaves once the
 * database, the listeners, the webhook sender and the threads have their
 * descriptors would fail accept() with EMFILE under load ("Too many open
 * files"); instead, at start, the soft limit is raised to the hard one and
 * connection_limit is lowered to what fits, with one warning.
 */
#ifndef GQ_UTIL_FD_LIMIT_H
#define GQ_UTIL_FD_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "util/config.h"

/* Raises the soft RLIMIT_NOFILE to the hard limit. Returns the soft limit
 * in force afterwards (UINT64_MAX when unlimited, 0 when it cannot be
 * read); when raising fails the old soft limit stays and is returned. */
uint64_t fd_limit_raise(void);

/* The descriptors a server with `config` needs besides its HTTP
 * connections, with `webhook_transfers` deliveries at once (0 when the
 * sender does not run). */
unsigned fd_limit_reserved(const struct gq_config *config, unsigned webhook_transfers);

/* Lowers config->connection_limit to what `limit` leaves after `reserved`
 * (at least 1), and per_ip_connection_limit with it: the same share of the
 * lower limit when it was not set, else the lower limit when above it.
 * Returns whether it lowered anything. */
bool fd_limit_fit(struct gq_config *config, uint64_t limit, unsigned reserved);

#endif
