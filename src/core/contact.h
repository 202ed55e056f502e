/*
 * The shape of what a person types as a way to reach them: an email
 * address and a telephone number. Shape only: whether the mailbox or the
 * line exists is not known here. Pure C, no I/O.
 */
#ifndef GQ_CORE_CONTACT_H
#define GQ_CORE_CONTACT_H

#include <stdbool.h>

/* The longest email address a mail system carries (RFC 5321's path limit). */
#define CONTACT_EMAIL_MAX 254

/* An email address's shape: at most CONTACT_EMAIL_MAX bytes, exactly one
 * '@' with something before it, a domain of dot-separated labels (at
 * least two, none empty), and no space or control character anywhere. */
bool contact_email_is_valid(const char *email);

/* A telephone number's shape, spaces and dashes between digits allowed:
 * a mainland mobile number (1[3-9] and nine digits, with or without +86),
 * or an international number in E.164 form, '+' and 8 to 15 digits of
 * country code and number (the country code does not begin with 0). A
 * +86 number whose national part begins with 13 to 19 must be a mobile
 * number. */
bool contact_phone_is_valid(const char *phone);

#endif
