/*
 * The PostgreSQL backend's retention of events and of keyless callers'
 * quotes: one statement a batch (an event with its deliveries and its
 * link to a customer), which skips the rows another replica is deleting
 * at the same moment, so that replicas sweeping together share the work.
 */
#include "store/postgres/pg.h"

static const enum store_sql statements[STORE_RETAIN_COUNT] = {
    [STORE_RETAIN_EVENTS] = STORE_SQL_EVENTS_DELETE,
    [STORE_RETAIN_ANONYMOUS_QUOTES] = STORE_SQL_ANONYMOUS_QUOTES_DELETE,
};

struct retention_batch {
    enum store_retention kind;
    int64_t before;
    int limit;
    int *count;
};

static enum gq_code delete_batch(struct pg_conn *conn, void *context, struct gq_error *err)
{
    const struct retention_batch *batch = context;
    char before[PG_NUMBER_SIZE], limit[PG_NUMBER_SIZE];
    const char *const values[] = {pg_number_text(batch->before, before),
                                  pg_number_text(batch->limit, limit)};
    const struct pg_call call = {
        statements[batch->kind], 2, values, NULL, NULL, "deleting what is past its retention"};
    return pg_change_count(conn, &call, batch->count, err);
}

enum gq_code pg_delete_past_retention(struct store_backend *backend, enum store_retention kind,
                                      int64_t before, int limit, int *count, struct gq_error *err)
{
    struct retention_batch batch = {kind, before, limit, count};
    return pg_run(pg_store_of(backend), delete_batch, &batch, err);
}
