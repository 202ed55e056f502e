-- A stored quote's response is kept LZ4-compressed from now on.
--
-- A quote's JSON repeats itself (every option spells out its plan), so
-- LZ4 makes a 3-item quote of 4,953 bytes 1,280. Stored as text, each quote
-- needed an overflow page of its own, written twice (into the WAL, then by
-- the checkpoint into the database); compressed, two quotes share a page.
-- Quotes stored before this migration keep their text: a row holds either
-- response_json, or response_lz4 with response_size (the JSON's length in
-- bytes, which LZ4 needs to decompress it), never both.
--
-- SQLite cannot make a NOT NULL column nullable in place, so the table is
-- rebuilt and its rows copied as they are. No other table refers to it.
CREATE TABLE quotes_compressed (
    id                 TEXT    PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 39),
    status             TEXT    NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted')),
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
    idempotency_key    TEXT    UNIQUE CHECK (idempotency_key IS NULL OR length(idempotency_key) > 0),
    CHECK ((status = 'accepted') = (accepted_at IS NOT NULL)),
    CHECK ((response_json IS NULL) = (response_lz4 IS NOT NULL)),
    CHECK ((response_lz4 IS NULL) = (response_size IS NULL))
);

INSERT INTO quotes_compressed (id, status, request_json, response_json, price_list_version,
                               created_at, expires_at, accepted_at, idempotency_key)
SELECT id, status, request_json, response_json, price_list_version,
       created_at, expires_at, accepted_at, idempotency_key
FROM quotes;

DROP TABLE quotes;
ALTER TABLE quotes_compressed RENAME TO quotes;
