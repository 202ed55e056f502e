-- A customer's own discount rules: an enterprise contract's negotiated
-- prices, each the shape of a price list's discount rule plus its validity
-- window, kept as the JSON the API took (`document`), one row per
-- (customer, rule id). A quote for the customer applies them instead of the
-- price list's rules on the lines they cover.
CREATE TABLE customer_discount_rules (
    customer_id text    NOT NULL REFERENCES customers (id),
    rule_id     text    NOT NULL,
    document    text    NOT NULL,
    created_at  bigint  NOT NULL,
    updated_at  bigint  NOT NULL,
    PRIMARY KEY (customer_id, rule_id)
);
