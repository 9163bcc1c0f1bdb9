-- +goose Up
-- The owner's word-index functions (00021, 00022, 00023) plan their one
-- query anew on every call: PL/pgSQL tries custom plans first and keeps
-- them when the generic plan does not look cheaper, and for these queries
-- it never does. Planning was about a third of a keyword leg's time (a median of
-- 4.9 ms for a search's three stems on a 100,000-message thread, 3.5 ms
-- with the generic plan), and most of long-term memory's lexical leg on a
-- level with few entries. The generic plan is the same plan: the words index,
-- read with the stem, then the rows' own conditions, which the functions
-- hide from the planner anyway (IS TRUE).
--
-- On a Citus coordinator the functions keep their custom plans: Citus
-- routes a statement by the tenant's value, which only a custom plan
-- shows it (00024's yakor_distribute_words sets force_custom_plan, also
-- when it distributes a database later: it replaces the functions whole).
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        ALTER FUNCTION yakor_thread_word_matches_unchecked(uuid, uuid, uuid, text[], bigint, integer, text)
            SET plan_cache_mode = force_generic_plan;
        ALTER FUNCTION yakor_experience_words_unchecked(uuid, smallint, integer, text, text[], integer)
            SET plan_cache_mode = force_generic_plan;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        ALTER FUNCTION yakor_thread_word_matches_unchecked(uuid, uuid, uuid, text[], bigint, integer, text)
            RESET plan_cache_mode;
        ALTER FUNCTION yakor_experience_words_unchecked(uuid, smallint, integer, text, text[], integer)
            RESET plan_cache_mode;
    END IF;
END
$$;
-- +goose StatementEnd
