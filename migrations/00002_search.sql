-- +goose Up
-- History search: folded text for case-insensitive ILIKE on any database
-- locale, a stored tsvector for full-text rank, and GIN indexes keyed by
-- thread (btree_gin) so that a search reads one thread's postings only.
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- yakor_fold lower-cases Cyrillic and Latin and folds ё into е. Where the
-- database's own collation folds Cyrillic it uses it (fast); on a database
-- whose lower() leaves Cyrillic alone (the C locale) it uses ICU's root
-- collation, which folds whatever the locale.
-- +goose StatementBegin
DO $$
BEGIN
    IF lower('ЁЛКА ЛДСП') = 'ёлка лдсп' THEN
        CREATE FUNCTION yakor_fold(t text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            RETURN translate(lower(t), 'ё', 'е');
    ELSE
        CREATE FUNCTION yakor_fold(t text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            RETURN translate(lower(t COLLATE "und-x-icu"), 'ё', 'е');
    END IF;
END
$$;
-- +goose StatementEnd

ALTER TABLE messages ADD COLUMN author text NOT NULL DEFAULT '';
-- The folded text is stored: folding costs microseconds a message, too much
-- to pay for every message a search reads, and the trigram index's recheck
-- reads it too.
ALTER TABLE messages ADD COLUMN folded text
    GENERATED ALWAYS AS (yakor_fold(content)) STORED;
-- The 'russian' configuration stems Cyrillic words with the Russian and
-- ASCII words with the English Snowball stemmer.
ALTER TABLE messages ADD COLUMN tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('russian'::regconfig, yakor_fold(content))) STORED;

CREATE INDEX messages_fold_trgm ON messages USING gin (thread_id, folded gin_trgm_ops);
CREATE INDEX messages_tsv ON messages USING gin (thread_id, tsv);

-- message_count feeds the rare-word weights; authors are the thread's
-- speakers, whose names are not evidence.
ALTER TABLE threads ADD COLUMN message_count bigint NOT NULL DEFAULT 0;
ALTER TABLE threads ADD COLUMN authors text[] NOT NULL DEFAULT '{}';
UPDATE threads t SET message_count = (
    SELECT count(*) FROM messages m WHERE m.tenant_id = t.tenant_id AND m.thread_id = t.id);

-- Each turn keeps its searches: query, keywords, hits, timings.
ALTER TABLE turns ADD COLUMN searches jsonb NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE turns DROP COLUMN searches;
ALTER TABLE threads DROP COLUMN authors;
ALTER TABLE threads DROP COLUMN message_count;
DROP INDEX messages_tsv;
DROP INDEX messages_fold_trgm;
ALTER TABLE messages DROP COLUMN tsv;
ALTER TABLE messages DROP COLUMN folded;
ALTER TABLE messages DROP COLUMN author;
DROP FUNCTION yakor_fold(text);
