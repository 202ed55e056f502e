-- The schema: the price list and its version, GPU models, billing modes and
-- who may use them, SKUs and their explicit prices, discount rules, bundles,
-- and stored quotes.
--
-- Money is INTEGER fen everywhere (a CHECK on typeof() refuses a REAL), with
-- the core's ceiling MONEY_MAX = 10^15 fen. Validity windows are unix seconds,
-- NULL meaning open. Every catalog table has triggers that bump
-- price_list.version on any change, so a stored quote's price_list_version
-- always names the prices it was computed from.
--
-- The store runs this file inside its own transaction: no BEGIN/COMMIT here.

CREATE TABLE price_list (
    id         INTEGER PRIMARY KEY CHECK (id = 1), -- exactly one row
    version    INTEGER NOT NULL CHECK (typeof(version) = 'integer' AND version >= 0),
    currency   TEXT    NOT NULL CHECK (length(currency) = 3 AND currency NOT GLOB '*[^A-Z]*'),
    updated_at INTEGER NOT NULL CHECK (typeof(updated_at) = 'integer' AND updated_at >= 0)
);

INSERT INTO price_list (id, version, currency, updated_at)
VALUES (1, 0, 'CNY', CAST(strftime('%s', 'now') AS INTEGER));

-- The four customer segments of src/core/catalog.h (enum customer_segment).
CREATE TABLE customer_segments (
    id       TEXT    PRIMARY KEY
                     CHECK (id IN ('individual', 'student', 'startup', 'enterprise')),
    position INTEGER NOT NULL UNIQUE
);

INSERT INTO customer_segments (id, position) VALUES
    ('individual', 1),
    ('student', 2),
    ('startup', 3),
    ('enterprise', 4);

CREATE TABLE gpu_models (
    id                    TEXT    PRIMARY KEY
                                  CHECK (length(id) BETWEEN 1 AND 64
                                         AND id NOT GLOB '*[^a-z0-9-]*'),
    name                  TEXT    NOT NULL CHECK (length(name) > 0),
    memory_gb             INTEGER NOT NULL
                                  CHECK (typeof(memory_gb) = 'integer'
                                         AND memory_gb BETWEEN 1 AND 65536),
    memory_type           TEXT    NOT NULL CHECK (length(memory_type) > 0),
    fp16_tflops           REAL    NOT NULL CHECK (fp16_tflops > 0 AND fp16_tflops <= 1000000),
    memory_bandwidth_gbps INTEGER NOT NULL
                                  CHECK (typeof(memory_bandwidth_gbps) = 'integer'
                                         AND memory_bandwidth_gbps BETWEEN 1 AND 1000000),
    tdp_watts             INTEGER NOT NULL
                                  CHECK (typeof(tdp_watts) = 'integer'
                                         AND tdp_watts BETWEEN 1 AND 100000)
);

-- The four modes of enum billing_mode. Hourly modes have no block; block
-- modes have block_hours = block_days * 24.
CREATE TABLE billing_modes (
    id                TEXT    PRIMARY KEY
                              CHECK (id IN ('on_demand', 'monthly', 'quarterly', 'student')),
    name              TEXT    NOT NULL CHECK (length(name) > 0),
    description       TEXT    NOT NULL,
    unit              TEXT    NOT NULL CHECK (unit IN ('hour', 'month', 'quarter')),
    block_hours       INTEGER NOT NULL
                              CHECK (typeof(block_hours) = 'integer'
                                     AND block_hours BETWEEN 0 AND 87840),
    block_days        INTEGER NOT NULL
                              CHECK (typeof(block_days) = 'integer'
                                     AND block_days BETWEEN 0 AND 3660),
    list_basis_points INTEGER NOT NULL
                              CHECK (typeof(list_basis_points) = 'integer'
                                     AND list_basis_points BETWEEN 1 AND 10000),
    position          INTEGER NOT NULL UNIQUE,
    CHECK (block_hours = block_days * 24),
    CHECK ((unit = 'hour') = (block_hours = 0))
);

-- Which segments may use which mode; a mode with no row here is usable by
-- nobody.
CREATE TABLE billing_mode_segments (
    mode_id    TEXT NOT NULL REFERENCES billing_modes (id) ON DELETE CASCADE,
    segment_id TEXT NOT NULL REFERENCES customer_segments (id),
    PRIMARY KEY (mode_id, segment_id)
) WITHOUT ROWID;

