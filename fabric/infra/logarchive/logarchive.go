// Package logarchive keeps a tenant's log archives (SPEC 2.13, 4.12): a
// repository is an object store bucket of the tenant (its record, in KV,
// names the bucket, the object prefix and the retention), and an archive
// of a repository is a name (a stream's, as a rule) under which minutes
// of records are kept as gzipped JSON-lines objects at
// <prefix>/<name>/YYYY/MM/DD/HH/MM/<id>.gz, the layout package
// fabric/lib/logarchive merges. Records are read back by time range,
// sized, and deleted minute by minute when older than the retention.
package logarchive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
)

// ReposBucket holds the repository records, key: the repository's name.
const ReposBucket = "fabric_logarchive_repos"

// Errors of the archives.
var (
	ErrNoRepo = errors.New("no log archive repository")
	ErrName   = errors.New("a repository, prefix or archive name is letters, digits, '-', '_' and '.', not starting with '.'")
)

// Repo is a repository's record (logarchive-repos: Repository Name,
// Endpoint, Bucket Name, Object Prefix).
type Repo struct {
	Name          string `json:"name"`
	Endpoint      string `json:"endpoint"`
	Bucket        string `json:"bucket"`
	Prefix        string `json:"prefix"`
	RetentionDays int    `json:"retention_days"` // 0: not managed
	Created       string `json:"created"`
	// Streams are the streams the leading scheduler archives into the
	// repository, each under its own name.
	Streams []string `json:"streams,omitempty"`
}

// checkName checks a repository, prefix or archive name: it becomes a
// bucket name and a path element.
func checkName(s string) error {
	if s == "" || len(s) > 64 || s[0] == '.' {
		return ErrName
	}
	for _, r := range s {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '-' || r == '_' || r == '.') {
			return ErrName
		}
	}
	return nil
}

// AddRepo adds a repository and makes its bucket; endpoint is the object
// store's address as the tenant's network configuration names it.
func AddRepo(ctx context.Context, st *store.Store, name, prefix, endpoint string, retentionDays int, streams ...string) (Repo, error) {
	if err := checkName(name); err != nil {
		return Repo{}, fmt.Errorf("repository %q: %w", name, err)
	}
	if err := checkName(prefix); err != nil {
		return Repo{}, fmt.Errorf("prefix %q: %w", prefix, err)
	}
	if retentionDays < 0 {
		return Repo{}, fmt.Errorf("retention of %d days: not a number of days", retentionDays)
	}
	r := Repo{Name: name, Endpoint: endpoint, Bucket: "logarchive_" + strings.ReplaceAll(name, ".", "_"), Prefix: prefix,
		RetentionDays: retentionDays, Created: api.Timestamp(time.Now()), Streams: streams}
	for _, s := range streams {
		if err := checkName(s); err != nil {
			return Repo{}, fmt.Errorf("stream %q: %w", s, err)
		}
	}
	if _, err := st.Bucket(ctx, r.Bucket); err != nil {
		return Repo{}, err
	}
	if err := st.Create(ctx, ReposBucket, store.Key(name), r); err != nil {
		if errors.Is(err, store.ErrExists) {
			return Repo{}, fmt.Errorf("log archive repository %q exists already", name)
		}
		return Repo{}, err
	}
	return r, nil
}

