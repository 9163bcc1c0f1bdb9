-- +goose Up

-- api_keys: who may call the API. A key belongs to a tenant and one of its
-- users; only its SHA-256 is stored (the key is shown once, when made).
-- rate_per_minute and max_turns bound what it may do.
CREATE TABLE api_keys (
    tenant_id       uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id              uuid NOT NULL,
    user_id         uuid NOT NULL,
    name            text NOT NULL DEFAULT '',
    prefix          text NOT NULL,
    hash            bytea NOT NULL,
    rate_per_minute integer NOT NULL DEFAULT 120 CHECK (rate_per_minute > 0),
    max_turns       integer NOT NULL DEFAULT 4 CHECK (max_turns > 0),
    created_at      timestamptz NOT NULL DEFAULT now(),
    revoked_at      timestamptz,
    last_used_at    timestamptz,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX api_keys_hash ON api_keys (hash);

-- +goose Down
DROP TABLE api_keys;
