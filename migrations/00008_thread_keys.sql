-- +goose Up

-- external_key names a thread from outside Yakor: the OpenAI-compatible
-- endpoint's `user` field (or the Idempotency-Key of a request that names no
-- thread). A user has at most one thread per key, so that concurrent first
-- requests with one key end in one thread; threads without a key (NULL) are
-- not limited.
ALTER TABLE threads ADD COLUMN external_key text
    CHECK (external_key IS NULL OR char_length(external_key) BETWEEN 1 AND 300);
CREATE UNIQUE INDEX threads_external_key ON threads (tenant_id, user_id, external_key);

-- +goose Down
DROP INDEX threads_external_key;
ALTER TABLE threads DROP COLUMN external_key;
