// Command controllerload is bench/controller.sh's measurement: D
// deployments of I service instances each (D x I jobs) kept by the
// deployment controller, against the same number of plain run calls, on
// a fabric of separate fabricd processes (an api-server and a scheduler
// in one, W workers in another) over a NATS server it runs itself on
// 127.0.0.1. Each side gets a fresh fabric.
//
//   - controller: CLIENT bundle-deploy of a bundle of the D blueprints,
//     timed from its start until every job runs (Running in its record);
//     then the scheduler process's CPU per controller period, over
//     PERIODS periods while all run.
//   - run, whole processes: D x I "CLIENT run --name svc" one after the
//     other, timed until every job runs.
//   - run, in-process: one "CLIENT run loop.star" calling run() D x I
//     times, timed the same way.
//
// It prints name=value pairs: controller_s, controller_cpu_ms_per_period,
// run_procs_s, run_inproc_s.
//
//	controllerload FABRICD CLIENT D I W
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/natsserver"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// period is the controller's period in the benchmark.
const period = 2 * time.Second

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "controllerload:", err)
		os.Exit(1)
	}
}

type args struct {
	fabricd, client string
	d, i, w         int
}

func run() error {
	if len(os.Args) != 6 {
		return fmt.Errorf("usage: controllerload FABRICD CLIENT D I W")
	}
	a := args{fabricd: os.Args[1], client: os.Args[2]}
	for k, p := range []*int{&a.d, &a.i, &a.w} {
		n, err := strconv.Atoi(os.Args[3+k])
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a count", os.Args[3+k])
		}
		*p = n
	}
	ctl, cpu, err := a.controller()
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	procs, err := a.plain(false)
	if err != nil {
		return fmt.Errorf("run, whole processes: %w", err)
	}
	inproc, err := a.plain(true)
	if err != nil {
		return fmt.Errorf("run, in-process: %w", err)
	}
	fmt.Printf("controller_s=%.2f controller_cpu_ms_per_period=%.1f run_procs_s=%.2f run_inproc_s=%.2f\n",
		ctl.Seconds(), cpu, procs.Seconds(), inproc.Seconds())
	return nil
}

// fabric is a fresh fabric: a NATS server, the pods' processes and the
// client's configuration.
type fabric struct {
	dir       string
	srv       *natsserver.Server
	procs     []*exec.Cmd
	scheduler *exec.Cmd
	env       []string
	nc        *nats.Conn
	js        jetstream.JetStream
}

