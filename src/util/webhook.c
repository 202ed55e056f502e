/*
 * Webhook secrets, signatures, the retry schedule and URL checks
 * (webhook.h), on nettle's HMAC-SHA256 and base64.
 */
#include "util/webhook.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <nettle/base64.h>
#include <nettle/hmac.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "util/address.h"

bool webhook_secret_generate(char out[WEBHOOK_SECRET_SIZE])
{
    uint8_t bytes[WEBHOOK_SECRET_BYTES];
    out[0] = '\0';
    if (getrandom(bytes, sizeof bytes, 0) != (ssize_t)sizeof bytes)
        return false;
    size_t prefix = strlen(WEBHOOK_SECRET_PREFIX);
    memcpy(out, WEBHOOK_SECRET_PREFIX, prefix);
    base64_encode_raw(out + prefix, sizeof bytes, bytes);
    out[prefix + BASE64_ENCODE_RAW_LENGTH(sizeof bytes)] = '\0';
    memset(bytes, 0, sizeof bytes);
    return true;
}

/* The secret's bytes; false when it is not "whsec_" and base64. */
static bool decode_secret(const char *secret, uint8_t *key, size_t *key_length)
{
    size_t prefix = strlen(WEBHOOK_SECRET_PREFIX);
    if (strncmp(secret, WEBHOOK_SECRET_PREFIX, prefix) != 0)
        return false;
    const char *text = secret + prefix;
    size_t length = strlen(text);
    if (length == 0 || BASE64_DECODE_LENGTH(length) > *key_length)
        return false;
    struct base64_decode_ctx ctx;
    base64_decode_init(&ctx);
    size_t done = *key_length;
    if (!base64_decode_update(&ctx, &done, key, length, text) || !base64_decode_final(&ctx))
        return false;
    *key_length = done;
    return done > 0;
}

bool webhook_sign(const char *secret, const char *id, int64_t timestamp, const char *body,
                  size_t body_length, char out[WEBHOOK_SIGNATURE_SIZE])
{
    uint8_t key[128];
    size_t key_length = sizeof key;
    out[0] = '\0';
    if (!decode_secret(secret, key, &key_length))
        return false;
    struct hmac_sha256_ctx ctx;
    hmac_sha256_set_key(&ctx, key_length, key);
    char stamp[32];
    int n = snprintf(stamp, sizeof stamp, ".%lld.", (long long)timestamp);
    hmac_sha256_update(&ctx, strlen(id), (const uint8_t *)id);
    hmac_sha256_update(&ctx, (size_t)n, (const uint8_t *)stamp);
    hmac_sha256_update(&ctx, body_length, (const uint8_t *)body);
    uint8_t digest[SHA256_DIGEST_SIZE];
    hmac_sha256_digest(&ctx, sizeof digest, digest);
    memcpy(out, "v1,", 3);
    base64_encode_raw(out + 3, sizeof digest, digest);
    out[3 + BASE64_ENCODE_RAW_LENGTH(sizeof digest)] = '\0';
    memset(key, 0, sizeof key);
    memset(&ctx, 0, sizeof ctx);
    return true;
}

int64_t webhook_retry_delay_ms(int attempt, unsigned divisor)
{
    /* After the first try, then each retry: 5 s, 5 min, 30 min, 2 h, 5 h,
     * 10 h, 10 h (Standard Webhooks' example schedule, as Svix's). */
    static const int64_t seconds[] = {5, 300, 1800, 7200, 18000, 36000, 36000};
    if (attempt < 1 || (size_t)attempt > sizeof seconds / sizeof seconds[0])
        return -1;
    return seconds[attempt - 1] * 1000 / (divisor > 0 ? divisor : 1);
}

/* What a destination in a special-purpose range means for a webhook. */
enum range_verdict {
    RANGE_REFUSED,      /* not globally reachable: never a webhook's target */
    RANGE_GLOBAL,       /* globally reachable, inside a larger refused range */
    RANGE_EMBEDS_V4_12, /* an IPv4 address in bytes 12..15: it decides */
    RANGE_EMBEDS_V4_2,  /* 6to4: an IPv4 address in bytes 2..5: it decides */
};

struct special_range {
    int family;
    uint8_t prefix[16];
    unsigned bits;
    enum range_verdict verdict;
    const char *name;
};

#define V4(a, b, c, d)                                                                             \
    AF_INET,                                                                                       \
    {                                                                                              \
        a, b, c, d                                                                                 \
    }
#define V6(...)                                                                                    \
    AF_INET6,                                                                                      \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }

/* The IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and
 * the RFCs that updated them), every block whose "Globally Reachable" is
 * false or which embeds an IPv4 address, with the blocks they list as
 * globally reachable inside refused ones; IPv4 multicast (the IANA
 * Multicast Address Space); and IPv6 outside global unicast 2000::/3 (the
 * IANA IPv6 Address Space: reserved, unique-local, link-local, multicast),
 * whose named blocks are listed for their names. The longest matching
 * prefix decides. */
