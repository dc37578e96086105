// Command packbench is bench/packs.sh's helper: it generates the pack the
// benchmark activates, and runs the benchmark's loop.
//
//	packbench gen DIR
//
// writes DIR/tree (manifest.yaml and every artifact's file, which
// bench/packs.star reads) and DIR/bench-1.0.0.tar.gz (the same, as
// pack.Write packs it): 1,000 artifacts of six kinds, always the same
// bytes.
//
//	packbench loop -runs N -warmup W -client CLIENT -tree DIR/tree
//
// alternates, RUNS times after W untimed warm-up rounds, the two ways of
// deploying those artifacts, each a fresh process measured from the
// outside (monotonic clock): "client pack activate --name bench --version
// 1.0.0" against "client run bench/packs.star add TREE SECONDS.txt". After
// each, untimed, what it deployed is taken back ("client pack deactivate",
// "client run bench/packs.star remove TREE"), so that every run starts
// from the same empty tenant. After each activation it reads the
// activation's record (KV bucket fabric_pack_activations): from its time
// (set when the api-server takes the activation's lock, after reading and
// rendering the pack) to the revision of its final write is the
// api-server's transaction, in-process. It prints each one's median and
// quartiles, the in-process medians, and last the ratio of the medians.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/pack"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The pack's name and version.
const (
	packName    = "bench"
	packVersion = "1.0.0"
)

// The mix: 1,000 artifacts.
const (
	nStreams    = 50
	nPipelines  = 200
	nBlueprints = 50
	nRules      = 150
	nDashboards = 450
	nGroups     = 100
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: packbench gen DIR | packbench loop [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		if len(os.Args) != 3 {
			err = fmt.Errorf("usage: packbench gen DIR")
		} else {
			err = gen(os.Args[2])
		}
	case "loop":
		err = loop(os.Args[2:])
	default:
		err = fmt.Errorf("no command %q (gen, loop)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "packbench:", err)
		os.Exit(1)
	}
}

// gen writes the pack's tree and its .tar.gz into dir.
func gen(dir string) error {
	region := "eu-west"
	m := pack.Manifest{Name: packName, Version: packVersion, Description: "1,000 artifacts of six kinds (bench/packs.sh)",
		Publisher: "bench", CommonVars: []pack.Var{{Name: "region", Description: "The region the content watches", Default: &region}}}
	files := map[string][]byte{}
	add := func(typ, name, file, text string) {
		m.Artifacts = append(m.Artifacts, pack.Artifact{Type: typ, Name: name, File: file})
		files[file] = []byte(text)
	}
	for i := range nStreams {
		name := fmt.Sprintf("bench-events-%03d", i)
		add(pack.TypeStream, name, "streams/"+name+".yaml", fmt.Sprintf(
			"name: %s\ndescription: Events %d of {{ region }}\nretention_hours: 24\n", name, i))
	}
	for i := range nPipelines {
		name := fmt.Sprintf("bench-pipe-%03d", i)
		add(pack.TypePipeline, name, "pipelines/"+name+".pipeline", fmt.Sprintf(
			"@dm:empty\n  --> @dm:addrow x = %d\n", i))
	}
	for i := range nBlueprints {
		name := fmt.Sprintf("bench-bp-%03d", i)
		add(pack.TypeBlueprint, name, "blueprints/"+name+".yaml", fmt.Sprintf(
			"id: %s\nname: Bench blueprint %d\ndescription: Runs bench-pipe-%03d every hour\nenabled: false\n"+
				"scheduled_pipelines:\n  - {name: bench-pipe-%03d, label: hourly, cron_expression: \"%d * * * *\"}\n",
			name, i, i*nPipelines/nBlueprints, i*nPipelines/nBlueprints, i%60))
	}
	for i := range nRules {
		name := fmt.Sprintf("bench-rules-%03d", i)
		add(pack.TypeAlertRules, name, "alerts/"+name+".yaml", fmt.Sprintf(
			"name: %s\ndescription: Busy devices, set %d\nrealtime-alerts:\n"+
				"  - {name: busy, condition: \"devices > %d\", severity: MAJOR}\n"+
				"  - {name: down, condition: \"status = 'down'\", severity: CRITICAL}\n", name, i, 20+i))
	}
	for i := range nDashboards {
		name := fmt.Sprintf("bench-dash-%03d", i)
		label := fmt.Sprintf("Bench dashboard %d", i)
		if i%2 == 0 {
			label += " ({{ region }})"
		}
		add(pack.TypeDashboard, name, "dashboards/"+name+".yaml", fmt.Sprintf(
			"name: %s\nlabel: %s\ndescription: Latency and alarms, view %d\ndashboard_style: tabbed\n"+
				"dashboard_filters:\n  time_filter: true\n  columns_filter: [site, device]\n"+
				"dashboard_sections:\n"+
				"  - title: Latency\n    widgets:\n"+
				"      - {widget_type: line_chart, title: Round-trip time, stream: bench-events-%03d, duration_hours: 24}\n"+
				"  - title: Alarms\n    widgets:\n"+
				"      - {widget_type: table, title: Open alarms, stream: bench-events-%03d}\n"+
				"      - {widget_type: counter, title: Critical, stream: bench-events-%03d}\n",
			name, label, i, i%nStreams, i%nStreams, i%nStreams))
	}
	for i := range nGroups {
		name := fmt.Sprintf("bench-group-%03d", i)
		add(pack.TypeDashGroup, name, "groups/"+name+".json", fmt.Sprintf(
			`{"name": %q, "label": "Bench group %d", "dashboardList": [{"name": "bench-dash-%03d"}, {"name": "bench-dash-%03d"}]}`+"\n",
			name, i, i, i+nGroups))
	}

	tree := filepath.Join(dir, "tree")
	if err := os.RemoveAll(tree); err != nil {
		return err
	}
	manifest, err := pack.MarshalManifest(m)
	if err != nil {
		return err
	}
	write := func(path string, data []byte) error {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, data, 0o644)
	}
	if err := write(filepath.Join(tree, pack.ManifestFile), manifest); err != nil {
		return err
	}
	for p, data := range files {
		if err := write(filepath.Join(tree, filepath.FromSlash(p)), data); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := pack.Write(&buf, m, files); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, packName+"-"+packVersion+".tar.gz"), buf.Bytes(), 0o644)
}

