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
	// Episode marks an anchor that folds a run of older ones (Absorbed):
	// its topic is a phrase of theirs, its data their condensed data.
	Episode   bool
	FirstAt   time.Time // when the first message it covers was said
	LastAt    time.Time // when the last message it covers was said
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
	RuleCharThreshold = "char_threshold"    // the topic changed and chars since the current anchor >= threshold
	RuleTopicChanged  = "topic_changed"     // the topic changed (with new data, or it stayed changed) and no earlier anchor is similar
	RuleReturned      = "returned_to_topic" // topic differs from the current one but matches an earlier anchor
	RuleDataChanged   = "data_changed"      // same topic, its data changed
	RuleSameTopic     = "same_topic"        // same topic, nothing new
	RuleNoTopic       = "no_topic"          // the message has no topic
	RuleDetour        = "detour"            // the topic changed, but not for long enough yet: the current anchor stays
)

// Defaults of Config.
const (
	DefaultCharThreshold = 4000
	DefaultSimilarity    = 0.3
	DefaultMinSpan       = 2500
)

// Config tunes Decide. Zero fields take their defaults.
type Config struct {
	// CharThreshold is how many characters the current topic must have
	// been current for a changed topic to set a new anchor at once;
	// default 4000.
	CharThreshold int
	// MinSpan is how many characters the current topic must have been
	// current for a changed topic without data that stayed changed (the
	// user's previous message left the topic too) to set a new anchor;
	// default 2500. Before that, and before it stays changed, it is a
	// detour.
	MinSpan    int
	Similarity float64 // topics at least this similar (see words.Similarity) are "the same"; default 0.3
	// KeepRecent is how many anchors stay whole, the current one among
	// them; older ones fold into episodes (episodes.go); default 8.
	KeepRecent int
	// MaxEpisodes is how many episodes a thread keeps at most; adjacent
	// ones join beyond it; default 12.
	MaxEpisodes int
	// MergeWindow is how many of the latest anchors a returning topic is
	// compared with; default 100.
	MergeWindow int
	// Similar measures topics; nil means words.Similarity.
	// words.NewSimilarity gives a faster one for many decisions in a row.
	Similar func(a, b string) float64
}

