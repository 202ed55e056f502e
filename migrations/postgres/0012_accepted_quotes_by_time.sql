-- Retention finds what it deletes through indexes instead of scanning every
-- quote once a sweep (every second, on every replica): ended quotes through
-- quotes_ended (0010), accepted ones, when accepted_quote_retention_days is
-- set, through this index. It holds accepted quotes only.
CREATE INDEX quotes_accepted_by_time ON quotes (accepted_at) WHERE status = 'accepted';
