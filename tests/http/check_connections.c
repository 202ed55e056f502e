/*
 * Connections that hold a slot and do nothing with it: idle floods from
 * other addresses, idle connections under pressure, too many connections
 * from one address, idle connections to the metrics listener, and a client
 * that reads its answer too slowly.
 * In each a new client is still served, and soon.
 *
 * The flood is sized to the descriptors this process may open: CI runs
 * the suite under a hard `ulimit -n` of 1024, where 2 x 512 sockets (and a
 * server with room for them) cannot fit. The test opens 2 x N connections
 * to a server whose connection_limit is 2 x N, with N = 512 when the hard
 * limit allows and less otherwise; the server, started from this process,
 * inherits the same limit and needs a few dozen descriptors beyond its
 * connections.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/raw.h"
#include "support/server.h"
#include "support/suite.h"

#define HEALTHZ "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"
/* The flood's connections from each of two addresses, at most. */
#define FLOOD_PER_ADDRESS_MAX 512
/* Descriptors kept for everything else: this process's own and the
 * server's database, logs, listeners and threads. */
#define DESCRIPTORS_SPARED 160

/* Raises this process's soft limit on open files to the hard one and
 * returns the connections the flood may open from each address. */
static unsigned flood_per_address(void)
{
    struct rlimit files;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &files), 0);
    files.rlim_cur = files.rlim_max;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &files), 0);
    rlim_t spare = files.rlim_cur > DESCRIPTORS_SPARED ? files.rlim_cur - DESCRIPTORS_SPARED : 0;
    unsigned n = spare / 2 < FLOOD_PER_ADDRESS_MAX ? (unsigned)(spare / 2) : FLOOD_PER_ADDRESS_MAX;
    ck_assert_msg(n >= 16, "only %u connections fit under the open-files limit", n);
    return n;
}

/* Opens `count` idle connections from `source` into `fds`. */
static void open_idle(uint16_t port, const char *source, int *fds, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        fds[i] = raw_connect_from(port, source);
        ck_assert_msg(fds[i] >= 0, "connection %u from %s: %s", i,
                      source != NULL ? source : "127.0.0.1", strerror(errno));
    }
}

static void close_all(int *fds, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Sends GET `path` from 127.0.0.1 on a new connection and returns the
 * status of the answer (0: none) within `timeout_ms`, and how long it
 * took in *took_ms. */
static int timed_get(uint16_t port, const char *path, long timeout_ms, long long *took_ms)
{
    long long started = suite_now_ms();
    int fd = raw_connect(port);
    ck_assert_int_ge(fd, 0);
    char request[256];
    snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path);
    int status = 0;
    if (raw_send(fd, request, strlen(request))) {
        char *response = raw_read_response(fd, timeout_ms, true, NULL);
        status = raw_status(response);
        free(response);
    }
    *took_ms = suite_now_ms() - started;
    close(fd);
    return status;
}

/* 2 x N idle connections from 127.0.0.2 and 127.0.0.3 fill the connection
 * limit (2 x N); each address may hold all of it (per_ip_connection_limit
 * set to the limit, as behind a proxy), so only closing the longest-idle
 * connections makes room. A new client from 127.0.0.1 is served within a
 * second: /healthz, /readyz and the catalog. */
START_TEST(test_connections_new_client_served_beside_idle_floods)
{
    unsigned n = flood_per_address();
    char limit[64], per_ip[64];
    snprintf(limit, sizeof limit, "GPUQUOTE_CONNECTION_LIMIT=%u", 2 * n);
    snprintf(per_ip, sizeof per_ip, "GPUQUOTE_PER_IP_CONNECTION_LIMIT=%u", 2 * n);
    const char *const env[] = {limit, per_ip, NULL};
    struct server server = {0};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);

    int *flood = malloc(2 * n * sizeof *flood);
    ck_assert_ptr_nonnull(flood);
    open_idle(server.port, "127.0.0.2", flood, n);
    open_idle(server.port, "127.0.0.3", flood + n, n);
    suite_sleep_ms(500); /* the server has taken them in */

    const char *const paths[] = {"/healthz", "/readyz", "/catalog"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        long long took = 0;
        int status = timed_get(server.port, paths[i], suite_wait_ms(3), &took);
        ck_assert_msg(status == 200 && took <= suite_wait_ms(1),
                      "GET %s beside 2 x %u idle connections: status %d after %lld ms", paths[i], n,
                      status, took);
    }
    close_all(flood, 2 * n);
    free(flood);
    server_finish(&server);
}
END_TEST

