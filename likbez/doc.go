// Package likbez runs the research job: it studies the topics the
// assistant failed on before they come up again. A run takes the research
// topics that are due (every tenant's), searches a SearXNG instance for each,
// fetches the top pages through a fetcher that refuses private, loopback and
// link-local addresses (checked on every dial, so neither a redirect nor DNS
// can lead it into the intranet) within time, size, redirect and
// content-type limits, extracts their readable text, and has the helper
// model write a study note per page that keeps the facts and numbers and
// cites the URL (offline: an extractive note). Notes are stored in
// research_articles, one per topic and page, and indexed into mnemos as
// level-2 experiences. A topic is done only once its articles are stored;
// otherwise it fails with the reason and a next attempt after a growing
// backoff. One run goes at a time across instances (an advisory lock), and
// a run cut off mid-topic leaves it to the next run, which stores no page
// twice. Without a source, topics stay pending and the run says so.
//
// The package owns research_articles and research_runs. The topics are
// mnemos' (research_topics): a run claims them and records their status
// through its Topics interface (mnemos.TopicQueue).
package likbez
