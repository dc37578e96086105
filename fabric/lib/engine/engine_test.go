package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

type frameT = frame.Frame

func runTextCtx(ctx context.Context, e *Engine, text string) (*frame.Frame, error) {
	steps, err := ParseText(text)
	if err != nil {
		return nil, err
	}
	return e.Run(ctx, steps)
}

func TestLoops(t *testing.T) {
	runBotCases(t, []botCase{
		{name: "simple-loop", pipeline: `@c:simple-loop loop_var = 'a, b,c' --> @dm:empty --> @dm:addrow v = '$loop_var' & n = "${loop_var}-x"`,
			want: "v:object,n:object\na|a-x\nb|b-x\nc|c-x"},
		{name: "simple-loop named var", pipeline: `@c:simple-loop loop_var = 'web-1,db-1' & var = 'h' --> @dm:recall name = 'hosts' --> @dm:dedup columns = 'host' --> @dm:enrich dict = 'owners' & src_key_cols = 'host' & dict_key_cols = 'name' & enrich_cols = 'owner'
			--> @dm:map to = 'want' & func = 'fixed' & value = '$h' --> @dm:eval same = 'host == want' --> @dm:selectcolumns include = 'host|same'`,
			want: "host:object,same:bool\nweb-1|true\nweb-2|false\ndb-1|false\nweb-1|false\nweb-2|false\ndb-1|true"},
		{name: "count-loop", pipeline: `@c:count-loop start = 1 & end = 3 --> @dm:empty --> @dm:addrow i = $count`,
			want: "i:int64\n1\n2\n3"},
		{name: "count-loop down", pipeline: `@c:count-loop start = 10 & end = 4 & increment = -3 & var = 'k' --> @dm:empty --> @dm:addrow i = $k & sq = '$k'`,
			want: "i:int64,sq:object\n10|10\n7|7\n4|4"},
		{name: "count-loop none", pipeline: `@dm:addrow a = 1 --> @c:count-loop start = 3 & end = 1 --> @dm:addrow b = 2`,
			want: ""},
		{name: "data-loop", pipeline: `@c:data-loop dataset = 'hosts' & columns = 'host, mem' --> @dm:empty --> @dm:addrow h = '$host' & m = '$mem' & n = $mem`,
			want: "h:object,m:object,n:int64\nweb-1|70|70\nweb-2|90|90\ndb-1||~"},
		{name: "data-loop from the loop input", pipeline: `@dm:recall name = 'owners' --> @c:data-loop dataset = 'hosts' & columns = 'site' --> @dm:head n = 1 --> @dm:map to = 'site' & func = 'fixed' & value = '$site' --> @dm:selectcolumns include = 'name|site'`,
			want: "name:object,site:object\nweb-1|east\nweb-1|west\nweb-1|east"},
		{name: "data-loop missing column", pipeline: `@c:data-loop dataset = 'hosts' & columns = 'nope' --> @dm:empty`,
			err: "step 1 (@c:data-loop): parameter 'columns': no column 'nope'"},
		{name: "nested loops", pipeline: `@c:simple-loop loop_var = 'x,y' --> @c:count-loop end = 2 --> @dm:empty --> @dm:addrow v = '$loop_var$count'`,
			want: "v:object\nx1\nx2\ny1\ny2"},
		{name: "loop body ends at new-block", pipeline: `@c:simple-loop loop_var = 'a,b' --> @dm:empty --> @dm:addrow v = '$loop_var' --> @dm:save name = 'temp-out' & append = 'yes'
			--> @c:new-block --> @dm:recall name = 'temp-out' --> @dm:addrow v = '$loop_var'`,
			want: "v:object\na\nb\n$loop_var"},
		{name: "timed-loop count", pipeline: `@c:timed-loop interval = 0.01 & count = 3 --> @dm:empty --> @dm:addrow i = $iteration --> @dm:save name = 'temp-t' & append = 'yes' --> @c:new-block --> @dm:recall name = 'temp-t'`,
			want: "i:int64\n1\n2\n3"},
		{name: "timed-loop output is the last iteration", pipeline: `@c:timed-loop interval = 0.01 & count = 2 --> @dm:empty --> @dm:addrow i = $iteration`,
			want: "i:int64\n2"},
		{name: "timed-loop duration", pipeline: `@c:timed-loop interval = 0.05 & duration = 0.12 --> @dm:empty --> @dm:addrow i = $iteration`,
			want: "i:int64\n3"},
		{name: "loop error names the inner step", pipeline: `@c:simple-loop loop_var = 'a' --> @dm:recall name = '$loop_var'`,
			err: "step 2 (@dm:recall): parameter 'name': no dataset named 'a'"},
		{name: "substituted value checked at run time", pipeline: `@c:simple-loop loop_var = 'x' --> @dm:head n = '$loop_var'`,
			err: "step 2 (@dm:head): parameter 'n' must be an integer, not 'x'"},
	})
}

