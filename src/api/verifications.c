/*
 * Verified segments of a customer: POST /customers/{id}/verifications
 * (scope customers:verify, kept apart from customers:write so that a shop's
 * backend cannot verify its own customers) states that a customer is a
 * student, a startup or an enterprise until expires_at, with the evidence
 * seen; DELETE /customers/{id}/verifications/{ver_id} revokes it. A
 * customer's representation gains `segments` ("individual" and every
 * segment of a verification that applies) and `verifications` (those that
 * apply). Each write stores its event and audit line in one transaction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "codec/bodies.h"
#include "http/app.h"
#include "http/auth.h"
#include "http/reply.h"
#include "http/request.h"
#include "store/verifications.h"
#include "util/clock.h"
#include "util/ids.h"

#define VERIFICATION_PREFIX "ver_"
#define EVIDENCE_MAX_BYTES 200
#define SECONDS_PER_DAY 86400
#define CUSTOMER_ID_PREFIX "cus_"
/* Five years, leap days included: a verification is looked at again by then. */
#define VERIFICATIONS_MAX_DAYS 1826

static const char *const verifiable_segments[] = {"student", "startup", "enterprise", NULL};

static bool is_verifiable(const char *segment)
{
    for (size_t i = 0; verifiable_segments[i] != NULL; i++)
        if (strcmp(segment, verifiable_segments[i]) == 0)
            return true;
    return false;
}

/* expires_at: after `now`, at most VERIFICATIONS_MAX_DAYS later. */
static enum gq_code read_expiry(json_t *body, int64_t now, int64_t *out, struct gq_error *err)
{
    enum gq_code code = fields_time(body, "expires_at", "", true, out, err);
    if (code != GQ_OK)
        return code;
    if (*out <= now)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "expires_at", MSG_TIME_NOT_FUTURE,
                           MSG_TEXT("expires_at"));
    if (*out > now + (int64_t)VERIFICATIONS_MAX_DAYS * SECONDS_PER_DAY)
        return gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "expires_at", MSG_TIME_TOO_FAR,
                           MSG_TEXT("expires_at"), MSG_INT(VERIFICATIONS_MAX_DAYS));
    return GQ_OK;
}

/* The body's verification into *out (its evidence borrowed from the body:
 * the caller does not clear it). */
static enum gq_code read_body(json_t *body, int64_t now, struct stored_verification *out,
                              struct gq_error *err)
{
    static const char *const allowed[] = {"segment", "expires_at", "evidence", NULL};
    const char *segment = NULL, *evidence = NULL;
    if (!json_is_object(body))
        return gq_fail_msg(err, GQ_ERR_INVALID_TYPE, NULL, MSG_BODY_NOT_OBJECT);
    enum gq_code code = fields_only(body, allowed, "", err);
    if (code == GQ_OK)
        code = fields_string(body, "segment", "", true, &segment, err);
    if (code == GQ_OK && !is_verifiable(segment))
        code = gq_fail_msg(err, GQ_ERR_INVALID_VALUE, "segment", MSG_FIELD_ONE_OF,
                           MSG_TEXT("segment"), MSG_TEXT("student, startup, enterprise"));
    if (code == GQ_OK)
        code = read_expiry(body, now, &out->expires_at, err);
    if (code == GQ_OK)
        code = fields_text(body, "evidence", "", EVIDENCE_MAX_BYTES, &evidence, err);
    if (code != GQ_OK)
        return code;
    snprintf(out->segment, sizeof out->segment, "%s", segment);
    out->evidence = (char *)evidence;
    out->created_at = now;
    return GQ_OK;
}

/* The audit's change: the customer and the segment, never the evidence;
 * the caller frees it (NULL when memory runs out). */
static char *audit_change(const struct stored_verification *verification)
{
    json_t *change = json_pack("{s:s, s:s}", "customer", verification->customer_id, "segment",
                               verification->segment);
    char *text = change != NULL ? json_dumps(change, JSON_COMPACT) : NULL;
    json_decref(change);
    return text;
}

static enum MHD_Result reply_no_customer(struct http_request *request)
{
    return reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_CUSTOMER,
                          MSG_TEXT_CUT(request->path_id, 40));
}

static enum MHD_Result reply_verification(struct http_request *request, unsigned status,
                                          const struct stored_verification *verification)
{
    return reply_json(request, status,
                      store_verification_json(verification, clock_now_seconds(), true));
}

