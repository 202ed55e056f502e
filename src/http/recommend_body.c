/*
 * The POST /recommend body: JSON to a recommend_request (types, enums,
 * assumptions, each problem with its JSON path), and a recommendation back
 * to JSON.
 */
#include <math.h>
#include <string.h>

#include "core/plans.h"
#include "http/bodies.h"

/* ---- parse ------------------------------------------------------------ */

static enum gq_code parse_enum_field(json_t *object, const char *key, const char *path,
                                     bool required, bool (*parse)(const char *, int *),
                                     const char *choices, int *out, struct gq_error *err)
{
    const char *text;
    enum gq_code code = fields_string(object, key, path, required, &text, err);
    if (code != GQ_OK || text == NULL)
        return code;
    if (parse(text, out))
        return GQ_OK;
    char field[96];
    fields_path(field, sizeof field, path, key);
    return gq_fail(err, GQ_ERR_INVALID_VALUE, field, "%s must be one of %s", field, choices);
}

/* Adapters from the typed parsers to parse_enum_field's int. */
static bool parse_task(const char *text, int *out)
{
    enum sizing_task task;
    bool ok = sizing_task_parse(text, &task);
    *out = (int)task;
    return ok;
}

static bool parse_precision(const char *text, int *out)
{
    enum sizing_precision precision;
    bool ok = sizing_precision_parse(text, &precision);
    *out = (int)precision;
    return ok;
}

static bool parse_objective(const char *text, int *out)
{
    enum recommend_objective objective;
    bool ok = recommend_objective_parse(text, &objective);
    *out = (int)objective;
    return ok;
}

static bool parse_segment_name(const char *text, int *out)
{
    enum customer_segment segment;
    bool ok = segment_parse(text, &segment);
    *out = (int)segment;
    return ok;
}

static enum gq_code parse_workload(json_t *body, struct sizing_workload *workload,
                                   struct gq_error *err)
{
    static const char *const workload_fields[] = {"task", "model_params_b", "precision",
                                                  "tokens_b", "tokens_per_second", NULL};
    json_t *object;
    int task = (int)workload->task, precision = (int)workload->precision;
    enum gq_code code;
    if ((code = fields_object(body, "workload", "", true, &object, err)) != GQ_OK ||
        (code = fields_only(object, workload_fields, "workload", err)) != GQ_OK ||
        (code = parse_enum_field(object, "task", "workload", true, parse_task,
                                 "learning, inference, lora, finetune, pretrain", &task, err)) !=
            GQ_OK ||
        (code = fields_real(object, "model_params_b", "workload", false, 0.001, SIZING_MAX_PARAMS_B,
                            &workload->model_params_b, err)) != GQ_OK ||
        (code = parse_enum_field(object, "precision", "workload", false, parse_precision,
                                 "fp32, bf16, fp16, int8, int4", &precision, err)) != GQ_OK ||
        (code = fields_real(object, "tokens_b", "workload", false, 0, SIZING_MAX_TOKENS_B,
                            &workload->tokens_b, err)) != GQ_OK ||
        (code = fields_real(object, "tokens_per_second", "workload", false, 0,
                            SIZING_MAX_TOKENS_PER_SECOND, &workload->tokens_per_second, err)) !=
            GQ_OK)
        return code;
    workload->task = (enum sizing_task)task;
    workload->precision = (enum sizing_precision)precision;
    return GQ_OK;
}

/* Every key must name an assumption; each value is a number (its range is
 * the core's to check). */
static enum gq_code parse_assumptions(json_t *body, struct sizing_assumptions *assumptions,
                                      struct gq_error *err)
{
    json_t *object;
    enum gq_code code = fields_object(body, "assumptions", "", false, &object, err);
    if (code != GQ_OK || object == NULL)
        return code;
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value)
    {
        char field[96];
        fields_path(field, sizeof field, "assumptions", key);
        enum sizing_assumption assumption;
        if (!sizing_assumption_parse(key, &assumption))
            return gq_fail(err, GQ_ERR_UNKNOWN_FIELD, field, "unknown assumption '%.60s'", key);
        if (!json_is_number(value))
            return gq_fail(err, GQ_ERR_INVALID_TYPE, field, "%s must be a number", field);
        assumptions->value[assumption] = json_number_value(value);
        assumptions->set[assumption] = true;
    }
    return GQ_OK;
}

static enum gq_code parse_customer(json_t *body, enum customer_segment *segment,
                                   struct gq_error *err)
{
    static const char *const customer_fields[] = {"segment", NULL};
    json_t *customer;
    int value = (int)*segment;
    enum gq_code code = fields_object(body, "customer", "", false, &customer, err);
    if (code != GQ_OK || customer == NULL)
        return code;
    if ((code = fields_only(customer, customer_fields, "customer", err)) != GQ_OK ||
        (code = parse_enum_field(customer, "segment", "customer", false, parse_segment_name,
                                 "individual, student, startup, enterprise", &value, err)) !=
            GQ_OK)
        return code;
    *segment = (enum customer_segment)value;
    return GQ_OK;
}

