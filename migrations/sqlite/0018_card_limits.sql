-- The cards' limits and the models' context limit, as data.
--
-- gpu_models.compute_capability: NVIDIA's compute capability times ten
--   (V100 7.0 is 70, T4 7.5 is 75, A100 80, A10 86, L40S/4090 89, H100 90).
--   What a card can run (bf16, FlashAttention 2, each quantisation kernel,
--   an FP8 KV cache) follows from it by the minima docs/sizing.md lists
--   ("The cards' limits"). NULL: not known, and then only bf16 is judged,
--   by bf16_tflops.
-- model_shapes.max_position_embeddings: the longest context the model was
--   trained for, from its config.json; a longer context_tokens or
--   sequence_length is refused. NULL: not known, nothing is refused.
--
-- These figures change no price, so the price list version is put back as
-- it was, as 0003 does.
CREATE TEMP TABLE price_list_before AS SELECT version, updated_at FROM price_list WHERE id = 1;

ALTER TABLE gpu_models ADD COLUMN compute_capability integer
    CHECK (compute_capability IS NULL OR (typeof(compute_capability) = 'integer' AND compute_capability BETWEEN 10 AND 1000));
ALTER TABLE model_shapes ADD COLUMN max_position_embeddings integer
    CHECK (max_position_embeddings IS NULL OR (typeof(max_position_embeddings) = 'integer' AND max_position_embeddings BETWEEN 1 AND 1000000));

UPDATE gpu_models SET compute_capability = 70 WHERE id IN ('v100-16g', 'v100-32g');
UPDATE gpu_models SET compute_capability = 75 WHERE id = 't4-16g';

UPDATE model_shapes SET max_position_embeddings = 4096
 WHERE id IN ('llama-2-7b', 'llama-2-13b', 'llama-2-70b', 'deepseek-llm-7b');
UPDATE model_shapes SET max_position_embeddings = 8192 WHERE id IN ('llama-3-8b', 'llama-3-70b');
UPDATE model_shapes SET max_position_embeddings = 32768 WHERE id = 'mistral-7b';
UPDATE model_shapes SET max_position_embeddings = 131072
 WHERE id IN ('qwen2.5-7b', 'qwen2.5-14b', 'qwen2.5-32b', 'qwen2.5-72b');

UPDATE price_list
   SET version = (SELECT version FROM price_list_before),
       updated_at = (SELECT updated_at FROM price_list_before)
 WHERE id = 1;
DROP TABLE price_list_before;
