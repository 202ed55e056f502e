/*
 * Group commit: the queue of saved quotes and the writer thread that hands
 * them to the backend many to a transaction (quote_batch.c).
 */
#ifndef GQ_STORE_QUOTE_BATCH_H
#define GQ_STORE_QUOTE_BATCH_H

#include "core/error.h"
#include "store/backend.h"
#include "store/store.h"

struct store_quote_batcher;

/* Starts the writer thread, which writes through `ops` on `backend` and
 * tells `store`'s event listener of each batch committed. */
enum gq_code store_quote_batcher_start(struct store *store, const struct store_backend_ops *ops,
                                       struct store_backend *backend,
                                       struct store_quote_batcher **out, struct gq_error *err);

/* Queues a save (see store_quote_submit in store.h). */
void store_quote_batcher_submit(struct store_quote_batcher *batcher, struct quote_save *save);

/* Fails saves submitted from now on, finishes every queued one and stops
 * the thread. NULL is fine. */
void store_quote_batcher_stop(struct store_quote_batcher *batcher);

#endif
