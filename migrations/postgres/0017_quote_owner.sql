-- Whose a quote's Idempotency-Key and client_reference_id are: `owner` is
-- the caller's namespace, "key:<key id>" for an API key and
-- "anon:<client address>" for a keyless caller (as an account scopes them
-- at Stripe). A key is unique within its owner only, and a reference is
-- looked up within its owner, so no caller can replay, block or shadow
-- another's. Quotes stored before this have the owner '' (no caller has
-- it): their keys and references are no longer anyone's.
ALTER TABLE quotes ADD COLUMN owner text NOT NULL DEFAULT '';
ALTER TABLE quotes DROP CONSTRAINT quotes_idempotency_key_key;
CREATE UNIQUE INDEX quotes_owner_key ON quotes (owner, idempotency_key);

DROP INDEX quotes_by_client_reference;
CREATE INDEX quotes_by_client_reference
    ON quotes (owner, client_reference_id, created_at DESC, id DESC)
    WHERE client_reference_id IS NOT NULL;
