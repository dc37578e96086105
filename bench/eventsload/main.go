// Command eventsload is bench/events.sh's load and floors.
//
// Ingest: it sends N syslog messages (RFC 5424, about 150 bytes) over one
// TCP connection to the local fabric's syslog-tcp endpoint and times them
// until the endpoint's stream holds them all; then it publishes the same
// messages to a fresh stream with raw JetStream async publish and times
// them until the last is acknowledged (the floor).
//
// Replay: it archives the N records the gateway made (three minutes, as
// the archiver writes them), runs CLIENT logarchive-replay --speed 0 of
// them into a new stream and times the whole process (start, job on a
// worker, every record acknowledged, exit); then it publishes the same
// records to a fresh stream with raw JetStream async publish (the floor).
//
// It prints name=value pairs: ingest_s, ingest_rate, raw_s, raw_rate,
// replay_s, replay_rate, replay_job_rate (the job's own rate, inside the
// process), raw_records_s, raw_records_rate.
//
//	eventsload N CLIENT
package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/logarchive"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "eventsload:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 3 {
		return fmt.Errorf("usage: eventsload N CLIENT")
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n <= 0 {
		return fmt.Errorf("N: %q is not a count", os.Args[1])
	}
	cfg, err := bus.LoadConfig(os.Getenv("FABRIC_NETWORK_CONFIG"))
	if err != nil {
		return err
	}
	c, err := client.Connect(cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	gws, err := c.GatewayStatus(ctx)
	if err != nil {
		return err
	}
	port := 0
	for _, g := range gws {
		for _, e := range g.Endpoints {
			if e.Name == "syslog-tcp" && e.State == "listening" {
				port = e.Port
			}
		}
	}
	if port == 0 {
		return fmt.Errorf("no listening syslog-tcp endpoint")
	}
	msgs := make([][]byte, n)
	for i := range msgs {
		msgs[i] = fmt.Appendf(nil, "<14>1 2026-01-01T00:00:00.%03dZ host-%04d benchapp 4242 ID%d - event %d from the benchmark: link state changed on port %d\n",
			i%1000, i%5000, i%100, i, i%48)
	}
	js := c.JetStream()

	// Ingest: through the gateway into its stream.
	before, err := streams.Get(ctx, js, "syslog-tcp")
	if err != nil {
		return err
	}
	jst, err := js.Stream(ctx, streams.JetStreamName("syslog-tcp"))
	if err != nil {
		return err
	}
	jsi, err := jst.Info(ctx)
	if err != nil {
		return err
	}
	lastSeq := jsi.State.LastSeq
	t0 := time.Now()
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(conn, 1<<16)
	for _, m := range msgs {
		if _, err := w.Write(m); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	conn.Close()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		info, err := streams.Get(ctx, js, "syslog-tcp")
		if err == nil && info.Messages >= before.Messages+uint64(n) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after 5 minutes: the stream holds %d of %d", info.Messages-before.Messages, n)
		}
		time.Sleep(2 * time.Millisecond)
	}
	ingest := time.Since(t0)

	raw, err := rawPublish(ctx, c, msgs)
	if err != nil {
		return err
	}
	fmt.Printf("ingest_s=%.3f ingest_rate=%.0f raw_s=%.3f raw_rate=%.0f", ingest.Seconds(), float64(n)/ingest.Seconds(), raw.Seconds(), float64(n)/raw.Seconds())

	// Replay: the records the gateway made, archived as three minutes.
	var records [][]byte
	if _, err := streams.Read(ctx, js, "syslog-tcp", streams.ReadOptions{AfterSeq: lastSeq}, func(m streams.Message) error {
		records = append(records, m.Data)
		return nil
	}); err != nil {
		return err
	}
	if len(records) != n {
		return fmt.Errorf("read %d records back from the stream, not %d", len(records), n)
	}
	st, err := c.Data.Store(ctx)
	if err != nil {
		return err
	}
	repo := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	if _, err := logarchive.AddRepo(ctx, st, repo, "logs", "", 0); err != nil {
		return err
	}
	a, err := logarchive.Open(ctx, st, repo)
	if err != nil {
		return err
	}
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for m := range 3 {
		part := records[m*n/3 : (m+1)*n/3]
		if _, err := a.WriteMinute(ctx, "syslog", first.Add(time.Duration(m)*time.Minute), part); err != nil {
			return err
		}
	}
	stream := fmt.Sprintf("bench-replay-%d", time.Now().UnixNano())
	defer streams.Delete(ctx, js, stream)
	cmd := exec.CommandContext(ctx, os.Args[2], "logarchive-replay", "--repo", repo, "--name", "syslog", "--from", "2026-01-01T00:00:00",
		"--minutes", "3", "--stream", stream, "--site", ".*", "--speed", "0")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	t0 = time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("logarchive-replay: %v: %s", err, errOut.String())
	}
	replay := time.Since(t0)
	info, err := streams.Get(ctx, js, stream)
	if err != nil {
		return err
	}
	if info.Messages != uint64(n) {
		return fmt.Errorf("the replay stream holds %d records, not %d", info.Messages, n)
	}
	jobRate := regexp.MustCompile(`\((\d+) records/s;`).FindStringSubmatch(errOut.String())
	if jobRate == nil {
		return fmt.Errorf("logarchive-replay said: %s", errOut.String())
	}
	rawRecords, err := rawPublish(ctx, c, records)
	if err != nil {
		return err
	}
	fmt.Printf(" replay_s=%.3f replay_rate=%.0f replay_job_rate=%s raw_records_s=%.3f raw_records_rate=%.0f\n",
		replay.Seconds(), float64(n)/replay.Seconds(), jobRate[1], rawRecords.Seconds(), float64(n)/rawRecords.Seconds())
	return nil
}

// rawPublish publishes msgs to a fresh stream with raw JetStream async
// publish (4,000 in flight) and returns the time until the last is
// acknowledged.
func rawPublish(ctx context.Context, c *client.Client, msgs [][]byte) (time.Duration, error) {
	js := c.JetStream()
	name := fmt.Sprintf("bench-floor-%d", time.Now().UnixNano())
	if _, err := streams.Add(ctx, js, streams.Config{Name: name}); err != nil {
		return 0, err
	}
	defer streams.Delete(ctx, js, name)
	subject := streams.Subject(name)
	pjs, err := jetstream.New(c.Conn(), jetstream.WithPublishAsyncMaxPending(4000))
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	for _, m := range msgs {
		// With 4,000 in flight a publish waits for an acknowledgement to
		// free a slot; the default wait (200 ms) fails the floor whenever
		// the server is slower than that on a busy machine, so it waits
		// as a writer does (bounded by the whole run's 5 minutes).
		if _, err := pjs.PublishAsync(subject, m, jetstream.WithStallWait(time.Minute)); err != nil {
			return 0, fmt.Errorf("raw publish: %w", err)
		}
	}
	select {
	case <-pjs.PublishAsyncComplete():
	case <-time.After(5 * time.Minute):
		return 0, fmt.Errorf("raw publish: timed out after 5 minutes")
	}
	return time.Since(t0), nil
}
