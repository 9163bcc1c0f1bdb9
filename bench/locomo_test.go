package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"yakor/history"
	"yakor/postgres/pgtest"
)

func TestLocomoEvidence(t *testing.T) {
	for _, tc := range []struct {
		name      string
		raw       []string
		want      []string
		malformed int
	}{
		{"OK", []string{"D1:3", "D12:40"}, []string{"D1:3", "D12:40"}, 0},
		{"PackedSemicolon", []string{"D8:6; D9:17"}, []string{"D8:6", "D9:17"}, 0},
		{"PackedSpaces", []string{"D9:1 D4:4 D4:6"}, []string{"D9:1", "D4:4", "D4:6"}, 0},
		{"PackedFour", []string{"D21:18 D21:22 D11:15 D11:19"}, []string{"D21:18", "D21:22", "D11:15", "D11:19"}, 0},
		{"StrayColon", []string{"D:11:26"}, []string{"D11:26"}, 0},
		{"LeadingZero", []string{"D30:05"}, []string{"D30:5"}, 0},
		{"BareD", []string{"D"}, nil, 1},
		{"BareDAmongValid", []string{"D", "D2:1"}, []string{"D2:1"}, 1},
		{"Repeats", []string{"D1:3", "D1:03", "D1:3; D2:2"}, []string{"D1:3", "D2:2"}, 0},
		{"Empty", nil, nil, 0},
		{"Garbage", []string{"session 3", "D1"}, nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, malformed := locomoEvidence(tc.raw)
			if diff := cmp.Diff(tc.want, got); diff != "" || malformed != tc.malformed {
				t.Fatalf("locomoEvidence(%q): malformed %d, want %d; ids (-want +got):\n%s", tc.raw, malformed, tc.malformed, diff)
			}
		})
	}
}

