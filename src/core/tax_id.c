/*
 * The unified social credit code's checks (tax_id.h has the rules).
 */
#include "core/tax_id.h"

#include <string.h>

#define USCC_LENGTH 18
#define USCC_RADIX 31

static const char alphabet[] = "0123456789ABCDEFGHJKLMNPQRTUWXY";

/* The value of `c` in the code's alphabet, or -1. */
static int value_of(char c)
{
    if (c == '\0')
        return -1;
    const char *at = strchr(alphabet, c);
    return at == NULL ? -1 : (int)(at - alphabet);
}

char tax_id_uscc_check_character(const char *code)
{
    int sum = 0;
    int weight = 1; /* 3^(i-1) mod 31 */
    for (int i = 0; i < USCC_LENGTH - 1; i++) {
        int value = value_of(code[i]);
        if (value < 0)
            return 0;
        sum += value * weight;
        weight = weight * 3 % USCC_RADIX;
    }
    return alphabet[(USCC_RADIX - sum % USCC_RADIX) % USCC_RADIX];
}

enum tax_id_check tax_id_check_uscc(const char *code)
{
    if (strlen(code) != USCC_LENGTH)
        return TAX_ID_LENGTH;
    for (int i = 0; i < USCC_LENGTH; i++)
        if (value_of(code[i]) < 0)
            return TAX_ID_CHARACTER;
    for (int i = 2; i < 8; i++)
        if (code[i] < '0' || code[i] > '9')
            return TAX_ID_DIVISION;
    return tax_id_uscc_check_character(code) == code[USCC_LENGTH - 1] ? TAX_ID_OK
                                                                      : TAX_ID_CHECK_CHARACTER;
}
