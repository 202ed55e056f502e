/*
 * Applying discount rules to a line: which rules match, the best exclusive
 * rule against the chain of stackable ones, and the amounts, each rounded
 * half-up once by money_scale() and never taking the line below zero.
 */
#include "core/discounts.h"

#include <string.h>

static bool rule_applies(const struct discount_rule *rule, const struct discount_line *line)
{
    return (rule->segment_mask & SEGMENT_BIT(line->segment)) != 0 &&
           (rule->billing_mask & line->billing_bit) != 0 &&
           (rule->sku_id == NULL || strcmp(rule->sku_id, line->sku->id) == 0) &&
           line->quantity >= rule->min_quantity &&
           validity_contains(rule->valid_from, rule->valid_until, line->now);
}

/* What `rule` takes off `base`: never more than `base`. */
static gq_money rule_amount(const struct discount_rule *rule, gq_money base)
{
    gq_money off = 0;
    if (rule->kind == DISCOUNT_PERCENT) {
        /* base <= MONEY_MAX and basis points <= 10000: cannot overflow. */
        money_scale(base, rule->basis_points, 10000, &off);
    } else {
        off = rule->fixed_amount;
    }
    return off < base ? off : base;
}

/* Priority order: lower priority value first, then id, so the order never
 * depends on how the store happened to return the rules. */
static bool applies_before(const struct discount_rule *a, const struct discount_rule *b)
{
    if (a->priority != b->priority)
        return a->priority < b->priority;
    return strcmp(a->id, b->id) < 0;
}

/* Inserts `rule` into `chain` (sorted by applies_before), keeping at most
 * DISCOUNT_MAX_APPLIED: the ones that apply first. */
static void insert_in_order(const struct discount_rule **chain, int *length,
                            const struct discount_rule *rule)
{
    int position = *length;
    while (position > 0 && applies_before(rule, chain[position - 1]))
        position--;
    if (position >= DISCOUNT_MAX_APPLIED)
        return;
    int last = *length < DISCOUNT_MAX_APPLIED ? *length : DISCOUNT_MAX_APPLIED - 1;
    memmove(&chain[position + 1], &chain[position], (size_t)(last - position) * sizeof *chain);
    chain[position] = rule;
    if (*length < DISCOUNT_MAX_APPLIED)
        (*length)++;
}

static void apply_chain(const struct discount_rule **chain, int length, gq_money amount,
                        struct discount_result *out)
{
    gq_money remaining = amount;
    for (int i = 0; i < length; i++) {
        gq_money off = rule_amount(chain[i], remaining);
        if (off == 0)
            continue;
        out->applied[out->n_applied++] = (struct applied_discount){chain[i], off};
        out->total += off;
        remaining -= off;
    }
}

/* True when one of the customer's own rules applies to `line`: then they
 * replace the list's. */
static bool own_rules_cover(const struct discount_line *line)
{
    for (size_t i = 0; i < line->n_own; i++)
        if (rule_applies(&line->own[i], line))
            return true;
    return false;
}

void discounts_apply(const struct catalog *catalog, const struct discount_line *line,
                     struct discount_result *out)
{
    memset(out, 0, sizeof *out);
    const struct discount_rule *rules = catalog->rules;
    size_t n_rules = catalog->n_rules;
    if (own_rules_cover(line)) {
        rules = line->own;
        n_rules = line->n_own;
    }
    const struct discount_rule *stackable[DISCOUNT_MAX_APPLIED];
    int n_stackable = 0;
    const struct discount_rule *best_exclusive = NULL;
    gq_money best_exclusive_amount = 0;

    for (size_t i = 0; i <= n_rules; i++) {
        const struct discount_rule *rule = i < n_rules ? &rules[i] : line->extra;
        if (rule == NULL)
            continue;
        if (!rule_applies(rule, line))
            continue;
        if (rule->stackable) {
            insert_in_order(stackable, &n_stackable, rule);
            continue;
        }
        gq_money off = rule_amount(rule, line->amount);
        bool better = off > best_exclusive_amount ||
                      (off == best_exclusive_amount && best_exclusive != NULL &&
                       applies_before(rule, best_exclusive));
        if (off > 0 && better) {
            best_exclusive = rule;
            best_exclusive_amount = off;
        }
    }

    apply_chain(stackable, n_stackable, line->amount, out);
    if (best_exclusive != NULL && best_exclusive_amount > out->total) {
        memset(out, 0, sizeof *out);
        out->applied[0] = (struct applied_discount){best_exclusive, best_exclusive_amount};
        out->n_applied = 1;
        out->total = best_exclusive_amount;
    }
}