enum MHD_Result verifications_handle_create(struct http_request *request)
{
    struct gq_error err;
    struct stored_verification verification = {0};
    if (!ids_is_well_formed(CUSTOMER_ID_PREFIX, request->path_id))
        return reply_no_customer(request);
    if (read_body(request->json, clock_now_seconds(), &verification, &err) != GQ_OK)
        return reply_error(request, &err);
    /* well formed: "cus_" and 32 hex digits */
    snprintf(verification.customer_id, sizeof verification.customer_id, "%.36s", request->path_id);
    if (!ids_generate_ordered(VERIFICATION_PREFIX, verification.id))
        return reply_fail(request, GQ_ERR_INTERNAL, NULL, "cannot make a verification id");
    char *change = audit_change(&verification);
    if (change == NULL)
        return reply_fail(request, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    struct audit_entry audit =
        auth_audit_entry(request, "customer.verification.create", verification.id, change);
    enum gq_code code = store_verification_create(request->app->store, &verification, &audit, &err);
    free(change);
    if (code != GQ_OK)
        return reply_error(request, &err);
    return reply_verification(request, MHD_HTTP_CREATED, &verification);
}

/* The verification of the path into *out; false when the reply (404) is
 * queued. */
static bool read_verification(struct http_request *request, struct stored_verification *out,
                              enum MHD_Result *reply)
{
    const char *customer_id = request->path_params[0], *id = request->path_params[1];
    struct verification_list found = {0};
    struct gq_error err;
    enum gq_code code = GQ_OK;
    if (ids_is_well_formed(CUSTOMER_ID_PREFIX, customer_id) &&
        ids_is_well_formed(VERIFICATION_PREFIX, id))
        code = store_verifications_read(request->app->store, customer_id, id, 0, &found, &err);
    if (code == GQ_OK && found.count == 1) {
        *out = found.items[0];
        free(found.items);
        return true;
    }
    store_verification_list_free(&found);
    *reply = code != GQ_OK ? reply_error(request, &err)
                           : reply_fail_msg(request, GQ_ERR_NOT_FOUND, NULL, MSG_NO_VERIFICATION,
                                            MSG_TEXT_CUT(customer_id, 40), MSG_TEXT_CUT(id, 40));
    return false;
}

/* Revokes `verification` (one that applies) and answers with it as it is
 * after. */
static enum MHD_Result revoke_now(struct http_request *request,
                                  struct stored_verification *verification)
{
    struct gq_error err;
    char *change = audit_change(verification);
    if (change == NULL)
        return reply_fail(request, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    struct audit_entry audit =
        auth_audit_entry(request, "customer.verification.revoke", verification->id, change);
    bool revoked = false;
    verification->revoked_at = clock_now_seconds();
    enum gq_code code =
        store_verification_revoke(request->app->store, verification, &audit, &revoked, &err);
    free(change);
    if (code != GQ_OK)
        return reply_error(request, &err);
    if (revoked)
        return reply_verification(request, MHD_HTTP_OK, verification);
    /* Revoked or expired meanwhile: as it is now. */
    enum MHD_Result reply;
    store_verification_clear(verification);
    if (!read_verification(request, verification, &reply))
        return reply;
    return reply_verification(request, MHD_HTTP_OK, verification);
}

enum MHD_Result verifications_handle_revoke(struct http_request *request)
{
    struct stored_verification verification;
    enum MHD_Result reply;
    if (!read_verification(request, &verification, &reply))
        return reply;
    int64_t now = clock_now_seconds();
    if (strcmp(store_verification_status(&verification, now), "active") == 0)
        reply = revoke_now(request, &verification);
    else
        reply = reply_verification(request, MHD_HTTP_OK, &verification);
    store_verification_clear(&verification);
    return reply;
}

enum gq_code verifications_add_to_customer(struct store *store, json_t *customer,
                                           struct gq_error *err)
{
    int64_t now = clock_now_seconds();
    struct verification_list live;
    const char *id = json_string_value(json_object_get(customer, "id"));
    enum gq_code code = store_verifications_read(store, id, NULL, now, &live, err);
    if (code != GQ_OK)
        return code;
    json_t *segments = json_pack("[s]", "individual");
    json_t *verifications = json_array();
    for (size_t i = 0; segments != NULL && verifications != NULL && i < live.count; i++) {
        json_t *segment = json_string(live.items[i].segment);
        bool listed = false;
        for (size_t j = 0; j < json_array_size(segments); j++)
            listed = listed || json_equal(json_array_get(segments, j), segment);
        if (!listed)
            json_array_append(segments, segment);
        json_decref(segment);
        json_array_append_new(verifications, store_verification_json(&live.items[i], now, true));
    }
    store_verification_list_free(&live);
    if (segments == NULL || verifications == NULL) {
        json_decref(segments);
        json_decref(verifications);
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    }
    if (json_object_set_new(customer, "segments", segments) != 0 ||
        json_object_set_new(customer, "verifications", verifications) != 0)
        return gq_fail(err, GQ_ERR_NO_MEMORY, NULL, "out of memory");
    return GQ_OK;
}
