package bench

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// samples are measurements (ms, or characters) whose percentiles a
// benchmark reports.
type samples []float64

func (s *samples) add(v float64) { *s = append(*s, v) }

// pct is the p-th percentile (0 without samples).
func (s samples) pct(p int) float64 {
	slices.Sort(s)
	return pct(s, p)
}

// mid is the middle sample, the upper one of an even count.
func (s samples) mid() float64 {
	slices.Sort(s)
	return s[len(s)/2]
}

// max is the largest sample.
func (s samples) max() float64 { return slices.Max(s) }

// pct is the p-th percentile of sorted (0 when it is empty).
func pct(sorted []float64, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// parseCounts parses a comma-separated list of counts of at least least.
func parseCounts(s string, least int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < least {
			return nil, fmt.Errorf("%q is not a count", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("no count given")
	}
	return out, nil
}

// slowest keeps the slowest few samples with what each one was, for a
// benchmark to name its tail.
type slowest []slowSample

type slowSample struct {
	ms   float64
	what string
}

const slowestKept = 5

func (s *slowest) add(ms float64, what string) {
	*s = append(*s, slowSample{ms, what})
	slices.SortFunc(*s, func(a, b slowSample) int { return cmp.Compare(b.ms, a.ms) })
	if len(*s) > slowestKept {
		*s = (*s)[:slowestKept]
	}
}

func (s slowest) String() string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprintf("%.2f ms %s", x.ms, x.what)
	}
	return strings.Join(parts, "; ")
}