CREATE TABLE skus (
    id           TEXT    PRIMARY KEY
                         CHECK (length(id) BETWEEN 1 AND 64 AND id NOT GLOB '*[^a-z0-9-]*'),
    name         TEXT    NOT NULL CHECK (length(name) > 0),
    gpu_model_id TEXT    NOT NULL REFERENCES gpu_models (id),
    gpu_count    INTEGER NOT NULL
                         CHECK (typeof(gpu_count) = 'integer' AND gpu_count BETWEEN 1 AND 1024),
    interconnect TEXT    NOT NULL CHECK (interconnect IN ('none', 'pcie', 'nvlink')),
    active       INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    -- a single card has nothing to interconnect; several cards do
    CHECK ((gpu_count = 1) = (interconnect = 'none'))
);

CREATE INDEX skus_by_gpu_model ON skus (gpu_model_id);

-- One explicit price per SKU and mode: per instance-hour for hourly modes,
-- per block for monthly and quarterly.
CREATE TABLE sku_prices (
    sku_id     TEXT    NOT NULL REFERENCES skus (id) ON DELETE CASCADE,
    mode_id    TEXT    NOT NULL REFERENCES billing_modes (id),
    amount_fen INTEGER NOT NULL
                       CHECK (typeof(amount_fen) = 'integer'
                              AND amount_fen > 0 AND amount_fen <= 1000000000000000),
    PRIMARY KEY (sku_id, mode_id)
) WITHOUT ROWID;

CREATE INDEX sku_prices_by_mode ON sku_prices (mode_id);

-- A discount: a percentage (basis_points) or a fixed amount, never both.
-- NULL segment, billing or sku_id means "any"; billing 'mixed' matches a plan
-- that mixes modes.
CREATE TABLE discount_rules (
    id               TEXT    PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
    name             TEXT    NOT NULL CHECK (length(name) > 0),
    segment          TEXT    REFERENCES customer_segments (id),
    billing          TEXT    CHECK (billing IN ('on_demand', 'monthly', 'quarterly',
                                                'student', 'mixed')),
    sku_id           TEXT    REFERENCES skus (id) ON DELETE CASCADE,
    min_quantity     INTEGER NOT NULL DEFAULT 1
                             CHECK (typeof(min_quantity) = 'integer'
                                    AND min_quantity BETWEEN 1 AND 1000000),
    basis_points     INTEGER CHECK (basis_points IS NULL
                                    OR (typeof(basis_points) = 'integer'
                                        AND basis_points BETWEEN 1 AND 10000)),
    fixed_amount_fen INTEGER CHECK (fixed_amount_fen IS NULL
                                    OR (typeof(fixed_amount_fen) = 'integer'
                                        AND fixed_amount_fen > 0
                                        AND fixed_amount_fen <= 1000000000000000)),
    valid_from       INTEGER CHECK (valid_from IS NULL
                                    OR (typeof(valid_from) = 'integer' AND valid_from > 0)),
    valid_until      INTEGER CHECK (valid_until IS NULL
                                    OR (typeof(valid_until) = 'integer' AND valid_until > 0)),
    priority         INTEGER NOT NULL DEFAULT 0
                             CHECK (typeof(priority) = 'integer'
                                    AND priority BETWEEN -1000000 AND 1000000),
    stackable        INTEGER NOT NULL DEFAULT 0 CHECK (stackable IN (0, 1)),
    active           INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    CHECK ((basis_points IS NULL) <> (fixed_amount_fen IS NULL)),
    CHECK (valid_from IS NULL OR valid_until IS NULL OR valid_until > valid_from)
);

CREATE INDEX discount_rules_by_sku ON discount_rules (sku_id);

-- A bundle has its own published list figure and price; its items say what
-- it contains.
CREATE TABLE bundles (
    id             TEXT    PRIMARY KEY
                           CHECK (length(id) BETWEEN 1 AND 64 AND id NOT GLOB '*[^a-z0-9-]*'),
    name           TEXT    NOT NULL CHECK (length(name) > 0),
    description    TEXT    NOT NULL DEFAULT '',
    list_price_fen INTEGER NOT NULL
                           CHECK (typeof(list_price_fen) = 'integer'
                                  AND list_price_fen > 0
                                  AND list_price_fen <= 1000000000000000),
    price_fen      INTEGER NOT NULL
                           CHECK (typeof(price_fen) = 'integer'
                                  AND price_fen > 0 AND price_fen <= list_price_fen),
    segment        TEXT    REFERENCES customer_segments (id),
    valid_from     INTEGER CHECK (valid_from IS NULL
                                  OR (typeof(valid_from) = 'integer' AND valid_from > 0)),
    valid_until    INTEGER CHECK (valid_until IS NULL
                                  OR (typeof(valid_until) = 'integer' AND valid_until > 0)),
    CHECK (valid_from IS NULL OR valid_until IS NULL OR valid_until > valid_from)
);

