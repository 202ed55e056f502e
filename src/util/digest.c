/*
 * SHA-256 in hex (digest.h), by nettle.
 */
#include "util/digest.h"

#include <nettle/base16.h>
#include <nettle/sha2.h>
#include <stdint.h>

void digest_sha256_hex(const void *bytes, size_t size, char out[DIGEST_SHA256_HEX_SIZE])
{
    struct sha256_ctx context;
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_init(&context);
    sha256_update(&context, size, bytes);
    sha256_digest(&context, sizeof digest, digest);
    base16_encode_update(out, sizeof digest, digest);
    out[BASE16_ENCODE_LENGTH(SHA256_DIGEST_SIZE)] = '\0';
}
