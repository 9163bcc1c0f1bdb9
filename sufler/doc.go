// Package sufler grades each answer of Yakor 1–5 against a written rubric,
// after the reply has been sent. A durable job calls [Grader.Grade] and
// routes the grade into mnemos: 4 or 5 goes to the experience bank (L1), 1
// or 2 to the antipatterns (L3) with a research topic, and 3 is kept as a
// grade only. This package is only the grader; it touches no database.
//
// # The rubric
//
// An answer is judged by four criteria:
//
//  1. It answers what was asked.
//  2. It is grounded in the context it was given (anchors, the recent
//     window, search hits): it uses what the context holds and says what is
//     missing instead of guessing.
//  3. It is correct.
//  4. It invents no data: no number, name or date that is in neither the
//     context nor the question.
//
// The scores mean: 5, exact, grounded, correct, nothing invented; 4, good
// with a small gap; 3, partly useful or too general to check, but nothing
// false; 2, fails the user (misses the question, holds an error, was
// corrected by the user, or has nothing to offer, which is a gap worth
// studying); 1, harmful or empty (invented data, contradicts the context,
// answers something else, says nothing). A grade of 2 or less carries a
// research topic: what to study so that such a question is answered well
// next time, in the conversation's language.
//
// # The helper model
//
// With a helper model, [Request] sends the rubric (rubric_en.txt) and the
// output contract as the system message, and the exchange as the user
// message under the labels CONTEXT, QUESTION, ANSWER and NEXT USER MESSAGE;
// the context is cut to its newest 6000 runes, the question and the answer
// to their first 4000, at temperature 0. The model must reply with only
// {"score": 1-5, "reason": "...", "research_topic": "..."}; [Parse] accepts
// that object alone or in a ```json fence and nothing else. A failed call is
// returned, wrapped, for the job to retry: it never falls back to the
// offline grade. An answer that breaks the contract is an error wrapping
// [ErrBadAnswer]. A grade of 2 or less without a topic gets the offline
// topic below.
//
// # Offline heuristics
//
// Without a helper model, [Offline] grades by these rules; the first that
// applies wins. The notice line that starts every reply of Yakor's offline
// chat model ("No language model is configured, …" or its Russian twin) is
// dropped from the answer first, so its words count for nothing. Phrases are
// compared case-insensitively (ё as е, typographic apostrophes as ') and on
// word boundaries, so "know" or "nowhere" is not "no".
//
//  0. An empty answer gets 1.
//  1. The user's next message corrects the answer: 2. The correction
//     phrases are "wrong", "that's not right", "that is not right",
//     "incorrect", "not correct", "you're mistaken", "неправильно",
//     "неверно", "ошибка", "ошибаешься", "не так" (and so "это не так"),
//     "на самом деле" anywhere; and "no,", "no.", "no!", "actually,",
//     "нет,", "нет.", "нет!" at the start of a sentence, where they are
//     unambiguous, except "no, thanks" and "нет, спасибо".
//  2. The answer admits it has nothing: 2. The phrases are "found
//     nothing", "could not find", "couldn't find", "cannot find", "can't
//     find", "I don't know", "I do not know", "no information", "not sure",
//     "ничего не нашёл" (нашла), "не нашлось", "не знаю", "нет информации",
//     "не могу ответить", and the offline model's own "Nothing in the
//     conversation memory matches" and "нет ничего, что подходит". It
//     applies only when the message asked something (a question mark, or a
//     question word first): a statement answered "nothing matches" failed
//     at nothing.
//  3. Invented data, judged only when there is a context: a number of the
//     answer with at least two digits that is in neither the question nor
//     the context gives 2, and the reason lists up to three of them.
//     Numbers are compared by value: thousands separators (",", "'", a space
//     or a no-break space between a group of 1–3 digits and groups of
//     exactly 3) are dropped, so "1 500", "1,500" and "1500" are one
//     number; a decimal comma is a point ("12,5" is "12.5"); trailing
//     decimal zeros go ("12.50" is "12.5"); a "%" is ignored.
//  4. Grounded: the answer holds a number (two digits or more) that is in
//     the context, or it shares at least half of the question's keywords
//     (their stems, from words.Keywords, against the stems of the answer's
//     words). Both give 5, one gives 4.
//  5. Otherwise 3: not clearly grounded in the context.
//
// The offline research topic is the question's first five keywords, as
// written in the question (so in its language), or, when it has none, its
// first 60 runes. Offline grades name "offline" as their grader; they are
// deterministic and never fail. They are cautious: invented numbers get 2,
// not the rubric's 1, since a number may be plain arithmetic on the context.
package sufler
