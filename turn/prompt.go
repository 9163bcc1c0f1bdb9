package turn

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/history"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/postgres"
	"yakor/words"
)

//go:embed system_prompt.txt
var defaultSystemPrompt string

// Layer names, in prompt order: what changes least goes first so a model
// server's prefix cache stays warm.
const (
	LayerSystem  = "system"
	LayerFacts   = "facts" // chat, user and project facts
	LayerAnchors = "anchors"
	LayerWindow  = "window"
	LayerMemory  = "memory" // long-term memory recalled for the message
	LayerMessage = "message"
	LayerFound   = "found" // the hits of the model's searches, in later passes
)

// Layer is one part of a prompt.
type Layer struct {
	Name       string  `json:"name"`
	Chars      int     `json:"chars"`          // Unicode characters
	Budget     int     `json:"budget"`         // the layer's character budget, 0 if it has none
	Items      int     `json:"items"`          // messages (or entries) it holds
	MessageIDs []int64 `json:"message_ids"`    // the thread's messages it holds
	Text       string  `json:"text,omitempty"` // the layer as the model sees it
	// Entries are the long-term memory entries of the memory layer.
	Entries []mnemos.Recalled `json:"entries,omitempty"`
}

// Prompt is an assembled prompt: its layers and the messages sent to the model.
type Prompt struct {
	Layers   []Layer
	Messages []llm.Message
}

// TotalChars is the sum of the layers' characters.
func (p Prompt) TotalChars() int {
	n := 0
	for _, l := range p.Layers {
		n += l.Chars
	}
	return n
}

// anchorLayer is the anchors block and how many anchors it shows.
type anchorLayer struct {
	text  string
	items int
}

// parts are what a prompt is assembled from.
type parts struct {
	system       string
	facts        string  // the facts block
	factIDs      []int64 // the facts in it
	factBudget   int
	anchors      anchorLayer
	anchorBudget int
	window       []history.Message
	windowBudget int
	memory       mnemos.Recall
	memoryBudget int
	tail         []llm.Message // the turn's own messages; none for a preview of the next turn
}

// readParts reads what every prompt of scope's thread is assembled from
// besides the memory and the message, in one round trip: the window (of
// the messages before beforeID, 0: all), the anchors block and the facts;
// with the system prompt and the layers' budgets. lang gives the prompt's
// language from the window; readParts returns it with the parts.
func (e *Engine) readParts(ctx context.Context, scope yakor.Scope, thread history.Thread, beforeID int64, lang func([]history.Message) string, noMarker bool) (parts, string, error) {
	b := &pgx.Batch{}
	w := e.history.QueueWindow(b, scope, e.cfg.WindowChars, beforeID)
	var readAnchors func(pgx.BatchResults) (func(string) (string, int), error)
	if e.anchors != nil && e.cfg.AnchorMode != AnchorOff {
		readAnchors = e.anchors.QueueBlock(b, scope)
	}
	var readFacts func(pgx.BatchResults) (func(string) (string, []int64), error)
	if e.factLayer != nil {
		readFacts = e.factLayer.QueueBlock(b, scope)
	}
	var (
		anchorsIn func(string) (string, int)
		factsIn   func(string) (string, []int64)
	)
	if b.Len() > 0 {
		br := e.pool.SendBatch(ctx, b)
		err := w.Read(br)
		if err == nil && readAnchors != nil {
			if anchorsIn, err = readAnchors(br); err != nil {
				err = fmt.Errorf("anchors block: %w", err)
			}
		}
		if err == nil && readFacts != nil {
			if factsIn, err = readFacts(br); err != nil {
				err = fmt.Errorf("facts block: %w", err)
			}
		}
		if cerr := br.Close(); err == nil && cerr != nil {
			err = postgres.Wrap("read the prompt's parts", cerr)
		}
		if err != nil {
			return parts{}, "", err
		}
	}
	window, err := w.Messages(ctx)
	if err != nil {
		return parts{}, "", err
	}
	lg := lang(window)
	pt := parts{system: e.system(thread, lg, noMarker), window: window, windowBudget: e.cfg.WindowChars,
		factBudget: e.cfg.FactBudget, anchorBudget: e.cfg.AnchorBudget, memoryBudget: e.memoryBudget}
	if anchorsIn != nil {
		pt.anchors.text, pt.anchors.items = anchorsIn(lg)
	}
	if factsIn != nil {
		pt.facts, pt.factIDs = factsIn(lg)
	}
	return pt, lg, nil
}

