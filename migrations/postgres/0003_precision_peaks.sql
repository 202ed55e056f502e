-- Each GPU model's peak for the precisions training computes in, beside the
-- FP16 tensor peak of 0001, as migrations/sqlite/0003_precision_peaks.sql
-- adds them (the figures' sources are there): fp32_tflops, the FP32 peak,
-- required; bf16_tflops, the BF16 tensor peak, NULL where the GPU has no BF16
-- tensor cores (V100 and T4 have none).
--
-- These figures change no price, so the price list version the seed
-- published is kept: the triggers of 0001 bump it on every statement here,
-- and it is put back as it was.
CREATE TEMP TABLE price_list_before AS SELECT version, updated_at FROM price_list WHERE id = 1;

ALTER TABLE gpu_models ADD COLUMN fp32_tflops double precision
    CHECK (fp32_tflops IS NULL OR (fp32_tflops > 0 AND fp32_tflops <= 1000000));
ALTER TABLE gpu_models ADD COLUMN bf16_tflops double precision
    CHECK (bf16_tflops IS NULL OR (bf16_tflops > 0 AND bf16_tflops <= 1000000));

UPDATE gpu_models SET fp32_tflops = 15.7 WHERE id IN ('v100-16g', 'v100-32g');
UPDATE gpu_models SET fp32_tflops = 8.1 WHERE id = 't4-16g';

UPDATE price_list
   SET version = (SELECT version FROM price_list_before),
       updated_at = (SELECT updated_at FROM price_list_before)
 WHERE id = 1;
DROP TABLE price_list_before;
