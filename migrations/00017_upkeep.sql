-- +goose Up

-- upkeep_cursors: how far the turn reader (package upkeep: one helper
-- call for the topics, facts and grades of a thread's new messages) has
-- read each thread.
CREATE TABLE upkeep_cursors (
    tenant_id  uuid NOT NULL,
    thread_id  uuid NOT NULL,
    through_id bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, thread_id),
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE
);
ALTER TABLE upkeep_cursors ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON upkeep_cursors USING (tenant_id = yakor_tenant()) WITH CHECK (tenant_id = yakor_tenant());

-- +goose Down
DROP TABLE upkeep_cursors;
