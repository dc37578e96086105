// Command load puts the local fabric under load, end to end as users do:
// pipeline runs (client run-get-output, a process each) and dataset adds
// of small files. It checks that nothing was lost (every run printed its
// output, the fabric records every job as Completed, every dataset is
// listed) and prints, phase by phase:
//
//   - one job alone: the baseline latency, and the CPU one job costs the
//     client process and the fabric together;
//   - saturation: JOBS runs from CLIENTS closed-loop clients (each starts
//     its next run when its last ends), more than the host's cores can
//     serve: the throughput, and the p99 against the floor any server
//     doing this work has (CLIENTS x CPU per job / cores);
//   - a steady load: JOBS runs arriving at a fixed rate, RATE of the
//     saturated throughput (0.5), each timed from when it was due to
//     start, not when a free slot let it (no coordinated omission);
//   - ADDS concurrent dataset adds.
//
// The last line is the ratio of the steady load's p99 to one job alone.
// A latency target holds below capacity: at saturation, latency is the
// clients' number over the throughput (Little's law), whatever the
// server does, and the saturation line says how close the fabric comes
// to that floor. A run waits in the scheduler's queue when no worker has
// capacity; one refused all the same is a failure.
//
//	load -client bin/client -jobs 1000 -clients 20 -rate 0.5 -adds 100
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
	"runtime"
	"sort"
	"strconv"
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
	jobs := flag.Int("jobs", 1000, "pipeline runs in each of the saturation and the steady phase")
	clients := flag.Int("clients", 20, "closed-loop clients of the saturation phase")
	rate := flag.Float64("rate", 0.5, "the steady phase's arrival rate, a fraction of the saturated throughput")
	adds := flag.Int("adds", 100, "concurrent dataset adds")
	single := flag.Int("single", 40, "runs of one job alone, for the baseline")
	fabricd := flag.Int("fabricd", 0, "the fabric's process id, to count its CPU (0: the client's alone)")
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
	var clientCPU atomic.Int64
	runJob := func() (time.Duration, error) {
		start := time.Now()
		out, cpu, err := command(*client, "run-get-output", "--file", pl, "--format", "csv", "--timeout", "120")
		d := time.Since(start)
		clientCPU.Add(int64(cpu))
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
	fabricBefore := processCPU(*fabricd)
	for i := 0; i < *single; i++ {
		d, err := runJob()
		check(err)
		alone = append(alone, d)
	}
	baseline := percentile(alone, 50)
	perJob := (time.Duration(clientCPU.Load()) + processCPU(*fabricd) - fabricBefore) / time.Duration(*single)
	fmt.Printf("one job alone (run-get-output, %d runs): p50 %s, CPU %s a job (client process and fabric)\n", *single, ms(baseline), ms(perJob))

	// Saturation: closed-loop clients, more than the cores can serve.
	began := time.Now()
	lat, fails := concurrently(*jobs, *clients, deadline, func(int) (time.Duration, error) { return runJob() })
	took := time.Since(began)
	throughput := float64(len(lat)) / took.Seconds()
	floor := time.Duration(float64(*clients) * float64(perJob) / float64(runtime.NumCPU()))
	fmt.Printf("saturation, %d jobs from %d closed-loop clients: %d failed, %d refused for capacity; %.0f jobs/s; p50 %s, p99 %s\n",
		*jobs, *clients, len(fails), refusals.Load(), throughput, ms(percentile(lat, 50)), ms(percentile(lat, 99)))
	fmt.Printf("  floor at saturation (%d clients x CPU a job / %d cores): %s; p50 %.2fx, p99 %.2fx of it\n",
		*clients, runtime.NumCPU(), ms(floor), float64(percentile(lat, 50))/float64(floor), float64(percentile(lat, 99))/float64(floor))
	for _, f := range first(fails, 5) {
		fmt.Printf("  failure: %v\n", f)
	}

	// A steady load below capacity, timed from when each run was due.
	every := time.Duration(float64(time.Second) / (throughput * *rate))
	steady, steadyFails := arriving(*jobs, every, 4**clients, deadline, func() (time.Duration, error) { _, err := runJob(); return 0, err })
	fmt.Printf("steady load, %d jobs arriving every %s (%.0f/s, %.0f%% of saturation): %d failed, %d refused in all; p50 %s, p99 %s\n",
		*jobs, ms(every), float64(time.Second)/float64(every), *rate*100, len(steadyFails), refusals.Load(), ms(percentile(steady, 50)), ms(percentile(steady, 99)))
	for _, f := range first(steadyFails, 5) {
		fmt.Printf("  failure: %v\n", f)
	}
	completed := completedJobs(*client)
	ran := *single + 2**jobs
	fmt.Printf("jobs the fabric records as Completed: %d (want %d)\n", completed, ran)

	// The dataset adds, all at once.
	for i := 0; i < *adds; i++ {
		check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%03d.csv", i)), []byte(fmt.Sprintf("host,cpu\nweb-%d,%d\n", i, i)), 0o644))
	}
	addLat, addFails := concurrently(*adds, *adds, deadline, func(i int) (time.Duration, error) {
		start := time.Now()
		_, _, err := command(*client, "dataset", "add", "--name", fmt.Sprintf("load-%03d", i), "--file", filepath.Join(dir, fmt.Sprintf("d%03d.csv", i)))
		return time.Since(start), err
	})
	listed := listedDatasets(*client)
	fmt.Printf("%d concurrent dataset adds: %d failed, %d listed; p50 %s, p99 %s\n", *adds, len(addFails), listed, ms(percentile(addLat, 50)), ms(percentile(addLat, 99)))
	for _, f := range first(addFails, 5) {
		fmt.Printf("  failure: %v\n", f)
	}
	lost := len(fails) + len(steadyFails) + len(addFails) + max(0, ran-completed) + max(0, *adds-listed)
	fmt.Printf("lost: %d, refused for capacity: %d\n", lost, refusals.Load())
	fmt.Printf("ratio p99 of the steady load / one job alone: %.2f\n", float64(percentile(steady, 99))/float64(baseline))
	if lost > 0 || refusals.Load() > 0 {
		os.Exit(1)
	}
}

// arriving starts n calls of fn, one due every interval, with at most
// limit running at once, and returns the latencies, each from when its
// call was due, of those that succeeded and the errors of the others.
func arriving(n int, every time.Duration, limit int, deadline time.Time, fn func() (time.Duration, error)) ([]time.Duration, []error) {
	var mu sync.Mutex
	var lat []time.Duration
	var fails []error
	slots := make(chan struct{}, limit)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := 0; i < n; i++ {
		due := t0.Add(time.Duration(i) * every)
		time.Sleep(time.Until(due))
		if time.Now().After(deadline) {
			fails = append(fails, fmt.Errorf("not started: the run's time limit was reached"))
			continue
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			_, err := fn()
			d := time.Since(due)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				fails = append(fails, err)
				return
			}
			lat = append(lat, d)
		}()
	}
	wg.Wait()
	return lat, fails
}

// processCPU is the CPU time process pid has used (user and system), 0
// for pid 0 or one it cannot read.
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's closing parenthesis: utime and
	// stime are the 12th and 13th, in clock ticks (100 a second).
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
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

// command runs bin with args and returns its output and the CPU time
// (user and system) it used.
func command(bin string, args ...string) (string, time.Duration, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		return out.String(), cpu, fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), cpu, nil
}

func completedJobs(bin string) int {
	out, _, err := command(bin, "jobs", "--all", "--json")
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
	out, _, err := command(bin, "dataset", "list", "--json")
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