// loop runs the benchmark's loop (see the package's comment).
func loop(args []string) error {
	fs := flag.NewFlagSet("loop", flag.ContinueOnError)
	runs := fs.Int("runs", 7, "timed runs of each")
	warmup := fs.Int("warmup", 1, "untimed rounds first")
	client := fs.String("client", "bench/out/client", "the client")
	tree := fs.String("tree", "bench/out/packs/tree", "the pack's tree")
	script := fs.String("script", "bench/packs.star", "the one-by-one workflow")
	inproc := fs.String("inproc", "bench/out/packs-inproc.txt", "where the workflow appends its loop's seconds")
	timeout := fs.Duration("timeout", 5*time.Minute, "bound of each process")
	if err := fs.Parse(args); err != nil {
		return err
	}
	_ = os.Remove(*inproc)
	kv, closeKV, err := activations()
	if err != nil {
		return err
	}
	defer closeKV()

	run := func(argv ...string) (time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil {
			return 0, fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, stderr.String())
		}
		return d, nil
	}
	pk := []string{"--name", packName, "--version", packVersion}
	var ours, peer, server []time.Duration
	for i := range *warmup + *runs {
		timed := i >= *warmup
		// Ours: the activation, then (untimed) its deactivation.
		da, err := run(append([]string{*client, "pack", "activate"}, pk...)...)
		if err != nil {
			return err
		}
		s, err := serverTime(kv)
		if err != nil {
			return err
		}
		if _, err := run(append([]string{*client, "pack", "deactivate"}, pk...)...); err != nil {
			return err
		}
		if timed {
			ours, server = append(ours, da), append(server, s)
		}
		// The peer: one by one, then (untimed) every artifact removed.
		out := *inproc
		if !timed {
			out = os.DevNull
		}
		d, err := run(*client, "run", *script, "add", *tree, out)
		if err != nil {
			return err
		}
		if _, err := run(*client, "run", *script, "remove", *tree); err != nil {
			return err
		}
		if timed {
			peer = append(peer, d)
		}
		fmt.Fprintf(os.Stderr, "round %d/%d: activate %.3f s (api-server %.3f s), one by one %.3f s\n",
			i+1, *warmup+*runs, da.Seconds(), s.Seconds(), d.Seconds())
	}
	const oursName, peerName = "pack activate", "one-by-one Starlark adds"
	q1, mo, q3 := quartiles(ours)
	fmt.Printf("%-28s median %8.3f s  (q1 %.3f, q3 %.3f, %d runs)\n", oursName+" (process)", mo.Seconds(), q1.Seconds(), q3.Seconds(), len(ours))
	q1, mp, q3 := quartiles(peer)
	fmt.Printf("%-28s median %8.3f s  (q1 %.3f, q3 %.3f, %d runs)\n", peerName+" (process)", mp.Seconds(), q1.Seconds(), q3.Seconds(), len(peer))
	_, ms, _ := quartiles(server)
	fmt.Printf("in-process: api-server's activation transaction (lock to record) median %.3f s\n", ms.Seconds())
	loops, err := seconds(*inproc)
	if err != nil {
		return err
	}
	_, ml, _ := quartiles(loops)
	fmt.Printf("in-process: the workflow's loop of one-by-one adds median %.3f s (%d runs)\n", ml.Seconds(), len(loops))
	pairs := make([]float64, len(ours))
	for i := range ours {
		pairs[i] = float64(ours[i]) / float64(peer[i])
	}
	sort.Float64s(pairs)
	// The median of the pairs' ratios: each activation ran right after
	// its one-by-one peer, so drift on the machine touches both alike.
	fmt.Printf("ratio %s / %s: %.2f (target 1.5)\n", oursName, peerName, pairs[len(pairs)/2])
	return nil
}

