/*
 * Three-way comparison of price-list documents (the JSON the store keeps:
 * one array of rows per catalog table, each row an object keyed by column
 * name). Two questions are asked of a list L drafted from a base B while
 * another list A has come into effect since:
 *
 *   - what would L undo of A when it takes effect? Every field that A
 *     changed from B and L left as B had it (price_list_merge_reverts());
 *   - what is L's own work re-applied onto A? Every field L changed from B,
 *     written over A, unless A changed the same field to something else: a
 *     conflict, and then nothing is merged (price_list_merge()).
 *
 * Rows are told apart by their key columns (a price by its SKU and mode,
 * a rule by its id); a row missing from a document is a field-less change
 * (field null). Pure functions over the documents, beside the other
 * rules of a document (price_list_document.c): no SQL, no HTTP. They stay out of
 * src/core/, which holds no JSON.
 */
#ifndef GQ_CODEC_PRICE_LIST_MERGE_H
#define GQ_CODEC_PRICE_LIST_MERGE_H

#include <jansson.h>
#include <stdbool.h>

/* The tables a list's edits change, each with what its rows are called and
 * the columns that tell one row from another. */
struct price_list_merge_table {
    const char *table;   /* the document's array: "sku_prices" */
    const char *entity;  /* the API's word: "price" */
    const char *keys[2]; /* the second NULL when one column is the key */
};

extern const struct price_list_merge_table price_list_merge_tables[];
extern const size_t price_list_merge_table_count;

/* The id a change names a row by: the values of its key columns
 * (`keys`, the second NULL when one is the key), "/" between two. */
void price_list_merge_row_id(const char *const *keys, const json_t *row, char id[160]);

/* What `list` (drafted from `base`) would put back of `active`'s changes:
 * a new array of {"entity", "id", "field", "now", "reverted_to"}, values
 * as the documents hold them (field null: the whole row, null when
 * absent). Empty when nothing would be reverted; NULL when out of memory. */
json_t *price_list_merge_reverts(const json_t *base, const json_t *list, const json_t *active);

/* `list`'s changes from `base` applied onto `active`: *merged receives a
 * new document (a copy of `active` with the edited tables merged) when
 * there is no conflict, else NULL; *conflicts a new array of {"entity",
 * "id", "field", "base", "list", "active"} (empty when none). false when
 * out of memory (nothing returned). */
bool price_list_merge(const json_t *base, const json_t *list, const json_t *active, json_t **merged,
                      json_t **conflicts);

#endif
