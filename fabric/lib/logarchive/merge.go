// Package logarchive handles log archives: files of gzipped JSON lines
// stored at <prefix>/<archive>/YYYY/MM/DD/HH/MM/<uuid>.gz. For now it
// merges local archive files into one.
package logarchive

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MergeStats says what a merge did.
type MergeStats struct {
	Files    int   `json:"files"`
	LinesIn  int64 `json:"lines_in"`
	LinesOut int64 `json:"lines_out"`
	Bytes    int64 `json:"bytes"`
}

// MergeOptions configures Merge.
type MergeOptions struct {
	// Sample keeps each line with this probability (0 < Sample <= 1); the
	// choice is seeded, so the same input gives the same sample.
	Sample float64
	// TSColumn, when set, sorts the merged lines by this field: numbers
	// numerically, other values as text (ISO 8601 times sort as text);
	// lines without it come last. Sorting holds the lines in memory.
	TSColumn string
}

// Merge reads every .gz file under folder (gzipped JSON lines), in path
// order, and writes the lines into one file, gzipped when it ends in .gz.
// The output is written atomically.
func Merge(folder, tofile string, o MergeOptions) (MergeStats, error) {
	var st MergeStats
	if o.Sample <= 0 || o.Sample > 1 {
		return st, fmt.Errorf("sample must be > 0 and <= 1.0, not %v", o.Sample)
	}
	info, err := os.Stat(folder)
	if err != nil {
		return st, err
	}
	if !info.IsDir() {
		return st, fmt.Errorf("%s is not a folder", folder)
	}
	var files []string
	err = filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".gz") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return st, err
	}
	if len(files) == 0 {
		return st, fmt.Errorf("no .gz files under %s", folder)
	}
	sort.Strings(files)
	st.Files = len(files)

	err = safefile.Write(tofile, func(w io.Writer) error {
		var gz *gzip.Writer
		if strings.HasSuffix(tofile, ".gz") {
			gz = gzip.NewWriter(w)
			w = gz
		}
		bw := bufio.NewWriterSize(w, 1<<20)
		rng := rand.New(rand.NewSource(1))
		var held [][]byte
		for _, f := range files {
			err := eachLine(f, func(line []byte) error {
				st.LinesIn++
				if o.Sample < 1 && rng.Float64() >= o.Sample {
					return nil
				}
				st.LinesOut++
				if o.TSColumn != "" {
					held = append(held, append([]byte(nil), line...))
					return nil
				}
				st.Bytes += int64(len(line)) + 1
				bw.Write(line)
				return bw.WriteByte('\n')
			})
			if err != nil {
				return err
			}
		}
		if o.TSColumn != "" {
			sortByField(held, o.TSColumn)
			for _, line := range held {
				st.Bytes += int64(len(line)) + 1
				bw.Write(line)
				bw.WriteByte('\n')
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if gz != nil {
			if err := gz.Close(); err != nil {
				return err
			}
		}
		return nil
	})
	return st, err
}

func eachLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s is not gzip: %v", path, err)
	}
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		if !json.Valid(line) {
			return fmt.Errorf("%s: line %d is not JSON", path, n)
		}
		if err := fn(line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// sortByField sorts JSON lines by one field, stably.
func sortByField(lines [][]byte, field string) {
	type keyed struct {
		num   float64
		text  string
		kind  int // 0 number, 1 text, 2 missing
		index int
	}
	keys := make([]keyed, len(lines))
	for i, l := range lines {
		var m map[string]any
		k := keyed{kind: 2, index: i}
		if json.Unmarshal(l, &m) == nil {
			switch v := m[field].(type) {
			case float64:
				k.kind, k.num = 0, v
			case nil:
			default:
				k.kind, k.text = 1, fmt.Sprint(v)
			}
		}
		keys[i] = k
	}
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ka, kb := keys[order[a]], keys[order[b]]
		if ka.kind != kb.kind {
			return ka.kind < kb.kind
		}
		if ka.kind == 0 {
			return ka.num < kb.num
		}
		return ka.text < kb.text
	})
	sorted := make([][]byte, len(lines))
	for i, o := range order {
		sorted[i] = lines[o]
	}
	copy(lines, sorted)
}
