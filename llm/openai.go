package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

const (
	providerOpenAI = "openai"

	defaultTimeout    = 120 * time.Second
	defaultMinBackoff = 500 * time.Millisecond
	defaultMaxBackoff = 30 * time.Second
	defaultServer     = "https://api.openai.com/v1"

	// embedBatch is how many texts one embeddings request carries.
	embedBatch = 256
	// maxToolCalls bounds the tool calls kept from one reply.
	maxToolCalls = 16
)

// OpenAIConfig configures an [OpenAI] client. Zero values pick the defaults
// named on each field.
type OpenAIConfig struct {
	// BaseURL is the server's API root, e.g. https://api.openai.com/v1;
	// "" means OpenAI's.
	BaseURL string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// Model names the model for every call.
	Model string
	// Timeout bounds a call, all of its attempts and the waits between them
	// together; 0 means 120s. A stream must finish within it.
	Timeout time.Duration
	// MaxRetries is how many retries follow the first attempt on 429, 500,
	// 502, 503, 504, timeouts and connection errors; 0 means none.
	MaxRetries int
	// MinBackoff is the first wait between attempts, doubled for each retry
	// (with jitter); 0 means 500ms.
	MinBackoff time.Duration
	// MaxBackoff caps the wait, including one asked for by Retry-After;
	// 0 means 30s.
	MaxBackoff time.Duration
	// HTTPClient sends the requests; nil means a default one. It is copied,
	// not changed.
	HTTPClient *http.Client
	// Logger receives retry warnings; nil discards them.
	Logger *slog.Logger
}

// DefaultOpenAIConfig is a model server client's configuration unless told
// otherwise: the settings' defaults for its timeout and retries.
func DefaultOpenAIConfig() OpenAIConfig {
	return OpenAIConfig{Timeout: defaultTimeout, MaxRetries: 3, MinBackoff: defaultMinBackoff, MaxBackoff: defaultMaxBackoff}
}

// OpenAI is a client for one model on an OpenAI-compatible server. It is safe
// for concurrent use.
type OpenAI struct {
	client     *openai.Client
	model      string
	server     string
	timeout    time.Duration
	maxRetries int
	minBackoff time.Duration
	maxBackoff time.Duration
	logger     *slog.Logger
}

// NewOpenAI returns a client for cfg.Model on the server at cfg.BaseURL. It
// makes no request.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		copied := *cfg.HTTPClient
		hc = &copied
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &hintTransport{base: base}

	oc := openai.DefaultConfig(cfg.APIKey)
	server := defaultServer
	if cfg.BaseURL != "" {
		server = strings.TrimRight(cfg.BaseURL, "/")
		oc.BaseURL = server
	}
	oc.HTTPClient = hc

	c := &OpenAI{
		client:     openai.NewClientWithConfig(oc),
		model:      cfg.Model,
		server:     server,
		timeout:    orDefault(cfg.Timeout, defaultTimeout),
		maxRetries: max(cfg.MaxRetries, 0),
		minBackoff: orDefault(cfg.MinBackoff, defaultMinBackoff),
		maxBackoff: orDefault(cfg.MaxBackoff, defaultMaxBackoff),
		logger:     cfg.Logger,
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	c.minBackoff = min(c.minBackoff, c.maxBackoff)
	return c
}

// orDefault returns d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Provider returns "openai".
func (c *OpenAI) Provider() string { return providerOpenAI }

// Model returns the configured model.
func (c *OpenAI) Model() string { return c.model }

// Server returns the server's base URL.
func (c *OpenAI) Server() string { return c.server }

