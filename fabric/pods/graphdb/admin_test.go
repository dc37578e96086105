package graphdb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/arangodb/go-driver/v2/utils"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
)

// TestAdminEndpointsDriver: the endpoints a driver asks first, through
// go-driver v2's own calls, over HTTP/1.1 with basic auth and h2c with a
// JWT: the version with and without details (also at /_admin/version),
// the role, the mode, the availability probe and the key generators.
func TestAdminEndpointsDriver(t *testing.T) {
	url := serve(t, t.TempDir())
	ctx := context.Background()
	for transport, c := range clients(t, url, "root", "secret") {
		db, err := c.GetDatabase(ctx, "_system", nil)
		if err != nil {
			t.Fatalf("%s: %v", transport, err)
		}
		cases := []struct {
			name  string
			check func() error
		}{
			{"version", func() error {
				v, err := c.Version(ctx)
				if err == nil && (v.Server != "arango" || v.Version != graphdb.Version || v.License != "community" || v.Details != nil) {
					return fmt.Errorf("version without details: %+v", v)
				}
				return err
			}},
			{"version details", func() error {
				v, err := c.VersionWithOptions(ctx, &arangodb.GetVersionOptions{Details: utils.NewType(true)})
				if err != nil {
					return err
				}
				for k, want := range map[string]string{"v8-version": "none", "role": "SINGLE", "mode": "server",
					"server-version": graphdb.Version, "license": "community"} {
					if v.Details[k] != want {
						return fmt.Errorf("details[%q] = %v, want %q (details %v)", k, v.Details[k], want, v.Details)
					}
				}
				return nil
			}},
			{"admin version", func() error {
				v, err := c.HandleAdminVersion(ctx, nil)
				if err == nil && (v.Server != "arango" || v.Version != graphdb.Version) {
					return fmt.Errorf("/_admin/version: %+v", v)
				}
				return err
			}},
			{"role", func() error {
				role, err := c.ServerRole(ctx)
				if err == nil && role != arangodb.ServerRoleSingle {
					return fmt.Errorf("role %q, want %q", role, arangodb.ServerRoleSingle)
				}
				return err
			}},
			{"mode", func() error {
				mode, err := c.ServerMode(ctx)
				if err == nil && mode != arangodb.ServerModeDefault {
					return fmt.Errorf("mode %q", mode)
				}
				return err
			}},
			{"set mode default", func() error { return c.SetServerMode(ctx, arangodb.ServerModeDefault) }},
			{"set mode readonly refused", func() error {
				err := c.SetServerMode(ctx, arangodb.ServerModeReadOnly)
				if !shared.IsArangoErrorWithErrorNum(err, 9) {
					return fmt.Errorf("read-only mode: %v, want errorNum 9 (not implemented)", err)
				}
				if mode, err := c.ServerMode(ctx); err != nil || mode != arangodb.ServerModeDefault {
					return fmt.Errorf("mode after the refusal: %q %v", mode, err)
				}
				return nil
			}},
			{"availability", func() error { return c.CheckAvailability(ctx, url) }},
			{"key generators", func() error {
				kg, err := db.KeyGenerators(ctx)
				if err == nil && !reflect.DeepEqual(kg.KeyGenerators, []string{"traditional"}) {
					return fmt.Errorf("key generators %v", kg.KeyGenerators)
				}
				return err
			}},
		}
		for _, tc := range cases {
			t.Run(transport+"/"+tc.name, func(t *testing.T) {
				if err := tc.check(); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestAdminEndpointsHTTP: the same endpoints as raw HTTP, with the exact
// bodies and codes ArangoDB answers: the availability probe needs no
// credentials (the rest do) and tells nothing of which databases exist,
// and wrong methods, unknown databases and paths get ArangoDB's errors.
func TestAdminEndpointsHTTP(t *testing.T) {
	url := serve(t, t.TempDir())
	cases := []struct {
		method, path, body string
		auth               bool
		status             int
		want               map[string]any // the whole body, when set
		errorNum           int            // when the answer is an error
	}{
		{"GET", "/_admin/server/availability", "", false, 200, map[string]any{"error": false, "code": 200, "mode": "default"}, 0},
		{"GET", "/_db/_system/_admin/server/availability", "", false, 200, map[string]any{"error": false, "code": 200, "mode": "default"}, 0},
		{"POST", "/_admin/server/availability", "", false, 405, nil, 405},
		{"GET", "/_db/nowhere/_admin/server/availability", "", false, 200, map[string]any{"error": false, "code": 200, "mode": "default"}, 0},
		{"GET", "/_db/nowhere/_admin/server/role", "", true, 404, nil, 1228},
		{"GET", "/_admin/server/role", "", true, 200, map[string]any{"error": false, "code": 200, "role": "SINGLE", "mode": "default"}, 0},
		{"GET", "/_admin/server/role", "", false, 401, nil, 11},
		{"PUT", "/_admin/server/role", "{}", true, 405, nil, 405},
		{"GET", "/_admin/server/mode", "", true, 200, map[string]any{"error": false, "code": 200, "mode": "default"}, 0},
		{"PUT", "/_admin/server/mode", `{"mode":"default"}`, true, 200, map[string]any{"error": false, "code": 200, "mode": "default"}, 0},
		{"PUT", "/_admin/server/mode", `{"mode":"readonly"}`, true, 501, nil, 9},
		{"PUT", "/_admin/server/mode", `{"mode":"sideways"}`, true, 400, nil, 400},
		{"PUT", "/_admin/server/mode", `{"mode":1}`, true, 400, nil, 400},
		{"GET", "/_admin/version", "", true, 200, map[string]any{"server": "arango", "version": graphdb.Version, "license": "community"}, 0},
		{"GET", "/_api/version", "", true, 200, map[string]any{"server": "arango", "version": graphdb.Version, "license": "community"}, 0},
		{"GET", "/_api/version?details=false", "", true, 200, map[string]any{"server": "arango", "version": graphdb.Version, "license": "community"}, 0},
		{"GET", "/_api/version", "", false, 401, nil, 11},
		{"GET", "/_api/key-generators", "", true, 200, map[string]any{"keyGenerators": []any{"traditional"}}, 0},
		{"GET", "/_db/_system/_api/key-generators", "", true, 200, map[string]any{"keyGenerators": []any{"traditional"}}, 0},
		{"DELETE", "/_api/key-generators", "", true, 405, nil, 405},
		{"GET", "/_admin/server/nothing", "", true, 404, nil, 404},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, url+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.auth {
				req.SetBasicAuth("root", "secret")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			var got map[string]any
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("%d %q: not JSON: %v", resp.StatusCode, data, err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, data)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("content type %q", ct)
			}
			if tc.want != nil && !reflect.DeepEqual(got, asJSON(t, tc.want)) {
				t.Errorf("body %s, want %v", data, tc.want)
			}
			if tc.errorNum != 0 && (got["error"] != true || got["code"] != float64(tc.status) || got["errorNum"] != float64(tc.errorNum)) {
				t.Errorf("body %s, want error %d/%d", data, tc.status, tc.errorNum)
			}
		})
	}
}

// TestVersionDetails: details=true (and ArangoDB's other spellings of
// true) adds the details object, every value a string as ArangoDB sends
// them.
func TestVersionDetails(t *testing.T) {
	url := serve(t, t.TempDir())
	for _, q := range []string{"true", "1", "yes"} {
		req, _ := http.NewRequest("GET", url+"/_api/version?details="+q, nil)
		req.SetBasicAuth("root", "secret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Version string         `json:"version"`
			Details map[string]any `json:"details"`
		}
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if err != nil || v.Version != graphdb.Version || len(v.Details) == 0 {
			t.Fatalf("details=%s: %+v %v", q, v, err)
		}
		var keys []string
		for k, x := range v.Details {
			keys = append(keys, k)
			if _, ok := x.(string); !ok {
				t.Errorf("details[%q] = %v (%T), want a string", k, x, x)
			}
		}
		for _, k := range []string{"architecture", "platform", "server-version", "v8-version", "role", "mode", "license"} {
			if !slices.Contains(keys, k) {
				t.Errorf("details=%s: no %q in %v", q, k, keys)
			}
		}
	}
}

// asJSON is v as it reads back from JSON (numbers float64).
func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
