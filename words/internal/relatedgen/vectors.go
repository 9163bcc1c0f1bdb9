package main

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
)

// writeVectors writes ws' unit vectors vs to out in the format
// words.Meaning reads: the header line "yakor-vectors 1 <words> <dims>",
// the words a line each (most frequent first), then each word's vector as
// dims signed bytes, scaled so that its largest component is ±127.
func writeVectors(out string, ws []string, vs [][]float32) error {
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	fmt.Fprintf(bw, "yakor-vectors 1 %d %d\n%s\n", len(ws), len(vs[0]), strings.Join(ws, "\n"))
	row := make([]int8, len(vs[0]))
	for _, v := range vs {
		var peak float64
		for _, x := range v {
			peak = max(peak, math.Abs(float64(x)))
		}
		for i, x := range v {
			row[i] = int8(math.Round(float64(x) / peak * 127))
		}
		if err := binary.Write(bw, binary.LittleEndian, row); err != nil {
			return fmt.Errorf("write vectors: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	fmt.Fprintf(os.Stderr, "relatedgen: %d vectors of %d dimensions; %s written\n", len(vs), len(vs[0]), out)
	return nil
}
