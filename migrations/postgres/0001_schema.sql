-- The schema, in PostgreSQL's dialect: the same tables, columns and rules
-- as migrations/sqlite/0001_schema.sql, so that both backends hold the same
-- catalog and the same quotes.
--
-- Money is bigint fen everywhere, with the core's ceiling MONEY_MAX = 10^15
-- fen. Validity windows and times are unix seconds (bigint), NULL meaning
-- open. Flags are integers 0/1, as in SQLite, so that an operator's UPDATE
-- reads the same on both. Every catalog table has a statement trigger that
-- bumps price_list.version and announces the new version on the channel
-- gpuquote_catalog (NOTIFY, delivered at commit), so every replica reloads
-- at once; the replicas also poll the version, which is enough alone.
--
-- The store runs this file inside its own transaction: no BEGIN/COMMIT here.

CREATE TABLE price_list (
    id         integer PRIMARY KEY CHECK (id = 1), -- exactly one row
    version    bigint  NOT NULL CHECK (version >= 0),
    currency   text    NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    updated_at bigint  NOT NULL CHECK (updated_at >= 0)
);

INSERT INTO price_list (id, version, currency, updated_at)
VALUES (1, 0, 'CNY', extract(epoch FROM now())::bigint);

-- The four customer segments of src/core/catalog.h (enum customer_segment).
CREATE TABLE customer_segments (
    id       text    PRIMARY KEY
                     CHECK (id IN ('individual', 'student', 'startup', 'enterprise')),
    position integer NOT NULL UNIQUE
);

INSERT INTO customer_segments (id, position) VALUES
    ('individual', 1),
    ('student', 2),
    ('startup', 3),
    ('enterprise', 4);

CREATE TABLE gpu_models (
    id                    text    PRIMARY KEY CHECK (id ~ '^[a-z0-9-]{1,64}$'),
    name                  text    NOT NULL CHECK (length(name) > 0),
    memory_gb             integer NOT NULL CHECK (memory_gb BETWEEN 1 AND 65536),
    memory_type           text    NOT NULL CHECK (length(memory_type) > 0),
    fp16_tflops           double precision NOT NULL
                                  CHECK (fp16_tflops > 0 AND fp16_tflops <= 1000000),
    memory_bandwidth_gbps integer NOT NULL CHECK (memory_bandwidth_gbps BETWEEN 1 AND 1000000),
    tdp_watts             integer NOT NULL CHECK (tdp_watts BETWEEN 1 AND 100000)
);

-- The four modes of enum billing_mode. Hourly modes have no block; block
-- modes have block_hours = block_days * 24.
CREATE TABLE billing_modes (
    id                text    PRIMARY KEY
                              CHECK (id IN ('on_demand', 'monthly', 'quarterly', 'student')),
    name              text    NOT NULL CHECK (length(name) > 0),
    description       text    NOT NULL,
    unit              text    NOT NULL CHECK (unit IN ('hour', 'month', 'quarter')),
    block_hours       integer NOT NULL CHECK (block_hours BETWEEN 0 AND 87840),
    block_days        integer NOT NULL CHECK (block_days BETWEEN 0 AND 3660),
    list_basis_points integer NOT NULL CHECK (list_basis_points BETWEEN 1 AND 10000),
    position          integer NOT NULL UNIQUE,
    CHECK (block_hours = block_days * 24),
    CHECK ((unit = 'hour') = (block_hours = 0))
);

-- Which segments may use which mode; a mode with no row here is usable by
-- nobody.
CREATE TABLE billing_mode_segments (
    mode_id    text NOT NULL REFERENCES billing_modes (id) ON DELETE CASCADE,
    segment_id text NOT NULL REFERENCES customer_segments (id),
    PRIMARY KEY (mode_id, segment_id)
);

CREATE TABLE skus (
    id           text    PRIMARY KEY CHECK (id ~ '^[a-z0-9-]{1,64}$'),
    name         text    NOT NULL CHECK (length(name) > 0),
    gpu_model_id text    NOT NULL REFERENCES gpu_models (id),
    gpu_count    integer NOT NULL CHECK (gpu_count BETWEEN 1 AND 1024),
    interconnect text    NOT NULL CHECK (interconnect IN ('none', 'pcie', 'nvlink')),
    active       integer NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    -- a single card has nothing to interconnect; several cards do
    CHECK ((gpu_count = 1) = (interconnect = 'none'))
);

CREATE INDEX skus_by_gpu_model ON skus (gpu_model_id);

-- One explicit price per SKU and mode: per instance-hour for hourly modes,
-- per block for monthly and quarterly.
CREATE TABLE sku_prices (
    sku_id     text   NOT NULL REFERENCES skus (id) ON DELETE CASCADE,
    mode_id    text   NOT NULL REFERENCES billing_modes (id),
    amount_fen bigint NOT NULL CHECK (amount_fen > 0 AND amount_fen <= 1000000000000000),
    PRIMARY KEY (sku_id, mode_id)
);

CREATE INDEX sku_prices_by_mode ON sku_prices (mode_id);