static const struct special_range special_ranges[] = {
    {V4(0, 0, 0, 0), 8, RANGE_REFUSED, "this network"},
    {V4(10, 0, 0, 0), 8, RANGE_REFUSED, "private-use"},
    {V4(100, 64, 0, 0), 10, RANGE_REFUSED, "shared address space"},
    {V4(127, 0, 0, 0), 8, RANGE_REFUSED, "loopback"},
    {V4(169, 254, 0, 0), 16, RANGE_REFUSED, "link local"},
    {V4(172, 16, 0, 0), 12, RANGE_REFUSED, "private-use"},
    {V4(192, 0, 0, 0), 24, RANGE_REFUSED, "IETF protocol assignments"},
    {V4(192, 0, 0, 9), 32, RANGE_GLOBAL, "port control protocol anycast"},
    {V4(192, 0, 0, 10), 32, RANGE_GLOBAL, "TURN anycast"},
    {V4(192, 0, 2, 0), 24, RANGE_REFUSED, "documentation (TEST-NET-1)"},
    {V4(192, 88, 99, 0), 24, RANGE_REFUSED, "6to4 relay anycast (deprecated)"},
    {V4(192, 168, 0, 0), 16, RANGE_REFUSED, "private-use"},
    {V4(198, 18, 0, 0), 15, RANGE_REFUSED, "benchmarking"},
    {V4(198, 51, 100, 0), 24, RANGE_REFUSED, "documentation (TEST-NET-2)"},
    {V4(203, 0, 113, 0), 24, RANGE_REFUSED, "documentation (TEST-NET-3)"},
    {V4(224, 0, 0, 0), 4, RANGE_REFUSED, "multicast"},
    {V4(240, 0, 0, 0), 4, RANGE_REFUSED, "reserved"},
    {V4(255, 255, 255, 255), 32, RANGE_REFUSED, "limited broadcast"},

    {V6(0), 3, RANGE_REFUSED, "outside global unicast"},
    {V6(0x40), 2, RANGE_REFUSED, "outside global unicast"},
    {V6(0x80), 1, RANGE_REFUSED, "outside global unicast"},
    {V6(0), 128, RANGE_REFUSED, "unspecified address"},
    {V6(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 128, RANGE_REFUSED, "loopback"},
    {V6(0), 96, RANGE_REFUSED, "IPv4-compatible (deprecated)"},
    {V6(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff), 96, RANGE_EMBEDS_V4_12, "IPv4-mapped"},
    {V6(0, 0x64, 0xff, 0x9b), 96, RANGE_EMBEDS_V4_12, "IPv4-IPv6 translation (NAT64)"},
    {V6(0, 0x64, 0xff, 0x9b, 0, 1), 48, RANGE_REFUSED, "local-use IPv4-IPv6 translation"},
    {V6(0x01, 0), 64, RANGE_REFUSED, "discard-only"},
    {V6(0x01, 0, 0, 0, 0, 0, 0, 1), 64, RANGE_REFUSED, "dummy IPv6 prefix"},
    {V6(0x20, 0x01, 0, 0), 23, RANGE_REFUSED, "IETF protocol assignments"},
    {V6(0x20, 0x01, 0, 0), 32, RANGE_REFUSED, "Teredo"},
    {V6(0x20, 0x01, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 128, RANGE_GLOBAL,
     "port control protocol anycast"},
    {V6(0x20, 0x01, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2), 128, RANGE_GLOBAL, "TURN anycast"},
    {V6(0x20, 0x01, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3), 128, RANGE_GLOBAL,
     "DNS-SD service registration protocol anycast"},
    {V6(0x20, 0x01, 0, 2, 0, 0), 48, RANGE_REFUSED, "benchmarking"},
    {V6(0x20, 0x01, 0, 3), 32, RANGE_GLOBAL, "AMT"},
    {V6(0x20, 0x01, 0, 4, 0x01, 0x12), 48, RANGE_GLOBAL, "AS112-v6"},
    {V6(0x20, 0x01, 0, 0x10), 28, RANGE_REFUSED, "ORCHID (deprecated)"},
    {V6(0x20, 0x01, 0, 0x20), 28, RANGE_GLOBAL, "ORCHIDv2"},
    {V6(0x20, 0x01, 0, 0x30), 28, RANGE_GLOBAL, "drone remote ID protocol entity tags"},
    {V6(0x20, 0x01, 0x0d, 0xb8), 32, RANGE_REFUSED, "documentation"},
    {V6(0x20, 0x02), 16, RANGE_EMBEDS_V4_2, "6to4"},
    {V6(0x3f, 0xff, 0), 20, RANGE_REFUSED, "documentation"},
    {V6(0x5f, 0), 16, RANGE_REFUSED, "segment routing (SRv6) SIDs"},
    {V6(0xfc), 7, RANGE_REFUSED, "unique-local"},
    {V6(0xfe, 0x80), 10, RANGE_REFUSED, "link-local unicast"},
    {V6(0xff), 8, RANGE_REFUSED, "multicast"},
};

/* The longest special range holding the address, or NULL (global). */
static const struct special_range *special_range_of(int family, const uint8_t *bytes)
{
    const struct special_range *best = NULL;
    for (size_t i = 0; i < sizeof special_ranges / sizeof special_ranges[0]; i++) {
        const struct special_range *range = &special_ranges[i];
        if (range->family == family && address_bits_match(range->prefix, range->bits, bytes) &&
            (best == NULL || range->bits > best->bits))
            best = range;
    }
    return best;
}

static bool bytes_are_private(int family, const uint8_t *bytes)
{
    const struct special_range *range = special_range_of(family, bytes);
    if (range == NULL)
        return false;
    switch (range->verdict) {
    case RANGE_GLOBAL:
        return false;
    case RANGE_EMBEDS_V4_12:
        return bytes_are_private(AF_INET, bytes + 12);
    case RANGE_EMBEDS_V4_2:
        return bytes_are_private(AF_INET, bytes + 2);
    case RANGE_REFUSED:
    default:
        return true;
    }
}

bool webhook_address_is_private(const struct sockaddr *address)
{
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)address;
        return bytes_are_private(AF_INET, (const uint8_t *)&in->sin_addr);
    }
    if (address->sa_family != AF_INET6)
        return true; /* nothing else is sent to */
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)address;
    return bytes_are_private(AF_INET6, in6->sin6_addr.s6_addr);
}

