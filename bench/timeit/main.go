// Command timeit times commands fairly against each other: it runs them in
// turn (A, B, A, B, ...) so that drift on the machine touches both alike,
// and reports each one's median and quartiles of wall time.
//
//	timeit -runs 200 -name floor -- ./floor ';' -name client -- ./client pods --json
//
// Output: one line per command, then for each other command the ratio of
// its median to the first's, then "ratio NAME / FIRST: X", the median of
// the ratios of the pairs (each run of NAME against the run of FIRST just
// before it); the last line is the last command's.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

type target struct {
	name  string
	argv  []string
	times []time.Duration
}

func main() {
	runs := flag.Int("runs", 200, "runs of each command")
	warmup := flag.Int("warmup", 5, "untimed runs of each command first")
	// The flags come first; the targets start at the first -name.
	args := os.Args[1:]
	split := len(args)
	for i, a := range args {
		if a == "-name" {
			split = i
			break
		}
	}
	_ = flag.CommandLine.Parse(args[:split])
	targets, err := parseTargets(args[split:])
	if err != nil || len(targets) < 2 {
		fmt.Fprintln(os.Stderr, "usage: timeit [-runs N] -name A -- CMD... ';' -name B -- CMD...", err)
		os.Exit(2)
	}
	for i := 0; i < *warmup+*runs; i++ {
		for _, t := range targets {
			d, err := runOnce(t.argv)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", t.name, err)
				os.Exit(1)
			}
			if i >= *warmup {
				t.times = append(t.times, d)
			}
		}
	}
	for _, t := range targets {
		q1, med, q3 := quartiles(t.times)
		fmt.Printf("%-28s median %7.3f ms  (q1 %.3f, q3 %.3f, %d runs)\n", t.name, ms(med), ms(q1), ms(q3), len(t.times))
	}
	_, base, _ := quartiles(targets[0].times)
	for _, t := range targets[1:] {
		_, med, _ := quartiles(t.times)
		fmt.Printf("ratio of medians %s / %s: %.2f\n", t.name, targets[0].name, float64(med)/float64(base))
	}
	for _, t := range targets[1:] {
		fmt.Printf("ratio %s / %s: %.2f\n", t.name, targets[0].name, pairMedian(t.times, targets[0].times))
	}
}

// pairMedian is the median of the ratios a[i]/b[i]: each pair ran back
// to back, so drift on the machine touches both alike.
func pairMedian(a, b []time.Duration) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = float64(a[i]) / float64(b[i])
	}
	sort.Float64s(r)
	if n := len(r); n%2 == 0 {
		return (r[n/2-1] + r[n/2]) / 2
	}
	return r[len(r)/2]
}

func parseTargets(args []string) ([]*target, error) {
	var out []*target
	for len(args) > 0 {
		if len(args) < 3 || args[0] != "-name" || args[2] != "--" {
			return nil, fmt.Errorf("want -name NAME -- CMD..., got %v", args)
		}
		t := &target{name: args[1]}
		args = args[3:]
		for len(args) > 0 && args[0] != ";" {
			t.argv = append(t.argv, args[0])
			args = args[1:]
		}
		if len(args) > 0 {
			args = args[1:]
		}
		if len(t.argv) == 0 {
			return nil, fmt.Errorf("%s: no command", t.name)
		}
		out = append(out, t)
	}
	return out, nil
}

func runOnce(argv []string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, stderr.String())
	}
	return d, nil
}

func quartiles(ts []time.Duration) (q1, med, q3 time.Duration) {
	s := append([]time.Duration(nil), ts...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/4], s[len(s)/2], s[3*len(s)/4]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
