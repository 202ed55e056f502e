-- A stored quote's response is kept LZ4-compressed from now on, as
-- migrations/sqlite/0004_compressed_quote_responses.sql says why. A row holds
-- either response_json (quotes stored before), or response_lz4 with
-- response_size (the JSON's length in bytes, which LZ4 needs to decompress
-- it), never both. PostgreSQL changes the columns in place.
ALTER TABLE quotes ALTER COLUMN response_json DROP NOT NULL;
ALTER TABLE quotes ADD COLUMN response_lz4 bytea;
ALTER TABLE quotes ADD COLUMN response_size integer
    CHECK (response_size IS NULL OR response_size BETWEEN 1 AND 2113929216);
ALTER TABLE quotes ADD CHECK ((response_json IS NULL) = (response_lz4 IS NOT NULL));
ALTER TABLE quotes ADD CHECK ((response_lz4 IS NULL) = (response_size IS NULL));
