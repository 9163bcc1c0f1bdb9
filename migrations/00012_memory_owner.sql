-- +goose Up

-- Every entry of long-term memory has an owner and a visibility. user_id is
-- the owning user; NULL is the tenant. A private entry is its user's alone;
-- a shared one (the tenant's) reaches every user of the tenant. What is
-- derived from a user's conversation (graded answers, fails, their research
-- topics) is private to that user; notes from public pages, entries an
-- admin writes and lessons an admin shares are the tenant's.
ALTER TABLE experiences
    ADD COLUMN visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'shared')),
    ADD COLUMN derived_from bigint;
UPDATE experiences SET visibility = 'shared' WHERE user_id IS NULL;
ALTER TABLE experiences ADD CONSTRAINT experiences_owner CHECK ((visibility = 'shared') = (user_id IS NULL));
CREATE INDEX experiences_by_owner ON experiences (tenant_id, user_id) WHERE user_id IS NOT NULL;

ALTER TABLE research_topics
    ADD COLUMN user_id uuid,
    ADD COLUMN visibility text NOT NULL DEFAULT 'shared' CHECK (visibility IN ('private', 'shared'));
UPDATE research_topics t SET user_id = f.user_id, visibility = 'private'
FROM (SELECT DISTINCT ON (tenant_id, topic_id) tenant_id, topic_id, user_id FROM research_sufler_fails
      WHERE topic_id IS NOT NULL ORDER BY tenant_id, topic_id, id) f
WHERE t.source = 'sufler' AND f.tenant_id = t.tenant_id AND f.topic_id = t.id;
ALTER TABLE research_topics ADD CONSTRAINT research_topics_owner CHECK ((visibility = 'shared') = (user_id IS NULL));
CREATE INDEX research_topics_by_owner ON research_topics (tenant_id, user_id) WHERE user_id IS NOT NULL;

-- Research articles are notes from public pages: the tenant's.
ALTER TABLE research_articles
    ADD COLUMN user_id uuid,
    ADD COLUMN visibility text NOT NULL DEFAULT 'shared' CHECK (visibility IN ('private', 'shared'));

-- +goose Down
ALTER TABLE research_articles DROP COLUMN visibility, DROP COLUMN user_id;
DROP INDEX research_topics_by_owner;
ALTER TABLE research_topics DROP CONSTRAINT research_topics_owner, DROP COLUMN visibility, DROP COLUMN user_id;
DROP INDEX experiences_by_owner;
ALTER TABLE experiences DROP CONSTRAINT experiences_owner, DROP COLUMN derived_from, DROP COLUMN visibility;
