-- +goose Up

-- A thread that existed before the upkeep job had its messages read by
-- the jobs of each kind: its upkeep starts after its newest message, so
-- the first turn after an upgrade does not read the whole thread again.
INSERT INTO upkeep_cursors (tenant_id, thread_id, through_id)
SELECT tenant_id, thread_id, max(id) FROM messages GROUP BY tenant_id, thread_id
ON CONFLICT (tenant_id, thread_id) DO NOTHING;

-- +goose Down
SELECT 1;
