/*
 * Webhooks as words and bytes, after the Standard Webhooks specification:
 * an endpoint's signing secret ("whsec_" and the base64 of 32 random
 * bytes), the signature of a message (webhook-signature: "v1," and the
 * base64 of HMAC-SHA256 over "id.timestamp.body" keyed with the decoded
 * secret), the retry schedule, and which URLs an endpoint may have (https,
 * or http where allowed; no private, loopback or link-local target unless
 * allowed: a webhook must not become a way into the service's network).
 * Sending is src/webhooks/sender.c's.
 */
#ifndef GQ_UTIL_WEBHOOK_H
#define GQ_UTIL_WEBHOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define WEBHOOK_SECRET_PREFIX "whsec_"
#define WEBHOOK_SECRET_BYTES 32
#define WEBHOOK_SECRET_SIZE 64    /* "whsec_" + 44 characters of base64 + NUL, with room */
#define WEBHOOK_SIGNATURE_SIZE 64 /* "v1," + 44 characters of base64 + NUL, with room */
#define WEBHOOK_URL_MAX 2048
#define WEBHOOK_ATTEMPTS_MAX 8 /* the first try and 7 retries */

/* A new secret into `out`; false when the kernel's random source fails. */
bool webhook_secret_generate(char out[WEBHOOK_SECRET_SIZE]);

/* "v1,<base64>" for the message into `out`; false when `secret` is not
 * "whsec_" and base64. */
bool webhook_sign(const char *secret, const char *id, int64_t timestamp, const char *body,
                  size_t body_length, char out[WEBHOOK_SIGNATURE_SIZE]);

/* How long after the failed try number `attempt` (1 for the first) the
 * next comes, in milliseconds, the schedule divided by `divisor`; -1 when
 * there is none (the delivery has failed). */
int64_t webhook_retry_delay_ms(int attempt, unsigned divisor);

/* Why a URL is refused. */
enum webhook_url_verdict {
    WEBHOOK_URL_OK,
    WEBHOOK_URL_MALFORMED, /* not http(s)://host..., too long, credentials, http not allowed */
    WEBHOOK_URL_PRIVATE    /* an address that is not globally reachable, or localhost */
};

/* Checks `url` as an endpoint's. A host name that is not an address is
 * taken as it is: where it leads is checked when it is resolved, at each
 * delivery (webhook_address_is_private). */
enum webhook_url_verdict webhook_url_check(const char *url, bool allow_http, bool allow_private);

/* True when the address is not globally reachable: within a block of the
 * IANA special-purpose address registries marked so (loopback, private,
 * link-local, shared, documentation, benchmarking, ...), multicast,
 * broadcast or reserved; an IPv4 address mapped into IPv6, or embedded in
 * NAT64 (64:ff9b::/96) or 6to4 (2002::/16), counts as the IPv4 one;
 * Teredo and IPv4-compatible addresses are refused whole. */
bool webhook_address_is_private(const struct sockaddr *address);

#endif
