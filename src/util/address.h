/*
 * Network addresses and prefixes as configured (trusted_proxies:
 * "10.0.0.0/8, 127.0.0.1, fd00::/8"), whether an address is within one,
 * and the client's address read from the header a chain of proxies appends
 * to (X-Forwarded-For, or RFC 7239's Forwarded).
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

/* True when the leading `bits` of `bytes` are those of `prefix`. */
bool address_bits_match(const uint8_t *prefix, unsigned bits, const uint8_t *bytes);

/* True when `text` (of `length` bytes) is a numeric IPv4 or IPv6 address. */
bool address_is_numeric(const char *text, size_t length);

/* How a forwarding header lists its hops. */
enum address_header_form {
    ADDRESS_LIST,      /* X-Forwarded-For: "client, proxy1, proxy2" */
    ADDRESS_FORWARDED, /* Forwarded: "for=client;proto=https, for=\"[2001:db8::1]:4711\"" */
};

/* The client's address in a forwarding header whose every line has been
 * joined, in order, with ',' into `value`. Each proxy appends the address
 * it received from, so only the right end is believable: the hops are
 * walked from the right, trusted proxies skipped, and the first address
 * that is not one is the client's (as nginx's real_ip_recursive; RFC 7239,
 * 7.4). When every hop is trusted, the leftmost is. A hop that is not a
 * numeric address ("unknown", an obfuscated "_name", garbage, a Forwarded
 * element without for=) ends the walk: the client is then the last trusted
 * hop passed. Writes the address, without brackets or port, to `out` and
 * returns true; false when the header names none (the peer, a trusted
 * proxy, remains the client). */
bool address_forwarded_client(const char *value, enum address_header_form form,
                              const struct address_prefix *trusted, size_t count, char *out,
                              size_t out_size);

#endif
