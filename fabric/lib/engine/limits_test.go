package engine

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
)

// TestHostileJobLimits: the loops and bots whose output can outgrow
// their input stop at the job's limits while they run, in little time
// and memory, with the limit named; before, a count-loop of addrow grew
// the worker to 5.7 GB and stayed Running.
func TestHostileJobLimits(t *testing.T) {
	long := strings.Repeat("x,", 20000)
	for _, tc := range []struct {
		name, pipeline string
		limits         Limits
		want           string
	}{
		{"count-loop memory", `@dm:empty --> @c:count-loop end = 99999999999999 --> @dm:addrow x = 1`,
			Limits{MaxMemoryMB: 64}, "more than its memory limit of 64 MB"},
		{"count-loop rows", `@dm:empty --> @c:count-loop end = 99999999999999 --> @dm:addrow x = 1`,
			Limits{MaxRows: 50000, MaxMemoryMB: 2048}, "more than the job's limit of 50000 rows"},
		{"nested loops", `@dm:empty --> @c:count-loop end = 100000 --> @c:count-loop end = 100000 & var = 'j' --> @dm:addrow x = $j`,
			Limits{MaxMemoryMB: 64}, "more than its memory limit of 64 MB"},
		{"simple-loop", `@dm:empty --> @c:simple-loop loop_var = '` + long + `' --> @dm:addrow x = '$loop_var'`,
			Limits{MaxMemoryMB: 16}, "more than its memory limit of 16 MB"},
		{"explode", `@dm:empty --> @dm:addrow s = '` + long + `' & a = 1 & b = 2 --> @dm:save name = 'temp-s' --> @c:count-loop end = 50 --> @dm:recall name = 'temp-s' --> @dm:explode column = 's' & sep = ','`,
			Limits{MaxMemoryMB: 4}, "more than its memory limit of 4 MB"},
		{"explode rows", `@dm:empty --> @dm:addrow s = '` + long + `' --> @dm:explode column = 's' & sep = ','`,
			Limits{MaxRows: 10000, MaxMemoryMB: 2048}, "more than the job's limit of 10000 rows"},
		{"concat", `@dm:empty --> @dm:addrow s = 'x' --> @dm:save name = 'temp-s' --> @dm:concat names = '` +
			strings.TrimSuffix(strings.Repeat("temp-s,", 5000), ",") + `'`,
			Limits{MaxRows: 1000, MaxMemoryMB: 2048}, "more than the job's limit of 1000 rows"},
		{"eval", `@dm:empty --> @c:count-loop end = 3 --> @dm:addrow x = 1 --> @dm:eval big = "'x' * 50000000"`,
			Limits{MaxMemoryMB: 120}, "more than its memory limit of 120 MB"},
		{"temps", `@dm:empty --> @c:count-loop end = 99999999 --> @dm:addrow x = 1 --> @dm:save name = 'temp-a' & append = 'yes'`,
			Limits{MaxMemoryMB: 8}, "more than its memory limit of 8 MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GC()
			start := time.Now()
			e := &Engine{Limits: tc.limits}
			steps, err := ParseText(tc.pipeline)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var peak uint64
			done, sampled := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(sampled)
				var m runtime.MemStats
				for {
					select {
					case <-done:
						return
					case <-time.After(20 * time.Millisecond):
						runtime.ReadMemStats(&m)
						peak = max(peak, m.HeapInuse)
					}
				}
			}()
			_, err = e.Run(ctx, steps)
			close(done)
			<-sampled
			if err == nil || !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want the limit %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("not one line: %q", err)
			}
			// What it held, a few times the limit at most (the
			// collector's slack), never gigabytes.
			if lim := tc.limits.MaxMemoryMB; lim < 1000 && float64(peak) > 4*lim*(1<<20)+64<<20 {
				t.Errorf("heap in use reached %.0f MB under a limit of %g MB", float64(peak)/(1<<20), lim)
			}
			t.Logf("%s after %s, heap in use peaked at %.0f MB", err, time.Since(start).Round(time.Millisecond), float64(peak)/(1<<20))
		})
	}
}

// TestHostileJobsShareWorkerMemory: jobs that each keep within their own
// limit but together would pass what their worker may hold fail at the
// worker's limit, and give back what they took.
func TestHostileJobsShareWorkerMemory(t *testing.T) {
	pool := budget.NewPool("the worker's jobs", 64<<20)
	steps, err := ParseText(`@dm:empty --> @c:count-loop end = 99999999999999 --> @dm:addrow x = 1`)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			e := &Engine{Limits: Limits{MaxMemoryMB: 2048}, Pool: pool}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			_, err := e.Run(ctx, steps)
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err == nil || !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "would pass their limit of 64 MB") {
			t.Errorf("got %v, want the worker's limit", err)
		}
	}
	if pool.Held() != 0 {
		t.Errorf("the jobs left %d bytes taken", pool.Held())
	}
	// Temp- datasets give back what they held when their run ends.
	e := &Engine{Pool: pool}
	if _, err := e.Run(context.Background(), mustParse(t, `@dm:empty --> @dm:addrow x = 1 --> @dm:save name = 'temp-a'`)); err != nil || pool.Held() != 0 {
		t.Fatalf("%v, %d bytes left taken", err, pool.Held())
	}
}

func mustParse(t *testing.T, text string) []Step {
	t.Helper()
	steps, err := ParseText(text)
	if err != nil {
		t.Fatal(err)
	}
	return steps
}
