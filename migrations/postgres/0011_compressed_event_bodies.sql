-- An event's body is kept LZ4-compressed from now on, as
-- migrations/sqlite/0011_compressed_event_bodies.sql says why (PostgreSQL
-- would otherwise compress the ~5 KB body itself, with pglz, on every
-- write). A row holds either body (events written before), or body_lz4 with
-- body_size (the JSON's length in bytes), never both. PostgreSQL changes
-- the columns in place.
ALTER TABLE events ALTER COLUMN body DROP NOT NULL;
ALTER TABLE events ADD COLUMN body_lz4 bytea;
ALTER TABLE events ADD COLUMN body_size integer
    CHECK (body_size IS NULL OR body_size BETWEEN 1 AND 2113929216);
ALTER TABLE events ADD CHECK ((body IS NULL) = (body_lz4 IS NOT NULL));
ALTER TABLE events ADD CHECK ((body_lz4 IS NULL) = (body_size IS NULL));
