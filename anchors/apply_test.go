package anchors

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scripted extracts each message as its entry in exs says, by message id,
// and records the current anchor's topic each extraction was given.
type scripted struct {
	exs  map[int64]Extraction
	seen []string
}

func (s *scripted) extract(m message, current *Anchor) Extraction {
	topic := "-"
	if current != nil {
		topic = current.Topic
	}
	s.seen = append(s.seen, topic)
	return s.exs[m.ID]
}

func ex(topic, data string) Extraction {
	return Extraction{Topic: topic, Data: data, DataChanged: data != "", Source: SourceHelper}
}

// describe renders a batch's steps, one a line, and its cursor.
func describe(b batch) string {
	var sb strings.Builder
	for _, s := range b.steps {
		a := s.applied
		fmt.Fprintf(&sb, "m%d %s %s anchor=%d", a.MessageID, a.Outcome.Decision, a.Outcome.Rule, a.AnchorID)
		if s.insert != nil {
			fmt.Fprintf(&sb, " insert(%d %q %q m%d at %d)", s.insert.ID, s.insert.Topic, s.insert.Data, s.insert.MessageID, s.insert.CharPos)
		}
		if w := s.rewrite; w != nil {
			fmt.Fprintf(&sb, " rewrite(%d %q", w.id, w.data)
			if w.absorbed != 0 {
				fmt.Fprintf(&sb, " absorbs %d", w.absorbed)
			}
			sb.WriteString(")")
		}
		sb.WriteString("\n")
	}
	fmt.Fprintf(&sb, "cursor current=%d chars=%d", b.currentID, b.charsTotal)
	return sb.String()
}

