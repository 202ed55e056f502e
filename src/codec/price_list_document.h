/*
 * The rules of a price list's document, above the store
 * (price_list_document.c): a draft's edits, the whole list's check, the
 * diff against the active list, the check before publishing and a
 * rebase's merge. The edit, publish and rebase functions have the shapes
 * of the store's callbacks (store.h), which run them between reading a
 * list and writing it.
 */
#ifndef GQ_CODEC_PRICE_LIST_DOCUMENT_H
#define GQ_CODEC_PRICE_LIST_DOCUMENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"
#include "core/error.h"

/* What an edit of a draft names. */
enum price_list_entity {
    PRICE_LIST_GPU_MODEL,
    PRICE_LIST_SKU,
    PRICE_LIST_PRICE,
    PRICE_LIST_DISCOUNT_RULE,
    PRICE_LIST_BUNDLE
};

/* One edit of a draft: `record` is the entity's row as the document holds
 * it (its key columns included; NULL deletes the entity), `children` the
 * rows that come with it and replace its old ones (a SKU's "sku_texts" and
 * "sku_prices", a bundle's "bundle_items" and "bundle_texts": an object of
 * arrays; NULL or a missing array keeps what the draft has). Borrowed. */
struct price_list_edit {
    enum price_list_entity entity;
    const char *id;   /* the entity's id (a price: its SKU's) */
    const char *mode; /* a price's billing mode, else NULL */
    json_t *record;   /* an object, or NULL to delete */
    json_t *children; /* an object of arrays, or NULL */
};

/* A store_price_list_editor: applies `edit` (a const struct
 * price_list_edit *) to draft `version`'s `document` and checks the
 * result as a whole (price_list_document_check()); *change receives the
 * audit's {"old", "new"} of the entity (malloc'd). GQ_ERR_NOT_FOUND (no
 * entity to delete), or the check's code (422). */
enum gq_code price_list_document_edit(json_t *document, int64_t version, const void *edit,
                                      char **change, struct gq_error *err);

/* Applies `edit` to draft `version` in the store (read, edit, check and
 * write in one store call), with its audit line. */
enum gq_code price_list_document_edit_list(struct store *store, int64_t version,
                                           const struct price_list_edit *edit,
                                           struct audit_entry *audit, struct gq_error *err);

/* The whole list checked as it would be sold: the catalog's invariants,
 * then the business's rules (price_list_check()). */
enum gq_code price_list_document_check(json_t *document, int64_t version, struct gq_error *err);

/* What `to` changes against `from`, field by field: a new array of
 * {"entity", "id", "field", "old", "new"}, money as decimal strings; NULL
 * when out of memory. */
json_t *price_list_document_diff(json_t *from, json_t *to);

/* The diff of draft `version` against the active list, read from the
 * store, into *out (a new array). */
enum gq_code price_list_document_diff_list(struct store *store, int64_t version, json_t **out,
                                           struct gq_error *err);

/* What publishing a list asks of price_list_document_publish_check(). */
struct price_list_publish_check {
    bool allow_revert;
    json_t *reverts; /* out: a new array on GQ_ERR_PRICE_LIST_WOULD_REVERT */
};

/* A store_price_list_publish_check: the list checked as a whole, then,
 * unless context->allow_revert, GQ_ERR_PRICE_LIST_WOULD_REVERT when a list
 * scheduled after it would undo its changes, or it would undo the active
 * list's (drafted from an older list): context->reverts lists each
 * {"version", "entity", "id", "field", "now", "reverted_to"}. */
enum gq_code price_list_document_publish_check(struct store *store,
                                               const struct price_list_info *info, json_t *document,
                                               int64_t effective_at, void *context,
                                               struct gq_error *err);

/* A store_price_list_merger: list `version`'s own changes (`content`
 * against `base`) re-applied onto `active`, checked as a whole, into
 * *merged. When a field changed on both sides differently:
 * GQ_ERR_PRICE_LIST_REBASE_CONFLICT, *conflicts (a new array) listing
 * them. */
enum gq_code price_list_document_merge(json_t *base, json_t *content, json_t *active,
                                       int64_t version, json_t **merged, json_t **conflicts,
                                       struct gq_error *err);

#endif
