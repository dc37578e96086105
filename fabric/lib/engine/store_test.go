package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// memStore is an in-memory Store that records the dataset names it sees.
type memStore struct {
	mu       sync.Mutex
	datasets map[string]*frame.Frame
	objects  map[string][]byte // folder + "/" + name
	lists    map[string][]string
	files    map[string]*frame.Frame
	touched  []string // dataset names loaded, saved or deleted
}

func newMemStore() *memStore {
	return &memStore{datasets: map[string]*frame.Frame{}, objects: map[string][]byte{},
		lists: map[string][]string{}, files: map[string]*frame.Frame{}}
}

func (s *memStore) touch(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.touched = append(s.touched, name)
}

func (s *memStore) LoadDataset(ctx context.Context, name string) (*frame.Frame, error) {
	s.touch(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.datasets[name]
	if !ok {
		return nil, fmt.Errorf("dataset %s: %w", name, ErrNotFound)
	}
	return f, nil
}

func (s *memStore) SaveDataset(ctx context.Context, name string, f *frame.Frame) error {
	s.touch(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.datasets[name] = f
	return nil
}

func (s *memStore) DeleteDataset(ctx context.Context, name string) error {
	s.touch(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.datasets[name]; !ok {
		return ErrNotFound
	}
	delete(s.datasets, name)
	return nil
}

func (s *memStore) PutObject(ctx context.Context, folder, name string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects[folder+"/"+name] = append([]byte(nil), data...)
	return nil
}

func (s *memStore) GetObject(ctx context.Context, folder, name string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.objects[folder+"/"+name]
	if !ok {
		return nil, ErrNotFound
	}
	return d, nil
}

func (s *memStore) ListObjects(ctx context.Context, folder string) ([]ObjectInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ObjectInfo
	for k, d := range s.objects {
		f, n, _ := strings.Cut(k, "/")
		if folder == "" || f == folder {
			out = append(out, ObjectInfo{Folder: f, Name: n, Size: int64(len(d)), FileType: "data",
				SavedTime: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Folder+out[i].Name < out[j].Folder+out[j].Name })
	return out, nil
}

func (s *memStore) DeleteObject(ctx context.Context, folder, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[folder+"/"+name]; !ok {
		return ErrNotFound
	}
	delete(s.objects, folder+"/"+name)
	return nil
}

func (s *memStore) SavedList(ctx context.Context, name string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.lists[name]
	if !ok {
		return nil, ErrNotFound
	}
	return l, nil
}

func (s *memStore) ReadFile(ctx context.Context, path string) (*frame.Frame, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[path]
	if !ok {
		return nil, fmt.Errorf("open %s: %w", path, ErrNotFound)
	}
	return f, nil
}

// mkFrame builds a frame with frame.FromRows.
func mkFrame(t testing.TB, cols []string, rows ...[]any) *frame.Frame {
	t.Helper()
	f, err := frame.FromRows(cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// dump renders a frame for comparisons: a header of name:dtype, then one
// line per row, values separated by '|', nulls as ~.
func dump(f *frame.Frame) string {
	var b strings.Builder
	var hs []string
	for _, d := range f.DTypes() {
		hs = append(hs, d.Column+":"+d.DType)
	}
	b.WriteString(strings.Join(hs, ","))
	for i := 0; i < f.NumRows(); i++ {
		b.WriteByte('\n')
		var vs []string
		for _, v := range f.Row(i) {
			if v == nil {
				vs = append(vs, "~")
			} else {
				vs = append(vs, str(v))
			}
		}
		b.WriteString(strings.Join(vs, "|"))
	}
	return b.String()
}

// runText parses and runs a pipeline.
func runText(t testing.TB, e *Engine, text string) (*frame.Frame, error) {
	t.Helper()
	steps, err := ParseText(text)
	if err != nil {
		t.Fatalf("ParseText: %v", err)
	}
	return e.Run(context.Background(), steps)
}
