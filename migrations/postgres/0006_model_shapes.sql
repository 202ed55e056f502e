-- The model shapes /recommend sizes a named model with, as
-- migrations/sqlite/0006_model_shapes.sql adds them (what each column means
-- is there; docs/sizing.md cites each row's config.json). An edit bumps the
-- price-list version and announces it, like any catalog change, through the
-- trigger function of 0001; the seed changes no price, so the version is
-- put back as it was, as 0003 does.
CREATE TEMP TABLE price_list_before AS SELECT version, updated_at FROM price_list WHERE id = 1;

CREATE TABLE model_shapes (
    id             text    PRIMARY KEY CHECK (id ~ '^[a-z0-9.-]{1,64}$'),
    name           text    NOT NULL CHECK (length(name) > 0),
    layers         integer NOT NULL CHECK (layers BETWEEN 1 AND 1000000),
    hidden         integer NOT NULL CHECK (hidden BETWEEN 1 AND 1000000),
    heads          integer NOT NULL CHECK (heads BETWEEN 1 AND 1000000),
    kv_heads       integer NOT NULL CHECK (kv_heads BETWEEN 1 AND 1000000),
    intermediate   integer NOT NULL CHECK (intermediate BETWEEN 1 AND 1000000),
    vocab          integer NOT NULL CHECK (vocab BETWEEN 1 AND 1000000),
    sliding_window integer NOT NULL DEFAULT 0 CHECK (sliding_window BETWEEN 0 AND 1000000),
    params         bigint  NOT NULL CHECK (params BETWEEN 1 AND 100000000000000),
    source         text    NOT NULL CHECK (length(source) > 0),
    CHECK (hidden % heads = 0),
    CHECK (heads % kv_heads = 0)
);

CREATE TRIGGER model_shapes_bump_price_list AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON model_shapes FOR EACH STATEMENT EXECUTE FUNCTION bump_price_list();

-- params: 2·vocab·hidden (embeddings and output) + layers × (2·hidden² +
-- 2·hidden·kv_heads·hidden/heads + 3·hidden·intermediate + 2·hidden) +
-- hidden, plus Qwen2.5's biases of the query, key and value projections
-- (layers × (hidden + 2·kv_heads·hidden/heads)).
INSERT INTO model_shapes (id, name, layers, hidden, heads, kv_heads, intermediate, vocab,
                          sliding_window, params, source) VALUES
    ('llama-2-7b', 'Llama-2 7B', 32, 4096, 32, 32, 11008, 32000, 0, 6738415616,
     'https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json'),
    ('llama-2-13b', 'Llama-2 13B', 40, 5120, 40, 40, 13824, 32000, 0, 13015864320,
     'https://huggingface.co/meta-llama/Llama-2-13b-hf/blob/main/config.json'),
    ('llama-2-70b', 'Llama-2 70B', 80, 8192, 64, 8, 28672, 32000, 0, 68976648192,
     'https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json'),
    ('llama-3-8b', 'Llama-3 8B', 32, 4096, 32, 8, 14336, 128256, 0, 8030261248,
     'https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json'),
    ('llama-3-70b', 'Llama-3 70B', 80, 8192, 64, 8, 28672, 128256, 0, 70553706496,
     'https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json'),
    ('mistral-7b', 'Mistral 7B', 32, 4096, 32, 8, 14336, 32000, 4096, 7241732096,
     'https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json'),
    ('qwen2.5-7b', 'Qwen2.5 7B', 28, 3584, 28, 4, 18944, 152064, 0, 7615616512,
     'https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json'),
    ('qwen2.5-14b', 'Qwen2.5 14B', 48, 5120, 40, 8, 13824, 152064, 0, 14770033664,
     'https://huggingface.co/Qwen/Qwen2.5-14B/blob/main/config.json'),
    ('qwen2.5-32b', 'Qwen2.5 32B', 64, 5120, 40, 8, 27648, 152064, 0, 32763876352,
     'https://huggingface.co/Qwen/Qwen2.5-32B/blob/main/config.json'),
    ('qwen2.5-72b', 'Qwen2.5 72B', 80, 8192, 64, 8, 29568, 152064, 0, 72706203648,
     'https://huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json'),
    ('deepseek-llm-7b', 'DeepSeek-LLM 7B', 30, 4096, 32, 32, 11008, 102400, 0, 6910365696,
     'https://huggingface.co/deepseek-ai/deepseek-llm-7b-base/blob/main/config.json');

UPDATE price_list
   SET version = (SELECT version FROM price_list_before),
       updated_at = (SELECT updated_at FROM price_list_before)
 WHERE id = 1;
DROP TABLE price_list_before;