func (a args) start() (*fabric, error) {
	dir, err := os.MkdirTemp("", "controllerload-")
	if err != nil {
		return nil, err
	}
	tn, err := bus.NewTenant("bench")
	if err != nil {
		return nil, err
	}
	srv, err := natsserver.StartServer(natsserver.ServerOptions{Name: "bench", Host: "127.0.0.1", Port: -1, StoreDir: filepath.Join(dir, "js"), Tenants: []bus.Tenant{tn}})
	if err != nil {
		return nil, err
	}
	f := &fabric{dir: dir, srv: srv}
	cfg := &bus.Config{Tenant: tn.Name, NATS: bus.NATSConfig{URLs: []string{srv.URL()}, User: tn.User, Password: tn.Password}}
	path := filepath.Join(dir, "config.json")
	if err := cfg.Save(path); err != nil {
		return nil, err
	}
	f.env = append(os.Environ(), "FABRIC_HOME="+dir, "FABRIC_NETWORK_CONFIG="+path)
	workers := strings.TrimSuffix(strings.Repeat("worker,", a.w), ",")
	capacity := fmt.Sprintf("pod_usage_active_jobs < %d", a.d*a.i+1)
	for _, pods := range []string{"api-server,scheduler", workers} {
		cmd := exec.Command(a.fabricd, "--network-config", path, "--pods", pods, "--controller-period", period.String(), "--capacity-filter", capacity)
		cmd.Env = f.env
		log, err := os.Create(filepath.Join(dir, strings.SplitN(pods, ",", 2)[0]+".log"))
		if err != nil {
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		f.procs = append(f.procs, cmd)
	}
	f.scheduler = f.procs[0]
	if f.nc, err = bus.Connect(cfg, "controllerload"); err != nil {
		return nil, err
	}
	f.js, _ = jetstream.New(f.nc)
	// Ready when the client sees every pod.
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := f.client(a, "pods", "--json")
		if strings.Count(out, `"pod_id"`) == 2+a.w {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the fabric did not start in 30s (logs in %s)", dir)
		}
		time.Sleep(200 * time.Millisecond)
	}
	pipe := filepath.Join(dir, "svc.pipeline")
	if err := os.WriteFile(pipe, []byte("@dm:read-stream name = 'events' & follow = true\n"), 0o644); err != nil {
		return nil, err
	}
	for _, c := range [][]string{{"pstream", "add", "--name", "events"}, {"pipeline", "add", "--name", "svc", "--file", pipe}} {
		if out, err := f.client(a, c...); err != nil {
			return nil, fmt.Errorf("client %s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
	return f, nil
}

func (f *fabric) client(a args, argv ...string) (string, error) {
	cmd := exec.Command(a.client, argv...)
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (f *fabric) stop() {
	for _, p := range f.procs {
		_ = p.Process.Kill()
		_ = p.Wait()
	}
	f.nc.Close()
	f.srv.Shutdown()
	_ = os.RemoveAll(f.dir)
}

// running counts the jobs whose record says Running.
func (f *fabric) running(ctx context.Context) (int, error) {
	kv, err := f.js.KeyValue(ctx, api.JobsBucket)
	if err != nil {
		return 0, nil
	}
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return 0, err
	}
	defer w.Stop()
	n := 0
	for e := range w.Updates() {
		if e == nil {
			break
		}
		var j api.Job
		if json.Unmarshal(e.Value(), &j) == nil && j.Status == api.JobRunning {
			n++
		}
	}
	return n, nil
}

// waitRunning waits until n jobs run.
func (f *fabric) waitRunning(n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		got, err := f.running(ctx)
		cancel()
		if err != nil {
			return err
		}
		if got >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d jobs run after %s (logs in %s)", got, n, timeout, f.dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// controller deploys the bundle and times it until every job runs, then
// measures the scheduler's CPU per period.
func (a args) controller() (time.Duration, float64, error) {
	f, err := a.start()
	if err != nil {
		return 0, 0, err
	}
	defer f.stop()
	bundle := filepath.Join(f.dir, "bundle.tar.gz")
	if err := a.writeBundle(bundle); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	if out, err := f.client(a, "bundle-deploy", "--file", bundle); err != nil {
		return 0, 0, fmt.Errorf("bundle-deploy: %v\n%s", err, out)
	}
	if err := f.waitRunning(a.d*a.i, 5*time.Minute); err != nil {
		return 0, 0, err
	}
	took := time.Since(t0)
	// The scheduler's CPU over a few periods while everything runs.
	const periods = 5
	c0, err := cpuTicks(f.scheduler.Process.Pid)
	if err != nil {
		return 0, 0, err
	}
	time.Sleep(periods * period)
	c1, err := cpuTicks(f.scheduler.Process.Pid)
	if err != nil {
		return 0, 0, err
	}
	// Clock ticks are 10 ms on Linux (USER_HZ 100).
	return took, float64(c1-c0) * 10 / periods, nil
}

func (a args) writeBundle(path string) error {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for k := 0; k < a.d; k++ {
		doc := fmt.Sprintf("id: svc-%03d\nname: Service %d\nservice_pipelines:\n  - {name: svc, label: readers, instances: %d}\n", k, k, a.i)
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("blueprints/svc-%03d.yaml", k), Mode: 0o644, Size: int64(len(doc)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		if _, err := tw.Write([]byte(doc)); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// plain starts the same number of jobs with run, as processes or from
// one workflow, and times it until every job runs.
func (a args) plain(inProcess bool) (time.Duration, error) {
	f, err := a.start()
	if err != nil {
		return 0, err
	}
	defer f.stop()
	n := a.d * a.i
	loop := filepath.Join(f.dir, "loop.star")
	if err := os.WriteFile(loop, []byte(fmt.Sprintf("for i in range(%d):\n    run(name = 'svc')\n", n)), 0o644); err != nil {
		return 0, err
	}
	t0 := time.Now()
	if inProcess {
		if out, err := f.client(a, "run", loop); err != nil {
			return 0, fmt.Errorf("run %s: %v\n%s", loop, err, out)
		}
	} else {
		for k := 0; k < n; k++ {
			if out, err := f.client(a, "run", "--name", "svc"); err != nil {
				return 0, fmt.Errorf("run --name svc: %v\n%s", err, out)
			}
		}
	}
	if err := f.waitRunning(n, 5*time.Minute); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// cpuTicks is a process's user and system time, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command's closing parenthesis: state is 3, utime
	// 14 and stime 15 of the whole line.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	u, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return u + st, nil
}