// Complete sends a non-streamed chat request and returns the whole reply.
// Failures are *Error; 429, 5xx, timeouts and connection errors are retried.
func (c *OpenAI) Complete(ctx context.Context, req Request) (Result, error) {
	res := Result{Provider: providerOpenAI, Model: c.model}
	creq := c.chatRequest(req)
	attempts, err := c.retry(ctx, "complete", func(ctx context.Context) error {
		resp, err := c.client.CreateChatCompletion(ctx, creq)
		if err != nil {
			return err
		}
		if len(resp.Choices) == 0 {
			return errors.New("response has no choices")
		}
		res.Text = resp.Choices[0].Message.Content
		res.FinishReason = string(resp.Choices[0].FinishReason)
		res.ToolCalls = fromToolCalls(resp.Choices[0].Message.ToolCalls)
		res.LogProbs = logProbs(resp.Choices[0].LogProbs)
		if resp.Model != "" {
			res.Model = resp.Model
		}
		res.PromptTokens = resp.Usage.PromptTokens
		res.CompletionTokens = resp.Usage.CompletionTokens
		return nil
	})
	res.Attempts = attempts
	if err != nil {
		return res, fmt.Errorf("complete: %w", err)
	}
	return res, nil
}

// Stream sends the request with stream=true and calls fn with each text delta
// in order. If fn returns an error, the stream is abandoned and that error
// returned, wrapped (not as *Error). Attempts are retried like Complete's only
// until the first delta has been passed to fn; a failure after that is an
// *Error whose message says "stream broken". The per-attempt timeout covers
// the whole stream.
func (c *OpenAI) Stream(ctx context.Context, req Request, fn func(delta string) error) (Result, error) {
	res := Result{Provider: providerOpenAI, Model: c.model}
	creq := c.chatRequest(req)
	creq.Stream = true
	creq.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	var text strings.Builder
	attempts, err := c.retry(ctx, "stream", func(ctx context.Context) error {
		res.ToolCalls = nil
		end := &streamEnd{}
		return c.streamOnce(context.WithValue(ctx, endKey{}, end), creq, req.MaxReplyChars, end, &res, &text, fn)
	})
	res.Attempts = attempts
	res.Text = text.String()
	var cbErr *callbackError
	if errors.As(err, &cbErr) {
		return res, fmt.Errorf("stream: delta callback: %w", cbErr.err)
	}
	if err != nil {
		return res, fmt.Errorf("stream: %w", err)
	}
	return res, nil
}

// streamOnce makes one streamed attempt. Once text has been emitted, any
// failure is marked as a brokenError so that it is not retried. A stream
// that ends with neither a finish reason nor [DONE] (end says whether it
// came) was cut: a failure, not a reply. A reply over maxChars (0: no
// limit) is cut there and the stream closed.
func (c *OpenAI) streamOnce(ctx context.Context, creq openai.ChatCompletionRequest, maxChars int, end *streamEnd,
	res *Result, text *strings.Builder, fn func(string) error) error {
	stream, err := c.client.CreateChatCompletionStream(ctx, creq)
	if err != nil {
		return err
	}
	defer stream.Close()
	broken := func(err error) error {
		if text.Len() > 0 || len(res.ToolCalls) > 0 {
			return &brokenError{err: err}
		}
		return err
	}
	chars := 0
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			if res.FinishReason == "" && !end.done.Load() {
				return broken(errCutStream)
			}
			return nil
		}
		if err != nil {
			return broken(err)
		}
		if chunk.Model != "" {
			res.Model = chunk.Model
		}
		if chunk.Usage != nil {
			res.PromptTokens = chunk.Usage.PromptTokens
			res.CompletionTokens = chunk.Usage.CompletionTokens
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		if r := chunk.Choices[0].FinishReason; r != "" && r != openai.FinishReasonNull {
			res.FinishReason = string(r)
		}
		for _, tc := range chunk.Choices[0].Delta.ToolCalls {
			res.ToolCalls = addToolDelta(res.ToolCalls, tc)
		}
		delta := chunk.Choices[0].Delta.Content
		cut := false
		if n := utf8.RuneCountInString(delta); maxChars > 0 && chars+n > maxChars {
			delta, cut = string([]rune(delta)[:maxChars-chars]), true
		}
		chars += utf8.RuneCountInString(delta)
		if err := emit(fn, delta); err != nil {
			return err
		}
		text.WriteString(delta)
		if cut {
			res.FinishReason, res.Truncated = "length", true
			return nil
		}
	}
}

