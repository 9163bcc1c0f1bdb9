-- +goose Up
-- Anchors as the conversation's map (package anchors): an anchor knows the
-- days of the messages it covers, and the oldest anchors are folded into
-- episodes (an anchor row that absorbed a run of them: a phrase and a date
-- range), so the block names the whole conversation at every length. The
-- cursor remembers how long the current topic has been current and how many
-- of the user's messages in a row left it, so a short detour does not set a
-- new anchor.
ALTER TABLE microgoals
    ADD COLUMN episode  boolean NOT NULL DEFAULT false,
    ADD COLUMN first_at timestamptz,
    ADD COLUMN last_at  timestamptz;
UPDATE microgoals SET first_at = created_at, last_at = updated_at;
ALTER TABLE microgoals
    ALTER COLUMN first_at SET NOT NULL,
    ALTER COLUMN first_at SET DEFAULT now(),
    ALTER COLUMN last_at SET NOT NULL,
    ALTER COLUMN last_at SET DEFAULT now();

ALTER TABLE anchor_cursors
    ADD COLUMN current_since bigint NOT NULL DEFAULT 0,
    ADD COLUMN off_topic     integer NOT NULL DEFAULT 0;
UPDATE anchor_cursors c SET current_since = coalesce(
    (SELECT g.char_pos FROM microgoals g WHERE g.tenant_id = c.tenant_id AND g.id = c.current_id), 0);

-- +goose Down
ALTER TABLE anchor_cursors DROP COLUMN off_topic, DROP COLUMN current_since;
ALTER TABLE microgoals DROP COLUMN last_at, DROP COLUMN first_at, DROP COLUMN episode;
