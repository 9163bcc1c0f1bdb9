-- +goose Up
-- The functions that read a words index as the tables' owner (migrations
-- 00021, 00022) answered for any tenant when the transaction named none:
-- a caller held to its tenant by row-level security could learn which ids
-- of another tenant's experiences or messages hold a word. Now a caller
-- must name the tenant it asks for, unless row-level security does not
-- hold it anyway (a superuser, a role that bypasses it, the tables'
-- owner: tests and benchmarks on the owner's pool). The checked function
-- keeps each old name; the old body, renamed, only its owner may call.

-- yakor_may_read_tenant reports whether the caller may read for_tenant's
-- rows: the transaction names that tenant, or names none and the caller
-- (the role it took with SET ROLE, else the one it logged in as) is not
-- held by row-level security.
CREATE FUNCTION yakor_may_read_tenant(for_tenant uuid) RETURNS boolean
    LANGUAGE sql STABLE
    RETURN for_tenant = yakor_tenant() OR (yakor_tenant() IS NULL AND EXISTS (
        SELECT FROM pg_roles r
        WHERE r.rolname = CASE current_setting('role') WHEN 'none' THEN session_user ELSE current_setting('role') END
          AND (r.rolsuper OR r.rolbypassrls OR r.oid = (SELECT relowner FROM pg_class WHERE oid = 'public.messages'::regclass))));

ALTER FUNCTION yakor_experience_words(uuid, smallint, integer, text, text[], integer) RENAME TO yakor_experience_words_unchecked;
ALTER FUNCTION yakor_thread_word_matches(uuid, uuid, uuid, text[], bigint, integer, text) RENAME TO yakor_thread_word_matches_unchecked;
REVOKE EXECUTE ON FUNCTION yakor_experience_words_unchecked(uuid, smallint, integer, text, text[], integer) FROM PUBLIC, yakor_service;
REVOKE EXECUTE ON FUNCTION yakor_thread_word_matches_unchecked(uuid, uuid, uuid, text[], bigint, integer, text) FROM PUBLIC, yakor_service;

-- +goose StatementBegin
CREATE FUNCTION yakor_experience_words(for_tenant uuid, of_level smallint, in_space integer, viewer text, stems text[], cap integer)
    RETURNS TABLE (kw integer, entry bigint)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
BEGIN
    IF yakor_may_read_tenant(for_tenant) THEN
        RETURN QUERY SELECT * FROM yakor_experience_words_unchecked(for_tenant, of_level, in_space, viewer, stems, cap);
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION yakor_thread_word_matches(for_tenant uuid, for_user uuid, in_thread uuid, stems text[], before_id bigint, cap integer, rank_query text)
    RETURNS TABLE (kw integer, id bigint, rank double precision)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
BEGIN
    IF yakor_may_read_tenant(for_tenant) THEN
        RETURN QUERY SELECT * FROM yakor_thread_word_matches_unchecked(for_tenant, for_user, in_thread, stems, before_id, cap, rank_query);
    END IF;
END
$$;
-- +goose StatementEnd

REVOKE EXECUTE ON FUNCTION yakor_experience_words(uuid, smallint, integer, text, text[], integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION yakor_thread_word_matches(uuid, uuid, uuid, text[], bigint, integer, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION yakor_experience_words(uuid, smallint, integer, text, text[], integer) TO yakor_service;
GRANT EXECUTE ON FUNCTION yakor_thread_word_matches(uuid, uuid, uuid, text[], bigint, integer, text) TO yakor_service;

-- +goose Down
DROP FUNCTION yakor_thread_word_matches(uuid, uuid, uuid, text[], bigint, integer, text);
DROP FUNCTION yakor_experience_words(uuid, smallint, integer, text, text[], integer);
ALTER FUNCTION yakor_thread_word_matches_unchecked(uuid, uuid, uuid, text[], bigint, integer, text) RENAME TO yakor_thread_word_matches;
ALTER FUNCTION yakor_experience_words_unchecked(uuid, smallint, integer, text, text[], integer) RENAME TO yakor_experience_words;
GRANT EXECUTE ON FUNCTION yakor_thread_word_matches(uuid, uuid, uuid, text[], bigint, integer, text) TO PUBLIC;
GRANT EXECUTE ON FUNCTION yakor_experience_words(uuid, smallint, integer, text, text[], integer) TO PUBLIC;
DROP FUNCTION yakor_may_read_tenant(uuid);
