/*
 * The raw socket client: plain connect/send/poll/recv on loopback.
 *
 * Reading stops at the end of the first final response: headers up to the
 * blank line, then Content-Length bytes; without Content-Length (or for a
 * 1xx, 204 or 304 status) the body is empty. Every wait is bounded.
 */
#include "support/raw.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/suite.h"

int raw_connect(uint16_t port)
{
    return raw_connect_from(port, NULL);
}

int raw_connect_from(uint16_t port, const char *source)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in local = {.sin_family = AF_INET};
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if ((source != NULL && (inet_pton(AF_INET, source, &local.sin_addr) != 1 ||
                            bind(fd, (struct sockaddr *)&local, sizeof local) != 0)) ||
        connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    return fd;
}

bool raw_send(int fd, const char *data, size_t length)
{
    while (length > 0) {
        ssize_t sent = send(fd, data, length, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent <= 0)
            return false;
        data += sent;
        length -= (size_t)sent;
    }
    return true;
}

/* True when the peer has closed: readable with nothing to read, or reset. */
static bool peer_closed(int fd)
{
    struct pollfd watch = {.fd = fd, .events = POLLIN};
    if (poll(&watch, 1, 0) <= 0)
        return false;
    if (watch.revents & (POLLERR | POLLHUP))
        return true;
    char byte;
    ssize_t got = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

size_t raw_trickle(int fd, const char *data, size_t length, size_t chunk, long interval_ms)
{
    size_t sent = 0;
    while (sent < length) {
        size_t piece = length - sent < chunk ? length - sent : chunk;
        if (peer_closed(fd) || !raw_send(fd, data + sent, piece))
            return sent;
        sent += piece;
        if (sent < length)
            suite_sleep_ms(interval_ms);
    }
    return sent;
}

/* Where the headers end (after "\r\n\r\n"), or NULL. */
static const char *headers_end(const char *text)
{
    const char *end = strstr(text, "\r\n\r\n");
    return end ? end + 4 : NULL;
}

bool raw_header(const char *response, const char *name, char *out, size_t size)
{
    const char *end = headers_end(response);
    size_t name_length = strlen(name);
    for (const char *line = strstr(response, "\r\n"); line != NULL && (end == NULL || line < end);
         line = strstr(line + 2, "\r\n")) {
        const char *start = line + 2;
        if (strncasecmp(start, name, name_length) != 0 || start[name_length] != ':')
            continue;
        const char *value = start + name_length + 1;
        value += strspn(value, " \t");
        size_t length = strcspn(value, "\r\n");
        snprintf(out, size, "%.*s", (int)length, value);
        return true;
    }
    return false;
}

int raw_status(const char *response)
{
    int status = 0;
    if (response == NULL || sscanf(response, "HTTP/1.%*d %d", &status) != 1)
        return 0;
    return status;
}

const char *raw_body(const char *response)
{
    const char *end = headers_end(response);
    return end ? end : "";
}

/* Bytes the response at `text` needs in all, or 0 while its headers are
 * incomplete. */
static size_t response_size(const char *text)
{
    const char *end = headers_end(text);
    if (end == NULL)
        return 0;
    size_t header_size = (size_t)(end - text);
    int status = raw_status(text);
    char value[32];
    if ((status >= 100 && status < 200) || status == 204 || status == 304 ||
        !raw_header(text, "Content-Length", value, sizeof value))
        return header_size;
    return header_size + strtoul(value, NULL, 10);
}

char *raw_read_response(int fd, long timeout_ms, bool skip_interim, bool *closed)
{
    size_t length = 0, capacity = 8192, start = 0;
    char *text = malloc(capacity);
    if (text == NULL)
        return NULL;
    text[0] = '\0';
    long long deadline = suite_now_ms() + timeout_ms;
    if (closed != NULL)
        *closed = false;
    for (;;) {
        size_t need = response_size(text + start);
        if (need > 0 && length - start >= need) {
            int status = raw_status(text + start);
            if (!(skip_interim && status >= 100 && status < 200)) {
                memmove(text, text + start, length - start + 1);
                return text;
            }
            start += need;
            continue;
        }
        long left = (long)(deadline - suite_now_ms());
        struct pollfd watch = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&watch, 1, (int)left) <= 0)
            break;
        if (length + 4096 + 1 > capacity) {
            capacity *= 2;
            char *grown = realloc(text, capacity);
            if (grown == NULL)
                break;
            text = grown;
        }
        ssize_t got = recv(fd, text + length, capacity - length - 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (closed != NULL)
                *closed = true;
            break;
        }
        length += (size_t)got;
        text[length] = '\0';
    }
    if (length > start) { /* a response cut short: the caller sees what came */
        memmove(text, text + start, length - start + 1);
        return text;
    }
    free(text);
    return NULL;
}

char *raw_exchange(uint16_t port, const char *request, long timeout_ms)
{
    int fd = raw_connect(port);
    if (fd < 0)
        return NULL;
    char *response = NULL;
    if (raw_send(fd, request, strlen(request)))
        response = raw_read_response(fd, timeout_ms, true, NULL);
    close(fd);
    return response;
}

bool raw_connections_refused(uint16_t port, long timeout_ms)
{
    long long deadline = suite_now_ms() + timeout_ms;
    for (;;) {
        int fd = raw_connect(port);
        if (fd < 0)
            return true;
        close(fd);
        if (suite_now_ms() > deadline)
            return false;
        suite_sleep_ms(10);
    }
}

/* The receive queue of the IPv4 socket whose local end is `local` and whose
 * remote end is `remote`, from /proc/net/tcp; -1 when it is not listed. */
static long receive_queue(const struct sockaddr_in *local, const struct sockaddr_in *remote)
{
    FILE *table = fopen("/proc/net/tcp", "r");
    if (table == NULL)
        return -1;
    char line[512];
    long queue = -1;
    if (fgets(line, sizeof line, table) == NULL) { /* the header */
        fclose(table);
        return -1;
    }
    while (queue < 0 && fgets(line, sizeof line, table) != NULL) {
        unsigned local_ip, local_port, remote_ip, remote_port, state;
        unsigned long tx_queue, rx_queue;
        if (sscanf(line, " %*d: %8X:%4X %8X:%4X %2X %8lX:%8lX", &local_ip, &local_port, &remote_ip,
                   &remote_port, &state, &tx_queue, &rx_queue) != 7)
            continue;
        /* The table holds addresses as the kernel stores them (network
         * order read as a host-order number) and ports in host order. */
        if (local_ip == local->sin_addr.s_addr && local_port == ntohs(local->sin_port) &&
            remote_ip == remote->sin_addr.s_addr && remote_port == ntohs(remote->sin_port))
            queue = (long)rx_queue;
    }
    fclose(table);
    return queue;
}

bool raw_wait_until_read(int fd, long timeout_ms)
{
    struct sockaddr_in client, server;
    socklen_t length = sizeof client;
    if (getsockname(fd, (struct sockaddr *)&client, &length) != 0)
        return false;
    length = sizeof server;
    if (getpeername(fd, (struct sockaddr *)&server, &length) != 0)
        return false;
    for (long waited = 0; waited <= timeout_ms; waited += 10) {
        if (receive_queue(&server, &client) == 0)
            return true;
        usleep(10 * 1000);
    }
    return false;
}
