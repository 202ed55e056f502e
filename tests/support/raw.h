/*
 * A raw HTTP/1.1 client over a TCP socket, for what libcurl will not do on
 * purpose: send a body a few bytes at a time, stop in the middle of a
 * request, send malformed request lines or bytes that are not UTF-8, and
 * watch exactly when the server answers or closes.
 *
 * Responses are read as text: the status line, headers and a body of
 * Content-Length bytes (or up to the close).
 */
#ifndef GQ_TESTS_SUPPORT_RAW_H
#define GQ_TESTS_SUPPORT_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A connected socket to 127.0.0.1:port, or -1 (errno set). */
int raw_connect(uint16_t port);

/* The same from the local address `source` ("127.0.0.2": any of
 * 127.0.0.0/8 reaches the server), or -1 (errno set). */
int raw_connect_from(uint16_t port, const char *source);

/* Writes all of `data`. False when the server has closed the connection. */
bool raw_send(int fd, const char *data, size_t length);

/* Writes `data` `chunk` bytes at a time with `interval_ms` between pieces.
 * Returns the number of bytes written before the server closed the
 * connection (== length when all went out). */
size_t raw_trickle(int fd, const char *data, size_t length, size_t chunk, long interval_ms);

/* Reads one complete response (interim 1xx responses included in the text
 * when `skip_interim` is false), waiting up to `timeout_ms`. Returns the
 * text (caller frees), or NULL when the connection closed or the time ran
 * out before any byte arrived; *closed (may be NULL) tells whether the
 * server closed the connection. */
char *raw_read_response(int fd, long timeout_ms, bool skip_interim, bool *closed);

/* Connects, sends `request`, reads one response (skipping 1xx) and closes.
 * NULL when there was no answer. */
char *raw_exchange(uint16_t port, const char *request, long timeout_ms);

/* The status code of a response's first line, 0 when there is none. */
int raw_status(const char *response);

/* The body of a response (after the blank line), or "" when none. */
const char *raw_body(const char *response);

/* The value of header `name` (case-insensitive) copied into `out`; false
 * when absent. */
bool raw_header(const char *response, const char *name, char *out, size_t size);

/* True when connecting to `port` is refused within `timeout_ms` (a server
 * that stopped listening). */
bool raw_connections_refused(uint16_t port, long timeout_ms);

/* Waits up to `timeout_ms` until the server has read everything sent on
 * `fd` (the receive queue of its end of the connection, in /proc/net/tcp,
 * is empty). True when it has. For tests that must know a request was
 * taken in before they act, however slow the server is. */
bool raw_wait_until_read(int fd, long timeout_ms);

#endif
