-- Events (the outbox) and webhooks, as migrations/sqlite/0009_events_and_webhooks.sql
-- describes them, in PostgreSQL's dialect. A sender claims deliveries with
-- SELECT ... FOR UPDATE SKIP LOCKED, so two replicas never take the same one.
CREATE TABLE events (
    id         text   PRIMARY KEY CHECK (id ~ '^evt_'),
    type       text   NOT NULL CHECK (length(type) > 0),
    created_at bigint NOT NULL CHECK (created_at >= 0),
    body       text   NOT NULL
);

CREATE INDEX events_by_type ON events (type, id COLLATE "C");
CREATE INDEX events_by_id ON events (id COLLATE "C");

CREATE TABLE webhook_endpoints (
    id          text    PRIMARY KEY CHECK (id ~ '^we_'),
    url         text    NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    description text    NOT NULL DEFAULT '',
    events      text    NOT NULL,
    secret      text    NOT NULL CHECK (secret ~ '^whsec_'),
    enabled     boolean NOT NULL DEFAULT true,
    created_at  bigint  NOT NULL,
    updated_at  bigint  NOT NULL
);

CREATE TABLE webhook_deliveries (
    id              text    PRIMARY KEY CHECK (id ~ '^whd_'),
    endpoint_id     text    NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id        text    NOT NULL,
    status          text    NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at bigint  NOT NULL,
    lease_until     bigint  NOT NULL DEFAULT 0,
    created_at      bigint  NOT NULL,
    updated_at      bigint  NOT NULL
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id COLLATE "C");

CREATE TABLE webhook_attempts (
    delivery_id text    NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt     integer NOT NULL,
    at          bigint  NOT NULL,
    status_code integer,
    error       text,
    duration_ms integer NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);
