/*
 * Email and telephone shapes (contact.h): each a single pass over the
 * text, refusing at the first character that cannot belong.
 */
#include "core/contact.h"

#include <string.h>

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Bytes below 0x21 (space, controls) and DEL: never part of an address. */
static bool is_blank_or_control(unsigned char c)
{
    return c <= 0x20 || c == 0x7f;
}

static bool domain_is_valid(const char *domain)
{
    size_t labels = 0, label_length = 0;
    for (const char *p = domain;; p++) {
        if (*p == '.' || *p == '\0') {
            if (label_length == 0)
                return false; /* empty label: a leading, trailing or double dot */
            labels++;
            label_length = 0;
            if (*p == '\0')
                break;
        } else {
            label_length++;
        }
    }
    return labels >= 2;
}

bool contact_email_is_valid(const char *email)
{
    size_t length = strlen(email);
    if (length == 0 || length > CONTACT_EMAIL_MAX)
        return false;
    for (size_t i = 0; i < length; i++)
        if (is_blank_or_control((unsigned char)email[i]))
            return false;
    const char *at = strchr(email, '@');
    if (at == NULL || at == email || strchr(at + 1, '@') != NULL)
        return false;
    return domain_is_valid(at + 1);
}

/* The digits of `phone` into `digits` (at most `size` - 1), skipping one
 * space or dash between two digits; *plus when it began with '+'. False
 * when any other character appears or there are too many digits. */
static bool collect_digits(const char *phone, char *digits, size_t size, bool *plus)
{
    size_t count = 0;
    *plus = phone[0] == '+';
    const char *p = *plus ? phone + 1 : phone;
    for (; *p != '\0'; p++) {
        if (is_digit(*p)) {
            if (count + 1 >= size)
                return false;
            digits[count++] = *p;
        } else if ((*p == ' ' || *p == '-') && count > 0 && is_digit(p[1])) {
            continue;
        } else {
            return false;
        }
    }
    digits[count] = '\0';
    return count > 0;
}

static bool is_mainland_mobile(const char *national)
{
    if (strlen(national) != 11 || national[0] != '1' || national[1] < '3' || national[1] > '9')
        return false;
    return true;
}

bool contact_phone_is_valid(const char *phone)
{
    char digits[24];
    bool plus;
    if (!collect_digits(phone, digits, sizeof digits, &plus))
        return false;
    if (!plus)
        return is_mainland_mobile(digits);
    size_t count = strlen(digits);
    if (count < 8 || count > 15 || digits[0] == '0')
        return false;
    /* 13x to 19x after +86 are mobile prefixes; Beijing's area code 10
     * also begins with 1, so only those are held to the mobile shape. */
    if (strncmp(digits, "86", 2) == 0 && digits[2] == '1' && digits[3] >= '3' && digits[3] <= '9')
        return is_mainland_mobile(digits + 2);
    return true;
}
