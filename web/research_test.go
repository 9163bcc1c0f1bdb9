package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"yakor/likbez"
	"yakor/mnemos"
)

// TestResearchLoop is the whole learning loop over HTTP: an answer graded 2
// makes a research topic; a research run (asked for through the API) reads
// the page SearXNG finds and stores the helper's study note; in a new
// thread, a question on the topic gets that note in its <memory-context>.
func TestResearchLoop(t *testing.T) {
	const note = "Exports of goods outside the VAT area are zero-rated: 0% VAT is charged, but the sale is still reported."
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>VAT on exports</title></head><body><nav>Home | Tax | Log in</nav><article>
<p>Exports of goods to customers outside the VAT area are zero-rated: the seller charges 0% VAT.</p>
<p>The sale must still be reported on the VAT return, with proof of export kept for six years.</p>
<p>Services supplied to foreign businesses are usually outside the scope of VAT altogether.</p></article></body></html>`)
	}))
	t.Cleanup(pages.Close)
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"results": []map[string]string{{"url": pages.URL + "/vat-exports", "title": "VAT on exports"}}})
	}))
	t.Cleanup(searx.Close)

	model := newMemoryModel(t)
	model.replies[vatExport] = []string{vatExportBad}
	model.grades[vatExport] = `{"score": 2, "reason": "Exports are zero-rated.", "research_topic": "when VAT does not apply"}`
	model.note = note
	s := newStack(t, stackOptions{model: model.model(), grader: model.helper(), searxng: searx.URL})

	var status struct {
		SourceConfigured bool `json:"source_configured"`
		Topics           map[string]int
		LastRun          *likbez.RunInfo `json:"last_run"`
	}
	s.do(t, "GET", "/api/v1/research/status", "", &status)
	if !status.SourceConfigured || status.LastRun != nil {
		t.Fatalf("status before any run: %+v", status)
	}

	s.send(t, s.mustThread(t), vatExport)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var topics struct{ Topics []mnemos.Topic }
		s.do(t, "GET", "/api/v1/research/topics?status=pending", "", &topics)
		if len(topics.Topics) == 1 && topics.Topics[0].Topic == "when VAT does not apply" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no research topic from the fail: %+v", topics)
		}
		time.Sleep(50 * time.Millisecond)
	}

	if code := s.do(t, "POST", "/api/v1/research/run", "", nil); code != http.StatusAccepted {
		t.Fatalf("run: %d", code)
	}
	for {
		s.do(t, "GET", "/api/v1/research/status", "", &status)
		if status.Topics["done"] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the research run did not finish the topic: %+v\n%s", status, s.jobs(t))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if status.LastRun == nil || status.LastRun.Trigger != "api" {
		t.Fatalf("last run %+v", status.LastRun)
	}
	var arts struct{ Articles []likbez.Article }
	s.do(t, "GET", "/api/v1/research/articles", "", &arts)
	if len(arts.Articles) != 1 || arts.Articles[0].URL != pages.URL+"/vat-exports" || arts.Articles[0].Title != "VAT on exports" ||
		!strings.HasPrefix(arts.Articles[0].Note, note) || !strings.Contains(arts.Articles[0].Note, "Source: "+pages.URL+"/vat-exports") {
		t.Fatalf("articles %+v", arts)
	}

	const q = "Is VAT charged when I export goods to Norway?"
	model.replies[q] = []string{"No: exports are zero-rated."}
	s.send(t, s.mustThread(t), q)
	req := model.lastChat(t, q)
	memory := req.Messages[len(req.Messages)-2].Content
	if !strings.Contains(memory, "<memory-context>") || !strings.Contains(memory, note) || !strings.Contains(memory, "Study note · when VAT does not apply") {
		t.Fatalf("the study note is not in the prompt:\n%s", req.text())
	}
}
