package eventgw

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/syslog"
)

// TestAppendEvent: the hand-written record is what encoding/json writes
// of api.Event, for events of every endpoint type.
func TestAppendEvent(t *testing.T) {
	for _, ev := range []api.Event{
		{Timestamp: "t", Received: "r", Endpoint: "e", Type: api.EndpointSyslogTCP, Source: "1.2.3.4:5", Host: "h", Severity: "err",
			Message: "a \"quoted\" <tag> & \u2028 \xff text\n", Raw: "<11>raw", Format: "rfc5424", Facility: "user", AppName: "app", ProcID: "42", MsgID: "ID",
			StructuredData: map[string]map[string]string{"exampleSDID@32473": {"iut": "3", "eventSource": "Appl\"ication"}, "origin": {}, "a": nil}},
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

// TestSyslogStructuredData: an RFC 5424 message's STRUCTURED-DATA becomes
// the record's structured_data, each SD-ID's parameters, not only a part
// of raw.
func TestSyslogStructuredData(t *testing.T) {
	raw := `<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"][examplePriority@32473 class="high"] An application event`
	_, rows, err := parseSyslogRows(nil, api.InvokeBotRequest{Rows: []map[string]any{{"raw": raw}}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(rows[0]["structured_data"])
	want := `{"examplePriority@32473":{"class":"high"},"exampleSDID@32473":{"eventID":"1011","eventSource":"Application","iut":"3"}}`
	if string(got) != want {
		t.Errorf("structured_data %s, want %s", got, want)
	}
	if rows[0]["message"] != "An application event" {
		t.Errorf("message %q", rows[0]["message"])
	}
}

// FuzzSyslogRecord: whatever syslog message the gateway parses, its
// record (structured data and all) is what encoding/json writes of it.
func FuzzSyslogRecord(f *testing.F) {
	f.Add([]byte(`<165>1 2003-10-11T22:14:15.003Z h app - ID47 [a@1 x="1" y="\"q\""][b@2] msg`))
	f.Add([]byte(`<34>Oct 11 22:14:15 mymachine su: 'su root' failed`))
	f.Add([]byte(`<14>1 - - - - - [origin ip="10.0.0.1"]`))
	e := &endpoint{cfg: Config{Name: "e", Type: api.EndpointSyslogUDP}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := syslog.Parse(raw, time.Unix(1e9, 0))
		if err != nil {
			return
		}
		ev := syslogEvent(e, "127.0.0.1:1", raw, m, time.Unix(1e9, 0))
		got, err := appendEvent(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(ev)
		if string(got) != string(want) {
			t.Fatalf("record of %q:\n got %s\nwant %s", raw, got, want)
		}
	})
}
