// Command load puts the local fabric under load, end to end as users do:
// JOBS pipeline runs (client run-get-output, a process each) from CLIENTS
// concurrent clients, then ADDS concurrent dataset adds of small files. It
// checks that nothing was lost (every run printed its output, the fabric
// records every job as Completed, every dataset is listed), prints each
// phase's p50/p99 latency, and last the ratio of the jobs' p99 to the
// latency of one job run alone. A run waits in the scheduler's queue when
// no worker has capacity; one refused all the same is a failure.
//
//	load -client bin/client -jobs 1000 -clients 20 -adds 100
//
// It talks only to the local fabric of FABRIC_HOME (127.0.0.1), and every
// loop is bounded in count and in time.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const pipeline = `@dm:empty
  --> @dm:addrow host = 'web-1' & cpu = 93.5
  --> @dm:addrow host = 'web-2' & cpu = 12
  --> *dm:filter cpu > 50 get host, cpu
`

const wantOutput = "host,cpu\nweb-1,93.5\n"

func main() {
	client := flag.String("client", "bin/client", "the client binary")
	jobs := flag.Int("jobs", 1000, "pipeline runs in all")
	clients := flag.Int("clients", 20, "concurrent clients running them")
	adds := flag.Int("adds", 100, "concurrent dataset adds")
	single := flag.Int("single", 20, "runs of one job alone, for the baseline")
	limit := flag.Duration("timeout", 20*time.Minute, "bound on the whole run")
	flag.Parse()
	deadline := time.Now().Add(*limit)
	dir, err := os.MkdirTemp("", "fabric-load-")
	check(err)
	defer os.RemoveAll(dir)
	pl := filepath.Join(dir, "hosts.pipeline")
	check(os.WriteFile(pl, []byte(pipeline), 0o644))

	// The scheduler keeps a run that finds no worker with capacity in its
	// queue until one frees: a refusal (over capacity, a full queue, the
	// max wait passed) is a failure, never tried again here.
	var refusals atomic.Int64
	runJob := func() (time.Duration, error) {
		start := time.Now()
		out, err := command(*client, "run-get-output", "--file", pl, "--format", "csv", "--timeout", "120")
		d := time.Since(start)
		if err != nil && refused(err) {
			refusals.Add(1)
		}
		if err == nil && out != wantOutput {
			err = fmt.Errorf("unexpected output %q", out)
		}
		return d, err
	}

	// The baseline: one job at a time.
	var alone []time.Duration
	for i := 0; i < *single; i++ {
		d, err := runJob()
		check(err)
		alone = append(alone, d)
	}
	baseline := percentile(alone, 50)
	fmt.Printf("one job alone (run-get-output, %d runs): p50 %s\n", *single, ms(baseline))

	// The jobs, from concurrent clients.
	lat, fails := concurrently(*jobs, *clients, deadline, func(int) (time.Duration, error) { return runJob() })
	fmt.Printf("%d jobs from %d concurrent clients: %d failed, %d refused for capacity; p50 %s, p99 %s\n",
		*jobs, *clients, len(fails), refusals.Load(), ms(percentile(lat, 50)), ms(percentile(lat, 99)))
	for _, f := range first(fails, 5) {
		fmt.Printf("  failure: %v\n", f)
	}
	completed := completedJobs(*client)
	fmt.Printf("jobs the fabric records as Completed: %d (want %d)\n", completed, *jobs+*single)

	// The dataset adds, all at once.
	for i := 0; i < *adds; i++ {
		check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%03d.csv", i)), []byte(fmt.Sprintf("host,cpu\nweb-%d,%d\n", i, i)), 0o644))
	}
	addLat, addFails := concurrently(*adds, *adds, deadline, func(i int) (time.Duration, error) {
		start := time.Now()
		_, err := command(*client, "dataset", "add", "--name", fmt.Sprintf("load-%03d", i), "--file", filepath.Join(dir, fmt.Sprintf("d%03d.csv", i)))
		return time.Since(start), err
	})
	listed := listedDatasets(*client)
	fmt.Printf("%d concurrent dataset adds: %d failed, %d listed; p50 %s, p99 %s\n", *adds, len(addFails), listed, ms(percentile(addLat, 50)), ms(percentile(addLat, 99)))
	for _, f := range first(addFails, 5) {
		fmt.Printf("  failure: %v\n", f)
	}
	lost := len(fails) + len(addFails) + max(0, *jobs+*single-completed) + max(0, *adds-listed)
	fmt.Printf("lost: %d\n", lost)
	fmt.Printf("ratio p99 of %d concurrent jobs / one job alone: %.2f\n", *jobs, float64(percentile(lat, 99))/float64(baseline))
	if lost > 0 {
		os.Exit(1)
	}
}

// concurrently runs n calls of fn on workers goroutines and returns the
// latencies of those that succeeded and the errors of the others.
func concurrently(n, workers int, deadline time.Time, fn func(i int) (time.Duration, error)) ([]time.Duration, []error) {
	var mu sync.Mutex
	var lat []time.Duration
	var fails []error
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				d, err := fn(i)
				mu.Lock()
				if err != nil {
					fails = append(fails, err)
				} else {
					lat = append(lat, d)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		if time.Now().After(deadline) {
			mu.Lock()
			fails = append(fails, fmt.Errorf("not started: the run's time limit was reached"))
			mu.Unlock()
			continue
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return lat, fails
}

// refused reports whether a run failed because no worker had capacity
// for it (at once, or within its max wait) or the scheduler's queue was
// full.
func refused(err error) bool {
	for _, s := range []string{"no worker matches", "no worker had capacity", "queue is full"} {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return false
}

func command(bin string, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

func completedJobs(bin string) int {
	out, err := command(bin, "jobs", "--all", "--json")
	check(err)
	var js []struct{ Status string }
	check(json.Unmarshal([]byte(out), &js))
	n := 0
	for _, j := range js {
		if j.Status == "Completed" {
			n++
		}
	}
	return n
}

func listedDatasets(bin string) int {
	out, err := command(bin, "dataset", "list", "--json")
	check(err)
	var ds []struct{ Name string }
	check(json.Unmarshal([]byte(out), &ds))
	n := 0
	for _, d := range ds {
		if strings.HasPrefix(d.Name, "load-") {
			n++
		}
	}
	return n
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func first(errs []error, n int) []error { return errs[:min(n, len(errs))] }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}