/* Waits up to `timeout_ms` for the server to close each of `fds`; returns
 * how many it closed. */
static unsigned wait_closed(const int *fds, unsigned count, long timeout_ms)
{
    long long deadline = suite_now_ms() + timeout_ms;
    unsigned closed = 0;
    for (unsigned i = 0; i < count; i++) {
        char byte;
        struct pollfd readable = {.fd = fds[i], .events = POLLIN};
        /* past the deadline, a connection already closed still counts */
        long left = (long)(deadline - suite_now_ms());
        if (poll(&readable, 1, left > 0 ? (int)left : 0) == 1 && recv(fds[i], &byte, 1, 0) <= 0)
            closed++;
    }
    return closed;
}

/* 18 idle connections under a limit of 20, whose last one (a sixteenth,
 * at least one) is kept for new connections: the idle timeout shrinks from
 * 10 s at half the limit towards 1 s at 19, and is 1 + 9 x (19 - 18) /
 * (19 - 10) = 2 s at 18. The server starts closing them then, not after
 * 10 s, and not at once. How many go at 2 s depends on how close together
 * the server took them in: each one closed lowers the pressure and raises
 * the timeout of the rest (by 1 s a connection here), so a loaded machine
 * that accepted them over a second may close only the oldest at first. */
START_TEST(test_connections_idle_timeout_shrinks_under_pressure)
{
    const char *const env[] = {"GPUQUOTE_CONNECTION_LIMIT=20",
                               "GPUQUOTE_PER_IP_CONNECTION_LIMIT=20",
                               "GPUQUOTE_CONNECTION_TIMEOUT_SECONDS=10", NULL};
    struct server server = {0};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);

    int idle[18];
    long long opened = suite_now_ms();
    open_idle(server.port, "127.0.0.2", idle, 18);
    ck_assert_uint_eq(wait_closed(idle, 18, 1500), 0);
    unsigned closed = wait_closed(idle, 18, 2000 + suite_wait_ms(1.5) - 1500);
    long long took = suite_now_ms() - opened;
    ck_assert_msg(closed >= 1 && took <= 2000 + suite_wait_ms(1.5) + 100,
                  "%u of 18 closed after %lld ms (unshrunk, the first would go at 10 s)", closed,
                  took);
    close_all(idle, 18);
    server_finish(&server);
}
END_TEST

/* Whether the server answers GET /healthz on `fd` within `timeout_ms`. */
static bool answers(int fd, long timeout_ms)
{
    if (!raw_send(fd, HEALTHZ, strlen(HEALTHZ)))
        return false;
    char *response = raw_read_response(fd, timeout_ms, true, NULL);
    bool answered = raw_status(response) == 200;
    free(response);
    return answered;
}

/* Without per_ip_connection_limit set, one address may hold a quarter of
 * connection_limit (10 of 40): its 11th to 15th connections are closed
 * unanswered, while another address is served. */
START_TEST(test_connections_per_address_share)
{
    const char *const env[] = {"GPUQUOTE_CONNECTION_LIMIT=40", NULL};
    struct server server = {0};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);

    int fds[15];
    open_idle(server.port, "127.0.0.2", fds, 15);
    suite_sleep_ms(200);
    unsigned answered = 0;
    for (unsigned i = 0; i < 15; i++)
        answered += answers(fds[i], suite_wait_ms(2));
    ck_assert_uint_eq(answered, 10);

    int other = raw_connect_from(server.port, "127.0.0.3");
    ck_assert_int_ge(other, 0);
    ck_assert(answers(other, suite_wait_ms(1)));
    close(other);
    close_all(fds, 15);
    server_finish(&server);
}
END_TEST

