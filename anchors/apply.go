package anchors

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// This file is the decision loop of anchoring (Service.Apply): given what
// was read of a thread and its new messages, it decides message by message
// and returns the rows to write. It reads and writes no database; the
// reads and writes are in apply_store.go.

// message is one message to anchor.
type message struct {
	ID      int64
	Role    string
	Content string
	Chars   int64
	At      time.Time // when it was said
	Author  string    // the person who said it, when the thread knows ("" for a model's reply)
}

// state is what anchoring a thread starts from: its cursor and its anchors.
type state struct {
	last       int64 // the last message anchored (0: none)
	currentID  int64 // the cursor's current anchor (0: none)
	charsTotal int64 // the thread's characters anchored so far
	// currentSince is charsTotal when the current anchor became current;
	// offTopic the user's messages in a row since then that left its topic.
	currentSince int64
	offTopic     int
	// anchors are the newest ones (mergeWindow) and the current one,
	// oldest first; only the current one's data is read.
	anchors []Anchor
	authors []string // the thread's authors, left out of offline topics
}

// batch is what the loop decided for a run of messages: a step per
// message, in order, and the cursor after them.
type batch struct {
	steps      []step
	currentID  int64 // may be pending
	charsTotal int64
	// currentSince and offTopic are the cursor's after them (see state).
	currentSince int64
	offTopic     int
	// folds are the episodes folded after the steps, in order.
	folds []foldOp
	// read is the data, as it was read, of each stored anchor the batch
	// rewrites or absorbs: the write checks it did not change meanwhile.
	read map[int64]string
}

// step is one message's decision and the anchor row it writes. An anchor
// the batch sets has a pending id (above every stored anchor's) until it
// is inserted; AnchorID, Outcome.TargetID, rewrite.id and rewrite.absorbed
// may name one.
type step struct {
	applied Applied
	topic   string   // the topic extracted, recorded with the decision
	insert  *Anchor  // NEW_ANCHOR: the anchor to insert
	rewrite *rewrite // UPDATE_ANCHOR_DATA, MERGE_ANCHOR: the anchor's new data
}

// rewrite sets an anchor's data and may fold a detour into it.
type rewrite struct {
	id       int64
	data     string
	absorbed int64     // the dataless anchor merged into this one (0: none)
	lastAt   time.Time // when the last message it covers was said
}

// extractFunc reads a message, knowing the current anchor (nil if none).
type extractFunc func(m message, current *Anchor) Extraction

// dataFunc reads a stored anchor's data.
type dataFunc func(id int64) (string, error)

// decideRun decides each of msgs in order, starting from st: extract reads
// each message (a helper model may answer it), dataOf reads the data of an
// earlier anchor the dialogue returns to (only the current anchor's data is
// in st).
func decideRun(cfg Config, st state, msgs []message, extract extractFunc, dataOf dataFunc) (batch, error) {
	r := run{cfg: cfg.withDefaults(), anchors: slices.Clone(st.anchors), currentID: st.currentID, chars: st.charsTotal,
		currentSince: st.currentSince, offTopic: st.offTopic,
		loaded: map[int64]bool{}, read: map[int64]string{}, dataOf: dataOf}
	if st.currentID != 0 {
		r.loaded[st.currentID] = true
	}
	for _, a := range st.anchors {
		r.firstPending = max(r.firstPending, a.ID)
	}
	r.firstPending++
	r.nextID = r.firstPending
	for _, m := range msgs {
		if err := r.step(m, extract); err != nil {
			return batch{}, err
		}
	}
	return batch{steps: r.steps, currentID: r.currentID, charsTotal: r.chars, read: r.read,
		currentSince: r.currentSince, offTopic: r.offTopic, folds: r.folds}, nil
}

// run is the loop's state.
type run struct {
	cfg       Config
	anchors   []Anchor
	currentID int64
	chars     int64
	// currentSince and offTopic: see state.
	currentSince int64
	offTopic     int
	loaded       map[int64]bool // anchors whose data is known
	read         map[int64]string
	dataOf       dataFunc
	// Pending ids: an anchor set in the run takes nextID, counted from
	// firstPending; they grow as the stored ones do, so Decide's ties (the
	// later anchor wins) fall as they will on the ids inserted.
	firstPending, nextID int64
	steps                []step
	folds                []foldOp
}

