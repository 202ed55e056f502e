-- Whose a quote's Idempotency-Key and client_reference_id are: `owner` is
-- the caller's namespace, "key:<key id>" for an API key and
-- "anon:<client address>" for a keyless caller (as an account scopes them
-- at Stripe). A key is unique within its owner only, and a reference is
-- looked up within its owner, so no caller can replay, block or shadow
-- another's. Quotes stored before this have the owner '' (no caller has
-- it): their keys and references are no longer anyone's.
--
-- SQLite cannot drop the column's UNIQUE: the table is rebuilt, its rows
-- copied as they are and its indexes (0010, 0012) made again.
CREATE TABLE quotes_0017 (
    id                 TEXT    PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 39),
    status             TEXT    NOT NULL DEFAULT 'open'
                               CHECK (status IN ('open', 'accepted', 'canceled', 'expired')),
    request_json       TEXT    NOT NULL,
    response_json      TEXT,
    response_lz4       BLOB    CHECK (response_lz4 IS NULL OR typeof(response_lz4) = 'blob'),
    response_size      INTEGER CHECK (response_size IS NULL
                                      OR (typeof(response_size) = 'integer'
                                          AND response_size BETWEEN 1 AND 2113929216)),
    price_list_version INTEGER NOT NULL
                               CHECK (typeof(price_list_version) = 'integer'
                                      AND price_list_version >= 0),
    created_at         INTEGER NOT NULL
                               CHECK (typeof(created_at) = 'integer' AND created_at >= 0),
    expires_at         INTEGER NOT NULL
                               CHECK (typeof(expires_at) = 'integer' AND expires_at >= created_at),
    accepted_at        INTEGER CHECK (accepted_at IS NULL
                                      OR (typeof(accepted_at) = 'integer' AND accepted_at >= 0)),
    canceled_at        INTEGER CHECK (canceled_at IS NULL
                                      OR (typeof(canceled_at) = 'integer' AND canceled_at >= 0)),
    expired_at         INTEGER CHECK (expired_at IS NULL
                                      OR (typeof(expired_at) = 'integer' AND expired_at >= 0)),
    cancel_reason      TEXT    CHECK (cancel_reason IS NULL OR length(cancel_reason) <= 500),
    acceptance         TEXT,
    idempotency_key    TEXT    CHECK (idempotency_key IS NULL OR length(idempotency_key) > 0),
    owner              TEXT    NOT NULL DEFAULT '',
    client_reference_id TEXT   GENERATED ALWAYS AS
                               (CASE WHEN json_valid(request_json)
                                     THEN json_extract(request_json, '$.client_reference_id')
                                END) VIRTUAL,
    CHECK ((status = 'accepted') = (accepted_at IS NOT NULL)),
    CHECK ((status = 'canceled') = (canceled_at IS NOT NULL)),
    CHECK ((status = 'expired') = (expired_at IS NOT NULL)),
    CHECK ((response_json IS NULL) = (response_lz4 IS NOT NULL)),
    CHECK ((response_lz4 IS NULL) = (response_size IS NULL))
);

INSERT INTO quotes_0017 (id, status, request_json, response_json, response_lz4, response_size,
                         price_list_version, created_at, expires_at, accepted_at, canceled_at, expired_at,
                         cancel_reason, acceptance, idempotency_key)
SELECT id, status, request_json, response_json, response_lz4, response_size,
       price_list_version, created_at, expires_at, accepted_at, canceled_at, expired_at,
       cancel_reason, acceptance, idempotency_key
FROM quotes;

DROP TABLE quotes;
ALTER TABLE quotes_0017 RENAME TO quotes;

CREATE INDEX quotes_open_by_expiry ON quotes (expires_at) WHERE status = 'open';
CREATE INDEX quotes_ended ON quotes (coalesce(canceled_at, expired_at))
    WHERE status IN ('canceled', 'expired');
CREATE INDEX quotes_newest ON quotes (created_at DESC, id DESC);
CREATE INDEX quotes_by_client_reference
    ON quotes (owner, client_reference_id, created_at DESC, id DESC)
    WHERE client_reference_id IS NOT NULL;
CREATE UNIQUE INDEX quotes_owner_key ON quotes (owner, idempotency_key);
CREATE INDEX quotes_accepted_by_time ON quotes (accepted_at) WHERE status = 'accepted';
