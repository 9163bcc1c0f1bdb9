// Package words is Yakor's text toolkit, the same for every package that
// reads text, with no model and no database:
//
//   - Fold lower-cases text and turns ё into е, as the database's folded
//     text is; Fields splits text into folded words; Lang tells Russian
//     from English;
//   - Keywords picks a text's distinctive words, folded, without English
//     and Russian stop words (the embedded stopwords_en.txt and
//     stopwords_ru.txt) and the names given, each with its Snowball stem;
//   - Similarity measures how alike two topics are (pg_trgm-style
//     trigrams and shared words over the stems), NewSimilarity the same
//     with a cache;
//   - Topic names what a message is about in a short noun phrase cut from
//     it, in its language, word order and case ("прайс-лист на ЛДСП"),
//     with a small lexicon of linkers, verbs and chat words (lexicon.go);
//     LeadIn splits a sentence at its "X:" lead-in;
//   - Sentences splits text into lines and sentences, Scan into numbers,
//     words and symbols, and IsUnit and IsTotalMarker recognise units,
//     currencies and totals ("руб", "мм", "usd", "итого").
//   - Days finds the phrases of a text that name a day, absolute ("15
//     марта 2026") or relative to when it was said ("tomorrow", "в
//     пятницу", "next Monday", "через неделю"), resolved to dates;
//     HasRelativeDay tells whether a text names one, WeekdayName names a
//     weekday in English or Russian.
//   - Related gives the English words nearest in meaning to a word, from
//     the embedded related.txt.gz (GloVe's vectors; scripts/related.sh);
//     Meaning gives an English text's vector, its words' vectors averaged
//     (the embedded vectors.bin.gz, made with it).
//
// It imports nothing of Yakor and owns no tables.
package words
