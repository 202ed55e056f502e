/*
 * The server: binding the listeners (listener.c) and running
 * libmicrohttpd's daemon over them (server.c).
 */
#ifndef GQ_HTTP_SERVER_H
#define GQ_HTTP_SERVER_H

#include <stdint.h>

#include "core/error.h"
#include "http/app.h"
#include "util/config.h"

struct http_server;

/* Binds config->listen:config->port without listening yet (listener.c),
 * so that a port in use is found before the database is touched. Returns
 * the socket, or -1 with a message in `err`. */
int http_listener_bind(const struct gq_config *config, struct gq_error *err);

/* The same for config->metrics_listen ("127.0.0.1:9464"). */
int http_metrics_listener_bind(const struct gq_config *config, struct gq_error *err);

/* Starts libmicrohttpd's thread pool listening on the socket
 * http_listener_bind() returned, which it closes (the daemon serves a
 * duplicate). Returns NULL with a message in `err` when it cannot serve. */
struct http_server *http_server_start(struct app *app, int listener, struct gq_error *err);

/* The port actually bound (the configured one, or the ephemeral one). */
uint16_t http_server_port(const struct http_server *server);

/* Stops accepting connections, waits up to `grace_ms` for requests in
 * flight to complete, then stops the daemon and frees the server. */
void http_server_stop(struct http_server *server, int grace_ms);

#endif