-- A discount: a percentage (basis_points) or a fixed amount, never both.
-- NULL segment, billing or sku_id means "any"; billing 'mixed' matches a plan
-- that mixes modes.
CREATE TABLE discount_rules (
    id               text    PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
    name             text    NOT NULL CHECK (length(name) > 0),
    segment          text    REFERENCES customer_segments (id),
    billing          text    CHECK (billing IN ('on_demand', 'monthly', 'quarterly',
                                                'student', 'mixed')),
    sku_id           text    REFERENCES skus (id) ON DELETE CASCADE,
    min_quantity     integer NOT NULL DEFAULT 1 CHECK (min_quantity BETWEEN 1 AND 1000000),
    basis_points     integer CHECK (basis_points IS NULL OR basis_points BETWEEN 1 AND 10000),
    fixed_amount_fen bigint  CHECK (fixed_amount_fen IS NULL
                                    OR (fixed_amount_fen > 0
                                        AND fixed_amount_fen <= 1000000000000000)),
    valid_from       bigint  CHECK (valid_from IS NULL OR valid_from > 0),
    valid_until      bigint  CHECK (valid_until IS NULL OR valid_until > 0),
    priority         integer NOT NULL DEFAULT 0 CHECK (priority BETWEEN -1000000 AND 1000000),
    stackable        integer NOT NULL DEFAULT 0 CHECK (stackable IN (0, 1)),
    active           integer NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    CHECK ((basis_points IS NULL) <> (fixed_amount_fen IS NULL)),
    CHECK (valid_from IS NULL OR valid_until IS NULL OR valid_until > valid_from)
);

CREATE INDEX discount_rules_by_sku ON discount_rules (sku_id);

-- A bundle has its own published list figure and price; its items say what
-- it contains.
CREATE TABLE bundles (
    id             text   PRIMARY KEY CHECK (id ~ '^[a-z0-9-]{1,64}$'),
    name           text   NOT NULL CHECK (length(name) > 0),
    description    text   NOT NULL DEFAULT '',
    list_price_fen bigint NOT NULL
                          CHECK (list_price_fen > 0 AND list_price_fen <= 1000000000000000),
    price_fen      bigint NOT NULL CHECK (price_fen > 0 AND price_fen <= list_price_fen),
    segment        text   REFERENCES customer_segments (id),
    valid_from     bigint CHECK (valid_from IS NULL OR valid_from > 0),
    valid_until    bigint CHECK (valid_until IS NULL OR valid_until > 0),
    CHECK (valid_from IS NULL OR valid_until IS NULL OR valid_until > valid_from)
);

CREATE TABLE bundle_items (
    bundle_id text    NOT NULL REFERENCES bundles (id) ON DELETE CASCADE,
    sku_id    text    NOT NULL REFERENCES skus (id),
    quantity  integer NOT NULL CHECK (quantity BETWEEN 1 AND 10000),
    hours     integer NOT NULL CHECK (hours BETWEEN 1 AND 87840),
    PRIMARY KEY (bundle_id, sku_id)
);

CREATE INDEX bundle_items_by_sku ON bundle_items (sku_id);

-- Stored quotes. They copy what they were priced from (request_json) and what
-- was answered (response_json) and never change when prices do.
CREATE TABLE quotes (
    id                 text   PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 39),
    status             text   NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted')),
    request_json       text   NOT NULL,
    response_json      text   NOT NULL,
    price_list_version bigint NOT NULL CHECK (price_list_version >= 0),
    created_at         bigint NOT NULL CHECK (created_at >= 0),
    expires_at         bigint NOT NULL CHECK (expires_at >= created_at),
    accepted_at        bigint CHECK (accepted_at IS NULL OR accepted_at >= 0),
    idempotency_key    text   UNIQUE CHECK (idempotency_key IS NULL OR length(idempotency_key) > 0),
    CHECK ((status = 'accepted') = (accepted_at IS NOT NULL))
);

-- Any change to what prices a quote bumps the price-list version, once per
-- statement, and announces it.
CREATE FUNCTION bump_price_list() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bumped bigint;
BEGIN
    UPDATE price_list SET version = version + 1, updated_at = extract(epoch FROM now())::bigint
     WHERE id = 1
    RETURNING version INTO bumped;
    PERFORM pg_notify('gpuquote_catalog', bumped::text);
    RETURN NULL;
END;
$$;

CREATE TRIGGER gpu_models_bump_price_list AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON gpu_models FOR EACH STATEMENT EXECUTE FUNCTION bump_price_list();
CREATE TRIGGER billing_modes_bump_price_list AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON billing_modes FOR EACH STATEMENT EXECUTE FUNCTION bump_price_list();
CREATE TRIGGER billing_mode_segments_bump_price_list AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON billing_mode_segments FOR EACH STATEMENT EXECUTE FUNCTION bump_price_list();
CREATE TRIGGER skus_bump_price_list AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON skus FOR EACH STATEMENT EXECUTE FUNCTION bump_price_list();
CREATE TRIGGER sku_prices_bump_price_list AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON sku_prices FOR EACH STATEMENT EXECUTE FUNCTION bump_price_list();
CREATE TRIGGER discount_rules_bump_price_list AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON discount_rules FOR EACH STATEMENT EXECUTE FUNCTION bump_price_list();
CREATE TRIGGER bundles_bump_price_list AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON bundles FOR EACH STATEMENT EXECUTE FUNCTION bump_price_list();
CREATE TRIGGER bundle_items_bump_price_list AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON bundle_items FOR EACH STATEMENT EXECUTE FUNCTION bump_price_list();
