-- +goose Up

-- Distributed mode (Citus). On a database with the citus extension (a Citus
-- coordinator), the tenant-keyed tables become distributed tables keyed by
-- tenant_id, all co-located: a tenant's users, threads, messages, anchors,
-- facts and memory live in one shard group on one worker, and every
-- statement that names its tenant routes to that one shard. The small
-- global tables become reference tables (a copy on every node): tenants,
-- embedding spaces, research runs, and the API keys, which a request looks
-- up by their hash before it knows its tenant. The job queue's tables
-- (River's), made after this migration, and goose's own stay local to the
-- coordinator. On a single PostgreSQL (no citus extension) nothing changes.
--
-- Citus wants a table's foreign keys to point at tables already
-- distributed (co-located) or reference tables, so the keys are set aside,
-- the tables distributed, and the keys made again, all in this migration's
-- transaction. A reference table may not point at a distributed one: the
-- API keys' key to their user is left out (lifecycle.DeleteUser deletes a
-- user's keys itself). Row-level security policies, grants and the
-- functions the tables' generated columns and indexes call go with the
-- tables to the workers.
--
-- A database migrated before Citus was added to it is distributed later
-- by SELECT yakor_distribute() once the extension is created and the
-- workers are added (docs/scaling.md): its rows move to the workers. It
-- does nothing on a database without citus, or distributed already. A
-- later migration that creates a tenant-keyed table must distribute it
-- the same way, after creating it.

-- yakor_set_tenant names the transaction's tenant (yakor.tenant) so that
-- it reaches a Citus coordinator's workers: Citus passes on a SET LOCAL in
-- a transaction block (with citus.propagate_set_commands = 'local', which
-- it sets for the transaction too), not set_config. The service uses it
-- in distributed mode, inside BEGIN … COMMIT; a parameter, not a quoted
-- literal, carries the tenant.
-- +goose StatementBegin
CREATE FUNCTION yakor_set_tenant(tenant uuid) RETURNS void
    LANGUAGE plpgsql
AS $$
BEGIN
    IF EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM set_config('citus.propagate_set_commands', 'local', true);
    END IF;
    EXECUTE format('SET LOCAL yakor.tenant = %L', tenant);
END
$$;
-- +goose StatementEnd

-- On Citus, the owner's word-index functions (00021, 00022, 00023) name
-- their tenant where the planner sees it too: their conditions are hidden
-- from it (IS TRUE) so that one PostgreSQL reads the words index alone,
-- but Citus must see tenant_id = the tenant to route the statement to its
-- one shard. A custom plan each call gives it the tenant's value.
-- yakor_distribute runs it once it has distributed the tables.
-- +goose StatementBegin
CREATE FUNCTION yakor_distribute_words() RETURNS void
    LANGUAGE plpgsql
AS $do$
BEGIN
    EXECUTE $sql$
CREATE OR REPLACE FUNCTION yakor_experience_words_unchecked(for_tenant uuid, of_level smallint, in_space integer, viewer text, stems text[], cap integer)
    RETURNS TABLE (kw integer, entry bigint)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
    SET enable_seqscan = off
    SET plan_cache_mode = force_custom_plan
AS $f$
BEGIN
    IF for_tenant IS DISTINCT FROM coalesce(yakor_tenant(), for_tenant) THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT k.i::integer, m.id
    FROM unnest(stems) WITH ORDINALITY AS k(s, i)
    CROSS JOIN LATERAL (
        SELECT e.id FROM experiences e
        WHERE e.tenant_id = for_tenant
          AND yakor_thread_words(yakor_level_tag(e.tenant_id, e.level), yakor_fold(e.topic || ' ' || e.question || ' ' || e.answer))
                @@ yakor_word_prefix(yakor_level_tag(for_tenant, of_level), k.s)
          AND (e.tenant_id = for_tenant AND e.level = of_level AND e.space_id = in_space) IS TRUE
          AND (e.user_id::text = viewer OR e.visibility = 'shared')
        LIMIT cap
    ) m
    WHERE k.s <> '';
END
$f$$sql$;
    EXECUTE $sql$
CREATE OR REPLACE FUNCTION yakor_thread_word_matches_unchecked(for_tenant uuid, for_user uuid, in_thread uuid, stems text[], before_id bigint, cap integer, rank_query text)
    RETURNS TABLE (kw integer, id bigint, rank double precision)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
    SET enable_indexscan = off
    SET enable_seqscan = off
    SET plan_cache_mode = force_custom_plan
AS $f$
BEGIN
    IF for_tenant IS DISTINCT FROM coalesce(yakor_tenant(), for_tenant) THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT k.i::integer, m.id, CASE WHEN m.tsv @@ q.q THEN ts_rank(m.tsv, q.q)::float8 ELSE 0 END
    FROM websearch_to_tsquery('russian', rank_query) AS q(q)
    CROSS JOIN unnest(stems) WITH ORDINALITY AS k(s, i)
    CROSS JOIN LATERAL (
        SELECT ms.id, ms.tsv FROM messages ms
        WHERE ms.tenant_id = for_tenant
          AND (ms.tenant_id = for_tenant AND ms.user_id = for_user AND ms.thread_id = in_thread) IS TRUE
          AND (before_id = 0 OR ms.id < before_id) AND ms.kind <> 'summary' AND ms.superseded_at IS NULL
          AND yakor_thread_words(ms.thread_id, ms.folded) @@ yakor_word_prefix(in_thread, k.s)
        LIMIT cap
    ) m
    WHERE k.s <> '';
END
$f$$sql$;
END
$do$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION yakor_distribute() RETURNS boolean
    LANGUAGE plpgsql
AS $$
DECLARE
    tables text[] := ARRAY['users', 'projects', 'threads', 'messages', 'turns', 'microgoals', 'anchor_cursors',
        'anchor_decisions', 'experiences', 'grades', 'research_topics', 'research_sufler_fails',
        'message_embeddings', 'research_articles', 'facts', 'fact_cursors', 'compactions', 'upkeep_cursors'];
    reference text[] := ARRAY['tenants', 'embed_spaces', 'research_runs', 'api_keys'];
    fk record;
    f record;
    fks text[] := '{}';
    t text;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        RETURN false;
    END IF;
    IF EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = 'users'::regclass) THEN
        RETURN true; -- distributed already
    END IF;
    -- Foreign keys to reference tables need one connection per worker in
    -- the transaction that makes them.
    SET LOCAL citus.multi_shard_modify_mode TO 'sequential';
    -- The foreign keys of every table distributed here, set aside.
    FOR fk IN
        SELECT c.conrelid::regclass::text AS rel, c.conname, pg_get_constraintdef(c.oid) AS def,
               c.confrelid::regclass::text AS target
        FROM pg_constraint c
        WHERE c.contype = 'f'
          AND (c.conrelid::regclass::text = ANY (tables) OR c.conrelid::regclass::text = ANY (reference))
    LOOP
        EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', fk.rel, fk.conname);
        IF NOT (fk.rel = ANY (reference) AND fk.target = ANY (tables)) THEN
            -- Citus takes no ON DELETE SET NULL on a key that holds the
            -- distribution column: those keys stay, without the action
            -- (the code unlinks before it deletes).
            fks := fks || format('ALTER TABLE %I ADD CONSTRAINT %I %s', fk.rel, fk.conname,
                                 regexp_replace(fk.def, ' ON DELETE SET NULL( \([^)]*\))?', ''));
        END IF;
    END LOOP;
    FOREACH t IN ARRAY reference LOOP
        PERFORM create_reference_table(t);
    END LOOP;
    FOREACH t IN ARRAY tables LOOP
        IF t = tables[1] THEN
            PERFORM create_distributed_table(t, 'tenant_id', colocate_with => 'none');
        ELSE
            PERFORM create_distributed_table(t, 'tenant_id', colocate_with => tables[1]);
        END IF;
    END LOOP;
    -- Yakor's functions on every worker: the shard queries call them.
    -- Citus passes on a function created once it is installed, not one
    -- made before (a database distributed later). After the tables: one
    -- names messages.
    FOR f IN
        SELECT p.oid::regprocedure::text AS sig FROM pg_proc p
        WHERE p.pronamespace = 'public'::regnamespace AND p.proname LIKE 'yakor\_%' AND p.proname NOT LIKE 'yakor\_distribute%'
          AND NOT EXISTS (SELECT FROM pg_dist_object d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid)
    LOOP
        PERFORM create_distributed_function(f.sig::regprocedure);
    END LOOP;
    FOREACH t IN ARRAY fks LOOP
        EXECUTE t;
    END LOOP;
    PERFORM yakor_distribute_words();
    RETURN true;
END
$$;
-- +goose StatementEnd

-- Only the tables' owner distributes.
REVOKE EXECUTE ON FUNCTION yakor_distribute(), yakor_distribute_words() FROM PUBLIC;

SELECT yakor_distribute();

-- +goose Down
-- A distributed schema is not undistributed: Citus's undistribute_table
-- moves every row back to the coordinator, which is an operator's decision.
DROP FUNCTION yakor_distribute();
DROP FUNCTION yakor_distribute_words();
DROP FUNCTION yakor_set_tenant(uuid);