func TestBlocks(t *testing.T) {
	runBotCases(t, []botCase{
		{name: "output is the last block", pipeline: `@dm:recall name = 'hosts' --> @c:new-block --> @dm:addrow a = 1`,
			want: "a:int64\n1"},
		{name: "ends in empty", pipeline: `@dm:recall name = 'hosts' --> @c:new-block --> @dm:recall name = 'hosts' --> @dm:empty`,
			want: ""},
		{name: "empty last block", pipeline: `@dm:recall name = 'hosts' --> @c:new-block`, want: ""},
		{name: "no steps", pipeline: ``, want: ""},
	})
}

// TestPipeline runs a multi-block pipeline with a loop and conditionals
// (it needs cfxql).
func TestPipeline(t *testing.T) {
	e, s := fixture(t)
	var traces []Trace
	e.Trace = func(tr Trace) { traces = append(traces, tr) }
	e.JobID = "0123456789abcdef0123456789abcdef"
	out, err := runText(t, e, `
## collect the hot hosts of each site
@c:simple-loop loop_var = 'east,west,north'
  --> @dm:recall name = 'hosts'
  --> *dm:filter site = '$loop_var' and cpu > 90 get host, cpu, site
  --> *exec:if-shape num_rows > 0
  --> @dm:save name = 'temp-hot' & append = 'yes'
  --> @exec:end-if
--> @c:new-block
--> @dm:recall name = 'temp-hot'
--> *exec:if-shape num_rows >= 100
  --> @dm:empty
--> @exec:end-if
--> @dm:sort columns = 'cpu' & order = 'desc'
--> @dm:save name = 'hot-hosts'
`)
	if err != nil {
		t.Fatal(err)
	}
	want := "host:object,cpu:float64,site:object\ndb-1|97.25|east\nweb-1|93.5|east"
	if got := dump(out); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if f := s.datasets["hot-hosts"]; f == nil || dump(f) != want {
		t.Errorf("hot-hosts not saved")
	}
	for _, n := range s.touched {
		if strings.HasPrefix(n, "temp-") {
			t.Errorf("the store saw %s", n)
		}
	}
	var skipped []int
	for _, tr := range traces {
		if tr.JobID != e.JobID || tr.Time != testNow {
			t.Errorf("trace %+v", tr)
		}
		if tr.Status == StatusSkipped {
			skipped = append(skipped, tr.Step)
		}
	}
	// the save of the west and north iterations (no hot hosts), and the
	// @dm:empty of block 2
	if fmt.Sprint(skipped) != "[5 5 10]" {
		t.Errorf("skipped steps %v", skipped)
	}
	last := traces[len(traces)-1]
	if last.Step != 13 || last.Status != StatusCompleted || last.Rows != 2 || last.Block != 2 {
		t.Errorf("last trace %+v", last)
	}
}

