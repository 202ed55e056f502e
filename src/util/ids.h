/*
 * Identifiers that clients see: a short prefix and 32 hex digits, e.g.
 * "q_0193d5c8a1f23f9c0e...". The first 48 bits are the time in
 * milliseconds and the other 80 are random (the layout of a UUIDv7): ids
 * cannot be guessed and reveal nothing about volume, yet new ones sort
 * after old ones, so storing one appends to the database's index instead
 * of touching a random page of it (insert cost grew with the table when
 * ids were fully random).
 */
#ifndef GQ_UTIL_IDS_H
#define GQ_UTIL_IDS_H

#include <stdbool.h>
#include <stddef.h>

/* Room for a prefix of up to 6 characters, 32 hex digits and NUL. */
#define IDS_SIZE 40

/* Writes `prefix` followed by 12 hex digits of the time in milliseconds
 * and 20 random ones into `buf`. Returns false when the kernel's random
 * source fails (it does not block after boot), leaving `buf` empty. */
bool ids_generate(const char *prefix, char buf[IDS_SIZE]);

/* As ids_generate(), and each id this process makes so is greater than
 * the one before, also within a millisecond (the random part then counts
 * up): for logs whose order is their ids' (the audit log, events). Ids of
 * two processes are ordered by their clocks. */
bool ids_generate_ordered(const char *prefix, char buf[IDS_SIZE]);

/* True when `text` is `prefix` followed by exactly 32 lowercase hex digits:
 * lets a lookup refuse malformed ids without touching the database. */
bool ids_is_well_formed(const char *prefix, const char *text);

#endif
