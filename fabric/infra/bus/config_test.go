package bus

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content, err string
	}{
		{"ok", `{"tenant": "a", "nats": {"urls": ["nats://h:4222"], "user": "a", "password": "p"}}`, ""},
		{"creds", `{"tenant": "a", "nats": {"urls": ["tls://h:4222"], "creds_file": "/x.creds", "tls": {"ca_file": "/ca.pem"}}}`, ""},
		{"no tenant", `{"nats": {"urls": ["nats://h:4222"]}}`, `"tenant" is missing`},
		{"no urls", `{"tenant": "a", "nats": {}}`, `"nats.urls" lists no server`},
		{"no scheme", `{"tenant": "a", "nats": {"urls": ["h:4222"]}}`, "has no scheme"},
		{"two credentials", `{"tenant": "a", "nats": {"urls": ["nats://h:1"], "user": "a", "nkey_seed": "S"}}`, "give one form of credentials"},
		{"syntax", "{\n\"tenant\": \"a\",\n}", "is malformed: line 3"},
		{"unknown field", `{"tenant": "a", "nats": {"urls": ["nats://h:1"]}, "x": 1}`, `unknown field "x"`},
		{"empty", ``, "is malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name+".json")
			os.WriteFile(p, []byte(tt.content), 0o600)
			c, err := LoadConfig(p)
			if tt.err == "" {
				if err != nil || c.Tenant != "a" {
					t.Fatalf("%v %+v", err, c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, tt.err)
			}
		})
	}
	if _, err := LoadConfig(filepath.Join(dir, "none.json")); !errors.Is(err, ErrNoConfig) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestEnvOverridesAndSave(t *testing.T) {
	dir := t.TempDir()
	c := &Config{Tenant: "a", NATS: NATSConfig{URLs: []string{"nats://h:1"}, User: "u", Password: "secret"}}
	p := filepath.Join(dir, "sub", "c.json")
	if err := c.Save(p); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	t.Setenv("FABRIC_USER", "other")
	t.Setenv("FABRIC_PASSWORD", "pw2")
	got, err := LoadConfig(p)
	if err != nil || got.NATS.User != "other" || got.NATS.Password != "pw2" {
		t.Fatalf("%+v %v", got, err)
	}
	if r := got.Redacted(); r.NATS.Password != "<redacted>" || got.NATS.Password != "pw2" {
		t.Fatalf("Redacted must copy: %+v", r)
	}
	t.Setenv("FABRIC_NETWORK_CONFIG", "/elsewhere.json")
	if ConfigPath(dir) != "/elsewhere.json" {
		t.Fatal("FABRIC_NETWORK_CONFIG must win")
	}
}

func TestValidTenantName(t *testing.T) {
	for name, ok := range map[string]bool{"a": true, "acme-1": true, "a_b": true, "9x": true,
		"": false, "A": false, "-a": false, "_a": false, "a b": false, "a.b": false, strings.Repeat("a", 64): false} {
		if err := ValidTenantName(name); (err == nil) != ok {
			t.Errorf("ValidTenantName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}

// FuzzLoadConfig checks that no file content panics the loader and that an
// accepted configuration validates.
func FuzzLoadConfig(f *testing.F) {
	f.Add(`{"tenant": "a", "nats": {"urls": ["nats://h:4222"], "user": "a", "password": "p"}}`)
	f.Add(`{"tenant": 1}`)
	f.Add(`[`)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content string) {
		p := filepath.Join(dir, "c.json")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Skip()
		}
		c, err := LoadConfig(p)
		if err == nil && c.Validate() != nil {
			t.Fatalf("accepted an invalid configuration: %+v", c)
		}
	})
}