func TestTracesWithoutCFXQL(t *testing.T) {
	e, _ := fixture(t)
	var got []string
	e.Trace = func(tr Trace) {
		got = append(got, fmt.Sprintf("%d %s %s %d/%d b%d", tr.Step, tr.Tag, tr.Status, tr.Rows, tr.Columns, tr.Block))
	}
	_, err := runText(t, e, `@dm:recall name = 'hosts' --> @dm:head n = 2 --> @c:new-block --> @c:count-loop end = 2 --> @dm:addrow a = $count --> @c:new-block --> @dm:recall name = 'nope'`)
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		"1 @dm:recall started 0/0 b1", "1 @dm:recall completed 3/5 b1",
		"2 @dm:head started 3/5 b1", "2 @dm:head completed 2/5 b1",
		"3 @c:new-block started 0/0 b2", "3 @c:new-block completed 0/0 b2",
		"4 @c:count-loop started 0/0 b2",
		"5 @dm:addrow started 0/0 b2", "5 @dm:addrow completed 1/1 b2",
		"5 @dm:addrow started 0/0 b2", "5 @dm:addrow completed 1/1 b2",
		"4 @c:count-loop completed 2/1 b2",
		"6 @c:new-block started 0/0 b3", "6 @c:new-block completed 0/0 b3",
		"7 @dm:recall started 0/0 b3", "7 @dm:recall failed 0/0 b3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("traces:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var se *StepError
	if !errors.As(err, &se) || se.Step != 7 || se.Param != "name" {
		t.Errorf("err = %#v", err)
	}
}

func TestTempDatasetsStayInTheEngine(t *testing.T) {
	e, s := fixture(t)
	out, err := runText(t, e, `@dm:recall name = 'hosts' --> @dm:save name = 'temp-h' --> @dm:save name = 'temp-h' & append = 'yes'
		--> @c:new-block --> @dm:concat names = 'temp-h' --> @dm:save name = 'temp-x' --> @dm:delete-dataset name = 'temp-x' --> @dm:dedup`)
	if err != nil {
		t.Fatal(err)
	}
	if out.NumRows() != 3 {
		t.Errorf("%d rows, want 3", out.NumRows())
	}
	for _, n := range s.touched {
		if strings.HasPrefix(n, "temp-") {
			t.Errorf("the store saw %s", n)
		}
	}
	// a temp dataset does not outlive its job
	_, err = runText(t, e, `@dm:recall name = 'temp-h'`)
	if err == nil || !strings.Contains(err.Error(), "no dataset named 'temp-h' in this job") {
		t.Errorf("err = %v", err)
	}
}

func TestTimedLoopCancel(t *testing.T) {
	e, _ := fixture(t)
	steps, err := ParseText(`@c:timed-loop interval = 0.05 --> @dm:empty --> @dm:addrow i = $iteration`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	iterations := 0
	e.Trace = func(tr Trace) {
		if tr.Tag == "@dm:addrow" && tr.Status == StatusCompleted {
			iterations++
		}
	}
	go func() { _, err := e.Run(ctx, steps); done <- err }()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || err != context.Canceled {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("stopped after %v", d)
		}
	case <-time.After(time.Second):
		t.Fatal("the timed loop did not stop within 1s of the cancellation")
	}
	if iterations < 2 {
		t.Errorf("%d iterations in 200ms at 50ms", iterations)
	}
}

func TestCancelBetweenSteps(t *testing.T) {
	e, _ := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	e.Extensions = []Extension{{Doc: BotDoc{Tag: "@t:cancel"}, Run: func(context.Context, *frameT, map[string]string) (*frameT, error) {
		cancel()
		return nil, nil
	}}}
	ran := false
	e.Trace = func(tr Trace) { ran = ran || tr.Tag == "@dm:head" }
	_, err := e.Run(ctx, []Step{{Tag: "@t:cancel"}, {Tag: "@dm:head"}})
	if err != context.Canceled || ran {
		t.Fatalf("err = %v, head ran: %v", err, ran)
	}
	// eval stops inside its rows
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = runTextCtx(ctx, e, `@c:count-loop end = 1000000 --> @dm:empty --> @dm:addrow a = 1 --> @dm:eval b = 'len([i for i in range(100000)])'`)
	if err != context.DeadlineExceeded || time.Since(start) > time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
}

