/*
 * The test webhook receiver (receiver.h).
 */
#include "support/receiver.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

struct receiver {
    int listener;
    uint16_t port;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t arrived;
    bool stopping;
    enum receiver_mode mode;
    char secret[128];
    struct received items[RECEIVER_MAX];
    size_t count;
    int hung[64]; /* connections left unanswered */
    size_t n_hung;
};

static int64_t now_ms(void)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    return (int64_t)now.tv_sec * 1000 + now.tv_usec / 1000;
}

static const char *header_value(const char *head, const char *name, char *out, size_t size)
{
    size_t length = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line != NULL; line = strstr(line + 2, "\r\n")) {
        const char *start = line + 2;
        if (strncasecmp(start, name, length) == 0 && start[length] == ':') {
            const char *value = start + length + 1;
            while (*value == ' ')
                value++;
            size_t n = strcspn(value, "\r");
            if (n >= size)
                n = size - 1;
            memcpy(out, value, n);
            out[n] = '\0';
            return out;
        }
    }
    out[0] = '\0';
    return NULL;
}

/* OpenSSL's HMAC-SHA256 of "id.timestamp.body" with the decoded secret,
 * compared with each "v1,..." of the header. */
static bool verify(const char *secret, const char *id, const char *timestamp, const char *body,
                   size_t body_length, const char *signatures)
{
    if (strncmp(secret, "whsec_", 6) != 0)
        return false;
    unsigned char key[128];
    int key_length =
        EVP_DecodeBlock(key, (const unsigned char *)secret + 6, (int)strlen(secret + 6));
    if (key_length <= 0)
        return false;
    size_t padding = strlen(secret) - strcspn(secret, "=");
    key_length -= (int)padding;
    size_t message_length = strlen(id) + 1 + strlen(timestamp) + 1 + body_length;
    unsigned char *message = malloc(message_length);
    if (message == NULL)
        return false;
    int n = sprintf((char *)message, "%s.%s.", id, timestamp);
    memcpy(message + n, body, body_length);
    unsigned char digest[32];
    unsigned int digest_length = 0;
    HMAC(EVP_sha256(), key, key_length, message, message_length, digest, &digest_length);
    free(message);
    char expected[80] = "v1,";
    EVP_EncodeBlock((unsigned char *)expected + 3, digest, (int)digest_length);
    char copy[512];
    snprintf(copy, sizeof copy, "%s", signatures);
    for (char *save = NULL, *token = strtok_r(copy, " ", &save); token != NULL;
         token = strtok_r(NULL, " ", &save))
        if (strcmp(token, expected) == 0)
            return true;
    return false;
}

/* Records a request; returns how to answer it, read with the record so
 * that a test that changes the mode once N requests arrived changes the
 * answer of the next one, not of the N-th. */
static enum receiver_mode record(struct receiver *receiver, const char *head, const char *body,
                                 size_t body_length)
{
    struct received item = {.at_ms = now_ms()};
    char timestamp[32], signature[512];
    header_value(head, "webhook-id", item.id, sizeof item.id);
    header_value(head, "webhook-timestamp", timestamp, sizeof timestamp);
    header_value(head, "webhook-signature", signature, sizeof signature);
    item.timestamp = atoll(timestamp);
    json_t *event = json_loadb(body, body_length, 0, NULL);
    snprintf(item.type, sizeof item.type, "%s",
             json_string_value(json_object_get(event, "type")) ?: "");
    json_t *object = json_object_get(json_object_get(event, "data"), "object");
    snprintf(item.object_id, sizeof item.object_id, "%s",
             json_string_value(json_object_get(object, "id")) ?: "");
    /* webhook-id is the event's id. */
    bool same_id = strcmp(item.id, json_string_value(json_object_get(event, "id")) ?: "") == 0;
    json_decref(event);
    pthread_mutex_lock(&receiver->lock);
    item.valid =
        same_id && verify(receiver->secret, item.id, timestamp, body, body_length, signature);
    if (receiver->count < RECEIVER_MAX)
        receiver->items[receiver->count++] = item;
    enum receiver_mode mode = receiver->mode;
    pthread_cond_broadcast(&receiver->arrived);
    pthread_mutex_unlock(&receiver->lock);
    return mode;
}

