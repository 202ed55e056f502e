/*
 * The quotation (报价单) as a document: an A4 PDF in English or Chinese
 * with the seller, the customer, the quote's number, date and validity
 * (stated in China Standard Time), one row per line, the discounts each
 * named, the totals, the total in capital numerals for Chinese, the VAT
 * note and a box for the seal and the signature.
 *
 * The caller builds the plain struct below (no JSON, no HTTP); this module
 * lays it out with pango and writes it with cairo's PDF surface, which
 * embeds a subset of each font it uses, so the file reads the same on a
 * machine without the fonts. Cairo and pango live here only.
 */
#ifndef GQ_DOCUMENT_QUOTE_PDF_H
#define GQ_DOCUMENT_QUOTE_PDF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/catalog.h"
#include "core/messages.h"
#include "core/money.h"

/* A company's details; a NULL member is printed as "—". */
struct document_party {
    const char *name;
    const char *address;
    const char *phone;
    const char *email;
    const char *tax_id;
    const char *bank;
    const char *account;
};

/* What one unit of a price is. */
enum document_unit {
    DOCUMENT_PER_HOUR,
    DOCUMENT_PER_MONTH,
    DOCUMENT_PER_QUARTER,
    DOCUMENT_PER_SET
};

#define DOCUMENT_PARTS_MAX 4

/* One priced part of a line's plan: 2 months at 1231.00, then hours. */
struct document_part {
    bool is_bundle; /* a bundle's own price: `billing` is not read */
    enum billing_mode billing;
    gq_money unit_price;
    enum document_unit unit;
};

struct document_line {
    const char *item;           /* the configuration's or the bundle's name */
    int64_t quantity;           /* instances */
    int64_t millihours_per_day; /* 0 for a bundle: it has no usage of its own */
    int64_t days;
    struct document_part parts[DOCUMENT_PARTS_MAX];
    int n_parts;
    gq_money amount; /* before discounts */
};

struct document_discount {
    const char *name;
    gq_money amount; /* positive: what it takes off */
};

struct document_quote {
    enum gq_lang lang;
    const char *number;
    int64_t created_at, expires_at; /* unix seconds */
    const struct document_party *seller;
    const struct document_party *customer; /* NULL: the quote names none */
    const struct document_line *lines;
    size_t n_lines;
    const struct document_discount *discounts;
    size_t n_discounts;
    gq_money subtotal, discount_total, total;
};

/* Renders `quote` as a PDF into *pdf (malloc'd, the caller frees it) of
 * *length bytes. False, with *pdf NULL, when memory ran out or cairo
 * failed. Safe to call from several threads (renders take turns). */
bool document_quote_pdf(const struct document_quote *quote, unsigned char **pdf, size_t *length);

/* Releases the fonts the renders loaded (pango's font map, fontconfig's
 * caches), once no render can run: at the end of the process, so that a
 * leak checker sees only what a render itself leaks. */
void document_quote_pdf_shutdown(void);

#endif