func TestDecideRun(t *testing.T) {
	const (
		price     = "прайс ЛДСП"
		delivery  = "доставка по Москве"
		priceLDSP = "ЛДСП 16 мм — 3 400 руб/лист"
	)
	total := Distill(priceLDSP, "Итого: 40 800 руб", MaxData)
	// The stored anchors as load reads them: only the current one's data.
	priceA := Anchor{ID: 10, Topic: price, Data: priceLDSP, MessageID: 1, CharPos: 0}
	priceNoData := priceA
	priceNoData.Data = ""
	detour := Anchor{ID: 11, Topic: delivery, MessageID: 5, CharPos: 900}
	detourData := detour
	detourData.Data = "доставка 2 500 руб"
	stored := map[int64]string{10: priceLDSP, 11: ""}

	tests := []struct {
		name     string
		st       state
		msgs     []message
		exs      map[int64]Extraction
		want     string
		wantRead map[int64]string
	}{{
		name: "FirstTopic",
		msgs: []message{{ID: 1, Role: "user", Chars: 100}},
		exs:  map[int64]Extraction{1: ex(price, priceLDSP)},
		want: `m1 NEW_ANCHOR first_topic anchor=1 insert(1 "прайс ЛДСП" "ЛДСП 16 мм — 3 400 руб/лист" m1 at 100)
cursor current=1 chars=100`,
	}, {
		name: "DataAddedToCurrent",
		st:   state{last: 4, currentID: 10, charsTotal: 500, anchors: []Anchor{priceA}},
		msgs: []message{{ID: 6, Role: "user", Chars: 50}},
		exs:  map[int64]Extraction{6: ex(price, "Итого: 40 800 руб")},
		want: `m6 UPDATE_ANCHOR_DATA data_changed anchor=10 rewrite(10 "` + total + `")
cursor current=10 chars=550`,
		wantRead: map[int64]string{10: priceLDSP},
	}, {
		name: "SameTopicNothingNewAndNoTopic",
		st:   state{last: 4, currentID: 10, charsTotal: 500, anchors: []Anchor{priceA}},
		msgs: []message{{ID: 6, Role: "user", Chars: 50}, {ID: 7, Role: "assistant", Chars: 20}},
		exs:  map[int64]Extraction{6: ex(price, "ЛДСП 16 мм — 3 400 руб/лист"), 7: ex("", "")},
		want: `m6 NO_ANCHOR same_topic anchor=0
m7 NO_ANCHOR no_topic anchor=0
cursor current=10 chars=570`,
	}, {
		name: "CharThreshold",
		st:   state{last: 4, currentID: 10, charsTotal: 500, anchors: []Anchor{priceA}},
		msgs: []message{{ID: 6, Role: "user", Chars: 4000}},
		exs:  map[int64]Extraction{6: ex(delivery, "")},
		want: `m6 NEW_ANCHOR char_threshold anchor=11 insert(11 "доставка по Москве" "" m6 at 4500)
cursor current=11 chars=4500`,
	}, {
		// A topic that goes on keeps its anchor past the threshold.
		name: "SameTopicPastThreshold",
		st:   state{last: 4, currentID: 10, charsTotal: 500, anchors: []Anchor{priceA}},
		msgs: []message{{ID: 6, Role: "user", Chars: 3000}},
		exs:  map[int64]Extraction{6: ex(price, "")},
		want: `m6 NO_ANCHOR same_topic anchor=0
cursor current=10 chars=3500`,
	}, {
		// The position counts from when the current anchor became current,
		// not from where it was set; the user's detours are counted until
		// one stays.
		name: "DetourStaysChanged",
		st:   state{last: 4, currentID: 10, charsTotal: 5000, currentSince: 4000, anchors: []Anchor{priceA}},
		msgs: []message{{ID: 6, Role: "user", Chars: 300}, {ID: 7, Role: "assistant", Chars: 900}, {ID: 8, Role: "user", Chars: 1300}},
		exs:  map[int64]Extraction{6: ex(delivery, ""), 7: ex("", ""), 8: ex("доставка в Химки", "")},
		want: `m6 NO_ANCHOR detour anchor=0
m7 NO_ANCHOR no_topic anchor=0
m8 NEW_ANCHOR topic_changed anchor=11 insert(11 "доставка в Химки" "" m8 at 7500)
cursor current=11 chars=7500`,
	}, {
		name: "DetourWithoutDataMergesBack",
		st:   state{last: 5, currentID: 11, charsTotal: 1000, anchors: []Anchor{priceNoData, detour}},
		msgs: []message{{ID: 7, Role: "user", Chars: 60}},
		exs:  map[int64]Extraction{7: ex(price, "")},
		want: `m7 MERGE_ANCHOR returned_to_topic anchor=10 rewrite(10 "ЛДСП 16 мм — 3 400 руб/лист" absorbs 11)
cursor current=10 chars=1060`,
		wantRead: map[int64]string{10: priceLDSP, 11: ""},
	}, {
		name: "DetourWithDataStays",
		st:   state{last: 5, currentID: 11, charsTotal: 1000, anchors: []Anchor{priceNoData, detourData}},
		msgs: []message{{ID: 7, Role: "user", Chars: 60}},
		exs:  map[int64]Extraction{7: ex(price, "Итого: 40 800 руб")},
		want: `m7 MERGE_ANCHOR returned_to_topic anchor=10 rewrite(10 "` + total + `")
cursor current=10 chars=1060`,
		wantRead: map[int64]string{10: priceLDSP},
	}, {
		// The current anchor is not the latest (the dialogue had returned
		// to it) and has no data: leaving it for a later topic folds it
		// there, not the later one into itself.
		name: "EarlierCurrentFoldedIntoLaterTopic",
		st:   state{last: 8, currentID: 10, charsTotal: 1500, anchors: []Anchor{{ID: 10, Topic: price, CharPos: 0}, detour}},
		msgs: []message{{ID: 9, Role: "user", Chars: 40}},
		exs:  map[int64]Extraction{9: ex(delivery, "")},
		want: `m9 MERGE_ANCHOR returned_to_topic anchor=11 rewrite(11 "" absorbs 10)
cursor current=11 chars=1540`,
		wantRead: map[int64]string{10: "", 11: ""},
	}, {
		// Anchors set in the run take pending ids, which the run's later
		// steps name.
		name: "RunSetsDetoursAndReturns",
		msgs: []message{{ID: 1, Role: "user", Chars: 100}, {ID: 2, Role: "assistant", Chars: 200}, {ID: 3, Role: "user", Chars: 30}, {ID: 4, Role: "user", Chars: 40}, {ID: 5, Role: "user", Chars: 50}},
		exs: map[int64]Extraction{1: ex(price, priceLDSP), 2: ex(price, "Итого: 40 800 руб"), 3: ex(delivery, ""),
			4: ex(price, ""), 5: ex("монтаж кухни", "")},
		want: `m1 NEW_ANCHOR first_topic anchor=1 insert(1 "прайс ЛДСП" "ЛДСП 16 мм — 3 400 руб/лист" m1 at 100)
m2 UPDATE_ANCHOR_DATA data_changed anchor=1 rewrite(1 "` + total + `")
m3 NO_ANCHOR detour anchor=0
m4 NO_ANCHOR same_topic anchor=0
m5 NO_ANCHOR detour anchor=0
cursor current=1 chars=420`,
	}, {
		// With data, a changed topic is set at once; a return folds it
		// back only when it carried none.
		name: "RunSetsTopicsWithDataAndReturns",
		msgs: []message{{ID: 1, Role: "user", Chars: 100}, {ID: 3, Role: "user", Chars: 30}, {ID: 4, Role: "user", Chars: 40}, {ID: 5, Role: "user", Chars: 50}},
		exs: map[int64]Extraction{1: ex(price, priceLDSP), 3: ex(delivery, "доставка 2 500 руб"),
			4: ex(price, ""), 5: ex("монтаж кухни", "монтаж 9 000 руб")},
		want: `m1 NEW_ANCHOR first_topic anchor=1 insert(1 "прайс ЛДСП" "ЛДСП 16 мм — 3 400 руб/лист" m1 at 100)
m3 NEW_ANCHOR topic_changed anchor=2 insert(2 "доставка по Москве" "доставка 2 500 руб" m3 at 130)
m4 MERGE_ANCHOR returned_to_topic anchor=1 rewrite(1 "ЛДСП 16 мм — 3 400 руб/лист")
m5 NEW_ANCHOR topic_changed anchor=3 insert(3 "монтаж кухни" "монтаж 9 000 руб" m5 at 220)
cursor current=3 chars=220`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{exs: tc.exs}
			dataOf := func(id int64) (string, error) {
				d, ok := stored[id]
				if !ok {
					t.Fatalf("data of anchor %d read: it is not stored", id)
				}
				return d, nil
			}
			b, err := decideRun(Config{}, tc.st, tc.msgs, s.extract, dataOf)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(b); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if tc.wantRead == nil {
				tc.wantRead = map[int64]string{}
			}
			if diff := cmp.Diff(tc.wantRead, b.read); diff != "" {
				t.Errorf("read (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecideRunExtractsWithCurrent: each message is extracted knowing the
// anchor the previous ones left current (the helper is shown it), and the
// state given is not changed.
func TestDecideRunExtractsWithCurrent(t *testing.T) {
	st := state{currentID: 10, charsTotal: 100, anchors: []Anchor{{ID: 10, Topic: "прайс ЛДСП", Data: "ЛДСП 3 400 руб"}}}
	s := &scripted{exs: map[int64]Extraction{1: ex("доставка по Москве", "доставка 2 500 руб"), 2: ex("", ""), 3: ex("прайс ЛДСП", "")}}
	b, err := decideRun(Config{}, st, []message{{ID: 1}, {ID: 2}, {ID: 3}}, s.extract, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"прайс ЛДСП", "доставка по Москве", "доставка по Москве"}; !cmp.Equal(s.seen, want) {
		t.Errorf("extractions saw current %q, want %q", s.seen, want)
	}
	if b.currentID != 10 || len(st.anchors) != 1 || st.anchors[0].Data != "ЛДСП 3 400 руб" {
		t.Errorf("current %d, state's anchors %+v", b.currentID, st.anchors)
	}
}

// TestDecideRunDataError: an anchor's data that cannot be read fails the run.
func TestDecideRunDataError(t *testing.T) {
	st := state{currentID: 11, anchors: []Anchor{{ID: 10, Topic: "прайс ЛДСП"}, {ID: 11, Topic: "доставка по Москве", CharPos: 10}}}
	s := &scripted{exs: map[int64]Extraction{1: ex("прайс ЛДСП", "")}}
	broken := errors.New("connection lost")
	_, err := decideRun(Config{}, st, []message{{ID: 1}}, s.extract, func(int64) (string, error) { return "", broken })
	if !errors.Is(err, broken) {
		t.Fatalf("err %v, want %v", err, broken)
	}
}
