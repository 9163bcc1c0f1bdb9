-- +goose Up
-- History search finds a keyword's stem at the start of a word (stem "цен":
-- "цена", «Цены», not "лицензия") through a GIN index of each message's
-- words tagged with its thread, and ranks what it found by full text from
-- the stored tsvector. It replaces the trigram and full-text indexes keyed
-- by thread (btree_gin), with which every search intersected the thread's
-- whole posting list with the words' or trigrams' (shared by all threads),
-- and read from the heap the substring candidates that the trigram recheck
-- then threw away, three in four on a 100,000-message thread.

-- yakor_separators is the class of characters that end a word: ASCII
-- punctuation, the common Unicode marks and spaces. "лдсп-16",
-- "price_list.csv" and «цена» split there, as Yakor's own keywords do.
CREATE FUNCTION yakor_separators() RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN '[!-/:-@[-`{-~«»—–…“”„‘’№•·€£₽¥§©®™°±×÷[:space:]\u00a0\u2009\u202f]';

-- yakor_word_start is the pattern of a word starting with stem (letters
-- and digits only), for a search that reads a small thread whole.
CREATE FUNCTION yakor_word_start(stem text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN '(^|' || yakor_separators() || ')' || stem;

-- yakor_thread_words is the words of a message (PostgreSQL's parser on the
-- folded text with its separators made spaces, kept whole: 'simple'), each
-- prefixed with the last 8 characters of its thread's id: 'a531d63cцена'.
-- A keyword is then the tsquery 'a531d63cцен':*, whose postings are that
-- thread's messages only (and the rare thread whose id ends alike, which
-- the search's thread condition drops), so a search reads what it finds,
-- whatever the size of the thread or of the database.
-- +goose StatementBegin
CREATE FUNCTION yakor_thread_words(thread uuid, folded text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN array_to_tsvector(ARRAY(
        SELECT right(thread::text, 8) || w
        FROM unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
            regexp_replace(folded, yakor_separators(), ' ', 'g')))) AS w));
-- +goose StatementEnd

-- Without fastupdate: a message's words go into the index as it is stored
-- (about 30 entries, a fraction of a millisecond), rather than into a
-- pending list that every search would read whole and that the turn that
-- fills it would have to merge.
CREATE INDEX messages_words ON messages USING gin (yakor_thread_words(thread_id, folded))
    WITH (fastupdate = off);
DROP INDEX messages_fold_trgm;
DROP INDEX messages_tsv;

-- +goose Down
CREATE INDEX messages_fold_trgm ON messages USING gin (thread_id, folded gin_trgm_ops);
CREATE INDEX messages_tsv ON messages USING gin (thread_id, tsv);
DROP INDEX messages_words;
DROP FUNCTION yakor_thread_words(uuid, text);
DROP FUNCTION yakor_word_start(text);
DROP FUNCTION yakor_separators();