func TestExtensions(t *testing.T) {
	var got map[string]string
	e := &Engine{Extensions: []Extension{{
		Doc: BotDoc{Tag: "@rn:write-stream", Params: []ParamDoc{{Name: "name", Type: "string", Required: true}, {Name: "batch", Type: "int", Default: "10"}}},
		Run: func(ctx context.Context, in *frameT, params map[string]string) (*frameT, error) {
			got = params
			return in, nil
		},
	}}}
	if _, err := runText(t, e, `@dm:empty --> @c:simple-loop loop_var = 's1' --> @rn:write-stream name = '$loop_var'`); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "map[batch:10 name:s1]" {
		t.Errorf("params %v", got)
	}
	err := e.Verify([]Step{{Tag: "@rn:write-stream", Query: "batch = x"}})
	if err == nil || err.Error() != "step 1 (@rn:write-stream): missing parameter 'name'" {
		t.Errorf("err = %v", err)
	}
}

// TestConditionals needs cfxql.
func TestConditionals(t *testing.T) {
	runBotCases(t, []botCase{
		{name: "true", pipeline: `@dm:recall name = 'hosts' --> *exec:if-shape num_rows > 0 --> @dm:head n = 1 --> @exec:end-if --> @dm:selectcolumns include = 'host'`,
			want: "host:object\nweb-1"},
		{name: "false passes the frame through", pipeline: `@dm:recall name = 'hosts' --> *exec:if-shape num_rows > 5 --> @dm:empty --> @exec:end-if --> @dm:selectcolumns include = 'host'`,
			want: "host:object\nweb-1\nweb-2\ndb-1"},
		{name: "columns and nesting", pipeline: `@dm:recall name = 'hosts' --> *exec:if-shape num_columns = 5 and num_rows = 3 --> @dm:head n = 2
			--> *exec:if-shape num_rows = 3 --> @dm:empty --> @exec:end-if --> @dm:tail n = 1 --> @exec:end-if --> @dm:selectcolumns include = 'host'`,
			want: "host:object\nweb-2"},
		{name: "loop inside a conditional ends at its end-if", pipeline: `@dm:empty --> *exec:if-shape num_rows = 0 --> @c:count-loop end = 2 --> @dm:addrow i = $count --> @exec:end-if --> @dm:addrow i = 9`,
			want: "i:int64\n1\n2\n9"},
		{name: "variable in the condition", pipeline: `@c:count-loop end = 3 --> @dm:recall name = 'hosts' --> *exec:if-shape num_rows = $count --> @dm:head n = 1 --> @dm:selectcolumns include = 'host' --> @exec:end-if --> @dm:tail n = 1 --> @dm:selectcolumns include = 'host'`,
			want: "host:object\ndb-1\ndb-1\nweb-1"},
		{name: "filter", pipeline: `@dm:recall name = 'hosts' --> *dm:filter cpu > 90 and site is 'east' GET host, cpu as 'CPU'`,
			want: "host:object,CPU:float64\nweb-1|93.5\ndb-1|97.25"},
		{name: "filter everything", pipeline: `@dm:recall name = 'hosts' --> *dm:filter *`, want: hostsDump},
		{name: "filter with a variable", pipeline: `@c:simple-loop loop_var = 'west' --> @dm:recall name = 'hosts' --> *dm:filter site = '$loop_var' GET host`,
			want: "host:object\nweb-2"},
		{name: "filter relative time", pipeline: `@dm:recall name = 'times' --> *dm:filter at after -200 days GET ts`,
			want: "ts:object\n2024-01-02 03:04:05"},
		{name: "filter error", pipeline: `@dm:recall name = 'hosts' --> *dm:filter cpu >`, err: "step 2 (*dm:filter): invalid query"},
	})
}

func TestTagWithQuery(t *testing.T) {
	e, _ := fixture(t)
	out, err := e.Run(context.Background(), []Step{{Tag: " @dm:recall name = 'hosts'"}, {Tag: "@dm:head n =", Query: "1"}})
	if err != nil || out.NumRows() != 1 {
		t.Fatalf("out %v, err %v", out, err)
	}
}