// chatRequest converts a Request to go-openai's form. Reasoning models
// (o1, o3, o4, gpt-5 and later) take max_completion_tokens and only their
// default temperature, top_p and penalties, so theirs are left out.
func (c *OpenAI) chatRequest(req Request) openai.ChatCompletionRequest {
	creq := openai.ChatCompletionRequest{Model: c.model, Messages: chatMessages(req.Messages), Stop: req.Stop, Seed: req.Seed,
		Tools: chatTools(req.Tools), ParallelToolCalls: boolOrNil(req.ParallelToolCalls), ResponseFormat: responseFormat(req.ResponseFormat),
		LogProbs: req.LogProbs, TopLogProbs: req.TopLogProbs}
	if len(req.ToolChoice) > 0 {
		creq.ToolChoice = req.ToolChoice
	}
	if reasoningModel(c.model) {
		creq.MaxCompletionTokens = req.MaxTokens
		return creq
	}
	creq.MaxTokens = req.MaxTokens
	creq.Temperature = sent(req.Temperature)
	creq.TopP = sent(req.TopP)
	if req.PresencePenalty != nil {
		creq.PresencePenalty = *req.PresencePenalty // 0, omitted, is the default
	}
	if req.FrequencyPenalty != nil {
		creq.FrequencyPenalty = *req.FrequencyPenalty
	}
	return creq
}

// sent is the value go-openai sends for a setting: 0 when unset (omitted),
// and for a setting of 0, which go-openai would omit too, the smallest
// positive float32, which reaches the server and means the same.
func sent(v *float32) float32 {
	switch {
	case v == nil:
		return 0
	case *v == 0:
		return math.SmallestNonzeroFloat32
	}
	return *v
}

// reasoningModel reports whether go-openai validates model as a reasoning
// model.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// Embed returns one vector per text, in order. Texts are sent in batches,
// each retried like Complete. An empty texts slice makes no request.
func (c *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += embedBatch {
		batch := texts[start:min(start+embedBatch, len(texts))]
		vecs, err := c.embedBatch(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("embed %d texts: %w", len(texts), err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (c *OpenAI) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	ereq := openai.EmbeddingRequestStrings{
		Input:          texts,
		Model:          openai.EmbeddingModel(c.model),
		EncodingFormat: openai.EmbeddingEncodingFormatFloat,
	}
	var vecs [][]float32
	_, err := c.retry(ctx, "embed", func(ctx context.Context) error {
		resp, err := c.client.CreateEmbeddings(ctx, ereq)
		if err != nil {
			return err
		}
		if len(resp.Data) != len(texts) {
			return fmt.Errorf("server returned %d vectors for %d texts", len(resp.Data), len(texts))
		}
		data := resp.Data
		sort.SliceStable(data, func(i, j int) bool { return data[i].Index < data[j].Index })
		vecs = make([][]float32, len(data))
		for i, d := range data {
			vecs[i] = d.Embedding
		}
		return nil
	})
	return vecs, err
}

// addToolDelta folds one streamed piece of a tool call into calls: the
// first piece of a call carries its id and name, later ones more of its
// arguments, all under the call's index.
func addToolDelta(calls []ToolCall, tc openai.ToolCall) []ToolCall {
	i := len(calls)
	if tc.Index != nil {
		i = *tc.Index
	} else if tc.ID == "" && i > 0 {
		i-- // no index and no id: more of the last call
	}
	if i < 0 || i >= maxToolCalls {
		return calls // a server's nonsense index must not allocate without bound
	}
	for len(calls) <= i {
		calls = append(calls, ToolCall{})
	}
	if tc.ID != "" {
		calls[i].ID = tc.ID
	}
	if tc.Function.Name != "" {
		calls[i].Name = tc.Function.Name
	}
	calls[i].Arguments += tc.Function.Arguments
	return calls
}

func fromToolCalls(tcs []openai.ToolCall) []ToolCall {
	var out []ToolCall
	for _, tc := range tcs {
		out = append(out, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out
}
