/*
 * Addresses and prefixes (address.h), on inet_pton(3).
 */
#include "util/address.h"

#include <arpa/inet.h>
#include <stdio.h>
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

static bool within(const struct address_prefix *prefix, int family, const uint8_t bytes[16])
{
    if (prefix->family != family)
        return false;
    unsigned whole = prefix->bits / 8, rest = prefix->bits % 8;
    if (memcmp(prefix->bytes, bytes, whole) != 0)
        return false;
    if (rest == 0)
        return true;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (prefix->bytes[whole] & mask) == (bytes[whole] & mask);
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
