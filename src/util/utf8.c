/*
 * UTF-8 validation by the table of well-formed byte sequences (Unicode
 * §3.9, table 3-7).
 */
#include "util/utf8.h"

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
