/*
 * Verified segments of a customer (verifications.c and each backend's
 * verifications.c): an operator's statement that a customer is a student,
 * a startup or an enterprise until a time. A verification applies while it
 * is neither revoked nor past its expires_at; the sweeper writes its
 * customer.verification.expired once, when expires_at has passed. Its
 * evidence is kept out of every event, so that erasing the customer
 * (which clears the evidence) leaves it nowhere.
 */
#ifndef GQ_STORE_VERIFICATIONS_H
#define GQ_STORE_VERIFICATIONS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

#define STORE_EVENT_VERIFICATION_CREATED "customer.verification.created"
#define STORE_EVENT_VERIFICATION_REVOKED "customer.verification.revoked"
#define STORE_EVENT_VERIFICATION_EXPIRED "customer.verification.expired"

#define STORE_SEGMENT_SIZE 16

/* A verification as stored; `evidence` is owned (NULL: none or erased),
 * store_verification_clear() frees it. A time of 0 is "not yet". */
struct stored_verification {
    int64_t created_at, expires_at, revoked_at, expired_at;
    char id[STORE_ID_SIZE]; /* "ver_" and 32 hex digits */
    char customer_id[STORE_ID_SIZE];
    char segment[STORE_SEGMENT_SIZE];
    char *evidence;
};

struct verification_list {
    struct stored_verification *items;
    size_t count;
};

void store_verification_clear(struct stored_verification *verification);
void store_verification_list_free(struct verification_list *list);

/* "revoked", "expired" (expires_at <= now, whether or not the sweeper has
 * written it yet) or "active". */
const char *store_verification_status(const struct stored_verification *verification, int64_t now);

/* The verification as the API shows it at `now`, with its evidence or
 * without (events); NULL when memory runs out. */
json_t *store_verification_json(const struct stored_verification *verification, int64_t now,
                                bool with_evidence);

/* The verifications of `customer_id`, oldest first: the one `id` (NULL:
 * all), and only those that apply at `live_at` (0: every one). */
enum gq_code store_verifications_read(struct store *store, const char *customer_id, const char *id,
                                      int64_t live_at, struct verification_list *out,
                                      struct gq_error *err);

/* Stores a new verification with its customer.verification.created event
 * and audit line in one transaction; GQ_ERR_NOT_FOUND (nothing written)
 * when its customer is unknown or erased. */
enum gq_code store_verification_create(struct store *store,
                                       const struct stored_verification *verification,
                                       const struct audit_entry *audit, struct gq_error *err);

/* Revokes `verification` (as read, revoked_at set to now by the caller)
 * with its customer.verification.revoked event and audit line, if it
 * still applies; *revoked false (nothing written) when it was revoked or
 * expired meanwhile. */
enum gq_code store_verification_revoke(struct store *store,
                                       const struct stored_verification *verification,
                                       const struct audit_entry *audit, bool *revoked,
                                       struct gq_error *err);

/* Marks at most `limit` verifications past their expires_at at `now`
 * expired, each with its customer.verification.expired event, each once
 * whichever replica runs it; *count says how many. */
enum gq_code store_verifications_expire(struct store *store, int64_t now, int limit, int *count,
                                        struct gq_error *err);

/* ---- For the backends ---- */

/* One write of a verification: an insert (`create`) if its customer is
 * live, or the revoke of one that still applies; with its event and audit
 * line in the same transaction. *done false: nothing written. */
struct verification_write {
    bool create;
    const struct stored_verification *verification;
    const struct store_event *event;
    const struct audit_line *audit;
};

/* The event `type` of `verification` at `now` into *out (the caller
 * clears it). */
enum gq_code store_verification_event(const char *type,
                                      const struct stored_verification *verification, int64_t now,
                                      struct store_event *out, struct gq_error *err);

#endif
