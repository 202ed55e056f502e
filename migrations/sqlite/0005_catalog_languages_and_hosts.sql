-- The catalog's words in each language, and the facts of each SKU's host
-- for a product page (issue 18).
--
-- Texts: what a person reads of a SKU, a billing mode, a bundle and the
-- bundles as a whole (name, description), one row per language (en,
-- zh-CN); the service answers in the language Accept-Language asks for, and
-- falls back to English (the name columns of 0001) where a row is missing.
-- Hosts: the Alibaba Cloud instance type a SKU is, its vCPUs, memory,
-- system disk, network bandwidth and region, how long provisioning takes,
-- what is preinstalled and SSH access; a SKU without a row has none of
-- these shown. skus.available: 0 shows a SKU as sold out (it is still
-- listed and priced, not a 404).
--
-- A change to any of these changes what the catalog says, so it bumps the
-- price list version as every catalog table does (which also makes the
-- service reload). This migration itself changes no price: the version the
-- seed published is put back.
CREATE TEMP TABLE price_list_before AS SELECT version, updated_at FROM price_list WHERE id = 1;

CREATE TABLE catalog_languages (
    id       TEXT    PRIMARY KEY CHECK (id IN ('en', 'zh-CN')),
    position INTEGER NOT NULL UNIQUE
);

CREATE TABLE sku_texts (
    sku_id      TEXT NOT NULL REFERENCES skus (id) ON DELETE CASCADE,
    lang        TEXT NOT NULL REFERENCES catalog_languages (id),
    name        TEXT NOT NULL CHECK (length(name) > 0),
    description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (sku_id, lang)
) WITHOUT ROWID;

CREATE TABLE billing_mode_texts (
    mode_id     TEXT NOT NULL REFERENCES billing_modes (id) ON DELETE CASCADE,
    lang        TEXT NOT NULL REFERENCES catalog_languages (id),
    name        TEXT NOT NULL CHECK (length(name) > 0),
    description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (mode_id, lang)
) WITHOUT ROWID;

CREATE TABLE bundle_texts (
    bundle_id   TEXT NOT NULL REFERENCES bundles (id) ON DELETE CASCADE,
    lang        TEXT NOT NULL REFERENCES catalog_languages (id),
    name        TEXT NOT NULL CHECK (length(name) > 0),
    description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (bundle_id, lang)
) WITHOUT ROWID;

-- Texts of the catalog as a whole: 'bundles', the bundles as one offer
-- (the article's fifth mode, 套餐礼包).
CREATE TABLE catalog_texts (
    subject     TEXT NOT NULL CHECK (subject IN ('bundles')),
    lang        TEXT NOT NULL REFERENCES catalog_languages (id),
    name        TEXT NOT NULL CHECK (length(name) > 0),
    description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (subject, lang)
) WITHOUT ROWID;

CREATE TABLE regions (
    id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64 AND id NOT GLOB '*[^a-z0-9-]*')
);

CREATE TABLE region_texts (
    region_id TEXT NOT NULL REFERENCES regions (id) ON DELETE CASCADE,
    lang      TEXT NOT NULL REFERENCES catalog_languages (id),
    name      TEXT NOT NULL CHECK (length(name) > 0),
    PRIMARY KEY (region_id, lang)
) WITHOUT ROWID;

CREATE TABLE sku_hosts (
    sku_id                       TEXT    PRIMARY KEY REFERENCES skus (id) ON DELETE CASCADE,
    instance_type                TEXT    NOT NULL CHECK (length(instance_type) BETWEEN 1 AND 64),
    vcpus                        INTEGER NOT NULL
                                         CHECK (typeof(vcpus) = 'integer'
                                                AND vcpus BETWEEN 1 AND 100000),
    memory_gib                   INTEGER NOT NULL
                                         CHECK (typeof(memory_gib) = 'integer'
                                                AND memory_gib BETWEEN 1 AND 1000000),
    system_disk_gb               INTEGER NOT NULL
                                         CHECK (typeof(system_disk_gb) = 'integer'
                                                AND system_disk_gb BETWEEN 1 AND 1000000),
    bandwidth_gbps               REAL    NOT NULL
                                         CHECK (bandwidth_gbps > 0 AND bandwidth_gbps <= 100000),
    region_id                    TEXT    NOT NULL REFERENCES regions (id),
    provisioning_min_minutes     INTEGER NOT NULL
                                         CHECK (typeof(provisioning_min_minutes) = 'integer'
                                                AND provisioning_min_minutes BETWEEN 0 AND 100000),
    provisioning_max_minutes     INTEGER NOT NULL
                                         CHECK (typeof(provisioning_max_minutes) = 'integer'
                                                AND provisioning_max_minutes BETWEEN 0 AND 100000),
    provisioning_average_minutes INTEGER NOT NULL
                                         CHECK (typeof(provisioning_average_minutes) = 'integer'),
    -- preinstalled software, comma-separated: 'CUDA,PyTorch'
    software                     TEXT    NOT NULL DEFAULT ''
                                         CHECK (software NOT GLOB '*,,*' AND software NOT GLOB ',*'
                                                AND software NOT GLOB '*,'),
    ssh                          INTEGER NOT NULL DEFAULT 1 CHECK (ssh IN (0, 1)),
    CHECK (provisioning_min_minutes <= provisioning_average_minutes
           AND provisioning_average_minutes <= provisioning_max_minutes)
);

