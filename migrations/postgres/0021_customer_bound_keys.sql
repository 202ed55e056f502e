-- Customer-bound keys (the SQLite twin, 0021, says why): an API key's
-- customer, and the customer an event concerns.
ALTER TABLE api_keys ADD COLUMN customer_id text CHECK (customer_id IS NULL OR customer_id LIKE 'cus\_%');
ALTER TABLE events ADD COLUMN customer_id text;
CREATE INDEX events_by_customer ON events (customer_id, id COLLATE "C") WHERE customer_id IS NOT NULL;
