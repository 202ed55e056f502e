/*
 * Messages: every sentence the service says to a person, in every language
 * it speaks, kept in one table per language and indexed by the message's id.
 *
 * A message is a template with numbered places, "{1} quarters", "报价单
 * '{1}' 已于 {2} 过期": a language may put the arguments in its own order.
 * messages_format() fills them in; an argument is a text, a whole number,
 * a real (written as printf's %g writes it) or another message, which is
 * then said in the same language ("{1} must be {2}, not {3}" with "a
 * string" and "a number" as messages of their own).
 *
 * Machine codes, ids and field names are never messages: they stay the
 * same in every language. A language with a missing message is a failing
 * test (tests/core/check_messages.c), not an English sentence in a Chinese
 * answer. Pure C, like the rest of the core: the HTTP layer picks the
 * language (Accept-Language) and hands it down.
 */
#ifndef GQ_CORE_MESSAGES_H
#define GQ_CORE_MESSAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gq_lang {
    GQ_LANG_EN,    /* English: the default, and the error log's language */
    GQ_LANG_ZH_CN, /* Simplified Chinese, as written in mainland China */
    GQ_LANG_COUNT
};

/* The language's tag as Content-Language names it: "en", "zh-CN". */
const char *gq_lang_tag(enum gq_lang lang);

enum gq_msg {
    MSG_NONE, /* no message: the error's English text is all there is */

    /* ---- plan summaries: "1 quarter + 10 days on demand" -------------- */
    MSG_PLAN_QUARTER,
    MSG_PLAN_QUARTERS,
    MSG_PLAN_MONTH,
    MSG_PLAN_MONTHS,
    MSG_PLAN_DAY_ON_DEMAND,
    MSG_PLAN_DAYS_ON_DEMAND,
    MSG_PLAN_DAY_STUDENT,
    MSG_PLAN_DAYS_STUDENT,
    /* days by the hour in a mode named by the catalog: "3 days on demand" */
    MSG_PLAN_HOURLY_DAY,
    MSG_PLAN_HOURLY_DAYS,

    /* ---- HTTP: framing, media types, routing --------------------------- */
    MSG_CONTENT_LENGTH_TWICE,
    MSG_LENGTH_AND_CHUNKED,
    MSG_ONLY_CHUNKED,
    MSG_HOST_TWICE,
    MSG_HOST_MISSING,
    MSG_HEADER_NAME,
    MSG_LINE_ENDING,
    MSG_CONTENT_TYPE_JSON,
    MSG_CONTENT_TYPE_TWICE,
    MSG_CHARSET_UTF8,
    MSG_CONTENT_ENCODING,
    MSG_BODY_EMPTY,
    MSG_BODY_NOT_OBJECT,
    MSG_NO_QUERY,
    MSG_REQUEST_TIMEOUT,
    MSG_NO_RESOURCE,
    MSG_METHOD_NOT_ALLOWED,
    MSG_BODY_TOO_LARGE,
    MSG_INTERNAL_ERROR,
    MSG_STOPPING,

    /* ---- JSON bodies --------------------------------------------------- */
    MSG_MALFORMED_JSON,
    MSG_NUMBER_TOO_LARGE_AT,
    MSG_FIELD_NUMBER_TOO_LARGE,
    MSG_FIELD_REQUIRED,
    MSG_FIELD_WRONG_TYPE,
    MSG_FIELD_NO_NUL,
    MSG_FIELD_CONTROL_CHARACTER,
    MSG_FIELD_WHOLE,
    MSG_FIELD_INTEGER_RANGE,
    MSG_FIELD_REAL_RANGE,
    MSG_FIELD_HOURS_RANGE,
    MSG_FIELD_THREE_DECIMALS,
    MSG_FIELD_ONE_DECIMAL,
    MSG_FIELD_WHOLE_YUAN,
    MSG_FIELD_MONEY_RANGE,
    MSG_FIELD_MONEY_FORM,
    MSG_FIELD_ARRAY_MAX,
    MSG_FIELD_OBJECT,
    MSG_FIELD_BUNDLE_ID,
    MSG_FIELD_ONE_OF,
    MSG_UNKNOWN_FIELD,
    /* what a value is, or must be: the {2} and {3} of MSG_FIELD_WRONG_TYPE */
    MSG_TYPE_OBJECT,
    MSG_TYPE_ARRAY,
    MSG_TYPE_STRING,
    MSG_TYPE_NUMBER,
    MSG_TYPE_BOOLEAN,
    MSG_TYPE_NULL,
    MSG_TYPE_WHOLE_NUMBER,
    MSG_TYPE_HOURS,
    MSG_TYPE_TRUE_OR_FALSE,
    MSG_TYPE_MONEY_STRING,

