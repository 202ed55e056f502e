-- Verified segments of a customer: an operator's statement that a customer
-- is a student, a startup or an enterprise until `expires_at`. A revoked
-- verification has `revoked_at`; one whose expires_at has passed has
-- `expired_at` once the sweeper has written its customer.verification.expired
-- (the conditional update on `expired_at IS NULL` makes that happen once).
-- `evidence` is what the operator saw; erasing the customer sets it NULL.
CREATE TABLE customer_verifications (
    id          text    PRIMARY KEY CHECK (id ~ '^ver_'),
    customer_id text    NOT NULL REFERENCES customers (id),
    segment     text    NOT NULL CHECK (segment IN ('student', 'startup', 'enterprise')),
    evidence    text,
    created_at  bigint  NOT NULL,
    expires_at  bigint  NOT NULL CHECK (expires_at > created_at),
    revoked_at  bigint,
    expired_at  bigint
);
CREATE INDEX customer_verifications_by_customer ON customer_verifications (customer_id);
CREATE INDEX customer_verifications_due ON customer_verifications (expires_at)
    WHERE revoked_at IS NULL AND expired_at IS NULL;
