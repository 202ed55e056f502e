/*
 * Identifiers that clients see: a short prefix and 128 random bits in hex,
 * e.g. "q_3f9c0e...". Random (not sequential) so that ids reveal nothing
 * about volume and cannot be guessed.
 */
#ifndef GQ_UTIL_IDS_H
#define GQ_UTIL_IDS_H

#include <stdbool.h>
#include <stddef.h>

/* Room for a prefix of up to 6 characters, 32 hex digits and NUL. */
#define IDS_SIZE 40

/* Writes `prefix` followed by 32 random hex digits into `buf`. Returns
 * false when the kernel's random source fails (it does not block after
 * boot), leaving `buf` empty. */
bool ids_generate(const char *prefix, char buf[IDS_SIZE]);

/* True when `text` is `prefix` followed by exactly 32 lowercase hex digits:
 * lets a lookup refuse malformed ids without touching the database. */
bool ids_is_well_formed(const char *prefix, const char *text);

#endif
