-- +goose Up

-- embed_spaces: one row per embedding model. Every stored vector names its
-- space, and vectors are only ever compared within one space, so switching
-- models never mixes them. The HNSW indexes are partial, one per space and
-- table, created by the service for the space it uses (their dimension is
-- the model's), e.g. experiences_vec_s1.
CREATE TABLE embed_spaces (
    id         integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider   text NOT NULL,
    model      text NOT NULL,
    dims       integer NOT NULL CHECK (dims BETWEEN 1 AND 16000),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, model, dims)
);

-- experiences: a tenant's long-term memory in three levels. L1: answers
-- graded >= 4 (question, answer); L2: research notes grouped by theme
-- (question is the title, answer the note, topic the theme); L3
-- antipatterns: answers graded <= 2 (reason says what was wrong).
-- source_message_ids are the replies a row stands for: a near-duplicate
-- merges into the row instead of adding one, and adds its reply here.
CREATE TABLE experiences (
    tenant_id           uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id                  bigint GENERATED ALWAYS AS IDENTITY,
    level               smallint NOT NULL CHECK (level IN (1, 2, 3)),
    topic               text NOT NULL DEFAULT '',
    question            text NOT NULL,
    answer              text NOT NULL,
    reason              text NOT NULL DEFAULT '',
    score               smallint CHECK (score BETWEEN 1 AND 5),
    source              text NOT NULL CHECK (source IN ('model', 'user', 'manual', 'research')),
    user_id             uuid,
    thread_id           uuid,
    question_message_id bigint,
    reply_message_id    bigint,
    source_message_ids  bigint[] NOT NULL DEFAULT '{}',
    merged              integer NOT NULL DEFAULT 0,
    url                 text NOT NULL DEFAULT '',
    space_id            integer REFERENCES embed_spaces (id),
    embedding           vector,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    CHECK ((space_id IS NULL) = (embedding IS NULL)),
    CHECK (char_length(question) <= 20000 AND char_length(answer) <= 40000)
);
CREATE INDEX experiences_by_level ON experiences (tenant_id, level, id DESC);
CREATE INDEX experiences_by_reply ON experiences USING gin (tenant_id, source_message_ids);
CREATE INDEX experiences_by_space ON experiences (space_id) WHERE space_id IS NOT NULL;
-- The legacy name of L3, for whoever reads the database directly.
CREATE VIEW experience_fails AS SELECT * FROM experiences WHERE level = 3;

-- grades: the grade of each reply, by the grader (source 'model') and by the
-- user (source 'user', which outranks it). One row per reply and source: a
-- retried grading job updates, never adds.
CREATE TABLE grades (
    tenant_id      uuid NOT NULL,
    user_id        uuid NOT NULL,
    thread_id      uuid NOT NULL,
    message_id     bigint NOT NULL,
    source         text NOT NULL CHECK (source IN ('model', 'user')),
    score          smallint NOT NULL CHECK (score BETWEEN 1 AND 5),
    reason         text NOT NULL DEFAULT '',
    research_topic text NOT NULL DEFAULT '',
    grader         text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, message_id, source),
    FOREIGN KEY (tenant_id, message_id) REFERENCES messages (tenant_id, id) ON DELETE CASCADE
);

-- research_topics: what the assistant should study (issue: likbez), from
-- sufler fails or added by hand; deduplicated by meaning when added.
CREATE TABLE research_topics (
    tenant_id       uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    id              bigint GENERATED ALWAYS AS IDENTITY,
    topic           text NOT NULL CHECK (char_length(topic) BETWEEN 1 AND 300),
    source          text NOT NULL CHECK (source IN ('sufler', 'user', 'manual')),
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    last_error      text NOT NULL DEFAULT '',
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    fails           integer NOT NULL DEFAULT 0,
    space_id        integer REFERENCES embed_spaces (id),
    embedding       vector,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX research_topics_by_status ON research_topics (tenant_id, status, next_attempt_at);

-- research_sufler_fails: every answer graded <= 2, with its question, why,
-- and the research topic it fed. One row per reply.
CREATE TABLE research_sufler_fails (
    tenant_id           uuid NOT NULL,
    id                  bigint GENERATED ALWAYS AS IDENTITY,
    user_id             uuid NOT NULL,
    thread_id           uuid NOT NULL,
    question_message_id bigint,
    reply_message_id    bigint NOT NULL,
    question            text NOT NULL,
    answer              text NOT NULL,
    score               smallint NOT NULL,
    reason              text NOT NULL DEFAULT '',
    source              text NOT NULL CHECK (source IN ('model', 'user')),
    topic_id            bigint,
    created_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, reply_message_id),
    FOREIGN KEY (tenant_id, reply_message_id) REFERENCES messages (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, topic_id) REFERENCES research_topics (tenant_id, id) ON DELETE SET NULL (topic_id)
);

-- message_embeddings: the semantic leg of history search. Written by a job
-- after the messages are stored; one row per message and space.
CREATE TABLE message_embeddings (
    tenant_id  uuid NOT NULL,
    thread_id  uuid NOT NULL,
    message_id bigint NOT NULL,
    space_id   integer NOT NULL REFERENCES embed_spaces (id),
    embedding  vector NOT NULL,
    PRIMARY KEY (tenant_id, thread_id, space_id, message_id),
    FOREIGN KEY (tenant_id, message_id) REFERENCES messages (tenant_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE message_embeddings;
DROP TABLE research_sufler_fails;
DROP TABLE research_topics;
DROP TABLE grades;
DROP VIEW experience_fails;
DROP TABLE experiences;
DROP TABLE embed_spaces;
