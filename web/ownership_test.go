package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/account"
	"yakor/app/apptest"
	"yakor/mnemos"
	"yakor/turn"
)

// TestPINScenario is boundary 2: Alice tells the assistant her bank PIN,
// asks for it, and gives the reply a thumbs-up; she also marks a wrong
// answer about her card down. Bob, a user of the same tenant with a key of
// his own, cannot list, open, recall, delete or read the fails of any of
// it; Alice can, and the tenant's admin sees all. Tenant-wide learning
// goes through shared entries only: the admin's note reaches Bob's prompt,
// and sharing Alice's PIN answer is refused as personal.
func TestPINScenario(t *testing.T) {
	// A model that answers from what its prompt holds (the offline
	// model's quotes are no one's answers and are never kept as lessons).
	s := newStack(t, stackOptions{model: recallingModel(t), keys: true, cfg: turn.Config{AnchorMode: turn.AnchorSync}})
	_, alice := mustKey(t, s, account.NewKey{Tenant: "acme", User: "alice", RatePerMinute: 60000})
	_, bob := mustKey(t, s, account.NewKey{Tenant: "acme", User: "bob", RatePerMinute: 60000})
	_, admin := mustKey(t, s, account.NewKey{Tenant: "acme", User: "ops", Role: account.RoleAdmin, RatePerMinute: 60000})
	time.Sleep(2100 * time.Millisecond) // the server checks for keys every 2 s

	call := func(key, method, path, body string, out any) int {
		t.Helper()
		return apptest.Call(t, s.URL, key, method, path, body, out).Status
	}
	type sent struct {
		Reply  struct{ ID int64 }
		TurnID string `json:"turn_id"`
	}
	send := func(key, thread, text string) sent {
		t.Helper()
		var r sent
		if code := call(key, "POST", "/api/v1/threads/"+thread+"/messages", jsonBody(map[string]string{"content": text}), &r); code != http.StatusOK {
			t.Fatalf("send %q: %d", text, code)
		}
		return r
	}
	thread := func(key string) string {
		t.Helper()
		var th struct{ ID string }
		if code := call(key, "POST", "/api/v1/threads", `{"title":"bank"}`, &th); code != http.StatusCreated {
			t.Fatalf("thread: %d", code)
		}
		return th.ID
	}
	experiences := func(key string, level int) []mnemos.Experience {
		t.Helper()
		var out struct{ Experiences []mnemos.Experience }
		if code := call(key, "GET", fmt.Sprintf("/api/v1/experiences?level=%d", level), "", &out); code != http.StatusOK {
			t.Fatalf("experiences: %d", code)
		}
		return out.Experiences
	}

	a := thread(alice)
	send(alice, a, "My bank PIN is 9931, remember it.")
	pin := send(alice, a, "What is my bank PIN?")
	if code := call(alice, "POST", fmt.Sprintf("/api/v1/messages/%d/feedback", pin.Reply.ID), `{"thumb":"up"}`, nil); code != http.StatusOK {
		t.Fatalf("thumb up: %d", code)
	}
	card := send(alice, a, "Which card ends in 4417, the debit or the credit one?")
	if code := call(alice, "POST", fmt.Sprintf("/api/v1/messages/%d/feedback", card.Reply.ID), `{"thumb":"down","comment":"It is the credit card 4417."}`, nil); code != http.StatusOK {
		t.Fatalf("thumb down: %d", code)
	}
	mine := experiences(alice, 1)
	if len(mine) != 1 || mine[0].Visibility != "private" || !strings.Contains(mine[0].Question, "PIN") {
		t.Fatalf("alice's L1: %+v", mine)
	}
	secret := mine[0].ID

	// Bob sees none of it.
	if got := experiences(bob, 1); len(got) != 0 {
		t.Errorf("bob lists alice's L1: %+v", got)
	}
	if got := experiences(bob, 3); len(got) != 0 {
		t.Errorf("bob lists alice's L3: %+v", got)
	}
	for _, path := range []string{fmt.Sprintf("/api/v1/experiences/%d", secret)} {
		if code := call(bob, "GET", path, "", nil); code != http.StatusNotFound {
			t.Errorf("bob GET %s: %d, want 404", path, code)
		}
		if code := call(bob, "DELETE", path, "", nil); code != http.StatusNotFound {
			t.Errorf("bob DELETE %s: %d, want 404", path, code)
		}
	}
	var fails struct{ Fails []mnemos.Fail }
	call(bob, "GET", "/api/v1/research/fails", "", &fails)
	var topics struct{ Topics []mnemos.Topic }
	call(bob, "GET", "/api/v1/research/topics", "", &topics)
	if len(fails.Fails) != 0 || len(topics.Topics) != 0 {
		t.Errorf("bob reads alice's fails %+v and topics %+v", fails.Fails, topics.Topics)
	}
	b := thread(bob)
	asked := send(bob, b, "What is my bank PIN?")
	var tr struct {
		Layers []struct {
			Name    string
			Text    string
			Entries []struct{ ID int64 }
		}
	}
	call(bob, "GET", "/api/v1/turns/"+asked.TurnID, "", &tr)
	for _, l := range tr.Layers {
		if strings.Contains(l.Text, "9931") || l.Name == "memory" && len(l.Entries) > 0 {
			t.Errorf("bob's prompt holds alice's memory in its %s layer: %+v", l.Name, l)
		}
	}

	// Alice still has hers; the admin sees everything of the tenant.
	if code := call(alice, "GET", fmt.Sprintf("/api/v1/experiences/%d", secret), "", nil); code != http.StatusOK {
		t.Errorf("alice's own entry: %d", code)
	}
	call(alice, "GET", "/api/v1/research/fails", "", &fails)
	if len(fails.Fails) != 1 || !strings.Contains(fails.Fails[0].Question, "4417") {
		t.Errorf("alice's fails: %+v", fails.Fails)
	}
	if got := experiences(admin, 1); len(got) != 1 || got[0].ID != secret {
		t.Errorf("the admin's view of L1: %+v", got)
	}

	// Sharing: alice's PIN answer is personal; an admin's note is shared.
	if code := call(admin, "POST", fmt.Sprintf("/api/v1/experiences/%d/share", secret), "", nil); code != http.StatusConflict {
		t.Errorf("sharing the PIN answer: %d, want 409", code)
	}
	if code := call(bob, "POST", fmt.Sprintf("/api/v1/experiences/%d/share", secret), "", nil); code != http.StatusForbidden {
		t.Errorf("bob sharing: %d, want 403", code)
	}
	var note struct{ Experience mnemos.Experience }
	if code := call(admin, "POST", "/api/v1/experiences", `{"level":2,"topic":"bank cards","title":"How to block a lost bank card","note":"Call the bank's hotline and block the card at once."}`, &note); code != http.StatusCreated || note.Experience.Visibility != "shared" {
		t.Fatalf("admin's note: %d %+v", code, note)
	}
	blocked := send(bob, b, "How do I block a lost bank card?")
	call(bob, "GET", "/api/v1/turns/"+blocked.TurnID, "", &tr)
	var recalled bool
	for _, l := range tr.Layers {
		for _, e := range l.Entries {
			recalled = recalled || l.Name == "memory" && e.ID == note.Experience.ID
		}
	}
	if !recalled {
		t.Errorf("the shared note did not reach bob's prompt: %+v", tr.Layers)
	}
}
