-- +goose Up

-- research_articles: what the research job (likbez) learnt about a topic:
-- one row per topic and page, with the helper model's study note. Each is
-- indexed into long-term memory as a level-2 experience (experience_id).
CREATE TABLE research_articles (
    tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id            bigint GENERATED ALWAYS AS IDENTITY,
    topic_id      bigint NOT NULL,
    theme         text NOT NULL,
    url           text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2000),
    title         text NOT NULL DEFAULT '',
    note          text NOT NULL CHECK (char_length(note) BETWEEN 1 AND 40000),
    experience_id bigint,
    fetched_at    timestamptz NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, topic_id, url),
    FOREIGN KEY (tenant_id, topic_id) REFERENCES research_topics (tenant_id, id) ON DELETE CASCADE
);

-- research_runs: one row per research run, for the API and the logs. A
-- scheduled run names its slot, and one slot runs once however many
-- instances share the database. The job works every tenant's topics, so
-- this log is the service's, not a tenant's.
CREATE TABLE research_runs (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slot           timestamptz UNIQUE,
    trigger        text NOT NULL CHECK (trigger IN ('schedule', 'api', 'cli')),
    status         text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
    message        text NOT NULL DEFAULT '',
    topics_done    integer NOT NULL DEFAULT 0,
    topics_failed  integer NOT NULL DEFAULT 0,
    topics_pending integer NOT NULL DEFAULT 0,
    articles       integer NOT NULL DEFAULT 0,
    started_at     timestamptz NOT NULL DEFAULT now(),
    finished_at    timestamptz
);

-- A topic the job gave up on (too many failed attempts) has no next attempt.
ALTER TABLE research_topics ALTER COLUMN next_attempt_at DROP NOT NULL;

-- +goose Down
ALTER TABLE research_topics ALTER COLUMN next_attempt_at SET NOT NULL;
DROP TABLE research_runs;
DROP TABLE research_articles;
