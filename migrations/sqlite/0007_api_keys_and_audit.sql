-- API keys and the audit log.
--
-- api_keys: a key is kept as the SHA-256 of its secret (hex), never the
-- secret, with a short visible prefix ("gq_sk_" and 6 characters) to
-- recognise it by, its scopes (names separated by spaces), and its times.
-- A revoked key keeps its row (revoked_at set), so the audit still names
-- it. api_key_changes.version is bumped by every change that matters to
-- who may call (a key added, revoked, renamed, its scopes changed; not its
-- last use), so every process reloads its keys within a poll interval.
--
-- audit_log: every admin and key action, appended in the transaction that
-- does it: when, which key (id and name, never the secret), the client's
-- address, the request's id, the action, its target and the change (a JSON
-- object: {"old": ..., "new": ...}). Rows are never changed or deleted:
-- triggers refuse both.
CREATE TABLE api_keys (
    id           TEXT    PRIMARY KEY CHECK (id GLOB 'key_*' AND length(id) = 36),
    name         TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    prefix       TEXT    NOT NULL CHECK (length(prefix) = 12 AND prefix GLOB 'gq_sk_*'),
    hash         TEXT    NOT NULL UNIQUE CHECK (length(hash) = 64 AND hash NOT GLOB '*[^0-9a-f]*'),
    scopes       TEXT    NOT NULL,
    created_at   INTEGER NOT NULL CHECK (typeof(created_at) = 'integer' AND created_at >= 0),
    last_used_at INTEGER CHECK (last_used_at IS NULL OR typeof(last_used_at) = 'integer'),
    revoked_at   INTEGER CHECK (revoked_at IS NULL OR typeof(revoked_at) = 'integer')
);

CREATE INDEX api_keys_by_prefix ON api_keys (prefix);

CREATE TABLE api_key_changes (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL CHECK (typeof(version) = 'integer' AND version >= 0)
);

INSERT INTO api_key_changes (id, version) VALUES (1, 0);

CREATE TRIGGER api_keys_insert_bumps_changes AFTER INSERT ON api_keys
BEGIN UPDATE api_key_changes SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER api_keys_update_bumps_changes AFTER UPDATE OF name, scopes, revoked_at, hash
    ON api_keys
BEGIN UPDATE api_key_changes SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER api_keys_delete_bumps_changes AFTER DELETE ON api_keys
BEGIN UPDATE api_key_changes SET version = version + 1 WHERE id = 1; END;

CREATE TABLE audit_log (
    id         TEXT    PRIMARY KEY CHECK (id GLOB 'aud_*'),
    at         INTEGER NOT NULL CHECK (typeof(at) = 'integer' AND at >= 0),
    key_id     TEXT,
    key_name   TEXT,
    client     TEXT    NOT NULL,
    request_id TEXT,
    action     TEXT    NOT NULL CHECK (length(action) > 0),
    target     TEXT    NOT NULL,
    change     TEXT    NOT NULL
);

CREATE INDEX audit_log_by_time ON audit_log (at, id);

CREATE TRIGGER audit_log_is_append_only_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_log_is_append_only_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
