package llm_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"yakor/llm"
)

func TestOfflineReply(t *testing.T) {
	t.Parallel()
	long := "The LDSP price list: " + strings.Repeat("white oak sheet 1200 rubles; ", 20) + "END-OF-MESSAGE"
	tests := []struct {
		name    string
		msgs    []llm.Message
		want    []string // substrings the reply must hold
		wantNot []string
	}{
		{
			name: "the first reply quotes the matching earlier message after the notice",
			msgs: []llm.Message{
				{Role: "system", Content: "You are Yakor, a helpful assistant."},
				{Role: "user", Content: "The LDSP price list says 1200 rubles per sheet."},
				{Role: "user", Content: "What was the price for LDSP?"},
			},
			want: []string{
				"No language model is configured",
				"Set OPENAI_BASE_URL and YAKOR_CHAT_MODEL",
				"You said earlier: «The LDSP price list says 1200 rubles per sheet.»",
			},
		},
		{
			name: "ties go to the newest",
			msgs: []llm.Message{
				{Role: "user", Content: "Delivery to Kazan costs 500."},
				{Role: "assistant", Content: "Delivery to Kazan takes two days."},
				{Role: "user", Content: "Tell me about delivery to Kazan"},
			},
			want:    []string{"Earlier in this conversation: «Delivery to Kazan takes two days.»"},
			wantNot: []string{"No language model is configured"},
		},
		{
			name: "more shared words win over recency",
			msgs: []llm.Message{
				{Role: "user", Content: "Delivery to Kazan costs 500 rubles."},
				{Role: "assistant", Content: "Delivery is free this week."},
				{Role: "user", Content: "How much does delivery to Kazan cost?"},
			},
			want: []string{"«Delivery to Kazan costs 500 rubles.»"},
		},
		{
			name: "nothing matches",
			msgs: []llm.Message{
				{Role: "user", Content: "The LDSP price list says 1200 rubles per sheet."},
				{Role: "user", Content: "What is the weather in Moscow?"},
			},
			want:    []string{"No language model is configured", "Nothing in the conversation memory matches this question yet."},
			wantNot: []string{"«"},
		},
		{
			name: "system messages and the question itself are not quoted",
			msgs: []llm.Message{
				{Role: "system", Content: "Facts: the LDSP price is 1200."},
				{Role: "user", Content: "What is the LDSP price?"},
				{Role: "user", Content: "What is the LDSP price?"},
			},
			want:    []string{"Nothing in the conversation memory matches this question yet."},
			wantNot: []string{"Facts:"},
		},
		{
			name: "stop words alone do not match",
			msgs: []llm.Message{
				{Role: "assistant", Content: "What would you like to know about this?"},
				{Role: "user", Content: "What about this?"},
			},
			want: []string{"Nothing in the conversation memory matches this question yet."},
		},
		{
			name: "stems match inflected words",
			msgs: []llm.Message{
				{Role: "user", Content: "We ordered twelve cabinets yesterday."},
				{Role: "user", Content: "How many cabinet orders were there?"},
			},
			want: []string{"«We ordered twelve cabinets yesterday.»"},
		},
		{
			name: "long quote trimmed to 300 runes",
			msgs: []llm.Message{
				{Role: "user", Content: long},
				{Role: "user", Content: "What was in the LDSP price list?"},
			},
			want:    []string{"«The LDSP price list: white oak", "…»"},
			wantNot: []string{"END-OF-MESSAGE"},
		},
		{
			name: "Russian question gets a Russian reply",
			msgs: []llm.Message{
				{Role: "user", Content: "Прайс на ЛДСП: 1200 рублей за лист."},
				{Role: "assistant", Content: "Понял, записал."},
				{Role: "user", Content: "Какая была цена ЛДСП по прайсу?"},
			},
			want:    []string{"Вы писали раньше: «Прайс на ЛДСП: 1200 рублей за лист.»"},
			wantNot: []string{"No language model", "Языковая модель не настроена"},
		},
		{
			name: "Russian question with nothing matching",
			msgs: []llm.Message{
				{Role: "user", Content: "Какая погода в Москве?"},
			},
			want: []string{"Языковая модель не настроена", "В памяти разговора пока нет ничего"},
		},
		{
			name: "no question",
			msgs: []llm.Message{{Role: "system", Content: "You are Yakor."}},
			want: []string{"No language model is configured", "There is no question to answer."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := offlineComplete(t, tt.msgs)
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("reply does not hold %q:\n%s", w, res.Text)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(res.Text, w) {
					t.Errorf("reply holds %q:\n%s", w, res.Text)
				}
			}
		})
	}
}

func TestOfflineQuoteLength(t *testing.T) {
	t.Parallel()
	msg := strings.Repeat("ЛДСП ", 200)
	res, err := llm.NewOffline().Complete(context.Background(), llm.Request{Messages: []llm.Message{
		{Role: "user", Content: msg},
		{Role: "user", Content: "Что с ЛДСП?"},
	}})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	start := strings.Index(res.Text, "«")
	end := strings.LastIndex(res.Text, "»")
	if start < 0 || end < start {
		t.Fatalf("no quote in reply:\n%s", res.Text)
	}
	quoted := []rune(strings.TrimSuffix(res.Text[start+len("«"):end], "…"))
	if len(quoted) == 0 || len(quoted) > 300 {
		t.Errorf("quote has %d runes, want 1..300", len(quoted))
	}
}

