// Package likbez will run the scheduled research job: it studies the topics
// the assistant failed on through a SearXNG instance, writes study notes with
// the helper model, and indexes them into mnemos.
package likbez
