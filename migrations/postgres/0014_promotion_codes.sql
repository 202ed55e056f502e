-- Promotion codes: what a customer types (stored upper-case), the discount
-- it gives as a discount rule's fields (the JSON text the admin API took),
-- its limits, and how many times it has been redeemed. A redemption is
-- counted when a quote that carries the code is accepted, by a conditional
-- update in the accept's transaction, so that redemptions never exceed
-- max_redemptions whatever the number of replicas.
CREATE TABLE promotion_codes (
    code TEXT PRIMARY KEY,
    discount TEXT NOT NULL,
    expires_at BIGINT,
    max_redemptions BIGINT CHECK (max_redemptions IS NULL OR max_redemptions > 0),
    per_customer_limit BIGINT CHECK (per_customer_limit IS NULL OR per_customer_limit > 0),
    first_time_only INTEGER NOT NULL DEFAULT 0 CHECK (first_time_only IN (0, 1)),
    active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    redemptions BIGINT NOT NULL DEFAULT 0 CHECK (redemptions >= 0),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    CHECK (max_redemptions IS NULL OR redemptions <= max_redemptions)
);
