-- +goose Up

-- facts: durable facts, preferences, constraints, decisions, findings,
-- blockers and corrections, each kept for one chat (thread_id), one user,
-- or one project of a user (project_id; NULL is the user's default
-- project). A fact is current while valid_to is NULL; a contradicting newer
-- fact closes it (superseded_by), as do forgetting and the caps
-- (closed_reason). Every fact belongs to one user: no fact reaches another.
CREATE TABLE facts (
    tenant_id          uuid NOT NULL,
    id                 bigint GENERATED ALWAYS AS IDENTITY,
    user_id            uuid NOT NULL,
    scope              text NOT NULL CHECK (scope IN ('chat', 'user', 'project')),
    thread_id          uuid,
    project_id         uuid,
    kind               text NOT NULL CHECK (kind IN ('fact', 'preference', 'constraint', 'decision', 'finding', 'blocker', 'correction')),
    slot               text NOT NULL DEFAULT '',
    text               text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 2000),
    value              text NOT NULL DEFAULT '',
    confidence         real NOT NULL DEFAULT 0.6 CHECK (confidence BETWEEN 0 AND 1),
    source             text NOT NULL CHECK (source IN ('extractor', 'user')),
    source_message_ids bigint[] NOT NULL DEFAULT '{}',
    valid_from         timestamptz NOT NULL DEFAULT now(),
    valid_to           timestamptz,
    superseded_by      bigint,
    closed_reason      text NOT NULL DEFAULT '' CHECK (closed_reason IN ('', 'superseded', 'forgotten', 'evicted')),
    last_used_at       timestamptz NOT NULL DEFAULT now(),
    used               integer NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, project_id) REFERENCES projects (tenant_id, id) ON DELETE CASCADE,
    CHECK ((scope = 'chat') = (thread_id IS NOT NULL))
);
CREATE INDEX facts_current ON facts (tenant_id, user_id, scope, project_id) WHERE valid_to IS NULL;
CREATE INDEX facts_by_thread ON facts (tenant_id, thread_id) WHERE thread_id IS NOT NULL;

-- fact_cursors: how far the fact extractor has read each thread.
CREATE TABLE fact_cursors (
    tenant_id  uuid NOT NULL,
    thread_id  uuid NOT NULL,
    through_id bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, thread_id),
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE
);

-- A summary row (kind 'summary') covers the thread's messages up to
-- summary_through; the window starts after it. Its client_id is derived
-- from that message ('summary:<id>'), so two writers of the same summary
-- write one row.
ALTER TABLE messages ADD COLUMN summary_through bigint;
ALTER TABLE messages ADD CONSTRAINT messages_summary_through CHECK ((kind = 'summary') = (summary_through IS NOT NULL));
CREATE INDEX messages_summaries ON messages (tenant_id, thread_id, id DESC) WHERE kind = 'summary';

-- compactions: one row per compaction pass, with what it saved, for the
-- anti-thrash rule.
CREATE TABLE compactions (
    tenant_id          uuid NOT NULL,
    thread_id          uuid NOT NULL,
    summary_message_id bigint NOT NULL,
    through_id         bigint NOT NULL,
    saved_chars        integer NOT NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, thread_id, summary_message_id),
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE compactions;
DROP INDEX messages_summaries;
ALTER TABLE messages DROP CONSTRAINT messages_summary_through;
ALTER TABLE messages DROP COLUMN summary_through;
DROP TABLE fact_cursors;
DROP TABLE facts;
