-- An event's body is kept LZ4-compressed from now on, as quotes' responses
-- are since 0004 and for the same reason: a quote.created event carries the
-- quote's JSON (5,164 bytes for a 3-item quote), and stored as text it took
-- two overflow pages of its own, written into the WAL and again by the
-- checkpoint, for every saved quote (bench/ANALYSIS.md: it halved saved
-- quotes' throughput). Events written before keep their text: a row holds
-- either body, or body_lz4 with body_size (the JSON's length in bytes),
-- never both.
--
-- SQLite cannot make a NOT NULL column nullable in place, so the table is
-- rebuilt and its rows copied as they are. No other table refers to it by
-- a foreign key (webhook_deliveries.event_id is a plain column).
CREATE TABLE events_compressed (
    id         TEXT    PRIMARY KEY CHECK (id GLOB 'evt_*'),
    type       TEXT    NOT NULL CHECK (length(type) > 0),
    created_at INTEGER NOT NULL CHECK (typeof(created_at) = 'integer' AND created_at >= 0),
    body       TEXT,
    body_lz4   BLOB    CHECK (body_lz4 IS NULL OR typeof(body_lz4) = 'blob'),
    body_size  INTEGER CHECK (body_size IS NULL
                              OR (typeof(body_size) = 'integer'
                                  AND body_size BETWEEN 1 AND 2113929216)),
    CHECK ((body IS NULL) = (body_lz4 IS NOT NULL)),
    CHECK ((body_lz4 IS NULL) = (body_size IS NULL))
);

INSERT INTO events_compressed (id, type, created_at, body)
SELECT id, type, created_at, body FROM events;

DROP TABLE events;
ALTER TABLE events_compressed RENAME TO events;
CREATE INDEX events_by_type ON events (type, id);
