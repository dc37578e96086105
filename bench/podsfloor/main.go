// Command podsfloor is the floor bench/pods.sh measures "client pods
// --json" against: a minimal Go program that reads the same network
// configuration, connects to the same server and makes one request (the
// api-server's pods request), printing the answer.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

func main() {
	data, err := os.ReadFile(os.Getenv("FABRIC_NETWORK_CONFIG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var cfg struct {
		NATS struct {
			URLs     []string `json:"urls"`
			User     string   `json:"user"`
			Password string   `json:"password"`
		} `json:"nats"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	nc, err := nats.Connect(strings.Join(cfg.NATS.URLs, ","), nats.UserInfo(cfg.NATS.User, cfg.NATS.Password))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer nc.Close()
	msg, err := nc.Request("fabric.api.pods", nil, 10*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(msg.Data)
}
