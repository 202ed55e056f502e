/*
 * UTF-8 validation by the table of well-formed byte sequences (The Unicode
 * Standard, section 3.9, table 3-7).
 */
#include "util/utf8.h"

#include <string.h>

size_t utf8_sequence_length(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t length;
    unsigned char low = 0x80, high = 0xbf;
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        length = 2;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        length = 3;
        low = p[0] == 0xe0 ? 0xa0 : 0x80;
        high = p[0] == 0xed ? 0x9f : 0xbf;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        length = 4;
        low = p[0] == 0xf0 ? 0x90 : 0x80;
        high = p[0] == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (p[1] < low || p[1] > high)
        return 0;
    for (size_t i = 2; i < length; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return length;
}

void utf8_repair(char *text)
{
    unsigned char *p = (unsigned char *)text;
    while (*p != '\0') {
        size_t length = utf8_sequence_length(p);
        if (length == 0)
            *p++ = '?';
        else
            p += length;
    }
}

long utf8_control_at(const unsigned char *p)
{
    if (p[0] < 0x20 || p[0] == 0x7f)
        return p[0];
    if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
        return p[1];
    if (p[0] != 0xe2 || (p[1] != 0x80 && p[1] != 0x81))
        return -1;
    long code_point = 0x2000 | ((long)(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
    bool separator_or_embedding = code_point >= 0x2028 && code_point <= 0x202e;
    bool isolate = code_point >= 0x2066 && code_point <= 0x2069;
    return separator_or_embedding || isolate ? code_point : -1;
}

bool utf8_find_control(const char *text, size_t *offset, uint32_t *code_point)
{
    const unsigned char *p = (const unsigned char *)text;
    while (*p != '\0') {
        /* Printable ASCII, nearly all of what is checked, in one test. */
        if (*p >= 0x20 && *p < 0x7f) {
            p++;
            continue;
        }
        long found = utf8_control_at(p);
        if (found >= 0) {
            *offset = (size_t)(p - (const unsigned char *)text);
            *code_point = (uint32_t)found;
            return true;
        }
        size_t length = utf8_sequence_length(p);
        p += length > 0 ? length : 1;
    }
    return false;
}

char *utf8_escape_controls(const char *text, char *out, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)text;
    size_t used = 0;
    if (size == 0)
        return out;
    while (*p != '\0') {
        char piece[8];
        size_t length = utf8_sequence_length(p), advance = length;
        long control = length > 0 ? utf8_control_at(p) : -1;
        if (length == 0 || (control >= 0 && control < 0x80)) {
            unsigned byte = length == 0 ? *p : (unsigned)control;
            memcpy(piece, (char[]){'\\', 'x', hex[byte >> 4], hex[byte & 15]}, 4);
            length = 4;
            advance = 1;
        } else if (control >= 0) {
            memcpy(piece, (char[]){'\\', 'u', hex[(control >> 12) & 15], hex[(control >> 8) & 15],
                                   hex[(control >> 4) & 15], hex[control & 15]},
                   6);
            length = 6;
        } else {
            memcpy(piece, p, length);
        }
        if (used + length >= size)
            break;
        memcpy(out + used, piece, length);
        used += length;
        p += advance;
    }
    out[used] = '\0';
    return out;
}
