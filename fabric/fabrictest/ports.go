package fabrictest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Ports returns n ports of 127.0.0.1 free a moment ago on network ("tcp"
// or "udp"), for a listener a test must name before it starts (an
// endpoint's port, a cluster's routes). They are drawn below the kernel's
// ephemeral range (ip_local_port_range), which the kernel never hands out
// by itself: a port of that range, free when probed, can be given to
// another test's connection before the listener binds it.
func Ports(t testing.TB, network string, n int) []int {
	t.Helper()
	low, high := 20000, 32000
	if data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(data)); len(f) == 2 {
			if lo, err := strconv.Atoi(f[0]); err == nil && lo > 3024 {
				low, high = max(1024, lo-12000), lo
			}
		}
	}
	var ports []int
	var closers []func() error
	defer func() {
		for _, c := range closers {
			_ = c()
		}
	}()
	for tries := 0; len(ports) < n && tries < 1000; tries++ {
		addr := fmt.Sprintf("127.0.0.1:%d", low+rand.IntN(high-low))
		switch network {
		case "udp":
			pc, err := net.ListenPacket("udp", addr)
			if err != nil {
				continue
			}
			closers = append(closers, pc.Close)
			ports = append(ports, pc.LocalAddr().(*net.UDPAddr).Port)
		default:
			l, err := net.Listen("tcp", addr)
			if err != nil {
				continue
			}
			closers = append(closers, l.Close)
			ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		}
	}
	if len(ports) < n {
		t.Fatalf("no %d free %s ports below the ephemeral range", n, network)
	}
	return ports
}
