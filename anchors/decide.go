package anchors

import (
	"cmp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"yakor/words"
)

// Anchor is one saved topic of a thread.
type Anchor struct {
	ID        int64
	Topic     string
	Data      string  // a distillate of the topic's key data, at most MaxData runes
	MessageID int64   // the message it was set at
	CharPos   int64   // the thread's character position (sum of message chars) where it was set
	Absorbed  []int64 // ids of anchors merged into it
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Decision is what one message does to a thread's anchors.
type Decision string

// Decisions.
const (
	NewAnchor        Decision = "NEW_ANCHOR"         // set a new anchor
	MergeAnchor      Decision = "MERGE_ANCHOR"       // return to an earlier anchor (Outcome.TargetID)
	UpdateAnchorData Decision = "UPDATE_ANCHOR_DATA" // update the current anchor's data (Outcome.TargetID)
	NoAnchor         Decision = "NO_ANCHOR"          // leave the anchors as they are
)

// Rules, recorded with every outcome (which rule fired).
const (
	RuleFirst         = "first_topic"       // no anchor yet and the message has a topic
	RuleCharThreshold = "char_threshold"    // chars since the last anchor >= threshold
	RuleTopicChanged  = "topic_changed"     // topic differs from the current anchor's and no earlier anchor is similar
	RuleReturned      = "returned_to_topic" // topic differs from the current one but matches an earlier anchor
	RuleDataChanged   = "data_changed"      // same topic, its data changed
	RuleSameTopic     = "same_topic"        // same topic, nothing new
	RuleNoTopic       = "no_topic"          // the message has no topic
)

// Defaults of Config.
const (
	DefaultCharThreshold = 3000
	DefaultSimilarity    = 0.3
)

// Config tunes Decide. Zero fields take their defaults.
type Config struct {
	CharThreshold int     // characters since the current anchor that set a new one; default 3000
	Similarity    float64 // topics at least this similar (see words.Similarity) are "the same"; default 0.3
	// MergeWindow is how many of the latest anchors a returning topic is
	// compared with; default 100.
	MergeWindow int
	// Similar measures topics; nil means words.Similarity.
	// words.NewSimilarity gives a faster one for many decisions in a row.
	Similar func(a, b string) float64
}

// DefaultConfig is the decision's configuration unless told otherwise.
func DefaultConfig() Config {
	return Config{CharThreshold: DefaultCharThreshold, Similarity: DefaultSimilarity, MergeWindow: 100}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.CharThreshold = cmp.Or(max(c.CharThreshold, 0), d.CharThreshold)
	c.Similarity = cmp.Or(max(c.Similarity, 0), d.Similarity)
	c.MergeWindow = cmp.Or(max(c.MergeWindow, 0), d.MergeWindow)
	if c.Similar == nil {
		c.Similar = words.Similarity
	}
	return c
}

// Outcome is a decision and why it was taken.
type Outcome struct {
	Decision   Decision
	Rule       string  // one of the Rule constants
	TargetID   int64   // the anchor updated or merged into (0 for NEW/NO)
	Similarity float64 // the best similarity that decided it (0 when no topic was compared)
}

// Decide decides what the message read as ex does to a thread's anchors
// (DESIGN.md, "Anchors"). current is the active (latest set or touched)
// anchor, nil if none; earlier are the thread's anchors, current among them
// or not; charsSince is the thread's characters since current was set (or
// since the thread began when there is none).
//
// In order:
//   - no topic (no letter or digit in it): NO_ANCHOR (no_topic), unless charsSince >= the threshold and
//     the message has data: then NEW_ANCHOR (char_threshold);
//   - no current anchor: NEW_ANCHOR (first_topic);
//   - the topic is similar to current's: NEW_ANCHOR (char_threshold) when
//     charsSince >= the threshold; else UPDATE_ANCHOR_DATA (data_changed) of
//     current when ex.DataChanged and some fragment of ex.Data is not yet in
//     current.Data (compared folded); else NO_ANCHOR (same_topic);
//   - else MERGE_ANCHOR (returned_to_topic) into the earlier anchor (of the
//     latest cfg.MergeWindow), never current, most similar to the topic when that is at least
//     cfg.Similarity (ties go to the later anchor); else NEW_ANCHOR
//     (topic_changed).
func Decide(cfg Config, current *Anchor, earlier []Anchor, charsSince int64, ex Extraction) Outcome {
	cfg = cfg.withDefaults()
	overThreshold := charsSince >= int64(cfg.CharThreshold)

	if strings.IndexFunc(ex.Topic, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		if overThreshold && strings.TrimSpace(ex.Data) != "" {
			return Outcome{Decision: NewAnchor, Rule: RuleCharThreshold}
		}
		return Outcome{Decision: NoAnchor, Rule: RuleNoTopic}
	}
	if current == nil {
		return Outcome{Decision: NewAnchor, Rule: RuleFirst}
	}

	sim := cfg.Similar(ex.Topic, current.Topic)
	if sim >= cfg.Similarity {
		switch {
		case overThreshold:
			return Outcome{Decision: NewAnchor, Rule: RuleCharThreshold, Similarity: sim}
		case ex.DataChanged && !containsData(current.Data, ex.Data):
			return Outcome{Decision: UpdateAnchorData, Rule: RuleDataChanged, TargetID: current.ID, Similarity: sim}
		}
		return Outcome{Decision: NoAnchor, Rule: RuleSameTopic, Similarity: sim}
	}

	var best *Anchor
	bestSim := -1.0
	for i := max(0, len(earlier)-cfg.MergeWindow); i < len(earlier); i++ {
		a := &earlier[i]
		if a.ID == current.ID {
			continue
		}
		s := cfg.Similar(ex.Topic, a.Topic)
		if s > bestSim || s == bestSim && later(a, best) {
			best, bestSim = a, s
		}
	}
	if best != nil && bestSim >= cfg.Similarity {
		return Outcome{Decision: MergeAnchor, Rule: RuleReturned, TargetID: best.ID, Similarity: bestSim}
	}
	return Outcome{Decision: NewAnchor, Rule: RuleTopicChanged, Similarity: max(sim, bestSim)}
}

// later reports whether a was set after b (b nil counts as earliest).
func later(a, b *Anchor) bool {
	if b == nil {
		return true
	}
	if a.CharPos != b.CharPos {
		return a.CharPos > b.CharPos
	}
	return a.ID > b.ID
}

// containsData reports whether every fragment of data is already, folded,
// in have.
func containsData(have, data string) bool {
	have = normalize(have)
	for _, f := range splitFragments(data) {
		if !strings.Contains(have, normalize(f)) {
			return false
		}
	}
	return true
}

// runeLen returns the number of runes in s.
func runeLen(s string) int { return utf8.RuneCountInString(s) }
