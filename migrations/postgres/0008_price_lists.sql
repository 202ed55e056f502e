-- Price lists: numbered, immutable versions of the whole sellable catalog
-- (GPU models, SKUs, their prices per mode, discount rules, bundles and
-- their per-language texts), in the states draft -> scheduled -> active ->
-- superseded (issue 16). migrations/sqlite/0008_price_lists.sql says how
-- they relate to the catalog tables and to price_list.version.
CREATE TABLE price_lists (
    version       bigint PRIMARY KEY CHECK (version >= 0),
    state         text   NOT NULL
                         CHECK (state IN ('draft', 'scheduled', 'active', 'superseded')),
    based_on      bigint,
    created_at    bigint NOT NULL CHECK (created_at >= 0),
    effective_at  bigint,
    published_at  bigint,
    superseded_at bigint,
    document      text,
    CHECK ((state = 'draft') = (effective_at IS NULL)),
    CHECK ((state = 'superseded') = (superseded_at IS NOT NULL))
);

-- Exactly one list is active.
CREATE UNIQUE INDEX price_lists_one_active ON price_lists (state) WHERE state = 'active';
CREATE INDEX price_lists_by_effective_at ON price_lists (effective_at);

-- (updated_at was written as extract(epoch ...)::bigint, which rounds: the
-- list's instant is floored, so that it is never a second in the future.)
INSERT INTO price_lists (version, state, created_at, effective_at, published_at)
SELECT version, 'active', t, t, t
  FROM (SELECT version, least(updated_at, floor(extract(epoch FROM now()))::bigint) AS t
          FROM price_list WHERE id = 1) AS seed;

-- A direct edit's bump skips a number a draft or a scheduled list holds.
CREATE FUNCTION price_list_skip_reserved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.version > OLD.version AND EXISTS (
        SELECT 1 FROM price_lists
         WHERE version = NEW.version AND state IN ('draft', 'scheduled')) THEN
        NEW.version := (SELECT max(version) FROM price_lists) + 1;
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER price_list_skips_reserved_versions BEFORE UPDATE OF version ON price_list
    FOR EACH ROW EXECUTE FUNCTION price_list_skip_reserved();
