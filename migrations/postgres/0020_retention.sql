-- Retention of events and of keyless callers' quotes, as
-- migrations/sqlite/0020_retention.sql describes its indexes.
CREATE INDEX events_by_time ON events (created_at, id);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);
CREATE INDEX quotes_anonymous_ended ON quotes (coalesce(accepted_at, canceled_at, expired_at))
    WHERE status <> 'open' AND substr(owner, 1, 5) = 'anon:';