// buildPrompt reads the window, the anchors and the facts (one round trip)
// and recalls the memory for the stored message, and assembles the turn's
// prompt, recording its layers in the trace. With AnchorSync the message
// is anchored first, so that its own topic is in the prompt.
func (t *turnRun) buildPrompt(ctx context.Context) error {
	e, scope, msg := t.e, t.scope, t.userMsg
	t.first = msg.ID
	if t.calling.ID != 0 {
		t.first = t.calling.ID // the reply that called the tools opens the turn's exchange
	}
	if e.anchors != nil && e.cfg.AnchorMode == AnchorSync {
		start := time.Now()
		if _, err := e.anchors.Apply(ctx, scope, msg.ID); err != nil {
			return fmt.Errorf("anchor the message: %w", err)
		}
		t.tr.Timings["anchors"] = ms(time.Since(start))
	}
	start := time.Now()
	var question string
	pt, lang, err := e.readParts(ctx, scope, t.thread, t.first, func(window []history.Message) string {
		question = t.question(window)
		return words.Lang(question)
	}, t.in.Sampling.JSON())
	if err != nil {
		return err
	}
	t.tr.Timings["reads"] = ms(time.Since(start))
	t.window, t.lang = pt.window, lang
	pt.tail = t.tail()
	pt.memory = t.recall(ctx, question)
	t.memory, t.factIDs = pt.memory.Text, pt.factIDs
	t.parts, t.prompt = pt, assemble(pt)
	t.tr.Layers, t.tr.PromptChars = t.prompt.Layers, t.prompt.TotalChars()
	t.fit(0)
	t.tr.Timings["assemble"] = ms(time.Since(t.start))
	return nil
}

// question is what the turn answers: the user's message, or, when the
// turn goes on from tool results, the last user message before them.
func (t *turnRun) question(window []history.Message) string {
	if t.calling.ID == 0 {
		return t.userMsg.Content
	}
	for i := len(window) - 1; i >= 0; i-- {
		if window[i].Role == history.RoleUser && window[i].Kind == history.KindMessage {
			return window[i].Content
		}
	}
	return t.userMsg.Content
}

// tail is the turn's own messages as the model gets them: the user's
// message (with its name and images) and the caller's prefill, or the
// reply that called the tools with their results.
func (t *turnRun) tail() []llm.Message {
	if t.calling.ID != 0 {
		return llmMessages(append([]history.Message{t.calling}, t.results...))
	}
	out := []llm.Message{{Role: "user", Content: t.userMsg.Content, Name: t.in.Author, Images: t.in.Images}}
	if t.in.Prefill != "" {
		out = append(out, llm.Message{Role: "assistant", Content: t.in.Prefill})
	}
	return out
}

// assemble builds the prompt from the system prompt, the facts, the
// anchors block, the window, the recalled long-term memory and the user's
// message. Facts and anchors join the system message: they change less
// often than the window, so the model server's prefix cache keeps the head.
// The memory, retrieved for this one message, goes last, as a system
// message right before it.
func assemble(pt parts) Prompt {
	var p Prompt
	system, anchors, memory := pt.system, pt.anchors, pt.memory
	p.Layers = append(p.Layers, Layer{Name: LayerSystem, Chars: utf8.RuneCountInString(system), Items: 1, Text: system})
	head := system
	if pt.facts != "" {
		head += "\n\n" + pt.facts
	}
	p.Layers = append(p.Layers, Layer{Name: LayerFacts, Chars: utf8.RuneCountInString(pt.facts), Budget: pt.factBudget, Items: len(pt.factIDs), Entries: factEntries(pt.factIDs), Text: pt.facts})
	if anchors.text != "" {
		head += "\n\n" + anchors.text
	}
	p.Layers = append(p.Layers, Layer{Name: LayerAnchors, Chars: utf8.RuneCountInString(anchors.text), Budget: pt.anchorBudget, Items: anchors.items, Text: anchors.text})
	p.Messages = append(p.Messages, llm.Message{Role: "system", Content: head})

	window, windowBudget, memoryBudget := pt.window, pt.windowBudget, pt.memoryBudget
	w := Layer{Name: LayerWindow, Budget: windowBudget, Items: len(window), MessageIDs: make([]int64, 0, len(window))}
	var text strings.Builder
	p.Messages = append(p.Messages, llmMessages(window)...)
	for _, m := range window {
		w.Chars += m.Chars
		w.MessageIDs = append(w.MessageIDs, m.ID)
		text.WriteString(m.Role)
		text.WriteString(": ")
		text.WriteString(m.Content)
		text.WriteString("\n")
	}
	w.Text = text.String()
	p.Layers = append(p.Layers, w)

	mem := Layer{Name: LayerMemory, Chars: utf8.RuneCountInString(memory.Text), Budget: memoryBudget, Items: len(memory.Entries), Entries: memory.Entries, Text: memory.Text}
	if memory.Text != "" {
		p.Messages = append(p.Messages, llm.Message{Role: "system", Content: memory.Text})
	}
	p.Layers = append(p.Layers, mem)

	msg := Layer{Name: LayerMessage, Items: len(pt.tail)}
	var tail []string
	for _, m := range pt.tail {
		tail = append(tail, m.Content)
	}
	msg.Text = strings.Join(tail, "\n")
	msg.Chars = utf8.RuneCountInString(msg.Text)
	p.Messages = append(p.Messages, pt.tail...)
	p.Layers = append(p.Layers, msg)
	return p
}

// factEntries names the facts of the facts layer in its entries.
func factEntries(ids []int64) []mnemos.Recalled {
	if len(ids) == 0 {
		return nil
	}
	out := make([]mnemos.Recalled, len(ids))
	for i, id := range ids {
		out[i] = mnemos.Recalled{ID: id}
	}
	return out
}

// systemPrompt joins the service's system prompt and the thread's own.
func systemPrompt(base, thread string) string {
	if base == "" {
		base = strings.TrimSpace(defaultSystemPrompt)
	}
	if thread = strings.TrimSpace(thread); thread != "" {
		return base + "\n\n" + thread
	}
	return base
}