// DefaultConfig is the decision's configuration unless told otherwise.
func DefaultConfig() Config {
	return Config{CharThreshold: DefaultCharThreshold, MinSpan: DefaultMinSpan, Similarity: DefaultSimilarity, MergeWindow: 100,
		KeepRecent: DefaultKeepRecent, MaxEpisodes: DefaultMaxEpisodes}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.CharThreshold = cmp.Or(max(c.CharThreshold, 0), d.CharThreshold)
	c.MinSpan = cmp.Or(max(c.MinSpan, 0), d.MinSpan)
	c.Similarity = cmp.Or(max(c.Similarity, 0), d.Similarity)
	c.MergeWindow = cmp.Or(max(c.MergeWindow, 0), d.MergeWindow)
	c.KeepRecent = cmp.Or(max(c.KeepRecent, 0), d.KeepRecent)
	c.MaxEpisodes = cmp.Or(max(c.MaxEpisodes, 0), d.MaxEpisodes)
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

// Position is where a message stands against the current anchor.
type Position struct {
	// Since is the thread's characters since the current anchor became
	// current (was set or returned to), this message's included; since
	// the thread began when there is none.
	Since int64
	// OffTopic is how many of the user's messages in a row before this
	// one left the current topic (detours).
	OffTopic int
}

// Decide decides what the message read as ex does to a thread's anchors
// (DESIGN.md, "Anchors"). current is the active (latest set or touched)
// anchor, nil if none; earlier are the thread's anchors, current among them
// or not (episodes among them are never returned to); at is where the
// message stands.
//
// In order:
//   - no topic (no letter or digit in it): NO_ANCHOR (no_topic), unless at.Since >= the threshold and
//     the message has data: then NEW_ANCHOR (char_threshold); or, when it
//     has notes current does not hold, UPDATE_ANCHOR_DATA (no_topic) of current;
//   - no current anchor: NEW_ANCHOR (first_topic);
//   - the topic is similar to current's: UPDATE_ANCHOR_DATA (data_changed) of
//     current when ex.DataChanged and some fragment of ex.Data, or some
//     note of ex.Notes, is not yet in current.Data (compared folded); else NO_ANCHOR (same_topic): a topic
//     that goes on keeps its anchor, whose data is updated in place;
//   - else MERGE_ANCHOR (returned_to_topic) into the earlier anchor (of the
//     latest cfg.MergeWindow), never current nor an episode, most similar to the topic when that is at least
//     cfg.Similarity (ties go to the later anchor);
//   - else the topic changed: NEW_ANCHOR (topic_changed) when the message
//     brings new data (a task moving on with its figures); NEW_ANCHOR
//     (char_threshold) when at.Since >= cfg.CharThreshold; NEW_ANCHOR
//     (topic_changed) when it stayed changed (at.OffTopic >= 1) and
//     at.Since >= cfg.MinSpan; else NO_ANCHOR (detour), or UPDATE_ANCHOR_DATA
//     (detour) of current when the message has notes current does not hold.
func Decide(cfg Config, current *Anchor, earlier []Anchor, at Position, ex Extraction) Outcome {
	cfg = cfg.withDefaults()
	overThreshold := at.Since >= int64(cfg.CharThreshold)
	hasData := strings.TrimSpace(ex.Data) != ""

	if strings.IndexFunc(ex.Topic, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		if overThreshold && hasData {
			return Outcome{Decision: NewAnchor, Rule: RuleCharThreshold}
		}
		return keepNotes(current, ex, Outcome{Decision: NoAnchor, Rule: RuleNoTopic})
	}
	if current == nil {
		return Outcome{Decision: NewAnchor, Rule: RuleFirst}
	}

	sim := cfg.Similar(ex.Topic, current.Topic)
	if sim >= cfg.Similarity {
		if ex.DataChanged && !containsData(current.Data, ex.Data) || ex.Notes != "" && !containsData(current.Data, ex.Notes) {
			return Outcome{Decision: UpdateAnchorData, Rule: RuleDataChanged, TargetID: current.ID, Similarity: sim}
		}
		return Outcome{Decision: NoAnchor, Rule: RuleSameTopic, Similarity: sim}
	}

	best, bestSim := mostSimilar(cfg, current, earlier, ex.Topic)
	if best != nil && bestSim >= cfg.Similarity {
		return Outcome{Decision: MergeAnchor, Rule: RuleReturned, TargetID: best.ID, Similarity: bestSim}
	}
	changed := max(sim, bestSim)
	switch {
	case ex.DataChanged && hasData:
		return Outcome{Decision: NewAnchor, Rule: RuleTopicChanged, Similarity: changed}
	case overThreshold:
		return Outcome{Decision: NewAnchor, Rule: RuleCharThreshold, Similarity: changed}
	case at.OffTopic >= 1 && at.Since >= int64(cfg.MinSpan):
		return Outcome{Decision: NewAnchor, Rule: RuleTopicChanged, Similarity: changed}
	}
	return keepNotes(current, ex, Outcome{Decision: NoAnchor, Rule: RuleDetour, Similarity: changed})
}

// keepNotes is o, a NO_ANCHOR that leaves current as it is, made an
// UPDATE_ANCHOR_DATA of current (the same rule) when the message has notes
// current does not hold yet: what was said on a detour, or with no topic,
// is kept in the topic the conversation is on.
func keepNotes(current *Anchor, ex Extraction, o Outcome) Outcome {
	if current != nil && ex.Notes != "" && !containsData(current.Data, ex.Notes) {
		o.Decision, o.TargetID = UpdateAnchorData, current.ID
	}
	return o
}

// mostSimilar returns the anchor of earlier's latest cfg.MergeWindow,
// neither current nor an episode, whose topic is most similar to topic
// (ties go to the later anchor), and its similarity (-1 when none).
func mostSimilar(cfg Config, current *Anchor, earlier []Anchor, topic string) (*Anchor, float64) {
	var best *Anchor
	bestSim := -1.0
	for i := max(0, len(earlier)-cfg.MergeWindow); i < len(earlier); i++ {
		a := &earlier[i]
		if a.ID == current.ID || a.Episode {
			continue
		}
		s := cfg.Similar(topic, a.Topic)
		if s > bestSim || s == bestSim && later(a, best) {
			best, bestSim = a, s
		}
	}
	return best, bestSim
}

// similarTopics reports whether two topics are nearly the same
// (words.Similarity at least 0.5).
func similarTopics(a, b string) bool { return words.Similarity(a, b) >= 0.5 }

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
