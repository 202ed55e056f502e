/*
 * What the store counts for /metrics: its failures by kind (counted where
 * each backend turns a database failure into an error: sqlite_db_fail,
 * pg_fail), the health checks /readyz makes (store_ping), and the size of
 * each group-commit batch (quote_batch.c).
 * Process-wide, with no lock (util/metric.h): one process serves one store.
 */
#ifndef GQ_STORE_COUNTERS_H
#define GQ_STORE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

enum store_error_kind {
    STORE_ERROR_BUSY,        /* a lock or a serialisation conflict outlasted the wait: retry */
    STORE_ERROR_UNREACHABLE, /* PostgreSQL: the connection was lost or could not be made */
    STORE_ERROR_NO_MEMORY,
    STORE_ERROR_STORAGE, /* SQLite: the disk is full, read-only or failing */
    STORE_ERROR_OTHER,   /* any other failure the database reported */
    STORE_ERROR_KIND_COUNT
};

/* The bounds of the batch-size histogram's buckets (the last one is the
 * largest batch the group commit makes). */
#define STORE_BATCH_BOUNDS 8
extern const uint64_t store_batch_bounds[STORE_BATCH_BOUNDS];

/* The label of a kind: "busy", "unreachable", "no_memory", "storage", "other". */
const char *store_error_kind_name(enum store_error_kind kind);

void store_count_error(enum store_error_kind kind);

/* One health check of the database (store_ping). */
void store_count_health_check(void);

/* One batch of `size` quotes handed to the backend in one transaction. */
void store_count_batch(size_t size);

struct store_counters {
    uint64_t errors[STORE_ERROR_KIND_COUNT];
    uint64_t health_checks;
    uint64_t batch_cumulative[STORE_BATCH_BOUNDS + 1]; /* as metric_histogram_read() gives */
    uint64_t batch_sum;
};

void store_counters_read(struct store_counters *out);

#endif
