/*
 * The SQLite backend's retention of events and of keyless callers' quotes:
 * a batch of what is past its cut-off, deleted in one write transaction.
 * A read comes first, without the write lock, so that the sweeps with
 * nothing to delete (nearly all of them) never queue behind saves. An
 * event goes with its deliveries (their attempts cascade) and its link to
 * a customer, in that order, so nothing is left pointing at it.
 */
#include "store/sqlite/db.h"

enum { RETENTION_MAX_STATEMENTS = 3 };

/* A kind's statements: `any` finds whether there is anything to delete;
 * `deletes` run in order in one transaction, the last one counted. Each
 * takes the cut-off as ?1 and the batch as ?2. */
struct retention_plan {
    const char *any;
    enum store_sql deletes[RETENTION_MAX_STATEMENTS];
    int n_deletes;
    const char *what;
};

static const struct retention_plan plans[STORE_RETAIN_COUNT] = {
    [STORE_RETAIN_EVENTS] = {"SELECT EXISTS (" EVENTS_PAST_RETENTION_IDS ")",
                             {STORE_SQL_EVENT_DELIVERIES_DELETE, STORE_SQL_CUSTOMER_EVENTS_DELETE,
                              STORE_SQL_EVENTS_DELETE},
                             3,
                             "deleting old events"},
    [STORE_RETAIN_ANONYMOUS_QUOTES] = {"SELECT EXISTS (" ANONYMOUS_QUOTES_ENDED_IDS " LIMIT ?2)",
                                       {STORE_SQL_ANONYMOUS_QUOTES_DELETE},
                                       1,
                                       "deleting anonymous quotes"},
};

struct retention_batch {
    const struct retention_plan *plan;
    int64_t before;
    int limit;
    int *count;
};

static enum gq_code delete_batch(struct sqlite_conn *conn, void *context, struct gq_error *err)
{
    const struct retention_batch *batch = context;
    const struct sqlite_db_param params[] = {SQLITE_DB_INT64_OF(batch->before),
                                             SQLITE_DB_INT64_OF(batch->limit)};
    for (int i = 0; i < batch->plan->n_deletes; i++) {
        const struct sqlite_db_call call = {sqlite_sql(batch->plan->deletes[i]), params, 2,
                                            batch->plan->what};
        enum gq_code code = sqlite_db_change(conn, &call, NULL, err);
        if (code != GQ_OK)
            return code;
    }
    *batch->count = sqlite3_changes(conn->db);
    return GQ_OK;
}

enum gq_code sqlite_delete_past_retention(struct store_backend *backend, enum store_retention kind,
                                          int64_t before, int limit, int *count,
                                          struct gq_error *err)
{
    const struct retention_plan *plan = &plans[kind];
    const struct sqlite_db_param params[] = {SQLITE_DB_INT64_OF(before), SQLITE_DB_INT64_OF(1)};
    const struct sqlite_db_call any_call = {plan->any, params, 2, plan->what};
    const struct sqlite_db_absent absent = {GQ_ERR_INTERNAL, "no answer"};
    int64_t any = 0;
    enum gq_code code = sqlite_db_read_int64(backend, &any_call, &absent, &any, err);
    if (code != GQ_OK || any == 0)
        return code;
    struct retention_batch batch = {plan, before, limit, count};
    return sqlite_db_in_write_transaction(sqlite_store_of(backend), delete_batch, &batch, err);
}