/* The port the server logged for its metrics listener ("127.0.0.1:0"). */
static uint16_t logged_metrics_port(struct server *server)
{
    static const char marker[] = "metrics listening on 127.0.0.1:0 port ";
    ck_assert_msg(server_wait_for_text(server, "stderr.log", marker, suite_wait_ms(10)),
                  "the server did not log its metrics port");
    char *log = server_read(server, "stderr.log");
    unsigned port = (unsigned)strtoul(strstr(log, marker) + sizeof marker - 1, NULL, 10);
    free(log);
    ck_assert_uint_gt(port, 0);
    return (uint16_t)port;
}

/* 20 idle connections to the metrics listener, more than its 16 slots:
 * a scrape is still answered within a second. */
START_TEST(test_connections_metrics_scrape_beside_idle)
{
    const char *const env[] = {"GPUQUOTE_METRICS_LISTEN=127.0.0.1:0", NULL};
    struct server server = {0};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);
    uint16_t metrics_port = logged_metrics_port(&server);

    int idle[20];
    open_idle(metrics_port, NULL, idle, 20);
    suite_sleep_ms(300);
    long long took = 0;
    int status = timed_get(metrics_port, "/metrics", suite_wait_ms(3), &took);
    ck_assert_msg(status == 200 && took <= suite_wait_ms(1),
                  "a scrape beside 20 idle connections: status %d after %lld ms", status, took);
    close_all(idle, 20);
    server_finish(&server);
}
END_TEST

/* A client that asks for the charting library (240 KB compressed) and
 * reads a KB every 100 ms, which would take it 24 s, is cut once
 * response_timeout_seconds (2 s) have passed, and takes no more bytes
 * after that. */
START_TEST(test_connections_slow_reader_cut)
{
    const char *const env[] = {"GPUQUOTE_RESPONSE_TIMEOUT_SECONDS=2", NULL};
    struct server server = {0};
    struct server_options options = {NULL, env, false};
    server_start(&server, &options);

    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    int small = 4096; /* a small window, so that the kernel cannot take the answer for us */
    ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(server.port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&address, sizeof address), 0);
    const char *request = "GET /static/echarts.common.min.js HTTP/1.1\r\nHost: test\r\n"
                          "Accept-Encoding: gzip\r\n\r\n";
    long long started = suite_now_ms();
    ck_assert(raw_send(fd, request, strlen(request)));

    size_t received = 0;
    long long ended = -1;
    char piece[1024];
    while (suite_now_ms() - started < 2000 + suite_wait_ms(6)) {
        struct pollfd readable = {.fd = fd, .events = POLLIN};
        if (poll(&readable, 1, 1000) <= 0)
            continue;
        ssize_t got = recv(fd, piece, sizeof piece, 0);
        if (got <= 0) {
            ended = suite_now_ms() - started;
            break;
        }
        received += (size_t)got;
        suite_sleep_ms(100);
    }
    close(fd);
    ck_assert_msg(ended >= 2000 && ended <= 2000 + suite_wait_ms(2),
                  "cut after %lld ms (-1: not cut), %zu bytes read", ended, received);
    ck_assert_uint_lt(received, 200 * 1024);

    long long took = 0;
    ck_assert_int_eq(timed_get(server.port, "/healthz", suite_wait_ms(2), &took), 200);
    server_finish(&server);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("http_connections");
    TCase *pressure = tcase_create("pressure");
    suite_set_timeout(pressure, 30);
    tcase_add_test(pressure, test_connections_new_client_served_beside_idle_floods);
    tcase_add_test(pressure, test_connections_idle_timeout_shrinks_under_pressure);
    tcase_add_test(pressure, test_connections_per_address_share);
    tcase_add_test(pressure, test_connections_metrics_scrape_beside_idle);
    tcase_add_test(pressure, test_connections_slow_reader_cut);
    suite_add_tcase(suite, pressure);
    return suite;
}

int main(void)
{
    return suite_main(make_suite());
}
