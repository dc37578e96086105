package eventgw

import (
	"encoding/json"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
)

// TestAppendEvent: the hand-written record is what encoding/json writes
// of api.Event, for events of every endpoint type.
func TestAppendEvent(t *testing.T) {
	for _, ev := range []api.Event{
		{Timestamp: "t", Received: "r", Endpoint: "e", Type: api.EndpointSyslogTCP, Source: "1.2.3.4:5", Host: "h", Severity: "err",
			Message: "a \"quoted\" <tag> & \u2028 \xff text\n", Raw: "<11>raw", Format: "rfc5424", Facility: "user", AppName: "app", ProcID: "42", MsgID: "ID"},
		{Timestamp: "t", Received: "r", Endpoint: "traps", Type: api.EndpointSNMPTrap, TrapOID: "1.3.6", Community: "public",
			Vars: map[string]string{"1.3.6.1.2": "eth1", "1.3.6.1.1": "x"}},
		{Timestamp: "t", Received: "r", Endpoint: "hook", Type: api.EndpointWebhook, Body: map[string]any{"n": 1.5, "b": []any{true, nil, "s"}}},
		{},
	} {
		got, err := appendEvent(nil, &ev)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(ev)
		if string(got) != string(want) {
			t.Errorf("appendEvent:\n got %s\nwant %s", got, want)
		}
	}
}
