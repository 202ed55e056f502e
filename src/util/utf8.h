/*
 * UTF-8 well-formedness, for text that may quote what a client sent (a
 * path, a parameter name) or what the database holds, before it goes into
 * a JSON string; and the characters that a terminal or a text renderer
 * acts on instead of showing, which stored text must not carry.
 */
#ifndef GQ_UTIL_UTF8_H
#define GQ_UTIL_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The length (1..4) of the well-formed UTF-8 sequence at `p`, or 0 when
 * there is none there (a stray or truncated byte, an overlong form, a
 * surrogate, a code point above U+10FFFF). `p` must be NUL-terminated. */
size_t utf8_sequence_length(const unsigned char *p);

/* Replaces, in place, every byte not part of a well-formed sequence with
 * '?'. */
void utf8_repair(char *text);

/* The code point of the character at `p` when it is a control character:
 * C0 (U+0001..U+001F), DEL, C1 (U+0080..U+009F), which a terminal obeys
 * (an ESC sequence recolours it, moves its cursor, rewrites its title);
 * the line and paragraph separators U+2028 and U+2029, which break a line
 * where none is seen; and the bidirectional embeddings, overrides and
 * isolates U+202A..U+202E and U+2066..U+2069, which reorder what follows
 * them ("Trojan Source", CVE-2021-42574), so that a name reads as another.
 * -1 for any other character; `p` must be at a well-formed sequence. */
long utf8_control_at(const unsigned char *p);

/* The first control character (as above) of the well-formed, NUL-ended
 * `text`: true with its byte offset and code point, false when there is
 * none. */
bool utf8_find_control(const char *text, size_t *offset, uint32_t *code_point);

/* Copies `text` into `out` (`size` bytes, NUL-terminated, cut at a whole
 * character to fit) with every control character written as an escape,
 * "\x1b" below U+0080 and "\u202e" above, and every byte of an
 * ill-formed sequence as "\xff": what is printed shows what is stored,
 * and a terminal obeys none of it. Returns `out`. */
char *utf8_escape_controls(const char *text, char *out, size_t size);

#endif
