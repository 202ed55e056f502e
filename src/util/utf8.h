/*
 * UTF-8 well-formedness, for text that may quote what a client sent (a
 * path, a parameter name) or what the database holds, before it goes into
 * a JSON string.
 */
#ifndef GQ_UTIL_UTF8_H
#define GQ_UTIL_UTF8_H

#include <stddef.h>

/* The length (1..4) of the well-formed UTF-8 sequence at `p`, or 0 when
 * there is none there (a stray or truncated byte, an overlong form, a
 * surrogate, a code point above U+10FFFF). `p` must be NUL-terminated. */
size_t utf8_sequence_length(const unsigned char *p);

/* Replaces, in place, every byte not part of a well-formed sequence with
 * '?'. */
void utf8_repair(char *text);

#endif
