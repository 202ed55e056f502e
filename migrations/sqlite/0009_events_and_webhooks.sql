-- Events (the outbox) and webhooks.
--
-- events: every state change, written in the transaction that makes it
-- (quote.created with the saved quote, quote.accepted with the accept, and
-- so on). `body` is the event as the API returns it: {"id", "object":
-- "event", "type", "created_at", "data": {"object": ...}}. Ids are ordered
-- by time (ids_generate_ordered), so a consumer pages with starting_after.
--
-- webhook_endpoints: where events are sent. `events` lists the types an
-- endpoint takes, each between spaces (' quote.created quote.accepted '),
-- or ' * ' for every type, so that one LIKE tells whether an endpoint wants
-- a type. `secret` ("whsec_" and base64) signs what is sent: it is kept
-- because it must sign, and shown only once, when made.
--
-- webhook_deliveries: one event for one endpoint, fanned out in the
-- transaction that writes the event (to the endpoints enabled then). A
-- sender claims a pending delivery whose next_attempt_at has come by
-- setting lease_until (milliseconds) in a write transaction: another
-- process or a restarted one sends it only once the lease has run out, so a
-- sender killed mid-delivery means a retry, not a loss.
--
-- webhook_attempts: each try of a delivery: when, the HTTP status or the
-- error, and how long it took.
CREATE TABLE events (
    id         TEXT    PRIMARY KEY CHECK (id GLOB 'evt_*'),
    type       TEXT    NOT NULL CHECK (length(type) > 0),
    created_at INTEGER NOT NULL CHECK (typeof(created_at) = 'integer' AND created_at >= 0),
    body       TEXT    NOT NULL
);

CREATE INDEX events_by_type ON events (type, id);

CREATE TABLE webhook_endpoints (
    id          TEXT    PRIMARY KEY CHECK (id GLOB 'we_*'),
    url         TEXT    NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    description TEXT    NOT NULL DEFAULT '',
    events      TEXT    NOT NULL,
    secret      TEXT    NOT NULL CHECK (secret GLOB 'whsec_*'),
    enabled     INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at  INTEGER NOT NULL CHECK (typeof(created_at) = 'integer'),
    updated_at  INTEGER NOT NULL CHECK (typeof(updated_at) = 'integer')
);

CREATE TABLE webhook_deliveries (
    id              TEXT    PRIMARY KEY CHECK (id GLOB 'whd_*'),
    endpoint_id     TEXT    NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id        TEXT    NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at INTEGER NOT NULL, -- unix milliseconds
    lease_until     INTEGER NOT NULL DEFAULT 0, -- unix milliseconds; 0: not claimed
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);

CREATE TABLE webhook_attempts (
    delivery_id TEXT    NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,
    at          INTEGER NOT NULL, -- unix milliseconds
    status_code INTEGER,          -- NULL: no HTTP answer (see error)
    error       TEXT,
    duration_ms INTEGER NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);