    /* ---- GET /catalog's query ------------------------------------------ */
    MSG_PARAM_NO_NAME,
    MSG_PARAM_UNKNOWN,
    MSG_PARAM_TWICE,
    MSG_PARAM_FORM,
    MSG_FORM_GPU,
    MSG_FORM_GB,
    MSG_FORM_CARDS,
    MSG_FORM_HOURLY,
    MSG_FORM_SORT,

    /* ---- quotes -------------------------------------------------------- */
    MSG_NO_SKU,
    MSG_NO_BUNDLE,
    MSG_NO_QUOTE,
    MSG_QUOTE_EXPIRED,
    MSG_IDEMPOTENCY_CONFLICT,
    MSG_IDEMPOTENCY_KEY_TWICE,
    MSG_IDEMPOTENCY_KEY_FORM,
    MSG_QUANTITY_RANGE,
    MSG_HOURS_PER_DAY_RANGE,
    MSG_DAYS_RANGE,
    MSG_SKU_NOT_PRICED_IN,
    MSG_MODE_NOT_FOR_SEGMENT,
    MSG_NO_MODE_FOR_SEGMENT,
    MSG_BUNDLE_NOT_FOR_SEGMENT,
    MSG_BUNDLE_NOT_ON_OFFER,
    MSG_BUNDLE_DEARER_THAN_CONTENTS,
    MSG_BUNDLE_ALTERNATIVE_ITEM,
    MSG_BUNDLE_ALTERNATIVE_NEXT_ITEM,
    MSG_AMOUNT_TOO_LARGE,
    MSG_TOO_MANY_ITEMS,
    MSG_TOO_MANY_BUNDLES,
    MSG_RESULT_ROOM,
    MSG_QUOTE_EMPTY,

    /* ---- the database, as /readyz and a busy save report it ------------ */
    MSG_DATABASE_SILENT,
    MSG_DATABASE_BUSY,
    MSG_DATABASE_READ_ONLY,
    MSG_DATABASE_NOT_WRITABLE,
    MSG_DATABASE_UNAVAILABLE,

    /* ---- keys, scopes and limits ------------------------------------------- */
    MSG_QUOTE_NOT_OPEN,
    MSG_QUOTE_CANCELED,
    MSG_KEY_REQUIRED,
    MSG_SEGMENT_NOT_VERIFIED,
    MSG_SEGMENT_NEEDS_CUSTOMER,
    MSG_ESTIMATE_REASON,
    MSG_KEYLESS_SAVE_FIELD,
    MSG_KEYLESS_SAVE_ITEMS,
    MSG_KEY_INVALID,
    MSG_AUTHORIZATION_FORM,
    MSG_KEY_LACKS_SCOPE,
    MSG_RATE_LIMITED,
    MSG_NO_KEY,
    MSG_SCOPE_UNKNOWN,

    /* ---- list queries ------------------------------------------------------ */
    MSG_PARAM_NOT_KNOWN,
    MSG_FORM_TIME,
    MSG_FORM_LIMIT,
    MSG_FORM_CURSOR,

    /* ---- admin bodies ------------------------------------------------------ */
    MSG_FIELD_TEXT_LENGTH,
    MSG_SCOPES_NONE,
    MSG_NO_EVENT,
    MSG_NO_ENDPOINT,
    MSG_NO_CUSTOMER,
    MSG_EMAIL_FORM,
    MSG_PHONE_FORM,
    MSG_TAX_ID_LENGTH,
    MSG_TAX_ID_CHARACTER,
    MSG_TAX_ID_DIVISION,
    MSG_TAX_ID_CHECK_CHARACTER,
    MSG_SPECIAL_INVOICE_NEEDS,
    MSG_NO_DELIVERY,
    MSG_WEBHOOK_URL_FORM,
    MSG_WEBHOOK_URL_PRIVATE,
    MSG_WEBHOOK_EVENT_TYPE,
    MSG_EVENTS_NONE,

