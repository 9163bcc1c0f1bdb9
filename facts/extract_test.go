package facts

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// testAt is when the table tests' messages are said: Wednesday
// 2026-03-11.
var testAt = time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)

// want is the part of a Candidate a table test checks; Text is checked
// only when set.
type want struct {
	scope, kind, slot, value, text string
}

func TestOffline(t *testing.T) {
	tests := []struct {
		msg    string
		want   []want
		forget []string
	}{
		// name
		{msg: "Hi! My name is Anna.", want: []want{{ScopeUser, KindFact, "user.name", "Anna", "The user's name is Anna."}}},
		{msg: "Call me Ishmael Smith, please", want: []want{{ScopeUser, KindFact, "user.name", "Ishmael Smith", ""}}},
		{msg: "call me tomorrow", want: nil},
		{msg: "Привет, меня зовут Анна", want: []want{{ScopeUser, KindFact, "user.name", "Анна", "Пользователя зовут Анна."}}},
		{msg: "меня зовут борис", want: []want{{ScopeUser, KindFact, "user.name", "Борис", ""}}},
		{msg: "Зовите меня Лёша.", want: []want{{ScopeUser, KindFact, "user.name", "Лёша", ""}}},
		// team and role
		{msg: "I work on backend.", want: []want{{ScopeUser, KindFact, "user.team", "backend", "The user works on the backend team."}}},
		{msg: "I moved to frontend", want: []want{{ScopeUser, KindFact, "user.team", "frontend", ""}}},
		{msg: "Now I work on the payments team", want: []want{{ScopeUser, KindFact, "user.team", "payments", ""}}},
		{msg: "I switched to the frontend team last week", want: []want{{ScopeUser, KindFact, "user.team", "frontend", ""}}},
		{msg: "I'm a backend developer", want: []want{{ScopeUser, KindFact, "user.role", "backend developer", "The user is a backend developer."}}},
		{msg: "I'm a senior engineer", want: []want{{ScopeUser, KindFact, "user.role", "senior engineer", "The user is a senior engineer."}}},
		{msg: "I moved to Berlin", want: nil},
		{msg: "I work on a compiler", want: nil},
		{msg: "Я работаю в бэкенде", want: []want{{ScopeUser, KindFact, "user.team", "бэкенд", "Пользователь работает в бэкенде."}}},
		{msg: "Я перешла во фронтенд", want: []want{{ScopeUser, KindFact, "user.team", "фронтенд", ""}}},
		{msg: "Теперь я в команде платежей", want: []want{{ScopeUser, KindFact, "user.team", "платежей", "Пользователь работает в команде платежей."}}},
		{msg: "Я бэкенд-разработчик", want: []want{{ScopeUser, KindFact, "user.role", "бэкенд-разработчик", ""}}},
		{msg: "Я старший разработчик", want: []want{{ScopeUser, KindFact, "user.role", "старший разработчик", ""}}},
		// versions
		{msg: "We use PostgreSQL 15.2 and Go 1.26.", want: []want{
			{ScopeProject, KindFact, "project.version:postgresql", "15.2", "The project uses PostgreSQL 15.2."},
			{ScopeProject, KindFact, "project.version:go", "1.26", ""}}},
		{msg: "Версия API 2.3", want: []want{{ScopeProject, KindFact, "project.version:api", "2.3", "В проекте используется API 2.3."}}},
		{msg: "Node.js version 20.11 is installed", want: []want{{ScopeProject, KindFact, "project.version:node.js", "20.11", ""}}},
		{msg: "The server is at 10.0.0.5", want: nil},
		{msg: "Meeting on 15.03.2026", want: nil},
		// budget
		{msg: "The budget is 500k.", want: []want{{ScopeProject, KindConstraint, "project.budget", "500k", "The project budget is 500k."}}},
		{msg: "Our budget of $10,000 is fixed", want: []want{{ScopeProject, KindConstraint, "project.budget", "$10,000", ""}}},
		{msg: "Бюджет проекта — 500 000 руб.", want: []want{{ScopeProject, KindConstraint, "project.budget", "500 000 руб.", "Бюджет проекта — 500 000 руб."}}},
		{msg: "бюджет 1.5 млн рублей", want: []want{{ScopeProject, KindConstraint, "project.budget", "1.5 млн рублей", ""}}},
		{msg: "The budget is tight", want: nil},
		// deadline
		{msg: "The deadline is March 1, 2026.", want: []want{{ScopeProject, KindConstraint, "project.deadline", "2026-03-01", "The project deadline is 2026-03-01 (Sunday)."}}},
		{msg: "It is due by Friday and we are fine", want: []want{{ScopeProject, KindConstraint, "project.deadline", "2026-03-13", ""}}},
		{msg: "Дедлайн — 15 марта", want: []want{{ScopeProject, KindConstraint, "project.deadline", "2026-03-15", "Дедлайн проекта — 2026-03-15 (воскресенье)."}}},
		{msg: "Срок сдачи до 1 апреля", want: []want{{ScopeProject, KindConstraint, "project.deadline", "2026-04-01", ""}}},
		{msg: "The deadline is tight", want: nil},
		{msg: "We are due to rain", want: nil},
		// explicit memory
		{msg: "Remember that the staging server is at 10.0.0.5", want: []want{{ScopeProject, KindFact, "", "", "The staging server is at 10.0.0.5."}}},
		{msg: "Please remember I prefer dark mode", want: []want{{ScopeUser, KindPreference, "user.preference:theme", "dark mode", ""}}},
		{msg: "remember that I like long walks", want: []want{{ScopeUser, KindPreference, "", "", "In the user's words: I like long walks."}}},
		{msg: "Remember that my name is Anna", want: []want{{ScopeUser, KindFact, "user.name", "Anna", ""}}},
		{msg: "Запомни, что тестовый сервер на 10.0.0.5", want: []want{{ScopeProject, KindFact, "", "", "Тестовый сервер на 10.0.0.5."}}},
		{msg: "Запомни: мой кот Барсик", want: []want{{ScopeUser, KindFact, "", "", "Со слов пользователя: мой кот Барсик."}}},
		// preferences
		{msg: "I prefer tabs over spaces", want: []want{{ScopeUser, KindPreference, "user.preference:indentation", "tabs over spaces", "The user prefers tabs over spaces."}}},
		{msg: "Please answer in English", want: []want{{ScopeUser, KindPreference, "user.preference:language", "English", "The user prefers answers in English."}}},
		{msg: "Отвечай по-русски", want: []want{{ScopeUser, KindPreference, "user.preference:language", "русский", "Пользователь предпочитает ответы на русском языке."}}},
		{msg: "Я предпочитаю краткие ответы", want: []want{{ScopeUser, KindPreference, "user.preference:length", "краткие ответы", ""}}},
		{msg: "Please always use metric units", want: []want{{ScopeUser, KindPreference, "user.preference:units", "", ""}}},
		{msg: "Write a function that sorts numbers", want: nil},
		{msg: "Short answer: yes", want: nil},
		{msg: "From now on, reply in a table", want: []want{{ScopeUser, KindPreference, "user.preference:format", "", ""}}},
		{msg: "I'd rather use tabs", want: []want{{ScopeUser, KindPreference, "user.preference:indentation", "use tabs", "The user would rather use tabs."}}},
		// decisions and blockers
		{msg: "We decided to use Redis for the cache.", want: []want{{ScopeChat, KindDecision, "", "", "Decision: use Redis for the cache."}}},
		{msg: "Let's go with option B", want: []want{{ScopeChat, KindDecision, "", "", ""}}},
		{msg: "Мы решили использовать Redis", want: []want{{ScopeChat, KindDecision, "", "", "Решение: использовать Redis."}}},
		{msg: "We are blocked by the security review", want: []want{{ScopeChat, KindBlocker, "", "", "Blocked by the security review."}}},
		{msg: "We can't deploy until the certificate is renewed", want: []want{{ScopeChat, KindBlocker, "", "", "We can't deploy until the certificate is renewed."}}},
		{msg: "Блокер: нет доступа к базе", want: []want{{ScopeChat, KindBlocker, "", "", "Блокер: нет доступа к базе."}}},
		{msg: "Не можем выкатить, пока не починят CI", want: []want{{ScopeChat, KindBlocker, "", "", ""}}},
		// corrections
		{msg: "Actually, the budget is 600k", want: []want{{ScopeProject, KindCorrection, "project.budget", "600k", ""}}},
		{msg: "На самом деле бюджет 600 тыс. руб.", want: []want{{ScopeProject, KindCorrection, "project.budget", "600 тыс. руб.", ""}}},
		{msg: "Correction: the demo is on Tuesday", want: []want{{ScopeChat, KindCorrection, "", "", "The demo is on Tuesday. (said on Wed 2026-03-11)"}}},
		{msg: "Actually I'm tired", want: nil},
		// forget
		{msg: "Forget that my budget is 500k.", forget: []string{"my budget is 500k"}},
		{msg: "Забудь про бюджет", forget: []string{"бюджет"}},
		{msg: "Please forget about the old server. My name is Anna.", forget: []string{"the old server"},
			want: []want{{ScopeUser, KindFact, "user.name", "Anna", ""}}},
		// questions and passing remarks
		{msg: "What is my budget?", want: nil},
		{msg: "what is the budget of the project", want: nil},
		{msg: "Какой у нас бюджет?", want: nil},
		{msg: "Is the deadline March 1?", want: nil},
		{msg: "I'm tired today", want: nil},
		{msg: "it's raining", want: nil},
		{msg: "thanks!", want: nil},
		{msg: "ok", want: nil},
		{msg: "", want: nil},
		// issue 21: what the offline extractor stored before
		{msg: "Переведи итог в доллары по курсу 74.62", want: nil},
		{msg: "Белый 0.67", want: nil},
		{msg: "прайс 999.99", want: nil},
		{msg: "Дедлайн в пятницу", want: []want{{ScopeProject, KindConstraint, "project.deadline", "2026-03-13", "Дедлайн проекта — 2026-03-13 (пятница)."}}},
		{msg: "Я работаю над миграцией Postgres 14 на Postgres 16", want: []want{
			{ScopeProject, KindFact, "project.migration:postgresql", "14 → 16", "Проект переходит с Postgres 14 на Postgres 16."}}},
		{msg: "We migrated from Postgres 14 to 16 last week.", want: []want{
			{ScopeProject, KindFact, "project.version:postgresql", "16", "The project uses Postgres 16 (moved from Postgres 14)."}}},
		{msg: "The closest earlier message (user): «My name is Anna.»", want: nil},
		// several sentences; a later value replaces an earlier one
		{msg: "The budget is 500k. Deadline is next Friday! What about Go?", want: []want{
			{ScopeProject, KindConstraint, "project.budget", "500k", ""},
			{ScopeProject, KindConstraint, "project.deadline", "2026-03-20", ""}}},
		{msg: "Hi! I work on backend, mostly Go services.", want: []want{{ScopeUser, KindFact, "user.team", "backend", ""}}},
		{msg: "Quick update: I moved to frontend last week.", want: []want{{ScopeUser, KindFact, "user.team", "frontend", ""}}},
		{msg: "Our budget is 5000 EUR for the whole project.", want: []want{{ScopeProject, KindConstraint, "project.budget", "5000 EUR", ""}}},
		{msg: "The deadline is March 15 for the alpha release.", want: []want{{ScopeProject, KindConstraint, "project.deadline", "2026-03-15", ""}}},
		{msg: "It costs 1.5 million; the budget for 2025 is 3 million dollars", want: []want{{ScopeProject, KindConstraint, "project.budget", "3 million dollars", ""}}},
		{msg: "Бюджет 600 тыс. руб. Дедлайн 1 мая.", want: []want{
			{ScopeProject, KindConstraint, "project.budget", "600 тыс. руб.", ""},
			{ScopeProject, KindConstraint, "project.deadline", "2026-05-01", ""}}},
		{msg: "I work on backend. No wait, I moved to frontend.", want: []want{{ScopeUser, KindCorrection, "user.team", "frontend", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			got, forget := Offline(tt.msg, testAt)
			if fmt.Sprint(forget) != fmt.Sprint(tt.forget) || len(forget) != len(tt.forget) {
				t.Errorf("forget = %q, want %q", forget, tt.forget)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d candidates %+v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Scope != w.scope || g.Kind != w.kind || g.Slot != w.slot || w.value != "" && g.Value != w.value || w.text != "" && g.Text != w.text {
					t.Errorf("candidate %d = %+v, want %+v", i, g, w)
				}
				if g.Confidence <= 0 || g.Confidence > 1 || g.Text == "" {
					t.Errorf("candidate %d = %+v: bad confidence or empty text", i, g)
				}
			}
		})
	}
}

// TestOfflineUnknownTime: with no time said, a relative day resolves to
// nothing and a day without its year stays as said.
func TestOfflineUnknownTime(t *testing.T) {
	for msg, want := range map[string]string{
		"Дедлайн в пятницу":             "",
		"The deadline is tomorrow":      "",
		"The deadline is March 15":      "March 15",
		"The deadline is March 15 2027": "2027-03-15",
	} {
		got, _ := Offline(msg, time.Time{})
		if want == "" && len(got) != 0 || want != "" && (len(got) != 1 || got[0].Value != want) {
			t.Errorf("Offline(%q, zero time) = %+v, want value %q", msg, got, want)
		}
	}
}

func TestOfflineFactsConfidence(t *testing.T) {
	for msg, want := range map[string]float64{
		"My name is Anna":                    0.9,
		"Remember that the office is closed": 0.9,
		"Remember that the budget is 5k":     0.9,
		"The budget is 5k":                   0.8,
		"We decided to ship on Monday":       0.6,
	} {
		got, _ := Offline(msg, testAt)
		if len(got) != 1 || got[0].Confidence != want {
			t.Errorf("Offline(%q) = %+v, want one candidate of confidence %v", msg, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	valid := `{"facts":[{"scope":"user","kind":"fact","slot":"user.name","text":"The user's name is Anna.","value":"Anna","confidence":0.9}],"forget":["old budget"]}`
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf(`{"scope":"chat","kind":"decision","text":"Decision %d."}`, i)
	}
	tests := []struct {
		name   string
		text   string
		n      int
		forget int
		check  func(t *testing.T, c []Candidate)
		bad    bool
	}{
		{name: "valid", text: valid, n: 1, forget: 1, check: func(t *testing.T, c []Candidate) {
			want := Candidate{ScopeUser, KindFact, "user.name", "The user's name is Anna.", "Anna", 0.9}
			if c[0] != want {
				t.Errorf("got %+v, want %+v", c[0], want)
			}
		}},
		{name: "fenced", text: "```json\n" + valid + "\n```", n: 1, forget: 1},
		{name: "bare fence", text: "```\n" + valid + "\n```\n", n: 1, forget: 1},
		{name: "empty", text: `{"facts": [], "forget": []}`},
		{name: "nothing", text: `{}`},
		{name: "bad json", text: `{"facts": [`, bad: true},
		{name: "prose", text: `Here you are: ` + valid, bad: true},
		{name: "text after", text: valid + ` hope this helps`, bad: true},
		{name: "facts not array", text: `{"facts": {"scope":"user"}}`, bad: true},
		{name: "python fence", text: "```python\n" + valid + "\n```", bad: true},
		{name: "empty answer", text: "", bad: true},
		{name: "unknown kind and scope dropped", text: `{"facts":[{"scope":"user","kind":"mood","text":"Tired."},{"scope":"world","kind":"fact","text":"X."},{"scope":"Project","kind":"Constraint","slot":"Project.Budget","text":"Budget 5k.","value":"5k"}]}`,
			n: 1, check: func(t *testing.T, c []Candidate) {
				if c[0].Scope != ScopeProject || c[0].Kind != KindConstraint || c[0].Slot != "project.budget" {
					t.Errorf("got %+v", c[0])
				}
			}},
		{name: "empty text dropped", text: `{"facts":[{"scope":"user","kind":"fact","text":"  "},{"scope":"user","kind":"fact","text":"ok"}]}`, n: 1},
		{name: "bad item dropped", text: `{"facts":[{"scope":"user","kind":"fact","text":"A.","confidence":"high"},"junk",{"scope":"user","kind":"fact","text":"B."}]}`, n: 1},
		{name: "confidence clamped", text: `{"facts":[{"scope":"chat","kind":"fact","text":"A.","confidence":7},{"scope":"chat","kind":"fact","text":"B.","confidence":-1},{"scope":"chat","kind":"fact","text":"C."}]}`,
			n: 3, check: func(t *testing.T, c []Candidate) {
				if c[0].Confidence != 1 || c[1].Confidence != 0 || c[2].Confidence != 0.6 {
					t.Errorf("confidences %v %v %v", c[0].Confidence, c[1].Confidence, c[2].Confidence)
				}
			}},
		{name: "truncated to 10", text: `{"facts":[` + strings.Join(many, ",") + `]}`, n: 10, check: func(t *testing.T, c []Candidate) {
			if c[9].Text != "Decision 9." {
				t.Errorf("last = %q", c[9].Text)
			}
		}},
		{name: "forget filtered", text: `{"facts":[],"forget":["", "  the  old server ", 3]}`, forget: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f, err := Parse(tt.text)
			if tt.bad {
				if !errors.Is(err, ErrBadAnswer) {
					t.Fatalf("err = %v, want ErrBadAnswer", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c) != tt.n || len(f) != tt.forget {
				t.Fatalf("got %d facts %+v and forget %q, want %d and %d", len(c), c, f, tt.n, tt.forget)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestRequest(t *testing.T) {
	long := strings.Repeat("а", 3000) + "TAIL"
	req := Request("My name is Anna.", long)
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		t.Fatalf("messages = %+v", req.Messages)
	}
	if req.MaxTokens != 600 || req.Temperature == nil || *req.Temperature != 0 {
		t.Errorf("MaxTokens %d, Temperature %v", req.MaxTokens, req.Temperature)
	}
	sys, user := req.Messages[0].Content, req.Messages[1].Content
	for _, s := range []string{`{"facts": [], "forget": []}`, `"scope"`, `"confidence"`, "project.version:<name>", "user.preference:language", "correction", "question"} {
		if !strings.Contains(sys, s) {
			t.Errorf("system message lacks %q", s)
		}
	}
	if !strings.Contains(user, "My name is Anna.") || !strings.Contains(user, "TAIL") {
		t.Errorf("user message lacks the message or the context's end:\n%s", user)
	}
	if n := strings.Count(user, "а"); n != 2000-len("TAIL") {
		t.Errorf("context kept %d runes of filler, want %d", n, 2000-len("TAIL"))
	}
	if u := Request("hi", "").Messages[1].Content; strings.Contains(u, "EARLIER") {
		t.Errorf("empty context rendered: %s", u)
	}
}