// Repos returns the repositories, by name.
func Repos(ctx context.Context, st *store.Store) ([]Repo, error) {
	raws, err := st.List(ctx, ReposBucket)
	if err != nil {
		return nil, err
	}
	out := []Repo{}
	for _, raw := range raws {
		var r Repo
		if err := json.Unmarshal(raw, &r); err == nil {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Archive is an open repository.
type Archive struct {
	Repo    Repo
	objects *store.Store
}

// Open opens the repository name.
func Open(ctx context.Context, st *store.Store, name string) (*Archive, error) {
	var r Repo
	if _, err := st.Get(ctx, ReposBucket, store.Key(name), &r); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("%w named %q", ErrNoRepo, name)
		}
		return nil, err
	}
	objects, err := st.Bucket(ctx, r.Bucket)
	if err != nil {
		return nil, err
	}
	return &Archive{Repo: r, objects: objects}, nil
}

// minuteDir is the folder of an archive's minute: <prefix>/<name>/YYYY/MM/DD/HH/MM/.
func (a *Archive) minuteDir(name string, minute time.Time) string {
	return a.Repo.Prefix + "/" + name + "/" + minute.UTC().Format("2006/01/02/15/04") + "/"
}

// WriteMinute stores records (JSON objects, one per element) as one
// gzipped JSON-lines object of the minute they belong to.
func (a *Archive) WriteMinute(ctx context.Context, name string, minute time.Time, records [][]byte) (string, error) {
	if err := checkName(name); err != nil {
		return "", fmt.Errorf("archive %q: %w", name, err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for _, r := range records {
		zw.Write(r)
		zw.Write([]byte{'\n'})
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	path := a.minuteDir(name, minute) + strconv.FormatInt(time.Now().UnixNano(), 36) + ".gz"
	_, err := a.objects.PutBlob(ctx, path, &buf)
	return path, err
}

// File is an archive's object: its path, minute and size.
type File struct {
	Path   string    `json:"path"`
	Minute time.Time `json:"minute"`
	Size   int64     `json:"size"`
}

// files returns the objects of the archives (of name only, when given),
// by path.
func (a *Archive) files(ctx context.Context, name string) ([]File, error) {
	infos, err := a.objects.BlobInfos(ctx)
	if err != nil {
		return nil, err
	}
	var out []File
	for _, info := range infos {
		rest, ok := strings.CutPrefix(info.Path, a.Repo.Prefix+"/")
		if !ok {
			continue
		}
		parts := strings.Split(rest, "/")
		if len(parts) != 7 || name != "" && parts[0] != name {
			continue
		}
		m, err := time.Parse("2006/01/02/15/04", strings.Join(parts[1:6], "/"))
		if err != nil {
			continue
		}
		out = append(out, File{Path: info.Path, Minute: m, Size: info.Size})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Names returns the names archived in the repository.
func (a *Archive) Names(ctx context.Context) ([]string, error) {
	fs, err := a.files(ctx, "")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []string{}
	for _, f := range fs {
		name := strings.SplitN(strings.TrimPrefix(f.Path, a.Repo.Prefix+"/"), "/", 2)[0]
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out, nil
}

// Files returns the objects of archive name whose minute is in [from,
// from+span), by minute.
func (a *Archive) Files(ctx context.Context, name string, from time.Time, span time.Duration) ([]File, error) {
	fs, err := a.files(ctx, name)
	if err != nil {
		return nil, err
	}
	from = from.UTC().Truncate(time.Minute)
	var out []File
	for _, f := range fs {
		if !f.Minute.Before(from) && f.Minute.Before(from.Add(span)) {
			out = append(out, f)
		}
	}
	return out, nil
}

// Read calls fn with each record of files, in order.
func (a *Archive) Read(ctx context.Context, files []File, fn func(record []byte) error) error {
	for _, f := range files {
		if err := a.readFile(ctx, f, fn); err != nil {
			return err
		}
	}
	return nil
}

func (a *Archive) readFile(ctx context.Context, f File, fn func([]byte) error) error {
	r, _, err := a.objects.GetBlob(ctx, f.Path)
	if err != nil {
		return err
	}
	defer r.Close()
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("%s: %v", f.Path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			if err := fn(line); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		return fmt.Errorf("%s: %v", f.Path, err)
	}
	return nil
}

// Download writes a file's content (gzipped, as stored) to w.
func (a *Archive) Download(ctx context.Context, f File, w io.Writer) error {
	r, _, err := a.objects.GetBlob(ctx, f.Path)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(w, r)
	return err
}

// Expire deletes the objects of minutes older than the repository's
// retention (none when it is not managed) and returns how many.
func (a *Archive) Expire(ctx context.Context, now time.Time) (int, error) {
	if a.Repo.RetentionDays == 0 {
		return 0, nil
	}
	fs, err := a.files(ctx, "")
	if err != nil {
		return 0, err
	}
	cutoff := now.UTC().Add(-time.Duration(a.Repo.RetentionDays) * 24 * time.Hour)
	n := 0
	for _, f := range fs {
		if f.Minute.Add(time.Minute).Before(cutoff) {
			if err := a.objects.DeleteBlob(ctx, f.Path); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
