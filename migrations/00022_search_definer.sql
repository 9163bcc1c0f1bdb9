-- +goose Up
-- History search's keyword leg reads the words index (migration 00020) as
-- the tables' owner. Under row-level security, which holds the service role
-- to its tenant, PostgreSQL may not use an index for the text search
-- operator: it is not leakproof, so it is evaluated only after the policy,
-- on every row of the table (8 s a keyword at 1,000,000 messages). The
-- function answers only for the tenant the transaction names (yakor.tenant)
-- when it names one, like the policy, and its caller reads the messages'
-- text back under its own row-level security.
--
-- yakor_thread_word_matches returns, for each stem (letters and digits,
-- words.Keywords), up to cap messages of a thread (before before_id, 0: all)
-- with a word starting with it, each with its full-text rank for the
-- websearch query rank_query (0 when it does not match): the stem's
-- position (from 1), the message's id, the rank. The conditions but the
-- words' are written so that the planner cannot use them (IS TRUE): it
-- would otherwise intersect the words' postings with the thread's or the
-- tenant's from another index, reading all of those; plain index scans are
-- off for the same reason (with the LIMIT in view the planner likes to walk
-- a btree in id order and filter).
-- +goose StatementBegin
CREATE FUNCTION yakor_thread_word_matches(for_tenant uuid, for_user uuid, in_thread uuid, stems text[], before_id bigint, cap integer, rank_query text)
    RETURNS TABLE (kw integer, id bigint, rank double precision)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
    SET enable_indexscan = off
    SET enable_seqscan = off
AS $$
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
        WHERE (ms.tenant_id = for_tenant AND ms.user_id = for_user AND ms.thread_id = in_thread) IS TRUE
          AND (before_id = 0 OR ms.id < before_id) AND ms.kind <> 'summary' AND ms.superseded_at IS NULL
          AND yakor_thread_words(ms.thread_id, ms.folded) @@ yakor_word_prefix(in_thread, k.s)
        LIMIT cap
    ) m
    WHERE k.s <> '';
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION yakor_thread_word_matches(uuid, uuid, uuid, text[], bigint, integer, text);
