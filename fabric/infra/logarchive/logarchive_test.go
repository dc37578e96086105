package logarchive_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/logarchive"
	"github.com/fabricops/fabric/fabric/infra/tenant"
)

// TestArchive: a repository is added (once; bad names refused), three
// minutes of records are written and read back by time range, in order,
// sized and downloaded as stored, the names listed, and minutes past the
// retention deleted.
func TestArchive(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	st, err := tenant.New(nc).Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := logarchive.AddRepo(ctx, st, "edge", "logs", "127.0.0.1:4222", 7)
	if err != nil {
		t.Fatal(err)
	}
	if repo.Bucket == "" || repo.Prefix != "logs" || repo.RetentionDays != 7 {
		t.Errorf("repo %+v", repo)
	}
	if _, err := logarchive.AddRepo(ctx, st, "edge", "logs", "", 0); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("adding it again: %v", err)
	}
	for _, bad := range [][2]string{{"a b", "p"}, {"ok", "../up"}, {"", "p"}, {".hidden", "p"}} {
		if _, err := logarchive.AddRepo(ctx, st, bad[0], bad[1], "", 0); !errors.Is(err, logarchive.ErrName) {
			t.Errorf("AddRepo(%q, %q): %v", bad[0], bad[1], err)
		}
	}
	if _, err := logarchive.Open(ctx, st, "nope"); !errors.Is(err, logarchive.ErrNoRepo) {
		t.Errorf("opening a missing repo: %v", err)
	}
	a, err := logarchive.Open(ctx, st, "edge")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	for m := range 3 {
		var recs [][]byte
		for i := range 4 {
			recs = append(recs, fmt.Appendf(nil, `{"minute":%d,"i":%d}`, m, i))
		}
		path, err := a.WriteMinute(ctx, "syslog", start.Add(time.Duration(m)*time.Minute+30*time.Second), recs)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("logs/syslog/2026/11/25/10/%02d/", m); !strings.HasPrefix(path, want) || !strings.HasSuffix(path, ".gz") {
			t.Errorf("minute %d stored at %s, want %s<id>.gz", m, path, want)
		}
	}
	if _, err := a.WriteMinute(ctx, "traps", start, [][]byte{[]byte(`{"t":1}`)}); err != nil {
		t.Fatal(err)
	}
	names, err := a.Names(ctx)
	if err != nil || strings.Join(names, ",") != "syslog,traps" {
		t.Errorf("names %v %v", names, err)
	}
	all, err := a.Files(ctx, "syslog", start, 15*time.Minute)
	if err != nil || len(all) != 3 {
		t.Fatalf("files of 15 minutes: %v %v", all, err)
	}
	var got []string
	if err := a.Read(ctx, all, func(r []byte) error { got = append(got, string(r)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 12 || got[0] != `{"minute":0,"i":0}` || got[11] != `{"minute":2,"i":3}` {
		t.Errorf("read %d records: %v", len(got), got)
	}
	some, _ := a.Files(ctx, "syslog", start.Add(time.Minute+10*time.Second), time.Minute)
	if len(some) != 1 || some[0].Minute != start.Add(time.Minute) || some[0].Size == 0 {
		t.Errorf("the second minute: %+v", some)
	}
	var buf bytes.Buffer
	if err := a.Download(ctx, some[0], &buf); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(zr)
	if !strings.HasPrefix(string(text), `{"minute":1,"i":0}`+"\n") {
		t.Errorf("downloaded %q", text)
	}
	// Past the retention of 7 days: the minutes of 2026-11-25 go on
	// 2026-12-03, not on 2026-12-01.
	if n, err := a.Expire(ctx, start.Add(6*24*time.Hour)); err != nil || n != 0 {
		t.Errorf("expired after 6 days: %d %v", n, err)
	}
	if n, err := a.Expire(ctx, start.Add(8*24*time.Hour)); err != nil || n != 4 {
		t.Errorf("expired after 8 days: %d %v", n, err)
	}
	if names, _ := a.Names(ctx); len(names) != 0 {
		t.Errorf("names after expiry: %v", names)
	}
	repos, err := logarchive.Repos(ctx, st)
	if err != nil || len(repos) != 1 || repos[0].Name != "edge" {
		t.Errorf("repos %+v %v", repos, err)
	}
}
