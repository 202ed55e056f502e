-- Customers: the people and companies quotes are for. What a person gave
-- (name, phone, company, metadata) is kept as the API's JSON in `document`;
-- the email also in a column of its own, to find a customer by it. Deleting
-- a customer erases the person: `document` becomes '{}', `email` NULL and
-- `deleted` 1, while the row and its id stay for what refers to it; the
-- events that carried the person (customer_events links them) are rewritten
-- around the erased record in the same transaction.
CREATE TABLE customers (
    id         TEXT    PRIMARY KEY CHECK (id LIKE 'cus\_%' ESCAPE '\'),
    email      TEXT,
    deleted    INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    document   TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    CHECK (deleted = 0 OR (email IS NULL AND document = '{}'))
);
CREATE INDEX customers_by_email ON customers (email) WHERE email IS NOT NULL;

CREATE TABLE customer_events (
    event_id    TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers (id)
);
CREATE INDEX customer_events_by_customer ON customer_events (customer_id);
