-- +goose Up

-- Row-level security: the database, not only the code, keeps tenants apart.
-- The service's requests run as role yakor_service (it logs in as it, or
-- takes it with SET ROLE), which owns nothing and cannot bypass RLS; each of
-- its transactions names its tenant in the setting yakor.tenant (SET LOCAL),
-- and every tenant-keyed table lets it see and write only that tenant's
-- rows. A transaction that names no tenant sees none. The role that runs the
-- migrations owns the tables and is not held by the policies: it does the
-- cross-tenant work (API key lookup, the research job's queue, schema).
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'yakor_service') THEN
        BEGIN
            CREATE ROLE yakor_service LOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT NOCREATEDB NOCREATEROLE; -- no password: it logs in only where the server trusts the client (a private socket)
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN NULL; -- made meanwhile by a migration of another database
            WHEN insufficient_privilege THEN
                RAISE EXCEPTION 'Yakor needs the role yakor_service, and % may not create roles', current_user
                    USING HINT = 'have an administrator run: CREATE ROLE yakor_service LOGIN NOBYPASSRLS; GRANT yakor_service TO ' || quote_ident(current_user);
        END;
    END IF;
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
       AND NOT pg_has_role(current_user, 'yakor_service', 'MEMBER') THEN
        EXECUTE format('GRANT yakor_service TO %I', current_user);
    END IF;
END
$$;
-- +goose StatementEnd

-- The tenant a transaction acts for; NULL (no rows) when it names none.
CREATE FUNCTION yakor_tenant() RETURNS uuid
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT nullif(current_setting('yakor.tenant', true), '')::uuid $$;

GRANT USAGE ON SCHEMA public TO yakor_service;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO yakor_service;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO yakor_service;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO yakor_service;
-- The job queue's tables come after this migration, made by the same role.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO yakor_service;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO yakor_service;

-- A view reads with its caller's rights, so the policies hold through it.
ALTER VIEW experience_fails SET (security_invoker = true);

ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenants USING (id = yakor_tenant()) WITH CHECK (id = yakor_tenant());

-- Every table with a tenant_id column; a test checks that none is missed.
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOR t IN
        SELECT c.relname FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
        ORDER BY c.relname
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY tenant_isolation ON %I USING (tenant_id = yakor_tenant()) WITH CHECK (tenant_id = yakor_tenant())', t);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT tablename FROM pg_policies WHERE schemaname = 'public' AND policyname = 'tenant_isolation' LOOP
        EXECUTE format('DROP POLICY tenant_isolation ON %I', t);
        EXECUTE format('ALTER TABLE %I DISABLE ROW LEVEL SECURITY', t);
    END LOOP;
END
$$;
-- +goose StatementEnd
ALTER VIEW experience_fails RESET (security_invoker);
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM yakor_service;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM yakor_service;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM yakor_service;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM yakor_service;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM yakor_service;
REVOKE USAGE ON SCHEMA public FROM yakor_service;
DROP FUNCTION yakor_tenant();
