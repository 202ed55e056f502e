-- The quote lifecycle: open -> accepted | canceled | expired, persisted.
--
-- canceled_at and expired_at say when a quote left `open` that way (as
-- accepted_at does), cancel_reason why it was canceled, acceptance the
-- accept's {"reference", "metadata"} as JSON text. client_reference_id is
-- the order system's own id, read from the request the quote was priced
-- from (a generated column: nothing on the insert path changes), indexed
-- for GET /quote?client_reference_id=. The indexes serve the sweeper (open
-- quotes by expires_at), retention (ended quotes by when they ended) and
-- the listing (newest first, by id within a second).
ALTER TABLE quotes DROP CONSTRAINT quotes_status_check;
ALTER TABLE quotes ADD CONSTRAINT quotes_status_check
    CHECK (status IN ('open', 'accepted', 'canceled', 'expired'));
ALTER TABLE quotes ADD COLUMN canceled_at bigint CHECK (canceled_at IS NULL OR canceled_at >= 0);
ALTER TABLE quotes ADD COLUMN expired_at bigint CHECK (expired_at IS NULL OR expired_at >= 0);
ALTER TABLE quotes ADD COLUMN cancel_reason text
    CHECK (cancel_reason IS NULL OR length(cancel_reason) <= 500);
ALTER TABLE quotes ADD COLUMN acceptance text;
-- A request text that is not JSON (none is, but a generated column must
-- not make an insert fail) has none.
CREATE FUNCTION quote_client_reference(request text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN request::jsonb ->> 'client_reference_id';
EXCEPTION WHEN others THEN
    RETURN NULL;
END;
$$;
ALTER TABLE quotes ADD COLUMN client_reference_id text
    GENERATED ALWAYS AS (quote_client_reference(request_json)) STORED;
ALTER TABLE quotes ADD CHECK ((status = 'canceled') = (canceled_at IS NOT NULL));
ALTER TABLE quotes ADD CHECK ((status = 'expired') = (expired_at IS NOT NULL));

CREATE INDEX quotes_open_by_expiry ON quotes (expires_at) WHERE status = 'open';
CREATE INDEX quotes_ended ON quotes ((coalesce(canceled_at, expired_at)))
    WHERE status IN ('canceled', 'expired');
CREATE INDEX quotes_newest ON quotes (created_at DESC, id DESC);
CREATE INDEX quotes_by_client_reference ON quotes (client_reference_id, created_at DESC, id DESC)
    WHERE client_reference_id IS NOT NULL;

-- A webhook endpoint failing since failing_since (unix milliseconds of the
-- first failed try after its last success; NULL while it succeeds) is
-- disabled once that is webhook_disable_after_seconds (5 days) ago.
ALTER TABLE webhook_endpoints ADD COLUMN failing_since bigint;
