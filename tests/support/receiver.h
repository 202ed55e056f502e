/*
 * A webhook receiver for the tests: a small HTTP server on a loopback port,
 * on a thread of its own, that checks every delivery's signature with an
 * implementation of its own (OpenSSL's HMAC and base64, not the nettle the
 * service signs with) and records what arrives. It answers 200, or 500,
 * or hangs (reads the request and never answers), or closes the
 * connection without answering, as the test sets it.
 */
#ifndef GQ_TESTS_SUPPORT_RECEIVER_H
#define GQ_TESTS_SUPPORT_RECEIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum receiver_mode { RECEIVER_OK, RECEIVER_FAIL, RECEIVER_HANG, RECEIVER_CLOSE };

#define RECEIVER_MAX 1024

struct received {
    char id[64];         /* webhook-id */
    long long timestamp; /* webhook-timestamp */
    bool valid;          /* the signature checked out */
    int64_t at_ms;       /* when it arrived (unix milliseconds) */
    char type[48];       /* the event's "type" */
    char object_id[64];  /* its data.object.id */
};

struct receiver;

/* Starts on 127.0.0.1 and an ephemeral port, answering 200. */
struct receiver *receiver_start(void);
uint16_t receiver_port(const struct receiver *receiver);
/* The endpoint's secret, to check signatures with ("whsec_..."). */
void receiver_set_secret(struct receiver *receiver, const char *secret);
void receiver_set_mode(struct receiver *receiver, enum receiver_mode mode);
/* How many requests arrived; a copy of the i-th. */
size_t receiver_count(struct receiver *receiver);
struct received receiver_get(struct receiver *receiver, size_t i);
/* Waits up to `timeout_ms` for at least `count` requests; whether they came. */
bool receiver_wait(struct receiver *receiver, size_t count, long timeout_ms);
void receiver_stop(struct receiver *receiver);

#endif
