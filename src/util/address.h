/*
 * Network addresses and prefixes as configured (trusted_proxies:
 * "10.0.0.0/8, 127.0.0.1, fd00::/8"), and whether an address is within one.
 */
#ifndef GQ_UTIL_ADDRESS_H
#define GQ_UTIL_ADDRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADDRESS_PREFIXES_MAX 32

struct address_prefix {
    int family;        /* AF_INET or AF_INET6 */
    uint8_t bytes[16]; /* the address, 4 or 16 bytes */
    unsigned bits;     /* how many leading bits must match */
};

/* Parses a comma list of addresses (a whole address) and prefixes
 * ("address/bits") into `out` (room for ADDRESS_PREFIXES_MAX); NULL or ""
 * is none. False on anything else, with the faulty item in `bad`. */
bool address_prefixes_parse(const char *text, struct address_prefix *out, size_t *count, char *bad,
                            size_t bad_size);

/* True when the numeric address `text` (IPv4 or IPv6) is within one of the
 * prefixes. An IPv4 address mapped into IPv6 (::ffff:10.0.0.1) counts as
 * the IPv4 one. */
bool address_in_prefixes(const char *text, const struct address_prefix *prefixes, size_t count);

/* True when `text` (of `length` bytes) is a numeric IPv4 or IPv6 address. */
bool address_is_numeric(const char *text, size_t length);

#endif
