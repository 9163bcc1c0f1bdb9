-- +goose Up

-- Identity: tenant → user → project → thread, where a user is an end user
-- of the app that calls Yakor.
--
-- api_keys.role replaces api_keys.admin: 'admin' keys administer their
-- tenant (every user's memory, the keys); 'backend' keys are an app's
-- server, which acts for any end user of its tenant (X-Yakor-User, or the
-- OpenAI user field); 'user' keys are bound to their one user.
ALTER TABLE api_keys ADD COLUMN role text NOT NULL DEFAULT 'user'
    CHECK (role IN ('admin', 'backend', 'user'));
UPDATE api_keys SET role = 'admin' WHERE admin;
ALTER TABLE api_keys DROP COLUMN admin;

-- users.external_id: the app's own id for the person (X-Yakor-User). Users
-- made before it are known by their name, where no other user of the tenant
-- shares it.
ALTER TABLE users ADD COLUMN external_id text;
UPDATE users u SET external_id = u.name
WHERE NOT EXISTS (SELECT 1 FROM users o WHERE o.tenant_id = u.tenant_id AND o.name = u.name AND o.id <> u.id);
CREATE UNIQUE INDEX users_external_id ON users (tenant_id, external_id) WHERE external_id IS NOT NULL;

-- threads.system_prompt_changed_at: when a client last changed the
-- thread's system prompt (an OpenAI request with other system messages).
ALTER TABLE threads ADD COLUMN system_prompt_changed_at timestamptz;

-- +goose Down
ALTER TABLE threads DROP COLUMN system_prompt_changed_at;
DROP INDEX users_external_id;
ALTER TABLE users DROP COLUMN external_id;
ALTER TABLE api_keys ADD COLUMN admin boolean NOT NULL DEFAULT false;
UPDATE api_keys SET admin = true WHERE role = 'admin';
ALTER TABLE api_keys DROP COLUMN role;
