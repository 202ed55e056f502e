-- A price list can be withdrawn before it takes effect: the state
-- `canceled` (see migrations/sqlite/0015_price_list_cancel.sql). The
-- table's CHECK constraints on its state are replaced.
DO $$
DECLARE
    name text;
BEGIN
    FOR name IN
        SELECT conname FROM pg_constraint
         WHERE conrelid = 'price_lists'::regclass AND contype = 'c'
           AND pg_get_constraintdef(oid) LIKE '%state%'
    LOOP
        EXECUTE format('ALTER TABLE price_lists DROP CONSTRAINT %I', name);
    END LOOP;
END;
$$;

ALTER TABLE price_lists
    ADD CONSTRAINT price_lists_state_known
        CHECK (state IN ('draft', 'scheduled', 'active', 'superseded', 'canceled')),
    ADD CONSTRAINT price_lists_draft_no_instant
        CHECK (state <> 'draft' OR effective_at IS NULL),
    ADD CONSTRAINT price_lists_published_instant
        CHECK (state IN ('draft', 'canceled') OR effective_at IS NOT NULL),
    ADD CONSTRAINT price_lists_superseded_instant
        CHECK ((state = 'superseded') = (superseded_at IS NOT NULL));
