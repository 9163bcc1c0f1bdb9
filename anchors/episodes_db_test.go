package anchors_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"yakor/anchors"
)

// TestApplyFoldsEpisodes: a long task conversation of thirty topics, each
// with its figure, anchored offline: every topic sets an anchor, the
// older ones are folded into episodes in the database (none lost: each
// anchor is live or absorbed by a live one), and the block still names
// the first topic, with its day.
func TestApplyFoldsEpisodes(t *testing.T) {
	th := newThread(t)
	// A long task conversation's topics, one a line (shared with the
	// distributed routing test).
	raw, err := os.ReadFile("testdata/thirty_topics.txt")
	if err != nil {
		t.Fatal(err)
	}
	topics := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var last int64
	for i, topic := range topics {
		last = th.say(t, fmt.Sprintf("%s — %d EUR.", topic, 1000+10*i))
	}
	svc := newService(th, nil)
	if _, err := svc.Apply(th.ctx, th.scope, last); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := th.owner.QueryRow(th.ctx, `SELECT count(*) FROM microgoals WHERE tenant_id = $1 AND thread_id = $2`, th.scope.TenantID, th.scope.ThreadID).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != len(topics) {
		t.Errorf("%d anchors set, want one a topic: %d", rows, len(topics))
	}
	l, err := svc.List(th.ctx, th.scope)
	if err != nil {
		t.Fatal(err)
	}
	covered, episodes := map[int64]bool{}, 0
	for _, a := range l.Anchors {
		covered[a.ID] = true
		for _, id := range a.Absorbed {
			covered[id] = true
		}
		if a.Episode {
			episodes++
			if a.FirstAt.IsZero() || a.LastAt.Before(a.FirstAt) {
				t.Errorf("episode %d spans %v to %v", a.ID, a.FirstAt, a.LastAt)
			}
		}
	}
	if episodes == 0 || len(l.Anchors) > 8+3+12 {
		t.Errorf("%d live anchors, %d episodes: want the older ones folded", len(l.Anchors), episodes)
	}
	if len(covered) != rows {
		t.Errorf("%d anchors live or absorbed, want all %d", len(covered), rows)
	}
	block, _, err := svc.Block(th.ctx, th.scope, "en")
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Format("2 Jan 2006")
	if !strings.Contains(block, "Kitchen cabinets") || !strings.Contains(block, "("+today+")") || !strings.Contains(block, "Terrace decking") {
		t.Errorf("the block should name the first topic with its day (%s) and the current one:\n%s", today, block)
	}
}

// byWord embeds a text as the first of its words it knows, else apart.
type byWord map[string][]float32

func (b byWord) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{0, 0, 1}
		for w, v := range b {
			if strings.Contains(strings.ToLower(t), w) {
				out[i] = v
			}
		}
	}
	return out, nil
}

// TestApplyComparesTopicsByMeaning: with an embedding model, a message
// whose topic means the current one stays on it; without, it is a detour.
func TestApplyComparesTopicsByMeaning(t *testing.T) {
	for _, withModel := range []bool{false, true} {
		th := newThread(t)
		th.say(t, "Delivery to Moscow — 2500 руб.")
		last := th.say(t, "The truck is booked.")
		svc := newService(th, nil)
		if withModel {
			svc.WithEmbedder(byWord{"delivery": {1, 0, 0}, "truck": {0.9, 0.2, 0}})
		}
		if _, err := svc.Apply(th.ctx, th.scope, last); err != nil {
			t.Fatal(err)
		}
		ds, err := svc.Decisions(th.ctx, th.scope, []int64{last})
		if err != nil || len(ds) != 1 {
			t.Fatalf("decisions %v, %v", ds, err)
		}
		want := anchors.RuleDetour
		if withModel {
			want = anchors.RuleSameTopic
		}
		if ds[0].Rule != want {
			t.Errorf("with a model %v: %q (topic %q) decided by %s, want %s", withModel, "The truck is booked.", ds[0].Topic, ds[0].Rule, want)
		}
	}
}