    /* ---- price lists ------------------------------------------------------- */
    MSG_NO_PRICE_LIST,
    MSG_NO_PRICE_LIST_AT,
    MSG_PRICE_LIST_NOT_DRAFT,
    MSG_PRICE_LIST_WOULD_REVERT,
    MSG_PRICE_LIST_REBASE_CONFLICT,
    MSG_PRICE_NOT_POSITIVE,
    MSG_PRICE_ABOVE_HOURLY,
    MSG_PRICE_ABOVE_CEILING,
    MSG_INVALID_VALIDITY,
    MSG_SKU_IN_BUNDLE,
    MSG_MODEL_IN_USE,
    MSG_NO_LIST_ENTITY,
    MSG_NO_GPU_MODEL,

    /* ---- /recommend: reasons, details, hints ---------------------------- */
    MSG_REC_CARD,
    MSG_REC_CARDS,
    MSG_REC_REQUEST,
    MSG_REC_REQUESTS,
    MSG_REC_REPLICA,
    MSG_REC_REPLICAS,
    MSG_REC_INSTANCE,
    MSG_REC_INSTANCES,
    MSG_REC_RATE_ON_DEMAND,
    MSG_REC_RATE_STUDENT,
    MSG_REC_STATE_WEIGHTS,
    MSG_REC_STATE_ADAPTER,
    MSG_REC_STATE_OPTIMIZER,
    MSG_REC_PLAN_RATE,
    MSG_REC_PLAN_HOURS_AT_RATE,
    MSG_REC_ON_CARDS,
    MSG_REC_ACROSS_CARDS,
    MSG_REC_KV_CACHE,
    MSG_REC_ACTIVATIONS,
    MSG_REC_FITS,
    MSG_REC_FITS_PER_GPU,
    MSG_REC_SERVES_MEMORY_BOUND,
    MSG_REC_SERVES_COMPUTE_BOUND,
    MSG_REC_FIRST_TOKEN,
    MSG_REC_TRAINING,
    MSG_REC_TRAINING_NO_BF16,
    MSG_REC_SCALING,
    MSG_REC_RENTAL_HOURS,
    MSG_REC_PLAN,
    MSG_REC_PLAN_PER_INSTANCE,
    MSG_REC_PLAN_DISCOUNT,
    MSG_REC_FINISHES,
    MSG_REC_FINISHES_BY,
    MSG_REC_RUNS,
    MSG_REC_WITHIN_BUDGET,
    MSG_REC_NEEDS_GB,
    MSG_REC_NEEDS_GB_REQUEST,
    MSG_REC_DETAIL_ACROSS,
    MSG_REC_CONTEXT_FITS,
    MSG_REC_WEIGHTS_ALONE,
    MSG_REC_NO_CONTEXT,
    MSG_REC_NO_BANDWIDTH,
    MSG_REC_TOO_SLOW,
    MSG_REC_REPLICAS_FOR_REQUESTS,
    MSG_REC_REPLICAS_FOR_RATE,
    MSG_REC_MISSES_DEADLINE,
    MSG_REC_PAST_MAX_RENTAL,
    MSG_REC_OVER_BUDGET,
    MSG_REC_NOT_ELIGIBLE,
    MSG_REC_AMOUNT_TOO_LARGE,
    MSG_REC_NOT_PRICED,
    MSG_REC_INT8_OR_INT4,
    MSG_REC_QUANTISE_WEIGHTS_OR_KV,
    MSG_REC_QUANTISE_TO,
    MSG_REC_KV_INT8,
    MSG_REC_ADVICE_SERVING,
    MSG_REC_ADVICE_CONTEXT,
    MSG_REC_ADVICE_LORA,
    MSG_REC_ADVICE_SMALLER,
    MSG_REC_ADVICE_FROZEN,
    MSG_REC_RAISE_MAX_INSTANCES,
    MSG_REC_JOIN_TWO,
    MSG_REC_JOIN_THREE,
    MSG_REC_JOIN_TWO_NESTED,
    MSG_REC_JOIN_THREE_NESTED,
    MSG_REC_LOWER_RATE,
    MSG_REC_LOWER_REQUESTS,
    MSG_REC_LOWER_TARGET,
    MSG_REC_LOWER_FLOOR,
    MSG_REC_SHORTEN_PROMPT,
    MSG_REC_HINT_REPLICAS_REQUESTS,
    MSG_REC_HINT_REPLICAS_RATE,
    MSG_REC_HINT_SLOW,
    MSG_REC_CONTEXT_FITS_ON,
    MSG_REC_HINT_MEMORY,
    MSG_REC_HINT_NO_SKUS,
    MSG_REC_HINT_RAISE_BUDGET,
    MSG_REC_HINT_TOO_LONG,
    MSG_REC_HINT_TOO_LONG_MORE,
    MSG_REC_HINT_LATE,
    MSG_REC_HINT_LATE_MORE,
    MSG_REC_HINT_NO_BANDWIDTH,
    MSG_REC_HINT_NOT_PRICED,
    MSG_REC_VARIANT_FP16,
    MSG_REC_VARIANT_SELECTIVE,
    MSG_REC_VARIANT_NO_CHECKPOINTS,
    MSG_REC_VARIANT_INT8,
    MSG_REC_VARIANT_INT4,
    MSG_REC_OUTCOME_TRAINING,
    MSG_REC_OFFER,
    MSG_REC_HINT_CHEAPER,
    MSG_REC_HINT_FASTER,
    MSG_REC_HINT_CHEAPER_STILL,
    MSG_REC_HINT_FASTER_STILL,
    MSG_REC_HINT_WOULD_SERVE,

