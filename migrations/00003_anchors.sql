-- +goose Up
-- Anchors (microgoals): the chain of a thread's topics and the key data of
-- each. One row per anchor, with the message and character position it was
-- set at and the anchors merged into it.
CREATE TABLE microgoals (
    tenant_id  uuid NOT NULL,
    user_id    uuid NOT NULL,
    thread_id  uuid NOT NULL,
    id         bigint GENERATED ALWAYS AS IDENTITY,
    topic      text NOT NULL,
    data       text NOT NULL DEFAULT '' CHECK (char_length(data) <= 1500),
    message_id bigint NOT NULL,
    char_pos   bigint NOT NULL,
    absorbed   bigint[] NOT NULL DEFAULT '{}',
    merged_into bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE
);
-- The live anchors (not merged into another), newest first, by index alone.
CREATE INDEX microgoals_by_thread ON microgoals (tenant_id, thread_id, id) WHERE merged_into IS NULL;

-- How far a thread's messages have been anchored: jobs take the messages
-- after last_message_id in order, under an advisory lock per thread, and
-- advance it in the same transaction as the anchors they write, so a retried
-- job never anchors a message twice.
CREATE TABLE anchor_cursors (
    tenant_id       uuid NOT NULL,
    thread_id       uuid NOT NULL,
    last_message_id bigint NOT NULL DEFAULT 0,
    current_id      bigint,
    chars_total     bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, thread_id),
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE
);

-- The decision taken for each message, and the rule that fired.
CREATE TABLE anchor_decisions (
    tenant_id  uuid NOT NULL,
    thread_id  uuid NOT NULL,
    message_id bigint NOT NULL,
    decision   text NOT NULL,
    rule       text NOT NULL,
    anchor_id  bigint,
    similarity double precision NOT NULL DEFAULT 0,
    source     text NOT NULL DEFAULT '',
    topic      text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, message_id),
    FOREIGN KEY (tenant_id, thread_id) REFERENCES threads (tenant_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE anchor_decisions;
DROP TABLE anchor_cursors;
DROP TABLE microgoals;
