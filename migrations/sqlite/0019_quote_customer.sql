-- Whom a quote is for and who made it: `customer_id` is the customer a
-- quote was priced for (NULL: none named), `created_by` the API key's id
-- that saved it, or 'anonymous' for a keyless save. Quotes stored before
-- this keep customer_id NULL; their created_by is taken from their owner
-- (0017) where it says, and stays NULL for quotes older than owners. GET
-- /quote filters on both, newest first.
ALTER TABLE quotes ADD COLUMN customer_id TEXT;
ALTER TABLE quotes ADD COLUMN created_by TEXT;
UPDATE quotes SET created_by = CASE WHEN owner LIKE 'key:%' THEN substr(owner, 5)
                                    WHEN owner LIKE 'anon:%' THEN 'anonymous' END;
CREATE INDEX quotes_by_customer ON quotes (customer_id, created_at DESC, id DESC)
    WHERE customer_id IS NOT NULL;
CREATE INDEX quotes_by_creator ON quotes (created_by, created_at DESC, id DESC)
    WHERE created_by IS NOT NULL;
