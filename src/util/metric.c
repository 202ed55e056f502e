/*
 * Sharded counters and histograms (metric.h).
 */
#include "util/metric.h"

#include <stdlib.h>
#include <string.h>

bool metric_cells_new(struct metric_cells *cells, size_t count)
{
    size_t stride = METRIC_STRIDE(count == 0 ? 1 : count);
    size_t bytes = METRIC_SHARDS * stride * sizeof(uint64_t); /* a multiple of 64 */
    cells->cells = aligned_alloc(64, bytes);
    if (cells->cells == NULL)
        return false;
    memset((void *)cells->cells, 0, bytes);
    cells->stride = stride;
    cells->owned = true;
    return true;
}

void metric_cells_free(struct metric_cells *cells)
{
    if (cells == NULL || !cells->owned)
        return;
    free((void *)cells->cells);
    cells->cells = NULL;
    cells->owned = false;
}

static atomic_uint next_shard;
static _Thread_local unsigned thread_shard; /* 0: not chosen yet; else shard + 1 */

unsigned metric_shard(void)
{
    if (thread_shard == 0)
        thread_shard =
            atomic_fetch_add_explicit(&next_shard, 1, memory_order_relaxed) % METRIC_SHARDS + 1;
    return thread_shard - 1;
}

uint64_t metric_read(const struct metric_cells *cells, size_t index)
{
    uint64_t total = 0;
    for (size_t shard = 0; shard < METRIC_SHARDS; shard++)
        total += atomic_load_explicit(&cells->cells[shard * cells->stride + index],
                                      memory_order_relaxed);
    return total;
}

/* The bucket of `value`: the first bound it does not exceed, or n_bounds
 * (+Inf). A linear scan: there are a dozen or so bounds, and small values
 * (the common, fast answers) end it early. */
static size_t bucket_of(const uint64_t *bounds, size_t n_bounds, uint64_t value)
{
    size_t i = 0;
    while (i < n_bounds && value > bounds[i])
        i++;
    return i;
}

void metric_observe(struct metric_cells *cells, size_t first, const uint64_t *bounds,
                    size_t n_bounds, uint64_t value)
{
    metric_add(cells, first + bucket_of(bounds, n_bounds, value), 1);
    metric_add(cells, first + n_bounds + 1, value);
}

void metric_histogram_read(const struct metric_cells *cells, size_t first, size_t n_bounds,
                           uint64_t *cumulative, uint64_t *sum)
{
    uint64_t running = 0;
    for (size_t i = 0; i <= n_bounds; i++) {
        running += metric_read(cells, first + i);
        cumulative[i] = running;
    }
    *sum = metric_read(cells, first + n_bounds + 1);
}
