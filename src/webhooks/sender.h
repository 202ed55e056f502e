/*
 * The webhook sender: a thread of its own that claims due deliveries from
 * the store (each with a lease, so that one replica sends each and a
 * sender killed mid-delivery means a retry once the lease runs out), sends
 * them with libcurl, at most WEBHOOK_SENDER_BATCH at once, and records each
 * try and what comes next (webhook.h's schedule). It never touches a
 * request: a hanging endpoint costs the sender at most webhook_timeout_ms
 * per round, and requests nothing.
 */
#ifndef GQ_WEBHOOKS_SENDER_H
#define GQ_WEBHOOKS_SENDER_H

#include "store/store.h"
#include "util/config.h"

/* Deliveries sent at once (each a connection of its own). */
#define WEBHOOK_SENDER_BATCH 16

struct webhook_sender;

/* Starts the thread (and listens for the store's events, to send at
 * once). NULL (logged) when it cannot. */
struct webhook_sender *webhook_sender_start(const struct gq_config *config, struct store *store);

/* Stops the thread; what it was sending is left leased, and retried later
 * by whichever replica claims it. NULL is fine. */
void webhook_sender_stop(struct webhook_sender *sender);

#endif
