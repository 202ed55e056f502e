-- Each GPU model's peak for the precisions training computes in, beside the
-- FP16 tensor peak of 0001: /recommend timed fp32 and bf16 training at the
-- FP16 tensor peak, 8 times too fast on V100 and T4.
--
-- fp32_tflops: the peak without tensor cores (FP32). Required: catalog
--   loading refuses a model without one.
-- bf16_tflops: the BF16 tensor peak; NULL when the GPU has no BF16 tensor
--   cores (V100 and T4 have none), where bf16 runs at the FP32 peak.
--
-- Figures from NVIDIA's data sheets: V100 SXM2 (the 125 TFLOPS part of §1)
-- 15.7 TFLOPS FP32; T4 8.1 TFLOPS FP32.
--
-- These figures change no price, so the price list version the seed
-- published (and any a stored quote names) is kept: the triggers of 0001
-- bump it on every row updated here, and it is put back as it was.
CREATE TEMP TABLE price_list_before AS SELECT version, updated_at FROM price_list WHERE id = 1;

ALTER TABLE gpu_models ADD COLUMN fp32_tflops REAL
    CHECK (fp32_tflops IS NULL OR (fp32_tflops > 0 AND fp32_tflops <= 1000000));
ALTER TABLE gpu_models ADD COLUMN bf16_tflops REAL
    CHECK (bf16_tflops IS NULL OR (bf16_tflops > 0 AND bf16_tflops <= 1000000));

UPDATE gpu_models SET fp32_tflops = 15.7 WHERE id IN ('v100-16g', 'v100-32g');
UPDATE gpu_models SET fp32_tflops = 8.1 WHERE id = 't4-16g';

UPDATE price_list
   SET version = (SELECT version FROM price_list_before),
       updated_at = (SELECT updated_at FROM price_list_before)
 WHERE id = 1;
DROP TABLE price_list_before;