// activations opens the KV bucket of the activation records, with the
// network configuration the client reads.
func activations() (jetstream.KeyValue, func(), error) {
	data, err := os.ReadFile(os.Getenv("FABRIC_NETWORK_CONFIG"))
	if err != nil {
		return nil, nil, err
	}
	var cfg struct {
		NATS struct {
			URLs     []string `json:"urls"`
			User     string   `json:"user"`
			Password string   `json:"password"`
		} `json:"nats"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, nil, err
	}
	nc, err := nats.Connect(strings.Join(cfg.NATS.URLs, ","), nats.UserInfo(cfg.NATS.User, cfg.NATS.Password), nats.Timeout(10*time.Second))
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv, err := store.EnsureKV(ctx, js, jetstream.KeyValueConfig{Bucket: api.PackActivationsBucket, History: 1})
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return kv, nc.Close, nil
}

// serverTime reads the record of the activation just made: from its time
// (the lock) to its last write.
func serverTime(kv jetstream.KeyValue) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := kv.Get(ctx, store.Key(packName+"#"+pack.ScopeCommon+"#"))
	if err != nil {
		return 0, fmt.Errorf("the activation's record: %v", err)
	}
	var act api.PackActivation
	if err := json.Unmarshal(e.Value(), &act); err != nil {
		return 0, err
	}
	if act.State != api.PackActivated {
		return 0, fmt.Errorf("the activation's record says %s", act.State)
	}
	t, err := time.Parse(api.TimeFormat, act.Time)
	if err != nil {
		return 0, fmt.Errorf("the activation's time %q: %v", act.Time, err)
	}
	return e.Created().Sub(t), nil
}

// seconds reads the seconds the workflow appended, one a line.
func seconds(path string) ([]time.Duration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ds []time.Duration
	for _, f := range strings.Fields(string(data)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		ds = append(ds, time.Duration(v*float64(time.Second)))
	}
	return ds, nil
}

func quartiles(ts []time.Duration) (q1, med, q3 time.Duration) {
	if len(ts) == 0 {
		return 0, 0, 0
	}
	s := append([]time.Duration(nil), ts...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/4], s[len(s)/2], s[3*len(s)/4]
}
