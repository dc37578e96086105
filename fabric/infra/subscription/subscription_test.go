package subscription_test

import (
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/infra/subscription"
)

// TestCheckTarget: what a target may be, and the field each refusal
// names.
func TestCheckTarget(t *testing.T) {
	tests := []struct {
		name   string
		target subscription.Target
		err    string // "" when accepted
	}{
		{"webhook", subscription.Target{Type: "webhook", URL: "https://hooks.example.test/x", Secret: "k"}, ""},
		{"plain http", subscription.Target{Type: "webhook", URL: "http://127.0.0.1:8080/"}, ""},
		{"stream", subscription.Target{Type: "stream", Stream: "copies"}, ""},
		{"no url", subscription.Target{Type: "webhook"}, "needs url"},
		{"ftp", subscription.Target{Type: "webhook", URL: "ftp://x/"}, "target.url"},
		{"no host", subscription.Target{Type: "webhook", URL: "https:///x"}, "target.url"},
		{"credentials", subscription.Target{Type: "webhook", URL: "https://u:p@x/"}, "credentials"},
		{"bad ca", subscription.Target{Type: "webhook", URL: "https://x/", CA: "not a PEM"}, "target.ca: no PEM certificate"},
		{"webhook with stream", subscription.Target{Type: "webhook", URL: "https://x/", Stream: "s"}, "stream target's"},
		{"no stream", subscription.Target{Type: "stream"}, "needs stream"},
		{"system stream", subscription.Target{Type: "stream", Stream: "fabric_gateway_errors"}, "system stream"},
		{"own stream", subscription.Target{Type: "stream", Stream: "events"}, "own stream"},
		{"stream with url", subscription.Target{Type: "stream", Stream: "s", URL: "https://x/"}, "webhook's"},
		{"email", subscription.Target{Type: "email", To: []string{"a@b.test"}}, "no mail relay"},
		{"pigeon", subscription.Target{Type: "pigeon"}, "target.type"},
	}
	for _, tc := range tests {
		err := subscription.CheckTarget(tc.target, "events")
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.err)
		}
	}
}

// TestConsumerName: any name gives a valid, stable consumer name of its
// own.
func TestConsumerName(t *testing.T) {
	a, b := subscription.ConsumerName("a b/c.>"), subscription.ConsumerName("a b/c.*")
	if a == b || a != subscription.ConsumerName("a b/c.>") || len(a) > 64 || strings.ContainsAny(a, " ./*>") {
		t.Errorf("consumer names %q, %q", a, b)
	}
}
