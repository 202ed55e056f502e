/*
 * bench/parse_only.c — the second reference of `make bench`: what answering
 * POST /quote costs when the server does nothing but what every JSON API on
 * this stack must do.
 *
 * A libmicrohttpd server configured like gpuquote (a thread pool polling
 * with poll(), the same connection memory and backlog) that reads each
 * request body, parses it with jansson (the same flags as gpuquote) and
 * answers 200 with fixed bytes: the response gpuquote gives to the same
 * body. No validation, pricing, rendering or access log. Its throughput is
 * the ceiling for any server on this stack that must parse that body and
 * send that response; bench/run.sh reports gpuquote's and its ratios to
 * nginx from the same run.
 *
 * usage: parse_only PORT THREADS RESPONSE_FILE
 */
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_BODY 16384

struct request {
    size_t length;
    char body[MAX_BODY];
};

struct reply {
    char *bytes;
    size_t length;
};

static enum MHD_Result answer(void *context, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *size, void **state)
{
    (void)url, (void)method, (void)version;
    const struct reply *reply = context;
    struct request *request = *state;
    if (request == NULL) { /* first call: headers only; queueing now would lose keep-alive */
        request = malloc(sizeof *request);
        if (request == NULL)
            return MHD_NO;
        request->length = 0;
        *state = request;
        return MHD_YES;
    }
    if (*size > 0) {
        if (*size > MAX_BODY - request->length)
            return MHD_NO;
        memcpy(request->body + request->length, data, *size);
        request->length += *size;
        *size = 0;
        return MHD_YES;
    }
    json_error_t error;
    json_t *json = json_loadb(request->body, request->length,
                              JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &error);
    unsigned status = json != NULL ? MHD_HTTP_OK : MHD_HTTP_BAD_REQUEST;
    json_decref(json);
    struct MHD_Response *response = MHD_create_response_from_buffer(
        reply->length, reply->bytes, MHD_RESPMEM_PERSISTENT);
    if (response == NULL)
        return MHD_NO;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    enum MHD_Result queued = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return queued;
}

static void complete(void *context, struct MHD_Connection *connection, void **state,
                     enum MHD_RequestTerminationCode code)
{
    (void)context, (void)connection, (void)code;
    free(*state);
    *state = NULL;
}

static int read_file(const char *path, struct reply *reply)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return -1;
    reply->bytes = malloc(1 << 20);
    reply->length = reply->bytes != NULL ? fread(reply->bytes, 1, 1 << 20, file) : 0;
    fclose(file);
    return reply->length > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: parse_only PORT THREADS RESPONSE_FILE\n");
        return 2;
    }
    struct reply reply;
    if (read_file(argv[3], &reply) != 0) {
        fprintf(stderr, "parse_only: cannot read %s\n", argv[3]);
        return 2;
    }
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL); /* the pool's threads inherit it */
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, (uint16_t)atoi(argv[1]), NULL, NULL,
        answer, &reply, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)atoi(argv[2]),
        MHD_OPTION_CONNECTION_LIMIT, 4000u, MHD_OPTION_CONNECTION_TIMEOUT, 60u,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)16384, MHD_OPTION_NOTIFY_COMPLETED, complete, NULL, MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "parse_only: cannot listen on port %s\n", argv[1]);
        return 1;
    }
    int signal_number;
    sigwait(&signals, &signal_number);
    MHD_stop_daemon(daemon);
    free(reply.bytes);
    return 0;
}
