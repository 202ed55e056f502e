/*
 * Random identifiers from getrandom(2), hex-encoded with nettle's base16
 * encoder.
 */
#include "util/ids.h"

#include <nettle/base16.h>
#include <string.h>
#include <sys/random.h>

#define ID_RANDOM_BYTES 16

bool ids_generate(const char *prefix, char buf[IDS_SIZE])
{
    uint8_t random_bytes[ID_RANDOM_BYTES];
    size_t prefix_length = strlen(prefix);
    buf[0] = '\0';
    if (prefix_length + BASE16_ENCODE_LENGTH(ID_RANDOM_BYTES) + 1 > IDS_SIZE)
        return false;
    if (getrandom(random_bytes, sizeof random_bytes, 0) != (ssize_t)sizeof random_bytes)
        return false;
    memcpy(buf, prefix, prefix_length);
    base16_encode_update(buf + prefix_length, sizeof random_bytes, random_bytes);
    buf[prefix_length + BASE16_ENCODE_LENGTH(ID_RANDOM_BYTES)] = '\0';
    return true;
}

bool ids_is_well_formed(const char *prefix, const char *text)
{
    size_t prefix_length = strlen(prefix);
    if (strncmp(text, prefix, prefix_length) != 0)
        return false;
    const char *hex = text + prefix_length;
    size_t length = 0;
    for (; hex[length] != '\0'; length++) {
        char c = hex[length];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return length == BASE16_ENCODE_LENGTH(ID_RANDOM_BYTES);
}