    /* ---- /recommend: the body's and the workload's validation ---------- */
    MSG_REC_FROM_DEFAULT_TO,
    MSG_REC_RENTAL_DEADLINE,
    MSG_REC_DEFAULT_RENTAL_DEADLINE,
    MSG_REC_UNKNOWN_SEGMENT,
    MSG_REC_OBJECTIVE,
    MSG_REC_BUDGET_RANGE,
    MSG_REC_TRAINING_DAYS,
    MSG_REC_UNKNOWN_ASSUMPTION,
    MSG_REC_FIELD_NUMBER,
    MSG_REC_INTEGER_FROM_TO,
    MSG_REC_GREATER_THAN_AT_MOST,
    MSG_REC_AT_LEAST_AT_MOST,
    MSG_REC_FROM_TO,
    MSG_REC_INFERENCE_ONLY,
    MSG_REC_ACTIVATIONS_ONLY,
    MSG_REC_LORA_ONLY,
    MSG_REC_OFFLOAD_STRATEGY,
    MSG_REC_NEEDS_HOST_GB,
    MSG_REC_TRAINS_ONLY,
    MSG_REC_TOKENS_B_TASK,
    MSG_REC_RANK_OR_FRACTION,
    MSG_REC_MODEL_OR_PARAMS,
    MSG_REC_TRAINS_EVERY_WEIGHT,
    MSG_REC_PROMPT_TOKENS,
    MSG_REC_PROMPT_TOKENS_DEFAULT,
    MSG_REC_UNKNOWN_TASK,
    MSG_REC_UNKNOWN_PRECISION,
    MSG_REC_UNKNOWN_KV_PRECISION,
    MSG_REC_UNKNOWN_CHECKPOINTING,
    MSG_REC_QUANT_PRECISION,
    MSG_REC_QUANT_BITS,
    MSG_REC_QUANT_GROUP,
    MSG_REC_UNKNOWN_MODEL,
    MSG_REC_UNKNOWN_MODEL_NONE,
    MSG_REC_PAST_MAX_POSITIONS,
    MSG_REC_SERVED_AS_FP16,
    MSG_REC_LACKS_FEATURE,
    MSG_REC_HINT_LACKS_FEATURE,
    MSG_REC_CONFIG_DIVIDES,
    MSG_REC_CONFIG_EXPERTS,
    MSG_REC_CONFIG_CONFLICT,
    MSG_REC_CONFIG_TOO_LARGE,

