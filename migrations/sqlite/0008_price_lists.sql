-- Price lists: numbered, immutable versions of the whole sellable catalog
-- (GPU models, SKUs, their prices per mode, discount rules, bundles and
-- their per-language texts), in the states draft -> scheduled -> active ->
-- superseded (issue 16).
--
-- The catalog tables of 0001-0006 keep holding the list in force: the
-- service reads them as before, and a direct SQL edit still bumps
-- price_list.version (for emergencies: the API is the way). A draft,
-- scheduled or superseded list keeps its content in `document`, the rows
-- of the catalog's queries as JSON (src/store/price_lists.c); the active
-- one's is NULL while it is active (the tables are its content) and is
-- written when it is superseded. Activating a list writes its document
-- into the tables and sets price_list.version to the list's number, so a
-- quote's price_list_version names the list it was priced from.
--
-- Numbers are shared with price_list.version: a new list takes one more
-- than both the tables' version and every list's, and a trigger moves a
-- direct edit's bump past a number that a draft or a scheduled list holds.
--
-- The catalog as it is becomes the first list, active: price list 1 on a
-- database migrated from the seed.
CREATE TABLE price_lists (
    version       INTEGER PRIMARY KEY CHECK (typeof(version) = 'integer' AND version >= 0),
    state         TEXT    NOT NULL
                          CHECK (state IN ('draft', 'scheduled', 'active', 'superseded')),
    based_on      INTEGER CHECK (based_on IS NULL OR typeof(based_on) = 'integer'),
    created_at    INTEGER NOT NULL CHECK (typeof(created_at) = 'integer' AND created_at >= 0),
    effective_at  INTEGER CHECK (effective_at IS NULL OR typeof(effective_at) = 'integer'),
    published_at  INTEGER CHECK (published_at IS NULL OR typeof(published_at) = 'integer'),
    superseded_at INTEGER CHECK (superseded_at IS NULL OR typeof(superseded_at) = 'integer'),
    document      TEXT,
    -- a list that was ever in effect or will be has its instant
    CHECK ((state = 'draft') = (effective_at IS NULL)),
    CHECK ((state = 'superseded') = (superseded_at IS NOT NULL))
);

-- Exactly one list is active.
CREATE UNIQUE INDEX price_lists_one_active ON price_lists (state) WHERE state = 'active';
CREATE INDEX price_lists_by_effective_at ON price_lists (effective_at);

INSERT INTO price_lists (version, state, created_at, effective_at, published_at)
SELECT version, 'active', updated_at, updated_at, updated_at FROM price_list WHERE id = 1;

-- A direct edit bumps price_list.version by one per row; a number a draft
-- or a scheduled list holds is skipped, so that no two contents share one.
-- (SQLite does not fire a trigger from its own update: recursive triggers
-- are off.)
CREATE TRIGGER price_list_skips_reserved_versions AFTER UPDATE OF version ON price_list
WHEN NEW.version IN (SELECT version FROM price_lists WHERE state IN ('draft', 'scheduled'))
BEGIN
    UPDATE price_list SET version = (SELECT max(version) FROM price_lists) + 1 WHERE id = 1;
END;