CREATE TABLE bundle_items (
    bundle_id TEXT    NOT NULL REFERENCES bundles (id) ON DELETE CASCADE,
    sku_id    TEXT    NOT NULL REFERENCES skus (id),
    quantity  INTEGER NOT NULL
                      CHECK (typeof(quantity) = 'integer' AND quantity BETWEEN 1 AND 10000),
    hours     INTEGER NOT NULL
                      CHECK (typeof(hours) = 'integer' AND hours BETWEEN 1 AND 87840),
    PRIMARY KEY (bundle_id, sku_id)
) WITHOUT ROWID;

CREATE INDEX bundle_items_by_sku ON bundle_items (sku_id);

-- Stored quotes. They copy what they were priced from (request_json) and what
-- was answered (response_json) and never change when prices do.
CREATE TABLE quotes (
    id                 TEXT    PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 39),
    status             TEXT    NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted')),
    request_json       TEXT    NOT NULL,
    response_json      TEXT    NOT NULL,
    price_list_version INTEGER NOT NULL
                               CHECK (typeof(price_list_version) = 'integer'
                                      AND price_list_version >= 0),
    created_at         INTEGER NOT NULL
                               CHECK (typeof(created_at) = 'integer' AND created_at >= 0),
    expires_at         INTEGER NOT NULL
                               CHECK (typeof(expires_at) = 'integer' AND expires_at >= created_at),
    accepted_at        INTEGER CHECK (accepted_at IS NULL
                                      OR (typeof(accepted_at) = 'integer' AND accepted_at >= 0)),
    idempotency_key    TEXT    UNIQUE CHECK (idempotency_key IS NULL OR length(idempotency_key) > 0),
    CHECK ((status = 'accepted') = (accepted_at IS NOT NULL))
);

-- Any change to what prices a quote bumps the price-list version.
CREATE TRIGGER gpu_models_insert_bumps_price_list AFTER INSERT ON gpu_models
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER gpu_models_update_bumps_price_list AFTER UPDATE ON gpu_models
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER gpu_models_delete_bumps_price_list AFTER DELETE ON gpu_models
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;

CREATE TRIGGER billing_modes_insert_bumps_price_list AFTER INSERT ON billing_modes
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER billing_modes_update_bumps_price_list AFTER UPDATE ON billing_modes
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER billing_modes_delete_bumps_price_list AFTER DELETE ON billing_modes
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;

CREATE TRIGGER billing_mode_segments_insert_bumps_price_list AFTER INSERT ON billing_mode_segments
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER billing_mode_segments_update_bumps_price_list AFTER UPDATE ON billing_mode_segments
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER billing_mode_segments_delete_bumps_price_list AFTER DELETE ON billing_mode_segments
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;

CREATE TRIGGER skus_insert_bumps_price_list AFTER INSERT ON skus
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER skus_update_bumps_price_list AFTER UPDATE ON skus
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER skus_delete_bumps_price_list AFTER DELETE ON skus
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;

CREATE TRIGGER sku_prices_insert_bumps_price_list AFTER INSERT ON sku_prices
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER sku_prices_update_bumps_price_list AFTER UPDATE ON sku_prices
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER sku_prices_delete_bumps_price_list AFTER DELETE ON sku_prices
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;

CREATE TRIGGER discount_rules_insert_bumps_price_list AFTER INSERT ON discount_rules
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER discount_rules_update_bumps_price_list AFTER UPDATE ON discount_rules
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER discount_rules_delete_bumps_price_list AFTER DELETE ON discount_rules
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;

CREATE TRIGGER bundles_insert_bumps_price_list AFTER INSERT ON bundles
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER bundles_update_bumps_price_list AFTER UPDATE ON bundles
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER bundles_delete_bumps_price_list AFTER DELETE ON bundles
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;

CREATE TRIGGER bundle_items_insert_bumps_price_list AFTER INSERT ON bundle_items
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER bundle_items_update_bumps_price_list AFTER UPDATE ON bundle_items
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER bundle_items_delete_bumps_price_list AFTER DELETE ON bundle_items
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
