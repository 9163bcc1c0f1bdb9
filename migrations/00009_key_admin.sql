-- +goose Up

-- api_keys.admin: an admin key may also make, list and revoke its own
-- tenant's keys through the API (/api/v1/keys). Existing keys are not
-- admin keys.
ALTER TABLE api_keys ADD COLUMN admin boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN admin;
