/*
 * Names of the error codes and the helper that fills a struct gq_error.
 */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const code_names[GQ_CODE_COUNT] = {
    [GQ_OK] = "ok",
    [GQ_ERR_MALFORMED_JSON] = "malformed_json",
    [GQ_ERR_INVALID_PARAMETER] = "invalid_parameter",
    [GQ_ERR_NOT_FOUND] = "not_found",
    [GQ_ERR_METHOD_NOT_ALLOWED] = "method_not_allowed",
    [GQ_ERR_REQUEST_TIMEOUT] = "request_timeout",
    [GQ_ERR_BODY_TOO_LARGE] = "body_too_large",
    [GQ_ERR_UNSUPPORTED_MEDIA_TYPE] = "unsupported_media_type",
    [GQ_ERR_UNAUTHENTICATED] = "unauthenticated",
    [GQ_ERR_FORBIDDEN] = "forbidden",
    [GQ_ERR_SEGMENT_NOT_VERIFIED] = "segment_not_verified",
    [GQ_ERR_RATE_LIMITED] = "rate_limited",
    [GQ_ERR_IDEMPOTENCY_CONFLICT] = "idempotency_conflict",
    [GQ_ERR_QUOTE_EXPIRED] = "quote_expired",
    [GQ_ERR_QUOTE_NOT_OPEN] = "quote_not_open",
    [GQ_ERR_PRICE_LIST_NOT_DRAFT] = "price_list_not_draft",
    [GQ_ERR_PRICE_LIST_WOULD_REVERT] = "price_list_would_revert",
    [GQ_ERR_PRICE_LIST_REBASE_CONFLICT] = "price_list_rebase_conflict",
    [GQ_ERR_MISSING_FIELD] = "missing_field",
    [GQ_ERR_UNKNOWN_FIELD] = "unknown_field",
    [GQ_ERR_INVALID_TYPE] = "invalid_type",
    [GQ_ERR_OUT_OF_RANGE] = "out_of_range",
    [GQ_ERR_INVALID_VALUE] = "invalid_value",
    [GQ_ERR_UNKNOWN_SKU] = "unknown_sku",
    [GQ_ERR_UNKNOWN_BUNDLE] = "unknown_bundle",
    [GQ_ERR_NOT_ELIGIBLE] = "not_eligible",
    [GQ_ERR_AMOUNT_TOO_LARGE] = "amount_too_large",
    [GQ_ERR_PRICE_NOT_POSITIVE] = "price_not_positive",
    [GQ_ERR_PRICE_ABOVE_HOURLY] = "price_above_hourly",
    [GQ_ERR_INVALID_VALIDITY] = "invalid_validity",
    [GQ_ERR_PROMOTION_CODE_INVALID] = "promotion_code_invalid",
    [GQ_ERR_PROMOTION_CODE_EXHAUSTED] = "promotion_code_exhausted",
    [GQ_ERR_PROMOTION_CODE_EXISTS] = "promotion_code_exists",
    [GQ_ERR_NOT_READY] = "not_ready",
    [GQ_ERR_RETRY_LATER] = "retry_later",
    [GQ_ERR_INTERNAL] = "internal_error",
    [GQ_ERR_NO_MEMORY] = "internal_error",
};

const char *gq_code_name(enum gq_code code)
{
    if ((unsigned)code >= GQ_CODE_COUNT || code_names[code] == NULL)
        return "internal_error";
    return code_names[code];
}

void gq_error_clear(struct gq_error *err)
{
    if (err == NULL)
        return;
    err->code = GQ_OK;
    err->field[0] = '\0';
    err->message[0] = '\0';
    err->message_zh_cn[0] = '\0';
    err->state[0] = '\0';
}

_Static_assert(GQ_LANG_COUNT == 2, "struct gq_error has a message member per language");

enum gq_code gq_fail_args(struct gq_error *err, enum gq_code code, const char *field,
                          enum gq_msg id, const struct msg_arg *args, size_t n_args)
{
    if (err == NULL)
        return code;
    err->code = code;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    messages_format(GQ_LANG_EN, id, args, n_args, err->message, sizeof err->message);
    messages_format(GQ_LANG_ZH_CN, id, args, n_args, err->message_zh_cn, sizeof err->message_zh_cn);
    err->state[0] = '\0';
    return code;
}

const char *gq_error_text(const struct gq_error *err, enum gq_lang lang)
{
    if (lang == GQ_LANG_ZH_CN && err->message_zh_cn[0] != '\0')
        return err->message_zh_cn;
    return err->message;
}

enum gq_code gq_fail(struct gq_error *err, enum gq_code code, const char *field, const char *format,
                     ...)
{
    if (err == NULL)
        return code;
    err->code = code;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
    err->message_zh_cn[0] = '\0';
    err->state[0] = '\0';
    return code;
}
