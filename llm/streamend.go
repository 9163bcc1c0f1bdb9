package llm

import (
	"bytes"
	"errors"
	"io"
	"sync/atomic"
)

// errCutStream is why a stream that ended with neither a finish reason nor
// [DONE] failed: the connection was closed before the reply's end.
var errCutStream = errors.New("the stream ended before the reply did (no finish reason, no [DONE])")

// endKey is the context key of a streamed attempt's *streamEnd.
type endKey struct{}

// streamEnd records whether a stream's [DONE] line came by.
type streamEnd struct{ done atomic.Bool }

// doneLine is the line that ends an OpenAI stream.
var doneLine = []byte("data: [DONE]")

// endReader passes a stream's body on and watches it for [DONE].
type endReader struct {
	io.ReadCloser
	end  *streamEnd
	tail []byte // the last bytes read, for a line split across reads
}

func (r *endReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 && !r.end.done.Load() {
		window := append(r.tail, p[:n]...)
		if bytes.Contains(window, doneLine) {
			r.end.done.Store(true)
		}
		keep := min(len(window), len(doneLine)-1)
		r.tail = append(r.tail[:0], window[len(window)-keep:]...)
	}
	return n, err
}
