-- +goose Up

-- The messages a client edited away or regenerated, by thread: few, so
-- the check that keeps their anchors out of the prompt's anchors block
-- probes this small index instead of the messages' primary key.
CREATE INDEX messages_superseded ON messages (tenant_id, thread_id, id) WHERE superseded_at IS NOT NULL;

-- +goose Down
DROP INDEX messages_superseded;
