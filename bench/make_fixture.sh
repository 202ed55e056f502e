#!/bin/sh
# Prints SQL that replaces the catalog of a freshly migrated gpuquote database
# with N generated SKUs (a benchmark fixture, not product data):
#
#   bench/make_fixture.sh 10000 | sqlite3 bench.db
#
# Four fixture GPU models are added; the seed SKUs, their prices, bundles and
# discount rules are removed, so the catalog holds exactly N SKUs. SKU i is
# "fx-NNNNN-<model>-x<count>" (ids are 1-64 chars of [a-z0-9-] and sort in
# generation order), cycles through the four models and through 1, 2, 4 and
# 8 cards (one card: interconnect 'none'; several: 'nvlink' or 'pcie'), and
# has an explicit price in every mode, in integer fen > 0: on-demand is the
# model's per-card rate times the cards plus a little per-SKU noise, monthly
# = 720 h at 75 % of it, quarterly = 2160 h at 67 %, student = 66 % of the
# hourly rate. About half the SKUs have 64 GB or more in total, so
# /catalog?min_total_memory_gb=64 returns about half the catalog.
set -eu

n=${1:?usage: make_fixture.sh N}
case "$n" in
'' | *[!0-9]*) echo "make_fixture.sh: N must be a positive integer" >&2; exit 2 ;;
esac
[ "$n" -ge 1 ] || { echo "make_fixture.sh: N must be at least 1" >&2; exit 2; }

cat <<SQL
PRAGMA foreign_keys = ON;
BEGIN;
DELETE FROM bundle_items;
DELETE FROM bundles;
DELETE FROM discount_rules;
DELETE FROM sku_prices;
DELETE FROM skus;

INSERT INTO gpu_models (id, name, memory_gb, memory_type, fp16_tflops, fp32_tflops,
                        bf16_tflops, memory_bandwidth_gbps, tdp_watts) VALUES
    ('fx-a16', 'FX-A', 16, 'HBM2', 125.0, 15.7, NULL, 900, 300),
    ('fx-b32', 'FX-B', 32, 'HBM2', 125.0, 15.7, NULL, 900, 300),
    ('fx-c24', 'FX-C', 24, 'GDDR6', 82.0, 41.0, 82.0, 1008, 450),
    ('fx-d80', 'FX-D', 80, 'HBM2e', 312.0, 19.5, 312.0, 2039, 400);

CREATE TEMP TABLE fx_models (k INTEGER PRIMARY KEY, id TEXT, name TEXT, rate INTEGER);
INSERT INTO fx_models VALUES
    (0, 'fx-a16', 'FX-A 16GB', 228),
    (1, 'fx-b32', 'FX-B 32GB', 300),
    (2, 'fx-c24', 'FX-C 24GB', 150),
    (3, 'fx-d80', 'FX-D 80GB', 900);

CREATE TEMP TABLE fx_skus AS
WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < $n)
SELECT i,
       m.id AS model_id,
       m.name AS model_name,
       m.rate AS rate,
       CASE (i / 4) % 4 WHEN 0 THEN 1 WHEN 1 THEN 2 WHEN 2 THEN 4 ELSE 8 END AS cards
FROM seq JOIN fx_models m ON m.k = seq.i % 4;

INSERT INTO skus (id, name, gpu_model_id, gpu_count, interconnect)
SELECT printf('fx-%05d-%s-x%d', i, substr(model_id, 4), cards),
       printf('%s x %d (fixture %d)', model_name, cards, i),
       model_id,
       cards,
       CASE WHEN cards = 1 THEN 'none' WHEN i % 2 = 0 THEN 'nvlink' ELSE 'pcie' END
FROM fx_skus;

CREATE TEMP TABLE fx_prices AS
SELECT printf('fx-%05d-%s-x%d', i, substr(model_id, 4), cards) AS sku_id,
       rate * cards + i % 7 AS hourly
FROM fx_skus;

INSERT INTO sku_prices (sku_id, mode_id, amount_fen)
SELECT sku_id, 'on_demand', hourly FROM fx_prices
UNION ALL
SELECT sku_id, 'monthly', max(100, hourly * 540 / 100 * 100) FROM fx_prices
UNION ALL
SELECT sku_id, 'quarterly', max(100, hourly * 14472 / 1000 / 100 * 100) FROM fx_prices
UNION ALL
SELECT sku_id, 'student', max(1, hourly * 66 / 100) FROM fx_prices;

DROP TABLE fx_prices;
DROP TABLE fx_skus;
DROP TABLE fx_models;
COMMIT;
SQL
