-- +goose Up
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE tenants (
    id         uuid PRIMARY KEY,
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id         uuid NOT NULL,
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE projects (
    tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id         uuid NOT NULL,
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, name)
);

CREATE TABLE threads (
    tenant_id     uuid NOT NULL,
    user_id       uuid NOT NULL,
    id            uuid NOT NULL,
    project_id    uuid,
    title         text NOT NULL DEFAULT '',
    system_prompt text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, project_id) REFERENCES projects (tenant_id, id) ON DELETE SET NULL (project_id)
);
CREATE INDEX threads_by_user ON threads (tenant_id, user_id, updated_at DESC);

-- messages: every message of every thread, in id order. chars is the length
-- in Unicode characters, kept by the database so the window loader can sum it
-- without reading the text.
CREATE TABLE messages (
    tenant_id  uuid NOT NULL,
    user_id    uuid NOT NULL,
    thread_id  uuid NOT NULL,
    id         bigint GENERATED ALWAYS AS IDENTITY,
    role       text NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    kind       text NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'summary', 'tool')),
    content    text NOT NULL,
    chars      integer GENERATED ALWAYS AS (char_length(content)) STORED,
    client_id  text,
    turn_id    uuid,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE,
    CHECK (client_id IS NULL OR char_length(client_id) BETWEEN 1 AND 200)
);
CREATE UNIQUE INDEX messages_client_id ON messages (tenant_id, thread_id, client_id) WHERE client_id IS NOT NULL;
CREATE INDEX messages_by_thread ON messages (tenant_id, thread_id, id DESC) INCLUDE (chars);

-- turns: one row per attempt to answer a user message, with what went into
-- the prompt (layers and their sizes), timings, the model and any error.
CREATE TABLE turns (
    tenant_id        uuid NOT NULL,
    user_id          uuid NOT NULL,
    thread_id        uuid NOT NULL,
    id               uuid NOT NULL,
    user_message_id  bigint NOT NULL,
    reply_message_id bigint,
    status           text NOT NULL CHECK (status IN ('running', 'ok', 'failed')),
    error            text NOT NULL DEFAULT '',
    provider         text NOT NULL DEFAULT '',
    model            text NOT NULL DEFAULT '',
    layers           jsonb NOT NULL DEFAULT '[]',
    timings          jsonb NOT NULL DEFAULT '{}',
    prompt_chars     integer NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, user_message_id) REFERENCES messages (tenant_id, id) ON DELETE CASCADE
);
-- At most one live or successful turn per user message: a retried send never
-- answers twice.
CREATE UNIQUE INDEX turns_one_answer ON turns (tenant_id, user_message_id) WHERE status IN ('running', 'ok');
CREATE INDEX turns_by_thread ON turns (tenant_id, thread_id, created_at DESC);

-- +goose Down
DROP TABLE turns;
DROP TABLE messages;
DROP TABLE threads;
DROP TABLE projects;
DROP TABLE users;
DROP TABLE tenants;
