/*
 * Addresses and prefixes (address.h), on inet_pton(3), and the walk of a
 * forwarding header's hops from the right.
 */
#include "util/address.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Reads a numeric address into `bytes`; its family, or 0 when it is none. */
static int read_address(const char *text, uint8_t bytes[16])
{
    if (inet_pton(AF_INET, text, bytes) == 1)
        return AF_INET;
    if (inet_pton(AF_INET6, text, bytes) == 1) {
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(bytes, mapped, sizeof mapped) == 0) { /* ::ffff:a.b.c.d */
            memmove(bytes, bytes + 12, 4);
            return AF_INET;
        }
        return AF_INET6;
    }
    return 0;
}

static bool parse_one(const char *item, size_t length, struct address_prefix *out)
{
    char text[64];
    if (length == 0 || length >= sizeof text)
        return false;
    memcpy(text, item, length);
    text[length] = '\0';
    char *slash = strchr(text, '/');
    if (slash != NULL)
        *slash = '\0';
    out->family = read_address(text, out->bytes);
    if (out->family == 0)
        return false;
    unsigned most = out->family == AF_INET ? 32 : 128;
    out->bits = most;
    if (slash != NULL) {
        char *end;
        long bits = strtol(slash + 1, &end, 10);
        if (slash[1] == '\0' || *end != '\0' || bits < 0 || bits > (long)most)
            return false;
        out->bits = (unsigned)bits;
    }
    return true;
}

bool address_prefixes_parse(const char *text, struct address_prefix *out, size_t *count, char *bad,
                            size_t bad_size)
{
    *count = 0;
    if (text == NULL)
        return true;
    while (*text != '\0') {
        text += strspn(text, " ,");
        size_t length = strcspn(text, " ,");
        if (length == 0)
            break;
        if (*count == ADDRESS_PREFIXES_MAX || !parse_one(text, length, &out[*count])) {
            snprintf(bad, bad_size, "%.*s", (int)(length < 60 ? length : 60), text);
            return false;
        }
        (*count)++;
        text += length;
    }
    return true;
}

bool address_bits_match(const uint8_t *prefix, unsigned bits, const uint8_t *bytes)
{
    unsigned whole = bits / 8, rest = bits % 8;
    if (memcmp(prefix, bytes, whole) != 0)
        return false;
    if (rest == 0)
        return true;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (prefix[whole] & mask) == (bytes[whole] & mask);
}

static bool within(const struct address_prefix *prefix, int family, const uint8_t bytes[16])
{
    return prefix->family == family && address_bits_match(prefix->bytes, prefix->bits, bytes);
}

bool address_in_prefixes(const char *text, const struct address_prefix *prefixes, size_t count)
{
    uint8_t bytes[16];
    int family = read_address(text, bytes);
    for (size_t i = 0; family != 0 && i < count; i++)
        if (within(&prefixes[i], family, bytes))
            return true;
    return false;
}

bool address_is_numeric(const char *text, size_t length)
{
    char copy[64];
    if (length == 0 || length >= sizeof copy)
        return false;
    memcpy(copy, text, length);
    copy[length] = '\0';
    uint8_t bytes[16];
    return read_address(copy, bytes) != 0;
}

/* ---- A forwarding header's hops. ---- */

/* Hops kept from the right end of a header: proxies beyond so many are not
 * believed anyway, and the walk needs no allocation. */
#define HOPS_KEPT 64
#define NODE_SIZE 64

struct span {
    const char *at;
    size_t length;
};

/* The end of the part of `text` that starts at `at` and ends before the
 * next `separator` outside a quoted string (or at the end). */
static const char *part_end(const char *at, char separator)
{
    bool quoted = false;
    for (; *at != '\0'; at++) {
        if (quoted && *at == '\\' && at[1] != '\0')
            at++;
        else if (*at == '"')
            quoted = !quoted;
        else if (!quoted && *at == separator)
            break;
    }
    return at;
}

