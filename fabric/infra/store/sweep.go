package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// BlobInfo describes a stored blob.
type BlobInfo struct {
	Path    string
	Size    int64
	ModTime time.Time
}

// BlobInfos lists the blobs of the store (deleted ones left out).
func (s *Store) BlobInfos(ctx context.Context) ([]BlobInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	obs, err := s.objectStore(ctx)
	if err != nil {
		return nil, err
	}
	infos, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]BlobInfo, 0, len(infos))
	for _, i := range infos {
		out = append(out, BlobInfo{Path: i.Name, Size: int64(i.Size), ModTime: i.ModTime})
	}
	return out, nil
}

// Dangling is a run of stored chunks that no blob owns: what an upload
// left when its process died before the upload completed (the object
// store writes a blob's description after its last chunk).
type Dangling struct {
	// Subject holds the chunks.
	Subject string
	// Chunks is how many there are.
	Chunks uint64
	// Last is when the last of them was stored.
	Last time.Time
}

// DanglingChunks lists the chunk runs of the store that no blob owns. A
// run whose upload is still going on is listed too: the caller judges by
// Last.
func (s *Store) DanglingChunks(ctx context.Context) ([]Dangling, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	bucket := s.bucket
	owned := map[string]bool{}
	obs, err := s.objectStore(ctx)
	if err != nil {
		return nil, err
	}
	infos, err := obs.List(ctx, jetstream.ListObjectsShowDeleted())
	if err != nil && !errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, err
	}
	for _, i := range infos {
		owned[i.NUID] = true
	}
	stream, err := s.js.Stream(ctx, "OBJ_"+bucket)
	if err != nil {
		return nil, err
	}
	prefix := "$O." + bucket + ".C."
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(prefix+">"))
	if err != nil {
		return nil, err
	}
	var out []Dangling
	for subject, n := range info.State.Subjects {
		if owned[strings.TrimPrefix(subject, prefix)] {
			continue
		}
		d := Dangling{Subject: subject, Chunks: n}
		if m, err := stream.GetLastMsgForSubject(ctx, subject); err == nil {
			d.Last = m.Time
		}
		out = append(out, d)
	}
	return out, nil
}

// PurgeChunks removes the chunks stored under subject (a Dangling's).
func (s *Store) PurgeChunks(ctx context.Context, subject string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), Timeout)
	defer cancel()
	stream, err := s.js.Stream(ctx, "OBJ_"+s.bucket)
	if err != nil {
		return err
	}
	return stream.Purge(ctx, jetstream.WithPurgeSubject(subject))
}

// Size returns how many bytes the store's stream holds: every chunk and
// description of every blob.
func (s *Store) Size(ctx context.Context) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	obs, err := s.objectStore(ctx)
	if err != nil {
		return 0, err
	}
	status, err := obs.Status(ctx)
	if err != nil {
		return 0, err
	}
	return status.Size(), nil
}