enum gq_code recommend_body_parse(json_t *body, struct recommend_request *request,
                                  struct gq_error *err)
{
    static const char *const body_fields[] = {"workload", "hours_per_day", "days",
                                              "deadline_days", "customer", "budget",
                                              "objective", "limit", "assumptions", NULL};
    recommend_request_init(request);
    int64_t days = 0, deadline = 0, limit = 0;
    int objective = (int)request->objective;
    enum gq_code code;
    if ((code = fields_only(body, body_fields, "", err)) != GQ_OK ||
        (code = parse_workload(body, &request->workload, err)) != GQ_OK ||
        (code = fields_hours_per_day(body, "hours_per_day", "", false,
                                     &request->millihours_per_day, err)) != GQ_OK ||
        (code = fields_integer(body, "days", "", false, 1, USAGE_MAX_DAYS, &days, err)) != GQ_OK ||
        (code = fields_integer(body, "deadline_days", "", false, 1, USAGE_MAX_DAYS, &deadline,
                               err)) != GQ_OK ||
        (code = parse_customer(body, &request->segment, err)) != GQ_OK ||
        (code = fields_money(body, "budget", "", false, &request->budget, err)) != GQ_OK ||
        (code = parse_enum_field(body, "objective", "", false, parse_objective, "cost, time",
                                 &objective, err)) != GQ_OK ||
        (code = fields_integer(body, "limit", "", false, 1, RECOMMEND_MAX_LIMIT, &limit, err)) !=
            GQ_OK ||
        (code = parse_assumptions(body, &request->assumptions, err)) != GQ_OK)
        return code;
    request->days = (int32_t)days;
    request->deadline_days = (int32_t)deadline;
    request->limit = (int32_t)limit;
    request->objective = (enum recommend_objective)objective;
    return GQ_OK;
}

/* ---- render ----------------------------------------------------------- */

/* Figures that come from estimates are shown to two decimals. */
static json_t *render_estimated(double value)
{
    return json_real(round(value * 100.0) / 100.0);
}

static json_t *render_assumptions(const double values[SIZING_ASSUMPTION_COUNT])
{
    json_t *object = json_object();
    for (int a = 0; object != NULL && a < SIZING_ASSUMPTION_COUNT; a++)
        json_object_set_new(object, sizing_assumption_id((enum sizing_assumption)a),
                            json_real(values[a]));
    return object;
}

static json_t *render_estimate(const struct sizing_estimate *estimate)
{
    return json_pack(
        "{s:s, s:s, s:b, s:o, s:o, s:o, s:f, s:o, s:f, s:o, s:o, s:f, s:o, s:o, s:f, s:f, s:o, "
        "s:o}",
        "task", sizing_task_id(estimate->task), "precision",
        sizing_precision_id(estimate->precision), "preset", estimate->preset, "model_params_b",
        render_estimated(estimate->params_b), "tokens_b", render_estimated(estimate->tokens_b),
        "tokens_per_second", render_estimated(estimate->tokens_per_second), "bytes_per_param",
        estimate->bytes_per_param, "trainable_params_b",
        render_estimated(estimate->trainable_params_b), "state_bytes_per_trainable_param",
        estimate->state_bytes_per_trainable_param, "weights_gb",
        render_estimated(estimate->weights_gb), "model_state_gb",
        render_estimated(estimate->model_state_gb), "allowance_fraction",
        estimate->allowance_fraction, "allowance_gb", render_estimated(estimate->allowance_gb),
        "memory_gb", render_estimated(estimate->memory_gb), "flops_per_param_token",
        estimate->flops_per_param_token, "flops", estimate->flops, "decode_gb_per_token",
        render_estimated(estimate->decode_gb_per_token), "assumptions",
        render_assumptions(estimate->assumptions));
}

static json_t *render_reasons(const struct recommendation *recommendation)
{
    json_t *reasons = json_array();
    for (int i = 0; reasons != NULL && i < recommendation->n_reasons; i++)
        json_array_append_new(reasons, json_string(recommendation->reasons[i]));
    return reasons;
}

static json_t *render_recommendation(const struct recommendation *r)
{
    return json_pack(
        "{s:i, s:s, s:i, s:s, s:o, s:{s:o, s:i}, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:o}",
        "rank", r->rank, "sku", r->sku->id, "quantity", (int)r->quantity, "billing", r->billing,
        "plan", render_plan(r->sku, &r->plan), "usage", "hours_per_day",
        render_hours(r->usage.millihours_per_day), "days", (int)r->usage.days, "amount",
        render_money(r->amount), "discount_total", render_money(r->discount), "total",
        render_money(r->total), "estimated_hours", render_estimated(r->estimated_hours),
        "estimated_days", render_estimated(r->estimated_days), "memory_gb_needed",
        render_estimated(r->memory_gb_needed), "memory_gb_available",
        (int)r->memory_gb_available, "cards", (int)r->cards, "reasons", render_reasons(r));
}

static json_t *render_rejection(const struct recommend_rejection *rejection)
{
    return json_pack("{s:s, s:i, s:s, s:s}", "sku", rejection->sku->id, "quantity",
                     (int)rejection->quantity, "reason",
                     recommend_reject_reason_id(rejection->reason), "detail", rejection->detail);
}

json_t *recommend_body_render(const struct catalog *catalog, const struct recommend_request *request,
                              const struct recommend_result *result)
{
    json_t *recommendations = json_array();
    for (int i = 0; recommendations != NULL && i < result->n_recommendations; i++)
        json_array_append_new(recommendations,
                              render_recommendation(&result->recommendations[i]));
    json_t *rejected = json_array();
    for (int i = 0; rejected != NULL && i < result->n_rejected; i++)
        json_array_append_new(rejected, render_rejection(&result->rejected[i]));
    json_t *body = json_pack(
        "{s:s, s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:I}", "currency", catalog->currency,
        "price_list_version", (json_int_t)catalog->price_list_version, "objective",
        recommend_objective_id(request->objective), "segment", segment_id(request->segment),
        "hours_per_day", render_hours(result->millihours_per_day), "estimate",
        render_estimate(&result->estimate), "recommendations", recommendations, "rejected",
        rejected, "rejected_total", (json_int_t)result->n_rejected_total);
    if (body != NULL && result->days > 0)
        json_object_set_new(body, "days", json_integer(result->days));
    if (body != NULL && result->hint[0] != '\0')
        json_object_set_new(body, "hint", json_string(result->hint));
    return body;
}