func (r *run) step(m message, extract extractFunc) error {
	r.chars += m.Chars
	current := find(r.anchors, r.currentID)
	ex := extract(m, current)
	since := r.chars
	if current != nil {
		since = r.chars - r.currentSince
	}
	o := Decide(r.cfg, current, r.anchors, Position{Since: since, OffTopic: r.offTopic}, ex)
	s := step{applied: Applied{MessageID: m.ID, Outcome: o, Source: ex.Source}, topic: ex.Topic}
	switch o.Decision {
	case NewAnchor:
		s.insert = r.setAnchor(m, ex, current)
		s.applied.AnchorID = s.insert.ID
		if err := r.foldOld(); err != nil {
			return err
		}
	case UpdateAnchorData, MergeAnchor:
		w, err := r.rewrite(o, ex, current, m.At)
		if err != nil {
			return err
		}
		s.rewrite, s.applied.AnchorID = w, w.id
	}
	r.follow(m, o)
	r.steps = append(r.steps, s)
	return nil
}

// follow moves the run's position after m was decided as o: a new or
// returned-to anchor is current from here, and the user's messages that
// leave the topic are counted until one comes back to it (the assistant's
// answer within the user's topic counts neither way).
func (r *run) follow(m message, o Outcome) {
	switch {
	case o.Decision == NewAnchor || o.Decision == MergeAnchor:
		r.currentSince, r.offTopic = r.chars, 0
	case m.Role != "user":
	case o.Rule == RuleDetour:
		r.offTopic++
	case o.Rule == RuleSameTopic || o.Rule == RuleDataChanged:
		r.offTopic = 0
	}
}

// setAnchor sets a new anchor at m and makes it current.
func (r *run) setAnchor(m message, ex Extraction, current *Anchor) *Anchor {
	na := Anchor{ID: r.nextID, Topic: topicOr(ex.Topic, current), Data: Distill("", ex.kept(), MaxData), MessageID: m.ID, CharPos: r.chars,
		FirstAt: m.At, LastAt: m.At}
	r.nextID++
	r.loaded[na.ID] = true
	r.anchors = append(r.anchors, na)
	r.currentID = na.ID
	return &na
}

// rewrite adds ex's data to the anchor of the decision o and makes it
// current; a dialogue returning to it from a detour that carried no data
// folds the detour into it.
func (r *run) rewrite(o Outcome, ex Extraction, current *Anchor, at time.Time) (*rewrite, error) {
	t := find(r.anchors, o.TargetID)
	if t == nil {
		return nil, fmt.Errorf("anchor %d of the decision is gone", o.TargetID)
	}
	if !r.loaded[t.ID] {
		data, err := r.dataOf(t.ID)
		if err != nil {
			return nil, err
		}
		t.Data, r.loaded[t.ID] = data, true
	}
	r.remember(*t)
	t.Data = Distill(t.Data, ex.kept(), MaxData)
	w := &rewrite{}
	if o.Decision == MergeAnchor && current != nil && strings.TrimSpace(current.Data) == "" && current.ID != t.ID {
		r.remember(*current)
		w.absorbed = current.ID
		t.Absorbed = append(t.Absorbed, current.ID)
		r.anchors = remove(r.anchors, current.ID)
		t = find(r.anchors, o.TargetID)
	}
	if at.After(t.LastAt) {
		t.LastAt = at
	}
	w.id, w.data, w.lastAt = t.ID, t.Data, t.LastAt
	r.currentID = t.ID
	return w, nil
}

// remember keeps a stored anchor's data as read, before the run changes it.
func (r *run) remember(a Anchor) {
	if _, ok := r.read[a.ID]; !ok && a.ID < r.firstPending {
		r.read[a.ID] = a.Data
	}
}

func find(as []Anchor, id int64) *Anchor {
	if id == 0 {
		return nil
	}
	for i := range as {
		if as[i].ID == id {
			return &as[i]
		}
	}
	return nil
}

func remove(as []Anchor, id int64) []Anchor {
	out := as[:0]
	for _, a := range as {
		if a.ID != id {
			out = append(out, a)
		}
	}
	return out
}

func topicOr(topic string, current *Anchor) string {
	if strings.TrimSpace(topic) != "" {
		return topic
	}
	if current != nil {
		return current.Topic
	}
	return "…"
}