CREATE INDEX sku_hosts_by_region ON sku_hosts (region_id);

ALTER TABLE skus ADD COLUMN available INTEGER NOT NULL DEFAULT 1 CHECK (available IN (0, 1));

CREATE TRIGGER sku_texts_insert_bumps_price_list AFTER INSERT ON sku_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER sku_texts_update_bumps_price_list AFTER UPDATE ON sku_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER sku_texts_delete_bumps_price_list AFTER DELETE ON sku_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER billing_mode_texts_insert_bumps_price_list AFTER INSERT ON billing_mode_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER billing_mode_texts_update_bumps_price_list AFTER UPDATE ON billing_mode_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER billing_mode_texts_delete_bumps_price_list AFTER DELETE ON billing_mode_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER bundle_texts_insert_bumps_price_list AFTER INSERT ON bundle_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER bundle_texts_update_bumps_price_list AFTER UPDATE ON bundle_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER bundle_texts_delete_bumps_price_list AFTER DELETE ON bundle_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER catalog_texts_insert_bumps_price_list AFTER INSERT ON catalog_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER catalog_texts_update_bumps_price_list AFTER UPDATE ON catalog_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER catalog_texts_delete_bumps_price_list AFTER DELETE ON catalog_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER regions_insert_bumps_price_list AFTER INSERT ON regions
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER regions_update_bumps_price_list AFTER UPDATE ON regions
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER regions_delete_bumps_price_list AFTER DELETE ON regions
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER region_texts_insert_bumps_price_list AFTER INSERT ON region_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER region_texts_update_bumps_price_list AFTER UPDATE ON region_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER region_texts_delete_bumps_price_list AFTER DELETE ON region_texts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER sku_hosts_insert_bumps_price_list AFTER INSERT ON sku_hosts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER sku_hosts_update_bumps_price_list AFTER UPDATE ON sku_hosts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;
CREATE TRIGGER sku_hosts_delete_bumps_price_list AFTER DELETE ON sku_hosts
BEGIN UPDATE price_list SET version = version + 1, updated_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = 1; END;

-- The words a person reads, one row per language (en, zh-CN). Chinese uses
-- the reseller's article's own words: 按需计费, 包月套餐, 包季套餐, 学生优惠,
-- 套餐礼包, 训练入门月卡, 企业推理季卡, 单卡/双卡/四卡/八卡.
INSERT INTO catalog_languages (id, position) VALUES ('en', 1), ('zh-CN', 2);

INSERT INTO sku_texts (sku_id, lang, name, description) VALUES
    ('t4-16g-x1', 'en', 'T4 16GB × 1',
     'One NVIDIA T4 with 16 GB of GDDR6 at 70 W: online inference and light training.'),
    ('t4-16g-x1', 'zh-CN', 'T4 16GB 单卡',
     '单张 NVIDIA T4，16 GB GDDR6 显存，功耗仅 70 W：适合在线推理服务与轻量训练。'),
    ('v100-16g-x1', 'en', 'V100 16GB × 1',
     'One NVIDIA V100 with 16 GB of HBM2: learning, coursework, small-model fine-tuning and entry-level training.'),
    ('v100-16g-x1', 'zh-CN', 'V100 16GB 单卡',
     '单张 NVIDIA V100，16 GB HBM2 显存：适合学习与课程作业、小模型微调和入门级训练。'),
    ('v100-16g-x2', 'en', 'V100 16GB × 2',
     'Two NVIDIA V100 16 GB joined by NVLink: fine-tuning and project work that outgrows one card.'),
    ('v100-16g-x2', 'zh-CN', 'V100 16GB 双卡',
     '两张 NVIDIA V100 16 GB，NVLink 互联：适合单卡放不下的模型微调与项目研发。'),
    ('v100-32g-x4', 'en', 'V100 32GB × 4',
     'Four NVIDIA V100 32 GB joined by NVLink: mid-size and large-model training.'),
    ('v100-32g-x4', 'zh-CN', 'V100 32GB 四卡',
     '四张 NVIDIA V100 32 GB，NVLink 互联：适合中等规模及大模型训练。'),
    ('v100-32g-x8', 'en', 'V100 32GB × 8',
     'Eight NVIDIA V100 32 GB joined by NVLink, 256 GB of GPU memory: training models of 10B parameters and more.'),
    ('v100-32g-x8', 'zh-CN', 'V100 32GB 八卡',
     '八张 NVIDIA V100 32 GB，NVLink 互联，共 256 GB 显存：适合百亿参数以上的大模型训练。');

