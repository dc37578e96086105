// Command kvfloor is the floor bench/artifacts.sh measures the dashboard
// module against: raw JetStream KV, N creates and N gets of the
// dashboard's JSON (its "name":"NAME" made unique), one bucket, keys
// unique to the run. It reads
// the same network configuration and appends its in-process seconds (the
// loop alone) to the file named last.
//
//	kvfloor N DOC.json SECONDS.txt
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kvfloor:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 4 {
		return fmt.Errorf("usage: kvfloor N DOC.json SECONDS.txt")
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil {
		return err
	}
	doc, err := os.ReadFile(os.Args[2])
	if err != nil {
		return err
	}
	data, err := os.ReadFile(os.Getenv("FABRIC_NETWORK_CONFIG"))
	if err != nil {
		return err
	}
	var cfg struct {
		NATS struct {
			URLs     []string `json:"urls"`
			User     string   `json:"user"`
			Password string   `json:"password"`
		} `json:"nats"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return err
	}
	nc, err := nats.Connect(strings.Join(cfg.NATS.URLs, ","), nats.UserInfo(cfg.NATS.User, cfg.NATS.Password))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx := context.Background()
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "bench_kvfloor", History: 10})
	if err != nil {
		return err
	}
	prefix := fmt.Sprintf("r%d", time.Now().UnixNano())
	text := string(doc)
	start := time.Now()
	for i := range n {
		name := fmt.Sprintf("%s_%d", prefix, i)
		value := []byte(strings.Replace(text, `"name":"NAME"`, `"name":"`+name+`"`, 1))
		if _, err := kv.Create(ctx, name, value); err != nil {
			return err
		}
		e, err := kv.Get(ctx, name)
		if err != nil {
			return err
		}
		if len(e.Value()) != len(value) {
			return fmt.Errorf("%s: got %d bytes back, put %d", name, len(e.Value()), len(value))
		}
	}
	secs := time.Since(start).Seconds()
	f, err := os.OpenFile(os.Args[3], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "%.3f\n", secs)
	return err
}
