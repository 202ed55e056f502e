/*
 * Writes that read their row back in the same transaction, a key's
 * revocation and a promotion code's deactivation: their arguments and what
 * they report from the row they read, the same for every backend. A
 * backend runs the update and the read; these say what the caller gets.
 */
#ifndef GQ_STORE_READBACK_H
#define GQ_STORE_READBACK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "store/backend.h"
#include "store/store.h"

/* A key's revocation: the key `id` revoked at `now`, with `audit`. */
struct store_key_revoke {
    const char *id;
    int64_t now;
    const struct audit_line *audit;
    struct stored_key *out;
    bool *found, *was_revoked;
};

/* Reports `revoke` from `list`, the key read back after the update (freed
 * here), and `revoked_now`: whether this update revoked it. */
void store_key_revoke_report(const struct store_key_revoke *revoke, struct key_list *list,
                             bool revoked_now);

/* A promotion code's deactivation: the code `name` at `now`, with `audit`. */
struct store_code_deactivate {
    const char *name;
    int64_t now;
    const struct audit_line *audit;
    struct stored_promotion_code *out;
    bool *found;
};

/* Before the transaction: nothing found yet, *out empty. */
void store_code_deactivate_begin(const struct store_code_deactivate *deactivate);

/* Moves the code read back (`list`, freed here) to *out, replacing what a
 * retried run left there, and sets *found. */
void store_code_deactivate_report(const struct store_code_deactivate *deactivate,
                                  struct promotion_code_list *list);

/* After the transaction ended with `code`: on a failure nothing is found
 * and *out is empty again. Returns `code`. */
enum gq_code store_code_deactivate_end(const struct store_code_deactivate *deactivate,
                                       enum gq_code code);

#endif