/* Reads one request from `fd`, records it and answers as the mode says. */
static void serve(struct receiver *receiver, int fd)
{
    static char buffer[1 << 20];
    size_t used = 0;
    char *end = NULL;
    struct pollfd wait = {.fd = fd, .events = POLLIN};
    while (end == NULL && used < sizeof buffer - 1 && poll(&wait, 1, 5000) > 0) {
        ssize_t got = read(fd, buffer + used, sizeof buffer - 1 - used);
        if (got <= 0)
            break;
        used += (size_t)got;
        buffer[used] = '\0';
        end = strstr(buffer, "\r\n\r\n");
    }
    if (end == NULL) {
        close(fd);
        return;
    }
    *end = '\0';
    char length_text[32];
    header_value(buffer, "content-length", length_text, sizeof length_text);
    size_t body_length = (size_t)atol(length_text);
    size_t head_length = (size_t)(end - buffer) + 4;
    while (used < head_length + body_length && used < sizeof buffer - 1 &&
           poll(&wait, 1, 5000) > 0) {
        ssize_t got = read(fd, buffer + used, sizeof buffer - 1 - used);
        if (got <= 0)
            break;
        used += (size_t)got;
    }
    enum receiver_mode mode = record(receiver, buffer, buffer + head_length, body_length);
    pthread_mutex_lock(&receiver->lock);
    if (mode == RECEIVER_HANG && receiver->n_hung < 64) {
        receiver->hung[receiver->n_hung++] = fd;
        pthread_mutex_unlock(&receiver->lock);
        return;
    }
    pthread_mutex_unlock(&receiver->lock);
    if (mode == RECEIVER_OK || mode == RECEIVER_FAIL) {
        const char *answer =
            mode == RECEIVER_OK
                ? "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                : "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n"
                  "Connection: close\r\n\r\n";
        ssize_t sent = write(fd, answer, strlen(answer));
        (void)sent;
    }
    close(fd);
}

static void *run(void *argument)
{
    struct receiver *receiver = argument;
    for (;;) {
        pthread_mutex_lock(&receiver->lock);
        bool stopping = receiver->stopping;
        pthread_mutex_unlock(&receiver->lock);
        if (stopping)
            break;
        struct pollfd wait = {.fd = receiver->listener, .events = POLLIN};
        if (poll(&wait, 1, 100) <= 0)
            continue;
        int fd = accept(receiver->listener, NULL, NULL);
        if (fd >= 0)
            serve(receiver, fd);
    }
    return NULL;
}

struct receiver *receiver_start(void)
{
    struct receiver *receiver = calloc(1, sizeof *receiver);
    if (receiver == NULL)
        return NULL;
    receiver->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    if (receiver->listener < 0 ||
        bind(receiver->listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(receiver->listener, 64) != 0 ||
        getsockname(receiver->listener, (struct sockaddr *)&address, &length) != 0) {
        if (receiver->listener >= 0)
            close(receiver->listener);
        free(receiver);
        return NULL;
    }
    receiver->port = ntohs(address.sin_port);
    pthread_mutex_init(&receiver->lock, NULL);
    pthread_cond_init(&receiver->arrived, NULL);
    pthread_create(&receiver->thread, NULL, run, receiver);
    return receiver;
}

uint16_t receiver_port(const struct receiver *receiver)
{
    return receiver->port;
}

void receiver_set_secret(struct receiver *receiver, const char *secret)
{
    pthread_mutex_lock(&receiver->lock);
    snprintf(receiver->secret, sizeof receiver->secret, "%s", secret);
    pthread_mutex_unlock(&receiver->lock);
}

void receiver_set_mode(struct receiver *receiver, enum receiver_mode mode)
{
    pthread_mutex_lock(&receiver->lock);
    receiver->mode = mode;
    pthread_mutex_unlock(&receiver->lock);
}

size_t receiver_count(struct receiver *receiver)
{
    pthread_mutex_lock(&receiver->lock);
    size_t count = receiver->count;
    pthread_mutex_unlock(&receiver->lock);
    return count;
}

struct received receiver_get(struct receiver *receiver, size_t i)
{
    pthread_mutex_lock(&receiver->lock);
    struct received item = receiver->items[i];
    pthread_mutex_unlock(&receiver->lock);
    return item;
}

bool receiver_wait(struct receiver *receiver, size_t count, long timeout_ms)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&receiver->lock);
    while (receiver->count < count &&
           pthread_cond_timedwait(&receiver->arrived, &receiver->lock, &deadline) == 0)
        ;
    bool arrived = receiver->count >= count;
    pthread_mutex_unlock(&receiver->lock);
    return arrived;
}

void receiver_stop(struct receiver *receiver)
{
    if (receiver == NULL)
        return;
    pthread_mutex_lock(&receiver->lock);
    receiver->stopping = true;
    pthread_mutex_unlock(&receiver->lock);
    pthread_join(receiver->thread, NULL);
    for (size_t i = 0; i < receiver->n_hung; i++)
        close(receiver->hung[i]);
    close(receiver->listener);
    pthread_cond_destroy(&receiver->arrived);
    pthread_mutex_destroy(&receiver->lock);
    free(receiver);
}
