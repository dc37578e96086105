package worker_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/infra/botsources"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/lib/botquery"
	"github.com/fabricops/fabric/fabric/lib/engine"
)

const acmeYML = `extension:
  namespace: acme
  type: bot-package
  version: 1.0.0
  description: Acme items
  default_name: acme-bots
  publisher: Acme
  support_email: ""
  config_template:
    hostname: ""
    port: ""
    token: ""
    $secure: [token]
    $mandatory: [hostname]
    $labels: {hostname: Hostname, port: Port, token: API token}
  implementation: {code: acme.Bots}
bots:
  - {name: items, bot_type: source, model_type: api}
  - name: enrich
    bot_type: transform
    model_type: api
    model_parameters:
      - {name: factor, type: number, mandatory: true}
  - {name: spin, bot_type: transform, model_type: api}
  - {name: hog, bot_type: transform, model_type: api}
  - {name: reader, bot_type: source, model_type: api}
  - {name: elsewhere, bot_type: source, model_type: api}
  - name: search
    bot_type: source
    model_type: api
    model_parameters:
      - {name: query, type: text, mandatory: false}
`

const acmeStar = `
def items(frame, params, config):
    r = http.get("/items", headers = {"Authorization": "Bearer " + config["token"]})
    if r.status_code != 200:
        fail("the source answered %d" % r.status_code)
    return r.json()

def enrich(frame, params, config):
    print("enrich: %d rows, type %s, token %s" % (len(frame), type(frame), config["token"]))
    for i in range(150):
        print("line", i)
    return frame.with_column("total", lambda row: row["n"] * params["factor"])

def spin(frame, params, config):
    n = 0
    while True:
        n += 1

def hog(frame, params, config):
    keep = []
    for i in range(10000000):
        keep.append("x" * 100000 + str(i))
    return []

def reader(frame, params, config):
    return [{"text": file.read("/etc/passwd")}]

def elsewhere(frame, params, config):
    return http.get("http://127.0.0.2:9/items").json()

def search(frame, params, config):
    rows = items(frame, params, config)
    for r in rows:
        r["pushed"] = params.get("query", "")
    return rows

def check(config):
    r = http.get("/items", headers = {"Authorization": "Bearer " + config["token"]})
    return True if r.ok else "the source answered %d to the token %s" % (r.status_code, config["token"])

Bots = struct(items = items, enrich = enrich, spin = spin, hog = hog, reader = reader, elsewhere = elsewhere,
              search = search, check_credentials = check)
`

