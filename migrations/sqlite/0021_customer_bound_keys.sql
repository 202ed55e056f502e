-- Customer-bound keys: an API key may act for one customer only
-- (`customer_id`, NULL for a key of the business itself). Such a key sees
-- only that customer's quotes and events, so an event records whom it
-- concerns (`customer_id`: a quote's customer, or the customer a customer
-- or verification event is about; NULL for the rest) and GET /events of a
-- bound key finds them by an index. Events written before this keep NULL:
-- a bound key, being new, never saw them.
ALTER TABLE api_keys ADD COLUMN customer_id TEXT CHECK (customer_id IS NULL OR customer_id GLOB 'cus_*');
ALTER TABLE events ADD COLUMN customer_id TEXT;
CREATE INDEX events_by_customer ON events (customer_id, id) WHERE customer_id IS NOT NULL;