func TestLocomoParseDate(t *testing.T) {
	for in, want := range map[string]time.Time{
		"1:56 pm on 8 May, 2023":     time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC),
		"10:04 am on 19 June, 2023":  time.Date(2023, 6, 19, 10, 4, 0, 0, time.UTC),
		"12:09 am on 13 March, 2022": time.Date(2022, 3, 13, 0, 9, 0, 0, time.UTC),
		" 7:55 pm on 9 June, 2023 ":  time.Date(2023, 6, 9, 19, 55, 0, 0, time.UTC),
	} {
		got, err := locomoParseDate(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("locomoParseDate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "8 May 2023", "13:56 pm on 8 May, 2023"} {
		if _, err := locomoParseDate(in); err == nil {
			t.Errorf("locomoParseDate(%q): no error", in)
		}
	}
}

func TestLocomoRecall(t *testing.T) {
	found := map[int64]bool{1: true, 3: true, 5: true}
	for _, tc := range []struct {
		evidence []int64
		want     float64
	}{
		{[]int64{1}, 1},
		{[]int64{2}, 0},
		{[]int64{1, 2}, 0.5},
		{[]int64{1, 2, 3, 4}, 0.5},
		{[]int64{2, 4, 5}, 1.0 / 3},
		{nil, 0},
	} {
		if got := locomoRecall(tc.evidence, found); got != tc.want {
			t.Errorf("locomoRecall(%v) = %v, want %v", tc.evidence, got, tc.want)
		}
	}
}

func TestLocomoAggregate(t *testing.T) {
	scores := []locomoScore{
		{category: 1, recall: [locomoNConfigs]float64{1, 1, 1, 0, 1, 1}, chars: [locomoNConfigs]int{locomoBudget: 100, locomoWindowBudget: 50}, latency: []float64{1, 2}},
		{category: 1, recall: [locomoNConfigs]float64{0, 0.5, 1, 1, 1, 1}, chars: [locomoNConfigs]int{locomoBudget: 300, locomoWindowBudget: 150}, latency: []float64{3}},
		{category: 3, leftOut: true},
		{category: 5, recall: [locomoNConfigs]float64{1, 1, 1, 1, 1, 1}, latency: []float64{9}},
	}
	row := locomoAggregate("1–4 overall", []int{1, 2, 3, 4}, scores)
	if row.N != 2 || row.LeftOut != 1 || row.Latency.Calls != 3 || row.Latency.P50 != 2 || row.Latency.P99 != 3 {
		t.Fatalf("%+v", row)
	}
	want := map[string]float64{"search top 5": 0.5, "search top 10": 0.75, "search budget": 1, "window": 0.5, "window + top 10": 1, "window + budget": 1}
	if diff := cmp.Diff(want, row.Recall); diff != "" {
		t.Errorf("recall (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]float64{"search budget": 200, "window + budget": 100}, row.Chars); diff != "" {
		t.Errorf("chars (-want +got):\n%s", diff)
	}
	if empty := locomoAggregate("2 temporal", []int{2}, scores); empty.N != 0 || len(empty.Recall) != 0 {
		t.Errorf("empty row: %+v", empty)
	}
}

// locomoFixture is a tiny conversation in locomo10.json's format: sessions
// out of order in the text, an empty session, a photo, and questions with
// each kind of malformed evidence. "theremin" is said once, in D1:3.
const locomoFixture = `[{
  "sample_id": "conv-t",
  "conversation": {
    "speaker_a": "Alice",
    "speaker_b": "Bob",
    "session_2_date_time": "10:04 am on 19 June, 2023",
    "session_2": [
      {"speaker": "Alice", "dia_id": "D2:1", "text": "Back from the trip? How was it?"},
      {"speaker": "Bob", "dia_id": "D2:2", "text": "Porto was lovely, we walked along the river every night."},
      {"speaker": "Alice", "dia_id": "D2:3", "text": "Lucky you. Guess who joined our family!", "blip_caption": "a photo of a small grey kitten on a sofa", "img_url": ["https://example.invalid/k.jpg"]},
      {"speaker": "Bob", "dia_id": "D2:4", "text": "A kitten! Congratulations, she looks adorable."}
    ],
    "session_3_date_time": "9:00 am on 1 July, 2023",
    "session_3": [],
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
      {"speaker": "Alice", "dia_id": "D1:1", "text": "Hi Bob! Long time no see."},
      {"speaker": "Bob", "dia_id": "D1:2", "text": "Hey Alice, what have you been up to lately?"},
      {"speaker": "Alice", "dia_id": "D1:3", "text": "I have been practising the theremin every single evening, it is strange and wonderful."},
      {"speaker": "Bob", "dia_id": "D1:4", "text": "I am flying to Lisbon next week for a conference."}
    ]
  },
  "qa": [
    {"question": "What instrument does Alice practise, the theremin?", "answer": "theremin", "evidence": ["D1:3"], "category": 4},
    {"question": "Which cities did Bob visit, Lisbon and Porto?", "answer": "Lisbon and Porto", "evidence": ["D1:4; D2:02"], "category": 1},
    {"question": "When did Alice adopt a pet?", "answer": 2023, "evidence": ["D:2:3", "D9:9"], "category": 2},
    {"question": "What pet does Bob have?", "answer": "", "evidence": ["D"], "category": 3},
    {"question": "What did Bob say about the theremin?", "adversarial_answer": "He liked it", "evidence": ["D1:3"], "category": 5}
  ]
}]`

func TestLocomoPrepare(t *testing.T) {
	var samples []locomoSample
	if err := json.Unmarshal([]byte(locomoFixture), &samples); err != nil {
		t.Fatal(err)
	}
	c, err := locomoPrepare(samples[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(c.msgs) != 8 {
		t.Fatalf("%d messages, want 8", len(c.msgs))
	}
	// Session 1 comes first whatever the key order; turns keep their order
	// in time within a session.
	if !strings.HasPrefix(c.msgs[0].Content, "Hi Bob") || !strings.HasPrefix(c.msgs[4].Content, "Back from the trip") {
		t.Errorf("order: %q, %q", c.msgs[0].Content, c.msgs[4].Content)
	}
	if c.msgs[0].Role != history.RoleUser || c.msgs[0].Author != "Alice" || c.msgs[1].Role != history.RoleAssistant || c.msgs[1].Author != "Bob" {
		t.Errorf("roles: %+v, %+v", c.msgs[0], c.msgs[1])
	}
	if want := time.Date(2023, 5, 8, 13, 56, 2, 0, time.UTC); !c.msgs[2].CreatedAt.Equal(want) {
		t.Errorf("D1:3 at %v, want %v", c.msgs[2].CreatedAt, want)
	}
	if want := "Lucky you. Guess who joined our family! [shares a photo: a photo of a small grey kitten on a sofa]"; c.msgs[6].Content != want {
		t.Errorf("photo turn: %q", c.msgs[6].Content)
	}
	var got [][]int
	for _, q := range c.questions {
		got = append(got, q.evidence)
	}
	if diff := cmp.Diff([][]int{{2}, {3, 5}, {6}, nil, {2}}, got); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	if c.dropped != 2 { // "D" and the unknown D9:9
		t.Errorf("dropped %d, want 2", c.dropped)
	}
	// Only "When did Alice adopt a pet?" shares no keyword with its
	// evidence (the kitten photo); a question without evidence is not
	// counted.
	var noShared []bool
	for _, q := range c.questions {
		noShared = append(noShared, q.noSharedKeyword)
	}
	if diff := cmp.Diff([]bool{false, false, true, false, false}, noShared); diff != "" {
		t.Errorf("no shared keyword (-want +got):\n%s", diff)
	}
}

func TestLocomoSharesKeyword(t *testing.T) {
	authors := []string{"Alice", "Bob"}
	for _, tc := range []struct {
		question string
		evidence []string
		want     bool
	}{
		{"What instrument does Alice practise?", []string{"Hi!", "I have been PRACTISING the theremin"}, true},
		{"When did Alice adopt a pet?", []string{"Guess who joined our family! [shares a photo: a small grey kitten]"}, false},
		{"Where does Alice live?", []string{"Alice is here, Bob"}, false}, // speakers' names are not keywords
		{"What did the the of?", []string{"the the of"}, false},           // nor are stop words
		{"Which café in Zürich?", []string{"we met at the CAFÉ"}, true},
	} {
		if got := locomoSharesKeyword(tc.question, tc.evidence, authors); got != tc.want {
			t.Errorf("locomoSharesKeyword(%q, %q) = %v, want %v", tc.question, tc.evidence, got, tc.want)
		}
	}
}

func TestBenchLocomo(t *testing.T) {
	for _, semantic := range []bool{false, true} {
		name := "Lexical"
		if semantic {
			name = "Semantic"
		}
		t.Run(name, func(t *testing.T) { testBenchLocomo(t, semantic) })
	}
}

func testBenchLocomo(t *testing.T, semantic bool) {
	url, _ := pgtest.NewURL(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "locomo.json")
	if err := os.WriteFile(data, []byte(locomoFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	var stdout, stderr bytes.Buffer
	args := []string{"--data", data, "--database-url", url, "--window", "120", "--json", out}
	legs := "search legs: keywords, full text, meaning (word vectors, 200 nearest, min similarity 0.20)\n"
	if semantic {
		args = append(args, "--semantic")
		legs = "search legs: keywords, full text, semantic (offline:offline, 200 nearest, min similarity 0.20)\n"
	}
	if err := runBenchLocomo(context.Background(), args, &stdout, &stderr, noEnv); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	wantAll(t, stdout.String(), legs, "| category | n |", "| 1 multi-hop | 1 |", "| 2 temporal | 1 |", "| 3 open-domain | 0 |", "| 4 single-hop | 1 |",
		"| 1–4 overall | 3 |", "| 5 adversarial | 1 |", "| 1–4 no shared keyword | 1 |", "left out 1")
	var rep locomoReport
	readJSON(t, out, &rep)
	if rep.Questions != 5 || rep.LeftOut != 1 || rep.Messages != 8 || rep.DroppedEvidence != 2 || len(rep.Rows) != len(locomoRows) {
		t.Fatalf("report: %+v", rep)
	}
	if wantLegs, wantEmbedded := 3, map[bool]int{false: 0, true: 8}[semantic]; len(rep.Legs) != wantLegs || rep.Embedded != wantEmbedded {
		t.Fatalf("legs %q, embedded %d; want %d legs, %d embedded", rep.Legs, rep.Embedded, wantLegs, wantEmbedded)
	}
	rows := map[string]locomoRow{}
	for _, r := range rep.Rows {
		rows[r.Name] = r
	}
	// The only message with "theremin" is found by search, and lies before
	// the 120-character window, so the window alone misses it and the turn's
	// search before the window brings it.
	single := rows["4 single-hop"]
	if single.Recall["search top 5"] != 1 || single.Recall["window"] != 0 || single.Recall["window + budget"] != 1 {
		t.Errorf("single-hop recall: %v", single.Recall)
	}
	if single.Chars["search budget"] <= 0 || single.Latency.Calls != 5 {
		t.Errorf("single-hop: %+v", single)
	}
	if r := rows["3 open-domain"]; r.N != 0 || r.LeftOut != 1 {
		t.Errorf("open-domain: %+v", r)
	}

	// The bench's tenant is gone, and its messages with it.
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM message_embeddings)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d messages and embeddings left (%v)", n, err)
	}
}

func TestBenchLocomoNeedsData(t *testing.T) {
	err := runBenchLocomo(context.Background(), nil, io.Discard, io.Discard, noEnv)
	if err == nil || !strings.Contains(err.Error(), "--data") {
		t.Fatalf("err = %v", err)
	}
}
