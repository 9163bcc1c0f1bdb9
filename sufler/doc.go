// Package sufler will grade each answer 1–5 against a written rubric after
// the reply is sent and route it into mnemos: good answers to the experience
// bank, bad ones to antipatterns and research topics.
package sufler
