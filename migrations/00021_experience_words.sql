-- +goose Up
-- Long-term memory's lexical leg (mnemos recall): an experience is found by
-- the words of its topic, question and answer, each stem of the message's
-- keywords at the start of a word ("ндс" finds «НДС», "услуг" finds
-- «услуги» and «услугами»), through a GIN index of each experience's folded
-- words tagged with its tenant and level (yakor_thread_words of migration
-- 00020, whose tag can be any id's), so that a recall reads the postings of
-- its own tenant's level only, however many tenants and examples share the
-- table. Recall weighs what it found by rarity and fuses it with the vector
-- leg.

-- yakor_word_prefix is the query for a word starting with stem among words
-- tagged with tag's last 8 characters (yakor_thread_words): the prefix query
-- 'a531d63cцен':*. stem holds letters and digits only (words.Keywords), so
-- quoting it needs no escapes. History search's keyword leg uses it too.
CREATE FUNCTION yakor_word_prefix(tag uuid, stem text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (quote_literal(right(tag::text, 8) || stem) || ':*')::tsquery;

-- yakor_level_tag is the id that tags the words of a tenant's experiences of
-- one level: the tenant's, its last digit replaced by the level's. A
-- tenant whose id ends like another's but for its last digit shares its
-- tags; the tenant's condition drops the other's entries.
CREATE FUNCTION yakor_level_tag(tenant uuid, level smallint) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN overlay(tenant::text PLACING level::text FROM 36)::uuid;

-- The words are built from the text the database already holds, so an
-- existing database's experiences are found once the index is built.
-- Without fastupdate, as messages_words: a new experience's words go into
-- the index as it is stored, not into a pending list every recall would
-- read.
CREATE INDEX experiences_words ON experiences
    USING gin (yakor_thread_words(yakor_level_tag(tenant_id, level), yakor_fold(topic || ' ' || question || ' ' || answer)))
    WITH (fastupdate = off);

-- yakor_experience_words returns, for each stem (an empty one is skipped),
-- up to cap of the tenant's experiences of one level in the space that
-- viewer (a user's id, '' for none) may recall, its own or shared, holding
-- a word that starts with the stem: the stem's position (from 1) and the
-- experience's id. It reads the words index as the tables' owner: under
-- row-level security the planner may not use an index for the text search
-- operator, which is not leakproof, and would compute the words of every
-- experience of the tenant instead. So it answers only for the tenant the
-- transaction names (yakor.tenant), when it names one, and its caller
-- reads the ids back under its own row-level security (mnemos recall). A
-- sequential scan is off: with its LIMIT in view the planner could hope to
-- stop one early, computing each row's words until it does.
-- +goose StatementBegin
CREATE FUNCTION yakor_experience_words(for_tenant uuid, of_level smallint, in_space integer, viewer text, stems text[], cap integer)
    RETURNS TABLE (kw integer, entry bigint)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
    SET enable_seqscan = off
AS $$
BEGIN
    IF for_tenant IS DISTINCT FROM coalesce(yakor_tenant(), for_tenant) THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT k.i::integer, m.id
    FROM unnest(stems) WITH ORDINALITY AS k(s, i)
    CROSS JOIN LATERAL (
        SELECT e.id FROM experiences e
        WHERE yakor_thread_words(yakor_level_tag(e.tenant_id, e.level), yakor_fold(e.topic || ' ' || e.question || ' ' || e.answer))
                @@ yakor_word_prefix(yakor_level_tag(for_tenant, of_level), k.s)
          AND (e.tenant_id = for_tenant AND e.level = of_level AND e.space_id = in_space) IS TRUE
          AND (e.user_id::text = viewer OR e.visibility = 'shared')
        LIMIT cap
    ) m
    WHERE k.s <> '';
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION yakor_experience_words(uuid, smallint, integer, text, text[], integer);
DROP INDEX experiences_words;
DROP FUNCTION yakor_level_tag(uuid, smallint);
DROP FUNCTION yakor_word_prefix(uuid, text);
