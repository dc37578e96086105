// Command eventsload is bench/events.sh's load and floor: it sends N
// syslog messages (RFC 5424, about 150 bytes) over one TCP connection to
// the local fabric's syslog-tcp endpoint and times them until the
// endpoint's stream holds them all (ingest); then it publishes the same
// messages to a fresh stream with raw JetStream async publish and times
// them until the last is acknowledged (the floor). It prints
// name=value pairs: ingest_s, ingest_rate, raw_s, raw_rate.
//
//	eventsload N
package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/infra/bus"
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
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: eventsload N")
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

	// The floor: raw JetStream async publish of the same messages.
	name := fmt.Sprintf("bench-floor-%d", time.Now().UnixNano())
	if _, err := streams.Add(ctx, js, streams.Config{Name: name}); err != nil {
		return err
	}
	defer streams.Delete(ctx, js, name)
	subject := streams.Subject(name)
	pjs, err := jetstream.New(c.Conn(), jetstream.WithPublishAsyncMaxPending(4000))
	if err != nil {
		return err
	}
	t0 = time.Now()
	for _, m := range msgs {
		if _, err := pjs.PublishAsync(subject, m); err != nil {
			return err
		}
	}
	select {
	case <-pjs.PublishAsyncComplete():
	case <-time.After(5 * time.Minute):
		return fmt.Errorf("raw publish: timed out after 5 minutes")
	}
	raw := time.Since(t0)
	fmt.Printf("ingest_s=%.3f ingest_rate=%.0f raw_s=%.3f raw_rate=%.0f\n", ingest.Seconds(), float64(n)/ingest.Seconds(), raw.Seconds(), float64(n)/raw.Seconds())
	return nil
}
