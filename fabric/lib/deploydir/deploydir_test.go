package deploydir

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = "../../../examples/upgrade/deployment-8.0.0"

func read(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sample, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// twice runs an edit and checks that a second run changes nothing.
func twice(t *testing.T, data []byte, edit func([]byte) ([]byte, bool, error)) []byte {
	t.Helper()
	out, changed, err := edit(data)
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	again, changed, err := edit(out)
	if err != nil || changed || !bytes.Equal(again, out) {
		t.Fatalf("a second run changed %v (err %v):\n%s", changed, err, again)
	}
	return out
}

func TestValuesEdits(t *testing.T) {
	v := read(t, Values)
	out := twice(t, v, AddGeoDR)
	s := string(out)
	if i, j := strings.Index(s, "\nrda_api_server:"), strings.Index(s, "\ngeodr_api_server:"); i < 0 || j < i || strings.Index(s, "\nrda_registry:") < j {
		t.Fatalf("geodr_api_server is not right after rda_api_server:\n%s", s)
	}
	for _, c := range []string{"# platform VM 1", "# Workers run the pipelines", "# stale instances are purged"} {
		if !strings.Contains(s, c) {
			t.Errorf("comment %q lost", c)
		}
	}
	out = twice(t, out, SetFSM)
	if !strings.Contains(string(out), "PURGE_STALE_INSTANCES_DAYS: 90 # stale") || !strings.Contains(string(out), "FSM_INSTANCE_CACHE_SIZE: 2000") {
		t.Errorf("FSM:\n%s", out)
	}
	out = twice(t, out, SetIngesterAndConsumer)
	out = twice(t, out, AddPtrace)
	out = twice(t, out, func(d []byte) ([]byte, bool, error) { return RemoveServices(d, Removed...) })
	out = twice(t, out, func(d []byte) ([]byte, bool, error) { return SetProxy(d, "http://proxy:3128", "") })
	if !strings.Contains(string(out), "no_proxy: localhost,127.0.0.1,192.168.10.11,") {
		t.Errorf("no_proxy:\n%s", out)
	}
	if _, _, err := SetFSM([]byte("a: [")); err == nil {
		t.Error("bad YAML accepted")
	}
}

func TestPolicyEncryption(t *testing.T) {
	key := bytes.Repeat([]byte{7}, KeySize)
	e, err := NewEncrypter(key)
	if err != nil {
		t.Fatal(err)
	}
	p := read(t, Policy)
	out := twice(t, p, func(d []byte) ([]byte, bool, error) { return EncryptCredentials(d, e.Encrypt) })
	var m struct {
		Users       []struct{ User, Password string }
		ObjectStore struct {
			AccessKey string `json:"access_key"`
			SecretKey string `json:"secret_key"`
		} `json:"object_store"`
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if m.Users[0].User != "admin@acme.example" || m.ObjectStore.AccessKey != "rdafminio" {
		t.Errorf("a name was encrypted: %+v", m)
	}
	if got, err := e.Decrypt(m.Users[0].Password); err != nil || got != "Adm1n-Passw0rd" {
		t.Errorf("password: %q %v", got, err)
	}
	if got, err := e.Decrypt(m.ObjectStore.SecretKey); err != nil || got != "m1n10-S3cret" {
		t.Errorf("secret_key: %q %v", got, err)
	}
	if strings.Count(string(out), "\n") != strings.Count(string(p), "\n") {
		t.Error("the layout changed")
	}
}

func TestHAProxyAndNATSAndStream(t *testing.T) {
	h := twice(t, read(t, HAProxy), AddWebhookBackend)
	secs, err := ParseHAProxy(h)
	if err != nil {
		t.Fatal(err)
	}
	last := secs[len(secs)-1]
	want := []string{"mode http", "balance roundrobin", "option httpchk GET /healthcheck", "cookie SERVERID insert indirect nocache",
		"server webhook-1 192.168.10.51:8888 check cookie webhook-1", "server webhook-2 192.168.10.52:8888 check cookie webhook-2"}
	if last.Kind != "backend" || last.Name != "webhook" || strings.Join(last.Body, "|") != strings.Join(want, "|") {
		t.Errorf("webhook backend: %+v", last)
	}
	n := twice(t, read(t, NATS), RemoveJetStream)
	if strings.Contains(strings.ToLower(string(n)), "jetstream") || !strings.Contains(string(n), "cluster {") || !strings.Contains(string(n), "server_name: rdaf-nats-1\n") {
		t.Errorf("nats.conf:\n%s", n)
	}
	s := twice(t, read(t, AlertStream), func(d []byte) ([]byte, bool, error) { return RemoveKeys(d, StreamPurgeKeys...) })
	var m map[string]any
	if err := json.Unmarshal(s, &m); err != nil || m["retention_days"] != nil || m["index_name"] != "oia-alerts-payload" {
		t.Errorf("stream: %v %v\n%s", m, err, s)
	}
}

func TestImageTagsAndVersions(t *testing.T) {
	infra := twice(t, read(t, Infra), func(d []byte) ([]byte, bool, error) { return SetImageTags(d, InfraTag) })
	plat := twice(t, read(t, Platform), func(d []byte) ([]byte, bool, error) { return SetImageTags(d, PlatformTag) })
	v, err := ReadVersions(read(t, Infra), read(t, Platform))
	if err != nil || v != (Versions{Platform: "8.0.0", Infra: "1.0.3", LoadBalancer: "1.0.3.3"}) {
		t.Errorf("before: %+v %v", v, err)
	}
	v, err = ReadVersions(infra, plat)
	if err != nil || v != (Versions{Platform: "8.1.0.1", Infra: "1.0.4", LoadBalancer: "1.0.4"}) {
		t.Errorf("after: %+v %v", v, err)
	}
	if !strings.Contains(string(infra), "minio:"+ObjectStoreTo) {
		t.Errorf("object store tag:\n%s", infra)
	}
}

func TestRemoveKeysEdges(t *testing.T) {
	for in, want := range map[string]string{
		`{"retention_days": 1, "a": 2}`:                                        `{"a": 2}`,
		`{"a": 2, "retention_days": 1}`:                                        `{"a": 2}`,
		`{"retention_days": 1, "retention_purge_extra_filter": "x", "a": [1]}`: `{"a": [1]}`,
		`{"retention_days": 1}`:                                                `{}`,
	} {
		out, _, err := RemoveKeys([]byte(in), StreamPurgeKeys...)
		if err != nil || string(out) != want {
			t.Errorf("%s: %s %v, want %s", in, out, err, want)
		}
	}
}