// TestPackageBots: a package's source bot reads a test server through
// its configured source (the $secure token sent as a header), its
// transform bot and a built-in bot follow, and the token is in no trace,
// record or output; hostile bots fail their job with the limit or the
// refusal named, and the worker keeps serving.
func TestPackageBots(t *testing.T) {
	const token = "s3cr3t-token-4711"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `[{"id": "a", "n": 1}, {"id": "b", "n": 3}, {"id": "c", "n": 5}]`)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)

	pf := startPackageFabric(t, 3*time.Minute, fstest.MapFS{"bots.yml": {Data: []byte(acmeYML)}, "acme.star": {Data: []byte(acmeStar)}})
	c, ctx, st, cat := pf.c, pf.ctx, pf.st, pf.cat
	src, err := (&botsources.Sources{Catalog: cat, Secrets: &secret.Store{Store: st}}).Put(ctx, api.BotSource{Name: "acme-api", Package: "acme-bots",
		Config: map[string]any{"hostname": u.Hostname(), "port": u.Port(), "token": token}})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := json.Marshal(src); strings.Contains(string(data), token) {
		t.Fatalf("the source record holds the token: %s", data)
	}

	var mu sync.Mutex
	var traces strings.Builder
	go func() {
		_ = c.WatchTraces(ctx, func(tr api.Trace) {
			data, _ := json.Marshal(tr)
			mu.Lock()
			traces.Write(data)
			traces.WriteByte('\n')
			mu.Unlock()
		})
	}()
	time.Sleep(200 * time.Millisecond)

	run := func(limits *api.JobLimits, steps ...api.PipelineStep) api.Job {
		t.Helper()
		resp, err := c.Run(ctx, api.RunRequest{Pipeline: "acme", Steps: steps, Limits: limits}, client.Placement{Site: "local"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != "started" {
			t.Fatalf("not started: %+v", resp)
		}
		j, err := c.Wait(ctx, resp.JobID, time.Minute, nil)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	good := []api.PipelineStep{{Tag: "@acme:items", Query: "source = 'acme-api'"}, {Tag: "@acme:enrich", Query: "factor = 10"},
		{Tag: "*dm:filter", Query: "total > 20"}}
	check := func() {
		t.Helper()
		j := run(nil, good...)
		if j.Status != api.JobCompleted || j.SmallOutput == nil {
			t.Fatalf("the pipeline: %s %s", j.Status, j.Reason)
		}
		if got := fmt.Sprint(j.SmallOutput.Columns, j.SmallOutput.Rows); got != "[id n total] [[b 3 30] [c 5 50]]" {
			t.Fatalf("output %s", got)
		}
		data, _ := json.Marshal(j)
		if strings.Contains(string(data), token) {
			t.Fatalf("the job's record holds the token: %s", data)
		}
	}
	check()
	if v, err := c.Verify(ctx, api.RunRequest{Pipeline: "acme", Steps: good}, client.Placement{Site: "local"}); err != nil || !v.OK {
		t.Fatalf("verify: %+v %v", v, err)
	}
	if v, err := c.Verify(ctx, api.RunRequest{Pipeline: "acme", Steps: []api.PipelineStep{{Tag: "@acme:enrich", Query: "factr = 1"}}}, client.Placement{Site: "local"}); err != nil || v.OK {
		t.Fatalf("verify of a wrong parameter: %+v %v", v, err)
	}
	// *ns:bot: its rows filtered by a CFXQL query, against the package's
	// only source.
	j := run(nil, api.PipelineStep{Tag: "*acme:items", Query: "n >= 3 get id, n"})
	if j.Status != api.JobCompleted || j.SmallOutput == nil || fmt.Sprint(j.SmallOutput.Columns, j.SmallOutput.Rows) != "[id n] [[b 3] [c 5]]" {
		t.Fatalf("*acme:items: %s %s %v", j.Status, j.Reason, j.SmallOutput)
	}

	// #ns:bot: the query pushed down to a bot that declares it.
	j = run(nil, api.PipelineStep{Tag: "#acme:search", Query: "n >= 3"})
	if j.Status != api.JobCompleted || j.SmallOutput == nil || fmt.Sprint(j.SmallOutput.Rows) != "[[b 3 n >= 3] [c 5 n >= 3]]" {
		t.Fatalf("#acme:search: %s %s %v", j.Status, j.Reason, j.SmallOutput)
	}

	small := &api.JobLimits{MaxMemoryMB: 64}
	for _, tc := range []struct{ bot, want string }{
		{"spin", "the step limit of 100000000 steps was reached"},
		{"hog", "the memory limit of 64 MB was reached"},
		{"reader", "file.read: refused: a bot has no access to the host's files"},
		{"elsewhere", "the bot may reach only http://" + u.Host + ", the source's configured host (refused http://127.0.0.2:9)"},
	} {
		j := run(small, api.PipelineStep{Tag: "@acme:" + tc.bot, Query: "source = 'acme-api'"})
		if j.Status != api.JobFailed || !strings.Contains(j.Reason, tc.want) || !strings.Contains(j.Reason, "@acme:"+tc.bot+" (package acme-bots 1.0.0)") {
			t.Errorf("%s: %s %q, want %q", tc.bot, j.Status, j.Reason, tc.want)
		}
	}
	check()

	// check-credentials calls the package's check: the stored source
	// passes, one with a wrong token fails without showing it.
	if _, err := (&botsources.Sources{Catalog: cat, Secrets: &secret.Store{Store: st}}).Put(ctx, api.BotSource{Name: "acme-wrong", Package: "acme-bots",
		Config: map[string]any{"hostname": u.Hostname(), "port": u.Port(), "token": "wrong-" + token}}); err != nil {
		t.Fatal(err)
	}
	sources := `[{"name": "acme-api", "type": "acme-bots"}, {"name": "acme-wrong", "type": "acme-bots"}]`
	j = run(nil, api.PipelineStep{Tag: api.BotCheckCredentials, Query: botquery.Format([]string{"sources"}, map[string]string{"sources": sources})})
	if j.Status != api.JobCompleted || j.SmallOutput == nil {
		t.Fatalf("check-credentials: %s %s", j.Status, j.Reason)
	}
	got := fmt.Sprint(j.SmallOutput.Rows)
	if !strings.Contains(got, "[acme-api acme-bots OK ") || !strings.Contains(got, "acme-wrong acme-bots ERROR bot package acme-bots 1.0.0: the credential check failed: the source answered 401 to the token ***") || strings.Contains(got, token) {
		t.Fatalf("check-credentials: %s", got)
	}

	// With two sources, a pipeline's sources map says which one its
	// steps that name none run against; a step's own source= wins.
	viaMap := func(source string, steps ...api.PipelineStep) api.Job {
		t.Helper()
		resp, err := c.Run(ctx, api.RunRequest{Pipeline: "acme", Steps: steps,
			Sources: map[string]api.PipelineSource{"api": {Name: source, Type: "acme-bots"}}}, client.Placement{Site: "local"})
		if err != nil {
			t.Fatal(err)
		}
		j, err := c.Wait(ctx, resp.JobID, time.Minute, nil)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	unnamed := []api.PipelineStep{{Tag: "@acme:items"}, {Tag: "@acme:enrich", Query: "factor = 10"}}
	if j := viaMap("acme-api", unnamed...); j.Status != api.JobCompleted || j.SmallOutput == nil || len(j.SmallOutput.Rows) != 3 {
		t.Errorf("the sources map naming acme-api: %s %q", j.Status, j.Reason)
	}
	if j := viaMap("acme-wrong", unnamed...); j.Status != api.JobFailed || !strings.Contains(j.Reason, "the source answered 401") {
		t.Errorf("the sources map naming acme-wrong: %s %q", j.Status, j.Reason)
	}
	if j := viaMap("acme-wrong", append([]api.PipelineStep{{Tag: "@acme:items", Query: "source = 'acme-api'"}}, unnamed[1:]...)...); j.Status != api.JobCompleted {
		t.Errorf("a step's source= over the sources map: %s %q", j.Status, j.Reason)
	}

	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(traces.String(), "@acme:enrich") {
		t.Fatalf("no trace of the package's bots: %s", traces.String())
	}
	if strings.Contains(traces.String(), token) {
		t.Fatal("a trace holds the token")
	}
	// What a bot prints is its step's log, bounded, secrets redacted;
	// the bot got the job's frame as a frame.
	var logs []string
	for _, line := range strings.Split(traces.String(), "\n") {
		var tr api.Trace
		if json.Unmarshal([]byte(line), &tr) == nil && tr.Status == engine.StatusLog && tr.Tag == "@acme:enrich" && tr.Step == 2 {
			logs = append(logs, tr.Message)
		}
	}
	if len(logs) < engine.MaxLogLines+1 || logs[0] != "enrich: 3 rows, type frame, token ***" || logs[engine.MaxLogLines] != "(the step printed more: dropped)" {
		t.Fatalf("the log of @acme:enrich (%d lines): %q", len(logs), logs[:min(len(logs), 3)])
	}
	if len(logs)%(engine.MaxLogLines+1) != 0 {
		t.Fatalf("%d log lines: not %d a call", len(logs), engine.MaxLogLines+1)
	}
}
