-- A price list can be withdrawn before it takes effect: the state
-- `canceled` (a draft or a scheduled list that will never be in effect).
-- A rebase rewrites a draft's or a scheduled list's document and its
-- based_on (the list its changes were made against), which 0008 already
-- has. SQLite cannot change a CHECK in place: the table is rebuilt, and
-- the trigger that reads it is recreated around it.
DROP TRIGGER price_list_skips_reserved_versions;

CREATE TABLE price_lists_0015 (
    version       INTEGER PRIMARY KEY CHECK (typeof(version) = 'integer' AND version >= 0),
    state         TEXT    NOT NULL
                          CHECK (state IN ('draft', 'scheduled', 'active', 'superseded',
                                           'canceled')),
    based_on      INTEGER CHECK (based_on IS NULL OR typeof(based_on) = 'integer'),
    created_at    INTEGER NOT NULL CHECK (typeof(created_at) = 'integer' AND created_at >= 0),
    effective_at  INTEGER CHECK (effective_at IS NULL OR typeof(effective_at) = 'integer'),
    published_at  INTEGER CHECK (published_at IS NULL OR typeof(published_at) = 'integer'),
    superseded_at INTEGER CHECK (superseded_at IS NULL OR typeof(superseded_at) = 'integer'),
    document      TEXT,
    -- a draft has no instant; a published list has one (a canceled draft
    -- has none, a canceled scheduled list keeps its)
    CHECK (state <> 'draft' OR effective_at IS NULL),
    CHECK (state IN ('draft', 'canceled') OR effective_at IS NOT NULL),
    CHECK ((state = 'superseded') = (superseded_at IS NOT NULL))
);

INSERT INTO price_lists_0015 (version, state, based_on, created_at, effective_at, published_at,
                              superseded_at, document)
SELECT version, state, based_on, created_at, effective_at, published_at, superseded_at, document
  FROM price_lists;

DROP TABLE price_lists;
ALTER TABLE price_lists_0015 RENAME TO price_lists;

CREATE UNIQUE INDEX price_lists_one_active ON price_lists (state) WHERE state = 'active';
CREATE INDEX price_lists_by_effective_at ON price_lists (effective_at);

CREATE TRIGGER price_list_skips_reserved_versions AFTER UPDATE OF version ON price_list
WHEN NEW.version IN (SELECT version FROM price_lists WHERE state IN ('draft', 'scheduled'))
BEGIN
    UPDATE price_list SET version = (SELECT max(version) FROM price_lists) + 1 WHERE id = 1;
END;
