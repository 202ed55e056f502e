-- Retention of events and of keyless callers' quotes finds what it deletes
-- through indexes, not by scanning every row once a sweep on every replica:
-- events by when they were written; an event's deliveries by the event
-- (deleted with it); and ended quotes of an "anon:" owner by when they
-- ended (accepted, canceled or expired).
CREATE INDEX events_by_time ON events (created_at, id);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);
CREATE INDEX quotes_anonymous_ended ON quotes (coalesce(accepted_at, canceled_at, expired_at))
    WHERE status <> 'open' AND substr(owner, 1, 5) = 'anon:';
