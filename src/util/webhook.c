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

static bool ipv4_is_private(const uint8_t *b)
{
    return b[0] == 0 || b[0] == 10 || b[0] == 127 || (b[0] == 169 && b[1] == 254) ||
           (b[0] == 172 && (b[1] & 0xf0) == 16) || (b[0] == 192 && b[1] == 168) ||
           (b[0] == 100 && (b[1] & 0xc0) == 64) || b[0] >= 224;
}

bool webhook_address_is_private(const struct sockaddr *address)
{
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)address;
        return ipv4_is_private((const uint8_t *)&in->sin_addr);
    }
    if (address->sa_family != AF_INET6)
        return true; /* nothing else is sent to */
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)address;
    const uint8_t *b = in6->sin6_addr.s6_addr;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(b, mapped, 12) == 0)
        return ipv4_is_private(b + 12);
    static const uint8_t zero[15] = {0};
    if (memcmp(b, zero, 15) == 0) /* :: and ::1 */
        return true;
    return (b[0] & 0xfe) == 0xfc || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) || b[0] == 0xff;
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