/* The host of an authority ("host", "host:port", "[v6]:port") into `out`. */
static bool authority_host(const char *authority, size_t length, char *out, size_t size)
{
    const char *end = authority + length;
    const char *host = authority, *host_end;
    if (*host == '[') {
        host_end = memchr(host, ']', length);
        if (host_end == NULL)
            return false;
        host++;
        if (host_end + 1 < end && host_end[1] != ':')
            return false;
    } else {
        host_end = memchr(host, ':', length);
        if (host_end == NULL)
            host_end = end;
    }
    const char *port = *authority == '[' ? host_end + 1 : host_end;
    if (port < end) { /* ":digits" */
        if (*port != ':' || port + 1 == end)
            return false;
        for (const char *c = port + 1; c < end; c++)
            if (!isdigit((unsigned char)*c))
                return false;
    }
    size_t host_length = (size_t)(host_end - host);
    if (host_length == 0 || host_length >= size)
        return false;
    memcpy(out, host, host_length);
    out[host_length] = '\0';
    for (size_t i = 0; i < host_length; i++)
        if (!isalnum((unsigned char)out[i]) && strchr(".-:_%", out[i]) == NULL)
            return false;
    return true;
}

static bool host_is_private(const char *host)
{
    struct sockaddr_in in = {.sin_family = AF_INET};
    struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
    if (inet_pton(AF_INET, host, &in.sin_addr) == 1)
        return webhook_address_is_private((const struct sockaddr *)(const void *)&in);
    if (inet_pton(AF_INET6, host, &in6.sin6_addr) == 1)
        return webhook_address_is_private((const struct sockaddr *)(const void *)&in6);
    size_t length = strlen(host);
    return strcasecmp(host, "localhost") == 0 ||
           (length > 10 && strcasecmp(host + length - 10, ".localhost") == 0);
}

enum webhook_url_verdict webhook_url_check(const char *url, bool allow_http, bool allow_private)
{
    size_t length = strlen(url);
    if (length == 0 || length > WEBHOOK_URL_MAX)
        return WEBHOOK_URL_MALFORMED;
    for (size_t i = 0; i < length; i++)
        if ((unsigned char)url[i] <= 0x20 || (unsigned char)url[i] >= 0x7f)
            return WEBHOOK_URL_MALFORMED;
    const char *rest;
    if (strncasecmp(url, "https://", 8) == 0)
        rest = url + 8;
    else if (allow_http && strncasecmp(url, "http://", 7) == 0)
        rest = url + 7;
    else
        return WEBHOOK_URL_MALFORMED;
    size_t authority = strcspn(rest, "/?#");
    char host[256];
    if (memchr(rest, '@', authority) != NULL || !authority_host(rest, authority, host, sizeof host))
        return WEBHOOK_URL_MALFORMED;
    if (!allow_private && host_is_private(host))
        return WEBHOOK_URL_PRIVATE;
    return WEBHOOK_URL_OK;
}
