-- API keys and the audit log, as migrations/sqlite/0006_api_keys_and_audit.sql
-- describes them, in PostgreSQL's dialect. A change to who may call bumps
-- api_key_changes.version and announces itself on the channel
-- gpuquote_catalog, which every replica listens on for catalog changes:
-- it then checks both versions.
CREATE TABLE api_keys (
    id           text   PRIMARY KEY CHECK (id ~ '^key_[0-9a-f]{32}$'),
    name         text   NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    prefix       text   NOT NULL CHECK (prefix ~ '^gq_sk_.{6}$'),
    hash         text   NOT NULL UNIQUE CHECK (hash ~ '^[0-9a-f]{64}$'),
    scopes       text   NOT NULL,
    created_at   bigint NOT NULL CHECK (created_at >= 0),
    last_used_at bigint,
    revoked_at   bigint
);

CREATE INDEX api_keys_by_prefix ON api_keys (prefix);

CREATE TABLE api_key_changes (
    id      integer PRIMARY KEY CHECK (id = 1),
    version bigint  NOT NULL CHECK (version >= 0)
);

INSERT INTO api_key_changes (id, version) VALUES (1, 0);

CREATE FUNCTION bump_api_key_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bumped bigint;
BEGIN
    UPDATE api_key_changes SET version = version + 1 WHERE id = 1 RETURNING version INTO bumped;
    PERFORM pg_notify('gpuquote_catalog', 'keys ' || bumped::text);
    RETURN NULL;
END;
$$;

CREATE TRIGGER api_keys_bump_changes AFTER INSERT OR DELETE OR UPDATE OF name, scopes, revoked_at, hash
    ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION bump_api_key_changes();

CREATE TABLE audit_log (
    id         text   PRIMARY KEY CHECK (id ~ '^aud_'),
    at         bigint NOT NULL CHECK (at >= 0),
    key_id     text,
    key_name   text,
    client     text   NOT NULL,
    request_id text,
    action     text   NOT NULL CHECK (length(action) > 0),
    target     text   NOT NULL,
    change     text   NOT NULL
);

CREATE INDEX audit_log_by_time ON audit_log (at, id);

CREATE FUNCTION refuse_audit_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only';
END;
$$;

CREATE TRIGGER audit_log_is_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_audit_change();
