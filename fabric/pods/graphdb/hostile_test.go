package graphdb_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
)

// arangoAnswer is an answer of the graph database, error or not.
type arangoAnswer struct {
	Status       int
	Error        bool   `json:"error"`
	Code         int    `json:"code"`
	ErrorNum     int    `json:"errorNum"`
	ErrorMessage string `json:"errorMessage"`
	Result       []any  `json:"result"`
}

// query posts a cursor request to a tenant's graph database, as any
// client of ArangoDB's HTTP API would.
func query(ctx context.Context, g bus.GraphDBConfig, body map[string]any) (arangoAnswer, error) {
	data, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/_api/cursor", bytes.NewReader(data))
	if err != nil {
		return arangoAnswer{}, err
	}
	req.SetBasicAuth(g.User, g.Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return arangoAnswer{}, err
	}
	defer resp.Body.Close()
	var a arangoAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return arangoAnswer{}, err
	}
	a.Status = resp.StatusCode
	return a, nil
}

// residentBytes is the process's resident memory (VmRSS).
func residentBytes(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status here")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// watch measures, while an attack runs, the process's peak resident
// memory and how long the other tenant waits for a small query.
type watch struct {
	mu       sync.Mutex
	peakRSS  int64
	slowest  time.Duration
	served   int
	failures []string
	stop     chan struct{}
	done     sync.WaitGroup
	victim   bus.GraphDBConfig
	t        *testing.T
}

func startWatch(t *testing.T, victim bus.GraphDBConfig) *watch {
	w := &watch{stop: make(chan struct{}), victim: victim, t: t}
	w.done.Add(2)
	go func() { // resident memory, every 20 ms
		defer w.done.Done()
		for {
			rss := residentBytes(t)
			w.mu.Lock()
			w.peakRSS = max(w.peakRSS, rss)
			w.mu.Unlock()
			select {
			case <-w.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	go func() { // the other tenant's queries, one after another
		defer w.done.Done()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			start := time.Now()
			a, err := query(ctx, victim, map[string]any{"query": "FOR x IN 1..100 FILTER x % 7 == 0 RETURN x"})
			took := time.Since(start)
			cancel()
			w.mu.Lock()
			w.slowest = max(w.slowest, took)
			w.served++
			if err != nil || a.Error || len(a.Result) != 14 {
				w.failures = append(w.failures, fmt.Sprintf("%v %+v", err, a))
			}
			w.mu.Unlock()
			select {
			case <-w.stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return w
}

// end stops the watch and checks the fences held: the process under
// 1 GB resident, the other tenant answered, each time within a second.
func (w *watch) end(attack string) {
	close(w.stop)
	w.done.Wait()
	t := w.t
	t.Logf("%s: peak resident %d MB, the other tenant's slowest answer %v (%d answers)", attack, w.peakRSS>>20, w.slowest.Round(time.Millisecond), w.served)
	if w.peakRSS > 1<<30 && !raceDetector {
		t.Errorf("%s: the process reached %d MB resident, over 1 GB", attack, w.peakRSS>>20)
	}
	if w.slowest > time.Second {
		t.Errorf("%s: the other tenant waited %v for an answer", attack, w.slowest)
	}
	if len(w.failures) > 0 || w.served == 0 {
		t.Errorf("%s: the other tenant was not served: %d answers, failures %v", attack, w.served, w.failures)
	}
}

// TestHostileQueries: tenant b attacks its graph database with AQL (a
// query nested 200,000 deep, a cross product of 100 million rows, 40
// joins at once); the process stays under 1 GB resident, tenant a's
// queries are answered within a second throughout, and b gets ArangoDB's
// errors naming the limit it hit.
func TestHostileQueries(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.GraphDB}})
	victim, attacker := f.Configs["a"].GraphDB, f.Configs["b"].GraphDB
	ctx := context.Background()
	expect := func(attack string, a arangoAnswer, status, num int, says string) {
		t.Helper()
		if !a.Error || a.Status != status || a.Code != status || a.ErrorNum != num || !strings.Contains(a.ErrorMessage, says) || strings.Contains(a.ErrorMessage, "\n") {
			t.Errorf("%s: want HTTP %d errorNum %d saying %q in one line, got %+v", attack, status, num, says, a)
		}
	}

	t.Run("nesting", func(t *testing.T) {
		w := startWatch(t, victim)
		deep := "RETURN " + strings.Repeat("(", 200_000) + "1" + strings.Repeat(")", 200_000)
		a, err := query(ctx, attacker, map[string]any{"query": deep})
		if err != nil {
			t.Fatal(err)
		}
		expect("600 KB of parentheses", a, 400, 1524, "over its limit of 256 KB")
		deep = "RETURN " + strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000)
		a, err = query(ctx, attacker, map[string]any{"query": deep})
		if err != nil {
			t.Fatal(err)
		}
		expect("100,000 parentheses", a, 400, 1524, "nested more than 500 deep")
		// A bind value nested deeper than the JSON reader goes is refused in
		// ArangoDB's words, not Go's ("exceeded max depth").
		var v any = 1
		for range 20_000 {
			v = []any{v}
		}
		a, err = query(ctx, attacker, map[string]any{"query": "RETURN @v", "bindVars": map[string]any{"v": v}})
		if err != nil {
			t.Fatal(err)
		}
		expect("a bind value 20,000 deep", a, 400, 600, "VPackError error: Nesting too deep")
		w.end("nesting")
	})

	t.Run("cross product", func(t *testing.T) {
		w := startWatch(t, victim)
		start := time.Now()
		a, err := query(ctx, attacker, map[string]any{"query": "FOR a IN 1..10000 FOR b IN 1..10000 RETURN [a,b]"})
		if err != nil {
			t.Fatal(err)
		}
		// The loop runs row by row: its rows come and go, its result
		// grows to the result size limit.
		expect("cross product", a, 500, 32, "result size limit of 64 MB")
		t.Logf("cross product refused after %v: %s", time.Since(start).Round(time.Millisecond), a.ErrorMessage)
		a, err = query(ctx, attacker, map[string]any{"query": "FOR a IN 1..10000 FOR b IN 1..10000 RETURN [a,b]", "memoryLimit": 10 << 20})
		if err != nil {
			t.Fatal(err)
		}
		expect("cross product with memoryLimit", a, 500, 32, "memory limit of 10 MB")
		a, err = query(ctx, attacker, map[string]any{"query": "FOR a IN 1..10000 FOR b IN 1..10000 RETURN [a,b]", "memoryLimit": 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		expect("cross product asking for 1 GB", a, 500, 32, "result size limit of 64 MB")
		a, err = query(ctx, attacker, map[string]any{"query": "FOR a IN 1..100000 RETURN SUM((FOR b IN 1..10000 RETURN b))",
			"options": map[string]any{"maxRuntime": 0.3}})
		if err != nil {
			t.Fatal(err)
		}
		expect("a long query with maxRuntime", a, 410, 1500, "run time limit of 300ms")
		w.end("cross product")
	})

	t.Run("40 joins at once", func(t *testing.T) {
		w := startWatch(t, victim)
		var wg sync.WaitGroup
		answers := make([]arangoAnswer, 40)
		errs := make([]error, 40)
		for i := range answers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i], errs[i] = query(ctx, attacker, map[string]any{"query": "FOR a IN 1..3000 FOR b IN 1..3000 RETURN [a,b]"})
			}()
		}
		wg.Wait()
		busy, limited := 0, 0
		for i, a := range answers {
			switch {
			case errs[i] != nil:
				t.Errorf("join %d: %v", i, errs[i])
			case a.ErrorNum == 21003:
				busy++
				expect("a join over the queue", a, 503, 21003, "queries running")
			default:
				limited++
				expect("a join", a, 500, 32, "result size limit")
			}
		}
		t.Logf("40 joins: %d stopped at the result size limit, %d refused (queue full): %s", limited, busy, answers[0].ErrorMessage)
		if busy == 0 {
			t.Errorf("40 joins at once were all let in")
		}
		w.end("40 joins")
	})
}

// TestHostileAbandonedQueries: queries whose clients leave stop running:
// tenant b's places free up, so its next query is answered at once rather
// than after the abandoned ones' minutes.
func TestHostileAbandonedQueries(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.GraphDB}})
	attacker := f.Configs["b"].GraphDB
	// Each runs for minutes in little memory: 100,000 subqueries of
	// 10,000 rows each.
	const long = "FOR a IN 1..100000 RETURN SUM((FOR b IN 1..10000 RETURN b))"
	var wg sync.WaitGroup
	for range 8 { // the running places and the queue, all taken
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			query(ctx, attacker, map[string]any{"query": long})
		}()
	}
	wg.Wait()
	start := time.Now()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		a, err := query(ctx, attacker, map[string]any{"query": "RETURN 1"})
		cancel()
		if err == nil && !a.Error {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the abandoned queries still hold their places after %v: %+v %v", time.Since(start), a, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("answered %v after the clients left", time.Since(start).Round(time.Millisecond))
	// And nothing evaluates them any more.
	for strings.Contains(allStacks(), "aql.(*evaluator)") {
		if time.Now().After(deadline) {
			t.Fatalf("abandoned queries still run %v after their clients left", time.Since(start))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the abandoned queries held their places %v after their clients left", d)
	}
}

// allStacks is the stacks of all the process's goroutines.
func allStacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}
