package deploydir

import (
	"bytes"
	"encoding/json"
	"testing"
)

func FuzzHAProxy(f *testing.F) {
	f.Add([]byte("global\n    daemon\nbackend b\n    server webhook-1 10.0.0.1:7443 check\n"))
	f.Add([]byte("# c\nfrontend\n"))
	f.Add([]byte("x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, changed, err := AddWebhookBackend(data)
		if err != nil || !changed {
			return
		}
		if _, err := ParseHAProxy(out); err != nil {
			t.Fatalf("the result does not parse: %v", err)
		}
		if again, c, err := AddWebhookBackend(out); err != nil || c || !bytes.Equal(again, out) {
			t.Fatalf("a second edit changed it (%v)", err)
		}
	})
}

func FuzzNATS(f *testing.F) {
	f.Add([]byte("port: 4222\njetstream {\n  store_dir: \"/x\" # }\n}\ncluster { routes: [a, b] }\n"))
	f.Add([]byte("jetstream: enabled\n"))
	f.Add([]byte("a { b: '}' }\n// jetstream {\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, changed, err := RemoveJetStream(data)
		if err != nil {
			return
		}
		if !changed && !bytes.Equal(out, data) {
			t.Fatal("unchanged, but other bytes")
		}
		if len(out) > len(data) {
			t.Fatal("the result grew")
		}
	})
}

func FuzzPolicy(f *testing.F) {
	f.Add([]byte(`{"users": [{"user": "a", "password": "p"}], "x": {"secret": "s", "n": [1, {"token": "t"}]}}`))
	f.Add([]byte(`{"password": 3, "secret": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		enc := func(s string) (string, error) { return EncPrefix + "x", nil }
		out, changed, err := EncryptCredentials(data, enc)
		if err != nil || !changed {
			return
		}
		if json.Valid(data) && !json.Valid(out) {
			t.Fatalf("valid JSON made invalid: %s", out)
		}
		if again, c, err := EncryptCredentials(out, enc); err != nil || c || !bytes.Equal(again, out) {
			t.Fatalf("a second run changed it: %s (%v)", again, err)
		}
	})
}

func FuzzRemoveKeys(f *testing.F) {
	f.Add([]byte(`{"retention_days": 1, "a": {"retention_days": 2}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, changed, err := RemoveKeys(data, StreamPurgeKeys...)
		if err != nil || !changed {
			return
		}
		if json.Valid(data) && !json.Valid(out) {
			t.Fatalf("valid JSON made invalid: %s -> %s", data, out)
		}
	})
}

// FuzzValues: the edits of values.yaml never panic, and an edit made
// once changes nothing the second time.
func FuzzValues(f *testing.F) {
	f.Add([]byte("rda_api_server:\n  hosts: [a]\nrda_fsm:\n  environment: {X: 1}\nrda_alert_ingester: {}\nrda_event_consumer: {}\nrda_worker: {hosts: [b]}\n"))
	f.Add([]byte("rda_api_server: 3\n"))
	f.Add([]byte("- a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		edits := []func([]byte) ([]byte, bool, error){AddGeoDR, SetFSM, SetIngesterAndConsumer, AddPtrace,
			func(d []byte) ([]byte, bool, error) { return SetProxy(d, "http://p:1", "") },
			func(d []byte) ([]byte, bool, error) { return RemoveServices(d, Removed...) }}
		for _, edit := range edits {
			out, changed, err := edit(data)
			if err != nil || !changed {
				continue
			}
			if again, c, err := edit(out); err != nil || c || !bytes.Equal(again, out) {
				t.Fatalf("a second edit changed it (%v):\n%s\n---\n%s", err, out, again)
			}
		}
	})
}