static struct span trimmed(const char *at, const char *end)
{
    while (at < end && (*at == ' ' || *at == '\t'))
        at++;
    while (end > at && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    struct span span = {at, (size_t)(end - at)};
    return span;
}

/* Copies a Forwarded value, unquoting a quoted string; false when it does
 * not fit. */
static bool copy_value(struct span value, char *out, size_t size)
{
    size_t used = 0;
    bool quoted = value.length >= 2 && value.at[0] == '"' && value.at[value.length - 1] == '"';
    size_t from = quoted ? 1 : 0, to = quoted ? value.length - 1 : value.length;
    for (size_t i = from; i < to; i++) {
        if (quoted && value.at[i] == '\\' && i + 1 < to)
            i++;
        if (used + 1 >= size)
            return false;
        out[used++] = value.at[i];
    }
    out[used] = '\0';
    return true;
}

/* The node of a Forwarded element's for= parameter, as sent (still with
 * brackets and port); false when the element has none. */
static bool forwarded_for(struct span element, char *node, size_t size)
{
    const char *end = element.at + element.length;
    for (const char *at = element.at; at < end;) {
        const char *pair_end = part_end(at, ';');
        if (pair_end > end)
            pair_end = end;
        const char *equals = memchr(at, '=', (size_t)(pair_end - at));
        if (equals != NULL) {
            struct span name = trimmed(at, equals);
            if (name.length == 3 && strncasecmp(name.at, "for", 3) == 0)
                return copy_value(trimmed(equals + 1, pair_end), node, size);
        }
        at = pair_end < end ? pair_end + 1 : end;
    }
    return false;
}

/* Reduces a node to its address: "[2001:db8::1]:4711" and "192.0.2.1:80"
 * lose their brackets and port. False when what is left is not a numeric
 * address. */
static bool node_address(char *node)
{
    uint8_t bytes[16];
    if (node[0] == '[') {
        char *close = strchr(node, ']');
        if (close == NULL || (close[1] != '\0' && close[1] != ':'))
            return false;
        *close = '\0';
        memmove(node, node + 1, strlen(node + 1) + 1);
        return inet_pton(AF_INET6, node, bytes) == 1;
    }
    if (read_address(node, bytes) != 0)
        return true;
    char *colon = strchr(node, ':');
    if (colon == NULL || strchr(colon + 1, ':') != NULL)
        return false;
    *colon = '\0';
    return inet_pton(AF_INET, node, bytes) == 1;
}

/* The address of one hop into `node` (NODE_SIZE); false when it names
 * none. */
static bool hop_address(struct span hop, enum address_header_form form, char node[NODE_SIZE])
{
    if (form == ADDRESS_FORWARDED) {
        if (!forwarded_for(hop, node, NODE_SIZE))
            return false;
    } else {
        if (hop.length == 0 || hop.length >= NODE_SIZE)
            return false;
        memcpy(node, hop.at, hop.length);
        node[hop.length] = '\0';
    }
    return node_address(node);
}

bool address_forwarded_client(const char *value, enum address_header_form form,
                              const struct address_prefix *trusted, size_t count, char *out,
                              size_t out_size)
{
    struct span hops[HOPS_KEPT];
    size_t seen = 0;
    for (const char *at = value;;) {
        const char *end = part_end(at, ',');
        hops[seen++ % HOPS_KEPT] = trimmed(at, end);
        if (*end == '\0')
            break;
        at = end + 1;
    }
    size_t kept = seen < HOPS_KEPT ? seen : HOPS_KEPT;
    bool found = false;
    for (size_t i = 0; i < kept; i++) {
        char node[NODE_SIZE];
        if (!hop_address(hops[(seen - 1 - i) % HOPS_KEPT], form, node) || strlen(node) >= out_size)
            break;
        snprintf(out, out_size, "%s", node);
        found = true;
        if (!address_in_prefixes(node, trusted, count))
            break;
    }
    return found;
}