func TestOfflineChatDeterministicAndStreamed(t *testing.T) {
	t.Parallel()
	o := llm.NewOffline()
	req := llm.Request{Messages: []llm.Message{
		{Role: "user", Content: "Our budget for the kitchen is 300000 rubles."},
		{Role: "assistant", Content: "Understood, 300000 rubles for the kitchen."},
		{Role: "user", Content: "Remind me of the kitchen budget"},
	}}
	first, err := o.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	second, err := o.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("two calls differ (-first +second):\n%s", diff)
	}
	want := llm.Result{Text: first.Text, Provider: "offline", Model: "offline", Attempts: 1}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("Result (-want +got):\n%s", diff)
	}

	var deltas []string
	streamed, err := o.Stream(context.Background(), req, func(d string) error {
		deltas = append(deltas, d)
		return nil
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if len(deltas) < 5 {
		t.Errorf("Stream sent %d deltas, want several", len(deltas))
	}
	if got := strings.Join(deltas, ""); got != first.Text {
		t.Errorf("deltas join to\n%q\nwant Complete's text\n%q", got, first.Text)
	}
	if diff := cmp.Diff(first, streamed); diff != "" {
		t.Errorf("Stream result differs from Complete's (-complete +stream):\n%s", diff)
	}
}

func TestOfflineStreamStops(t *testing.T) {
	t.Parallel()
	o := llm.NewOffline()
	req := llm.Request{Messages: []llm.Message{{Role: "user", Content: "hello there"}}}

	errStop := errors.New("stop")
	calls := 0
	_, err := o.Stream(context.Background(), req, func(string) error {
		calls++
		if calls == 2 {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) || calls != 2 {
		t.Errorf("Stream = %v after %d calls, want the callback's error after 2", err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	calls = 0
	_, err = o.Stream(ctx, req, func(string) error {
		calls++
		cancel()
		return nil
	})
	var e *llm.Error
	if !errors.As(err, &e) || !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("Stream = %v after %d calls, want *llm.Error wrapping context.Canceled after 1", err, calls)
	}
	if _, err := o.Complete(ctx, req); !errors.As(err, &e) {
		t.Errorf("Complete with a cancelled context = %v, want *llm.Error", err)
	}
}

func TestOfflineAccessors(t *testing.T) {
	t.Parallel()
	o := llm.NewOffline()
	got := [3]string{o.Provider(), o.Model(), o.Server()}
	if diff := cmp.Diff([3]string{"offline", "offline", ""}, got); diff != "" {
		t.Errorf("Provider, Model, Server (-want +got):\n%s", diff)
	}
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func TestOfflineEmbed(t *testing.T) {
	t.Parallel()
	o := llm.NewOffline()
	texts := []string{
		"The price of LDSP boards went up",
		"LDSP board prices have risen",
		"Tomorrow's weather in Moscow looks sunny",
		"",
		"Цена ЛДСП выросла",
		"Цены на ЛДСП растут",
		"Погода в Москве завтра солнечная",
	}
	vecs, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	again, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if diff := cmp.Diff(vecs, again); diff != "" {
		t.Errorf("two calls differ (-first +second):\n%s", diff)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != llm.OfflineDims {
			t.Errorf("vector %d has %d dimensions, want %d", i, len(v), llm.OfflineDims)
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		norm = math.Sqrt(norm)
		want := 1.0
		if texts[i] == "" {
			want = 0
		}
		if math.Abs(norm-want) > 1e-5 {
			t.Errorf("vector %d (%q) has norm %v, want %v", i, texts[i], norm, want)
		}
	}
	tests := []struct {
		name                  string
		text, near, unrelated int
	}{
		{"English", 0, 1, 2},
		{"Russian", 4, 5, 6},
	}
	for _, tt := range tests {
		near := cosine(vecs[tt.text], vecs[tt.near])
		far := cosine(vecs[tt.text], vecs[tt.unrelated])
		if near <= far {
			t.Errorf("%s: similar texts %.3f, unrelated %.3f; want similar closer", tt.name, near, far)
		}
	}
}

// TestIsOfflineLine: every line of the offline model's replies, in both
// languages, is its own; a user's lines are not.
func TestIsOfflineLine(t *testing.T) {
	t.Parallel()
	for _, msgs := range [][]llm.Message{
		{{Role: "user", Content: "My name is Anna."}, {Role: "assistant", Content: "Hi Anna."}, {Role: "user", Content: "What is my name?"}},
		{{Role: "user", Content: "Меня зовут Анна."}, {Role: "user", Content: "Как меня зовут?"}},
		{{Role: "user", Content: "Как дела?"}},
		{{Role: "user", Content: "What about the weather?"}},
		{{Role: "system", Content: "You are Yakor."}},
	} {
		res, err := llm.NewOffline().Complete(context.Background(), llm.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(res.Text) {
			if strings.TrimSpace(line) != "" && !llm.IsOfflineLine(line) {
				t.Errorf("IsOfflineLine(%q) = false, a line of the reply %q", line, res.Text)
			}
		}
	}
	for _, line := range []string{"", "My name is Anna.", "The closest earlier message was mine", "Found it!", "Языковая модель — это сеть."} {
		if llm.IsOfflineLine(line) {
			t.Errorf("IsOfflineLine(%q) = true", line)
		}
	}
}
