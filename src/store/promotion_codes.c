/*
 * Promotion codes, the part every backend shares: the wrappers of store.h,
 * which give each admin write its audit line, word what a backend reports
 * (a name taken, a code ran out), and make the promotion_code.redeemed
 * event an accept appends in its own transaction.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "store/backend.h"
#include "store/page.h"
#include "store/store.h"

void store_promotion_code_clear(struct stored_promotion_code *code)
{
    if (code == NULL)
        return;
    free(code->discount);
    memset(code, 0, sizeof *code);
}

void store_promotion_code_list_free(struct promotion_code_list *list)
{
    STORE_LIST_FREE(list, store_promotion_code_clear);
}

enum gq_code store_promotion_codes_read(struct store *store, const char *code,
                                        struct promotion_code_list *out, struct gq_error *err)
{
    memset(out, 0, sizeof *out);
    return store_ops(store)->promotion_codes_read(store_backend(store), code, out, err);
}

static enum gq_code report_unknown(const char *code, struct gq_error *err)
{
    return gq_fail_msg(err, GQ_ERR_NOT_FOUND, NULL, MSG_PROMO_UNKNOWN, MSG_TEXT_CUT(code, 40));
}

enum gq_code store_promotion_code_get(struct store *store, const char *code,
                                      struct stored_promotion_code *out, struct gq_error *err)
{
    struct promotion_code_list list;
    enum gq_code result = store_promotion_codes_read(store, code, &list, err);
    if (result == GQ_OK && !store_items_take_first(list.items, list.count, sizeof *list.items, out))
        result = report_unknown(code, err);
    store_promotion_code_list_free(&list);
    return result;
}

enum gq_code store_promotion_code_create(struct store *store,
                                         const struct stored_promotion_code *code,
                                         const struct audit_entry *audit, struct gq_error *err)
{
    struct audit_line line;
    bool inserted = false;
    enum gq_code result = store_audit_line(audit, &line, err);
    if (result == GQ_OK)
        result = store_ops(store)->promotion_code_insert(store_backend(store), code, &line,
                                                         &inserted, err);
    if (result == GQ_OK && !inserted)
        result = gq_fail_msg(err, GQ_ERR_PROMOTION_CODE_EXISTS, "code", MSG_PROMO_EXISTS,
                             MSG_TEXT(code->code));
    return result;
}

enum gq_code store_promotion_code_deactivate(struct store *store, const char *code, int64_t now,
                                             const struct audit_entry *audit,
                                             struct stored_promotion_code *out,
                                             struct gq_error *err)
{
    struct audit_line line;
    bool found = false;
    enum gq_code result = store_audit_line(audit, &line, err);
    if (result == GQ_OK)
        result = store_ops(store)->promotion_code_deactivate(store_backend(store), code, now, &line,
                                                             out, &found, err);
    if (result == GQ_OK && !found)
        result = report_unknown(code, err);
    return result;
}

enum gq_code store_promotion_code_redeemed_event(const char *code, const char *quote_id,
                                                 int64_t now, struct store_event *out,
                                                 struct gq_error *err)
{
    assert(code != NULL && quote_id != NULL);
    json_t *object = json_pack("{s:s, s:s, s:s, s:I}", "object", "promotion_code_redemption",
                               "code", code, "quote", quote_id, "redeemed_at", (json_int_t)now);
    char *text = object != NULL ? json_dumps(object, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(object);
    return store_event_of_text(STORE_EVENT_PROMOTION_CODE_REDEEMED, text, out, err);
}

enum gq_code store_promotion_code_report_exhausted(struct store *store, const char *code,
                                                   struct gq_error *err)
{
    struct stored_promotion_code stored = {0};
    enum gq_code result = store_promotion_code_get(store, code, &stored, err);
    if (result == GQ_OK)
        result = gq_fail_msg(err, GQ_ERR_PROMOTION_CODE_EXHAUSTED, NULL, MSG_PROMO_EXHAUSTED,
                             MSG_TEXT(code), MSG_INT(stored.redemptions));
    store_promotion_code_clear(&stored);
    if (result == GQ_ERR_PROMOTION_CODE_EXHAUSTED)
        snprintf(err->state, sizeof err->state, "exhausted");
    return result;
}
