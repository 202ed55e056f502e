/*
 * SHA-256 digests written as lowercase hex: what identifies a migration
 * file's bytes and what an API key is stored as.
 */
#ifndef GQ_UTIL_DIGEST_H
#define GQ_UTIL_DIGEST_H

#include <stddef.h>

#define DIGEST_SHA256_HEX_SIZE 65 /* 64 hex digits and NUL */

/* Writes the SHA-256 of bytes[0..size) into `out` as 64 hex digits and a
 * NUL. */
void digest_sha256_hex(const void *bytes, size_t size, char out[DIGEST_SHA256_HEX_SIZE]);

#endif
