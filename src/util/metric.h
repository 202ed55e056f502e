/*
 * Counters and histograms cheap enough for every request, for /metrics.
 *
 * A set of cells is an array of 64-bit counters kept once per shard; each
 * thread adds into its own shard (chosen the first time it counts) with a
 * relaxed atomic add, so the hot path takes no lock and two threads do not
 * fight over one cache line. Reading sums the shards: a reader sees every
 * add that happened before it, give or take the ones in flight, which is
 * what a scrape needs. Threads beyond METRIC_SHARDS share shards, which
 * stays correct (the adds are atomic), only less cheap.
 *
 * A histogram is METRIC_HISTOGRAM_CELLS(n) consecutive cells: one count per
 * bucket (the last one +Inf; not cumulative, so an observation touches one
 * bucket), then the sum of the values. Values are integers in the
 * histogram's base unit (microseconds, items): no floating point on the hot
 * path.
 */
#ifndef GQ_UTIL_METRIC_H
#define GQ_UTIL_METRIC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define METRIC_SHARDS 8
/* Cells are padded to whole cache lines of 8 cells, so shards never share one. */
#define METRIC_STRIDE(count) ((((size_t)(count)) + 7u) / 8u * 8u)
#define METRIC_HISTOGRAM_CELLS(n_bounds) ((size_t)(n_bounds) + 2u)

struct metric_cells {
    _Atomic uint64_t *cells; /* METRIC_SHARDS × stride, 64-byte aligned */
    size_t stride;           /* cells per shard */
    bool owned;              /* allocated by metric_cells_new(), freed by metric_cells_free() */
};

/* Cells with static storage, zeroed, for a module's own counters:
 * METRIC_CELLS_STATIC(batch_cells, 12); */
#define METRIC_CELLS_STATIC(name, count)                                                           \
    static _Alignas(64) _Atomic uint64_t name##_storage[METRIC_SHARDS * METRIC_STRIDE(count)];     \
    static struct metric_cells name = {name##_storage, METRIC_STRIDE(count), false}

/* `count` cells, zeroed. False when memory runs out. */
bool metric_cells_new(struct metric_cells *cells, size_t count);

/* Frees what metric_cells_new() allocated; static cells are left alone. */
void metric_cells_free(struct metric_cells *cells);

/* This thread's shard, 0..METRIC_SHARDS-1. */
unsigned metric_shard(void);

/* Adds `amount` to cell `index` (relaxed, no lock). */
static inline void metric_add(struct metric_cells *cells, size_t index, uint64_t amount)
{
    atomic_fetch_add_explicit(&cells->cells[(size_t)metric_shard() * cells->stride + index], amount,
                              memory_order_relaxed);
}

/* The sum of cell `index` over every shard. */
uint64_t metric_read(const struct metric_cells *cells, size_t index);

/* Counts `value` into the histogram at cell `first` whose buckets end at
 * `bounds` (ascending, n_bounds of them; a value equal to a bound falls in
 * that bound's bucket, as Prometheus's le means). */
void metric_observe(struct metric_cells *cells, size_t first, const uint64_t *bounds,
                    size_t n_bounds, uint64_t value);

/* The histogram at `first` as Prometheus shows it: cumulative[i] counts
 * the values <= bounds[i], cumulative[n_bounds] every value (the count);
 * *sum their sum. */
void metric_histogram_read(const struct metric_cells *cells, size_t first, size_t n_bounds,
                           uint64_t *cumulative, uint64_t *sum);

#endif