INSERT INTO billing_mode_texts (mode_id, lang, name, description) VALUES
    ('on_demand', 'en', 'On-demand',
     'Billed by the hour at list price, no commitment: for short needs and tests.'),
    ('on_demand', 'zh-CN', '按需计费',
     '按小时计费，原价无折扣，不强制绑定：适合短期需求与测试验证。'),
    ('monthly', 'en', 'Monthly',
     'A dedicated 720-hour block over 30 days, usable 24 hours a day, at about 75 % of list: for 1-3 month projects with a steady load.'),
    ('monthly', 'zh-CN', '包月套餐',
     '30 天共 720 小时的独占资源，可 24 小时不间断使用，约 75 折：适合 1–3 个月、负载稳定的项目。'),
    ('quarterly', 'en', 'Quarterly',
     'A 2160-hour block over 90 days at about 67 % of list: for long projects and scale.'),
    ('quarterly', 'zh-CN', '包季套餐',
     '90 天共 2160 小时，约 67 折：适合长期项目与规模化应用。'),
    ('student', 'en', 'Student',
     'Billed by the hour at about 66 % of list (34 % off): for enrolled students and academic research; needs student status.'),
    ('student', 'zh-CN', '学生优惠',
     '按小时计费，约为原价的 66%（节省 34%）：面向在校学生与学术研究，需认证学生身份。');

INSERT INTO bundle_texts (bundle_id, lang, name, description) VALUES
    ('training-starter-monthly', 'en', 'Training starter monthly card',
     'One V100 16GB × 1 instance for a month (720 h): an entry package for new users starting to train.'),
    ('training-starter-monthly', 'zh-CN', '训练入门月卡',
     '一台 V100 16GB 单卡实例，使用一个月（720 小时）：新用户入门训练的优惠套餐。'),
    ('enterprise-inference-quarterly', 'en', 'Enterprise inference quarterly card',
     'One quarter (2160 h) of an inference configuration, four T4 16GB × 1 instances, about 33 % off; for enterprises.'),
    ('enterprise-inference-quarterly', 'zh-CN', '企业推理季卡',
     '推理配置一个季度（2160 小时），四台 T4 16GB 单卡实例，节省约 33%：面向企业客户。');

INSERT INTO catalog_texts (subject, lang, name, description) VALUES
    ('bundles', 'en', 'Bundles',
     'Fixed packages at 25-57 % off: for new users trying the service and for specific needs.'),
    ('bundles', 'zh-CN', '套餐礼包',
     '组合优惠，25%–57% off：适合新用户尝鲜与特定需求，快速上手。');

-- The region the instances run in, and its name in each language.
INSERT INTO regions (id) VALUES ('cn-hangzhou');
INSERT INTO region_texts (region_id, lang, name) VALUES
    ('cn-hangzhou', 'en', 'China (Hangzhou)'),
    ('cn-hangzhou', 'zh-CN', '华东1（杭州）');

-- The Alibaba Cloud instance type each SKU is, with its vCPUs, memory and
-- internal network bandwidth as Alibaba Cloud's instance-family page lists
-- them (docs/storefront.md cites it). The system disk is the reseller's
-- choice, not the instance type's: 100 GB. Provisioning takes 10-30
-- minutes, 10 on average; CUDA and PyTorch are preinstalled; SSH access
-- (DIGEST §2).
INSERT INTO sku_hosts (sku_id, instance_type, vcpus, memory_gib, system_disk_gb, bandwidth_gbps,
                       region_id, provisioning_min_minutes, provisioning_max_minutes,
                       provisioning_average_minutes, software, ssh) VALUES
    ('t4-16g-x1', 'ecs.gn6i-c4g1.xlarge', 4, 15, 100, 4.0, 'cn-hangzhou', 10, 30, 10,
     'CUDA,PyTorch', 1),
    ('v100-16g-x1', 'ecs.gn6v-c8g1.2xlarge', 8, 32, 100, 2.5, 'cn-hangzhou', 10, 30, 10,
     'CUDA,PyTorch', 1),
    ('v100-16g-x2', 'ecs.gn6v-c8g1.4xlarge', 16, 64, 100, 5.0, 'cn-hangzhou', 10, 30, 10,
     'CUDA,PyTorch', 1),
    ('v100-32g-x4', 'ecs.gn6e-c12g1.12xlarge', 48, 368, 100, 16.0, 'cn-hangzhou', 10, 30, 10,
     'CUDA,PyTorch', 1),
    ('v100-32g-x8', 'ecs.gn6e-c12g1.24xlarge', 96, 736, 100, 32.0, 'cn-hangzhou', 10, 30, 10,
     'CUDA,PyTorch', 1);

UPDATE price_list
   SET version = (SELECT version FROM price_list_before),
       updated_at = (SELECT updated_at FROM price_list_before)
 WHERE id = 1;
DROP TABLE price_list_before;