    /* ---- promotion codes ---------------------------------------------------- */
    MSG_PROMO_FORM,
    MSG_PROMO_UNKNOWN,
    MSG_PROMO_EXPIRED,
    MSG_PROMO_INACTIVE,
    MSG_PROMO_EXHAUSTED,
    MSG_PROMO_NEEDS_CUSTOMER,
    MSG_PROMO_NOT_APPLICABLE,
    MSG_PROMO_EXISTS,
    MSG_PROMO_LOCKED,
    MSG_NO_VERIFICATION,
    MSG_TIME_NOT_FUTURE,
    MSG_TIME_TOO_FAR,
    MSG_NO_CUSTOMER_RULE,
    MSG_KEY_OTHER_CUSTOMER,
    MSG_SCOPES_NOT_FOR_CUSTOMER,

    MSG_COUNT
};

/* The template of `id` in `lang`, or NULL when that language lacks it
 * (which the tests forbid) or `id` is out of range. */
const char *messages_template(enum gq_lang lang, enum gq_msg id);

/* The machine name of a message id ("MSG_NO_SKU" -> "no_sku"), for tests
 * and failure messages; "?" when out of range. */
const char *messages_name(enum gq_msg id);

/* ---- arguments ---------------------------------------------------------- */

enum msg_arg_kind { MSG_ARG_TEXT, MSG_ARG_INTEGER, MSG_ARG_REAL, MSG_ARG_MESSAGE };

struct msg_arg {
    enum msg_arg_kind kind;
    const char *text; /* MSG_ARG_TEXT; cut at `cut` bytes, or MSG_ARG_TEXT_MAX */
    size_t cut;
    long long integer;
    double real;
    enum gq_msg message; /* MSG_ARG_MESSAGE: said in the same language, without arguments */
};

/* Each text argument is cut here: a message quotes a request's path or a
 * parameter name at most this long (the cut may split a UTF-8 character;
 * the HTTP layer repairs what it sends). */
#define MSG_ARG_TEXT_MAX 100
#define MSG_MAX_ARGS 4

/* Compound literals, so that passing an int where a text is wanted fails
 * to compile: MSG_TEXT(path), MSG_INT(days), MSG_REAL(24.5), MSG_SAY(MSG_TYPE_STRING). */
#define MSG_TEXT(value) ((struct msg_arg){.kind = MSG_ARG_TEXT, .text = (value)})
/* A text the client sent, quoted at most `bytes` long ("no SKU '...'"). */
#define MSG_TEXT_CUT(value, bytes)                                                                 \
    ((struct msg_arg){.kind = MSG_ARG_TEXT, .text = (value), .cut = (bytes)})
/* A clause the service wrote itself, in the same language (a plan in words,
 * a list of changes): never cut but by the buffer. */
#define MSG_ARG_UNCUT ((size_t)-1)
#define MSG_CLAUSE(value)                                                                          \
    ((struct msg_arg){.kind = MSG_ARG_TEXT, .text = (value), .cut = MSG_ARG_UNCUT})
#define MSG_INT(value) ((struct msg_arg){.kind = MSG_ARG_INTEGER, .integer = (long long)(value)})
#define MSG_REAL(value) ((struct msg_arg){.kind = MSG_ARG_REAL, .real = (double)(value)})
#define MSG_SAY(id) ((struct msg_arg){.kind = MSG_ARG_MESSAGE, .message = (id)})

/* Writes message `id` in `lang` into `buf` (always NUL-terminated, cut to
 * fit), {n} replaced by args[n - 1]; a place with no argument is written
 * as it stands. Returns the length written. No printf for texts and whole
 * numbers: plan summaries are formatted on every quote's path. */
size_t messages_format(enum gq_lang lang, enum gq_msg id, const struct msg_arg *args, size_t n_args,
                       char *buf, size_t size);

/* The numbered places of a template as a bit set (bit n for {n}), so that
 * the tests can hold every language of a message to the same arguments. */
uint32_t messages_places(const char *template_text);

#endif
