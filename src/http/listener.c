/*
 * The listening socket, bound before the database is opened.
 *
 * A port in use (or a port an unprivileged user may not bind) is then found
 * before start-up creates or migrates a database it would not serve. The
 * socket is bound but not listening until the server starts, so a client
 * that connects during a long migration is refused at once, as before,
 * instead of waiting in a queue.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/metrics.h"
#include "http/server.h"
#include "util/config.h"

/* A socket bound to `address`; -1 with a message naming `where` (the
 * configured address) and `setting`, the way to move it, in `err`, whose
 * field is `key`. */
static int bind_address(const struct sockaddr_storage *address, const char *key, const char *where,
                        const char *setting, struct gq_error *err)
{
    int fd = socket(address->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int on = 1;
    /* SO_REUSEADDR lets a restart bind while old connections are in
     * TIME_WAIT. Not SO_REUSEPORT: it would let a second instance bind the
     * same port and take half the connections. An IPv6 address serves IPv6
     * only, as libmicrohttpd's own sockets do. */
    bool bound = fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) == 0 &&
                 (address->ss_family != AF_INET6 ||
                  setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on) == 0) &&
                 bind(fd, (const struct sockaddr *)address,
                      address->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                     : sizeof(struct sockaddr_in)) == 0;
    if (!bound) {
        int cause = errno;
        if (fd >= 0)
            close(fd);
        gq_fail(err, GQ_ERR_NOT_READY, key, "cannot listen on %s: %s (%s)", where, strerror(cause),
                setting);
        return -1;
    }
    return fd;
}

int http_listener_bind(const struct gq_config *config, struct gq_error *err)
{
    struct sockaddr_storage address;
    if (!config_listen_address(config->listen, config->port, &address)) {
        gq_fail(err, GQ_ERR_INVALID_VALUE, "listen",
                "listen: '%s' is not a numeric IPv4 or IPv6 address", config->listen);
        return -1;
    }
    char where[128];
    snprintf(where, sizeof where, "%s port %u", config->listen, (unsigned)config->port);
    return bind_address(&address, "listen", where,
                        "another port: the setting port, GPUQUOTE_PORT or --port", err);
}

int http_metrics_listener_bind(const struct gq_config *config, struct gq_error *err)
{
    struct sockaddr_storage address;
    if (!config_metrics_address(config->metrics_listen, &address)) {
        gq_fail(err, GQ_ERR_INVALID_VALUE, "metrics_listen",
                "metrics_listen: '%s' is not ADDRESS:PORT", config->metrics_listen);
        return -1;
    }
    return bind_address(&address, "metrics_listen", config->metrics_listen,
                        "another address: the setting metrics_listen or GPUQUOTE_METRICS_LISTEN",
                        err);
}
