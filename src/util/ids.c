/*
 * Time-ordered random identifiers: milliseconds from the real-time clock,
 * random bits from getrandom(2) (drawn from a per-thread pool), hex-encoded
 * with nettle's base16 encoder.
 */
#include "util/ids.h"

#include <nettle/base16.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define ID_BYTES 16
#define ID_TIME_BYTES 6 /* 48 bits of milliseconds: until the year 10889 */
/* 25 ids per getrandom(2) call; up to 256 bytes it never returns fewer
 * than asked, even when a signal arrives. */
#define RANDOM_POOL_BYTES 256

/* Random bytes from a per-thread pool that one getrandom(2) call refills:
 * every request gets an id, and a system call for each would be a
 * measurable part of answering GET /catalog. */
static bool take_random(uint8_t *out, size_t count)
{
    static _Thread_local uint8_t pool[RANDOM_POOL_BYTES];
    static _Thread_local size_t left;
    if (count > sizeof pool)
        return false;
    if (left < count) {
        if (getrandom(pool, sizeof pool, 0) != (ssize_t)sizeof pool)
            return false;
        left = sizeof pool;
    }
    memcpy(out, pool + sizeof pool - left, count);
    left -= count;
    return true;
}

bool ids_generate(const char *prefix, char buf[IDS_SIZE])
{
    uint8_t bytes[ID_BYTES];
    size_t prefix_length = strlen(prefix);
    buf[0] = '\0';
    if (prefix_length + BASE16_ENCODE_LENGTH(ID_BYTES) + 1 > IDS_SIZE)
        return false;
    if (!take_random(bytes + ID_TIME_BYTES, ID_BYTES - ID_TIME_BYTES))
        return false;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t milliseconds = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
    for (int i = ID_TIME_BYTES - 1; i >= 0; i--) { /* big-endian, so text order is time order */
        bytes[i] = (uint8_t)(milliseconds & 0xff);
        milliseconds >>= 8;
    }
    memcpy(buf, prefix, prefix_length);
    base16_encode_update(buf + prefix_length, sizeof bytes, bytes);
    buf[prefix_length + BASE16_ENCODE_LENGTH(ID_BYTES)] = '\0';
    return true;
}

/* The last id ids_generate_ordered() made, as bytes, under its lock. */
static pthread_mutex_t ordered_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t ordered_last[ID_BYTES];

/* bytes + 1, as one big-endian number. */
static void increment(uint8_t bytes[ID_BYTES])
{
    for (int i = ID_BYTES - 1; i >= 0 && ++bytes[i] == 0; i--)
        continue;
}

bool ids_generate_ordered(const char *prefix, char buf[IDS_SIZE])
{
    char fresh[IDS_SIZE];
    if (!ids_generate("", fresh))
        return false;
    uint8_t bytes[ID_BYTES];
    struct base16_decode_ctx decoder;
    base16_decode_init(&decoder);
    size_t length = sizeof bytes;
    if (!base16_decode_update(&decoder, &length, bytes, strlen(fresh), fresh) ||
        length != sizeof bytes)
        return false;
    pthread_mutex_lock(&ordered_lock);
    if (memcmp(bytes, ordered_last, sizeof bytes) <= 0) { /* the same millisecond, or a step back */
        memcpy(bytes, ordered_last, sizeof bytes);
        increment(bytes);
    }
    memcpy(ordered_last, bytes, sizeof bytes);
    pthread_mutex_unlock(&ordered_lock);
    size_t prefix_length = strlen(prefix);
    if (prefix_length + BASE16_ENCODE_LENGTH(ID_BYTES) + 1 > IDS_SIZE)
        return false;
    memcpy(buf, prefix, prefix_length);
    base16_encode_update(buf + prefix_length, sizeof bytes, bytes);
    buf[prefix_length + BASE16_ENCODE_LENGTH(ID_BYTES)] = '\0';
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
    return length == BASE16_ENCODE_LENGTH(ID_BYTES);
}
