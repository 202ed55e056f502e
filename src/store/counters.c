/*
 * The store's counters (counters.h), on sharded cells with no lock.
 */
#include "store/counters.h"

#include "util/metric.h"

/* Cells: the errors by kind, the health checks, then the batch histogram. */
#define HEALTH_CHECKS STORE_ERROR_KIND_COUNT
#define BATCH_FIRST (HEALTH_CHECKS + 1)
METRIC_CELLS_STATIC(store_cells, BATCH_FIRST + METRIC_HISTOGRAM_CELLS(STORE_BATCH_BOUNDS));

const uint64_t store_batch_bounds[STORE_BATCH_BOUNDS] = {1, 2, 4, 8, 16, 32, 64, 128};

const char *store_error_kind_name(enum store_error_kind kind)
{
    static const char *const names[STORE_ERROR_KIND_COUNT] = {
        [STORE_ERROR_BUSY] = "busy",           [STORE_ERROR_UNREACHABLE] = "unreachable",
        [STORE_ERROR_NO_MEMORY] = "no_memory", [STORE_ERROR_STORAGE] = "storage",
        [STORE_ERROR_OTHER] = "other",
    };
    return (unsigned)kind < STORE_ERROR_KIND_COUNT ? names[kind] : "other";
}

void store_count_error(enum store_error_kind kind)
{
    if ((unsigned)kind >= STORE_ERROR_KIND_COUNT)
        kind = STORE_ERROR_OTHER;
    metric_add(&store_cells, (size_t)kind, 1);
}

void store_count_health_check(void)
{
    metric_add(&store_cells, HEALTH_CHECKS, 1);
}

void store_count_batch(size_t size)
{
    metric_observe(&store_cells, BATCH_FIRST, store_batch_bounds, STORE_BATCH_BOUNDS,
                   (uint64_t)size);
}

void store_counters_read(struct store_counters *out)
{
    for (size_t kind = 0; kind < STORE_ERROR_KIND_COUNT; kind++)
        out->errors[kind] = metric_read(&store_cells, kind);
    out->health_checks = metric_read(&store_cells, HEALTH_CHECKS);
    metric_histogram_read(&store_cells, BATCH_FIRST, STORE_BATCH_BOUNDS, out->batch_cumulative,
                          &out->batch_sum);
}
