-- +goose Up

-- chain links a conversation's messages as its client sends them: the hash
-- of the chain of the message before (in the client's conversation) and of
-- the message itself. A client that resends its whole conversation is
-- matched to the thread that holds it, and only what is new is stored.
-- superseded_at marks a message of an earlier branch: one the client edited
-- away or regenerated. It stays stored, out of the window and search.
ALTER TABLE messages
    ADD COLUMN chain bytea,
    ADD COLUMN superseded_at timestamptz;
CREATE INDEX messages_by_chain ON messages (tenant_id, user_id, chain) WHERE chain IS NOT NULL;

-- A regenerated reply's turn is superseded, so that the message can be
-- answered again.
ALTER TABLE turns DROP CONSTRAINT turns_status_check;
ALTER TABLE turns ADD CONSTRAINT turns_status_check CHECK (status IN ('running', 'ok', 'failed', 'superseded'));

-- +goose Down
ALTER TABLE turns DROP CONSTRAINT turns_status_check;
UPDATE turns SET status = 'failed' WHERE status = 'superseded';
ALTER TABLE turns ADD CONSTRAINT turns_status_check CHECK (status IN ('running', 'ok', 'failed'));
DROP INDEX messages_by_chain;
ALTER TABLE messages DROP COLUMN superseded_at, DROP COLUMN chain;
