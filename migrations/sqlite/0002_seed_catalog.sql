-- The seed catalog of the product digest (seed/DIGEST.md §1–§3): three GPU models,
-- the four billing modes and who may use them, five SKUs with their explicit
-- prices in fen (per instance-hour for on-demand and student, per 720 h block
-- for monthly, per 2160 h block for quarterly), and the article's two bundles.
-- No discount rules: the article has none.
--
-- Every insert bumps price_list.version through the triggers; the last
-- statement sets it to 1, the first published price list.

-- §1. Bandwidths from NVIDIA's data sheets; V100 board power "300 W+" is 300.
INSERT INTO gpu_models (id, name, memory_gb, memory_type, fp16_tflops,
                        memory_bandwidth_gbps, tdp_watts) VALUES
    ('v100-16g', 'V100', 16, 'HBM2', 125.0, 900, 300),
    ('v100-32g', 'V100', 32, 'HBM2', 125.0, 900, 300),
    ('t4-16g', 'T4', 16, 'GDDR6', 65.0, 320, 70);

-- §3. A month is 30 days = 720 h, a quarter 90 days = 2160 h.
INSERT INTO billing_modes (id, name, description, unit, block_hours, block_days,
                           list_basis_points, position) VALUES
    ('on_demand', 'On-demand',
     'Billed by the hour at list price, no commitment: for short needs and tests.',
     'hour', 0, 0, 10000, 1),
    ('monthly', 'Monthly',
     'A dedicated 720-hour block over 30 days, usable 24 hours a day, at about 75 % of list: '
     || 'for 1-3 month projects with a steady load.',
     'month', 720, 30, 7500, 2),
    ('quarterly', 'Quarterly',
     'A 2160-hour block over 90 days at about 67 % of list: for long projects and scale.',
     'quarter', 2160, 90, 6700, 3),
    ('student', 'Student',
     'Billed by the hour at about 66 % of list (34 % off): for enrolled students and '
     || 'academic research; needs student status.',
     'hour', 0, 0, 6600, 4);

INSERT INTO billing_mode_segments (mode_id, segment_id) VALUES
    ('on_demand', 'individual'), ('on_demand', 'student'),
    ('on_demand', 'startup'), ('on_demand', 'enterprise'),
    ('monthly', 'individual'), ('monthly', 'student'),
    ('monthly', 'startup'), ('monthly', 'enterprise'),
    ('quarterly', 'individual'), ('quarterly', 'student'),
    ('quarterly', 'startup'), ('quarterly', 'enterprise'),
    ('student', 'student');

-- §2. Multi-card V100 machines use NVLink.
INSERT INTO skus (id, name, gpu_model_id, gpu_count, interconnect) VALUES
    ('v100-16g-x1', 'V100 16GB × 1', 'v100-16g', 1, 'none'),
    ('v100-16g-x2', 'V100 16GB × 2', 'v100-16g', 2, 'nvlink'),
    ('v100-32g-x4', 'V100 32GB × 4', 'v100-32g', 4, 'nvlink'),
    ('v100-32g-x8', 'V100 32GB × 8', 'v100-32g', 8, 'nvlink'),
    ('t4-16g-x1', 'T4 16GB × 1', 't4-16g', 1, 'none');

-- §2. Prices in fen. Monthly = (rate × 0.75 to the fen) × 720 h to the yuan;
-- quarterly = (rate × 0.67 to the fen) × 2160 h to the yuan; student rates
-- are the article's explicit figures.
INSERT INTO sku_prices (sku_id, mode_id, amount_fen) VALUES
    ('v100-16g-x1', 'on_demand', 228),
    ('v100-16g-x1', 'monthly', 123100),
    ('v100-16g-x1', 'quarterly', 330500),
    ('v100-16g-x1', 'student', 150),
    ('v100-16g-x2', 'on_demand', 428),
    ('v100-16g-x2', 'monthly', 231100),
    ('v100-16g-x2', 'quarterly', 619900),
    ('v100-16g-x2', 'student', 280),
    ('v100-32g-x4', 'on_demand', 968),
    ('v100-32g-x4', 'monthly', 522700),
    ('v100-32g-x4', 'quarterly', 1401800),
    ('v100-32g-x4', 'student', 638),
    ('v100-32g-x8', 'on_demand', 1928),
    ('v100-32g-x8', 'monthly', 1041100),
    ('v100-32g-x8', 'quarterly', 2790700),
    ('v100-32g-x8', 'student', 1268),
    ('t4-16g-x1', 'on_demand', 990),
    ('t4-16g-x1', 'monthly', 535000),
    ('t4-16g-x1', 'quarterly', 1432100),
    ('t4-16g-x1', 'student', 650);

-- §3. The bundles keep the article's own list and price figures.
INSERT INTO bundles (id, name, description, list_price_fen, price_fen, segment) VALUES
    ('training-starter-monthly', 'Training starter monthly card',
     'One V100 16GB × 1 instance for a month (720 h): an entry package for new users '
     || 'starting to train.',
     164200, 123100, NULL),
    ('enterprise-inference-quarterly', 'Enterprise inference quarterly card',
     'One quarter (2160 h) of an inference configuration, four T4 16GB × 1 instances, '
     || 'about 33 % off; for enterprises.',
     8484500, 5729300, 'enterprise');

INSERT INTO bundle_items (bundle_id, sku_id, quantity, hours) VALUES
    ('training-starter-monthly', 'v100-16g-x1', 1, 720),
    ('enterprise-inference-quarterly', 't4-16g-x1', 4, 2160);

UPDATE price_list SET version = 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1;
