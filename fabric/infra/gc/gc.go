// Package gc reclaims the data of a tenant that nothing points at: data is
// always stored before the record that points at it (a dataset's file, an
// object's content, a job's output), so a client or a server that dies in
// between leaves a blob no record names, or the chunks of an upload that
// never completed. A sweep removes those once they are older than a grace
// period, which keeps it clear of writes still going on.
package gc

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
)

// DefaultGrace is how old unreferenced data must be before a sweep
// removes it: far longer than the moment between an upload's end and
// its record, and than the pause between two chunks of a live upload.
const DefaultGrace = 15 * time.Minute

// Collect sweeps the tenant's object store: blobs that no dataset,
// bounded dataset, object, job, pack or bot package names (library files, under
// api.LibrariesFolder, are kept) and uploads that never completed,
// older than grace, are removed (only reported with dryRun).
func Collect(ctx context.Context, s *store.Store, grace time.Duration, dryRun bool) (api.GCReport, error) {
	r := api.GCReport{DryRun: dryRun, Blobs: []string{}}
	before, err := s.Size(ctx)
	if err != nil {
		return r, err
	}
	cutoff := time.Now().Add(-grace)
	// Blobs first, then records: a record written meanwhile names a blob
	// that is young, and young blobs are left alone.
	blobs, err := s.BlobInfos(ctx)
	if err != nil {
		return r, err
	}
	dangling, err := s.DanglingChunks(ctx)
	if err != nil {
		return r, err
	}
	named, err := referenced(ctx, s)
	if err != nil {
		return r, err
	}
	sort.Slice(blobs, func(i, j int) bool { return blobs[i].Path < blobs[j].Path })
	for _, b := range blobs {
		switch {
		case named[b.Path]:
		case strings.HasPrefix(b.Path, api.LibrariesFolder):
			// A library file is its own record (library upload).
		case b.ModTime.After(cutoff):
			r.Young++
		default:
			r.Blobs = append(r.Blobs, b.Path)
			r.BlobBytes += b.Size
			if !dryRun {
				if err := s.DeleteBlob(ctx, b.Path); err != nil {
					return r, err
				}
			}
		}
	}
	for _, d := range dangling {
		if d.Last.After(cutoff) {
			r.Young++
			continue
		}
		r.Uploads++
		r.Chunks += d.Chunks
		if !dryRun {
			if err := s.PurgeChunks(ctx, d.Subject); err != nil {
				return r, err
			}
		}
	}
	if !dryRun {
		after, err := s.Size(ctx)
		if err != nil {
			return r, err
		}
		if after < before {
			r.Freed = before - after
		}
	}
	return r, nil
}

// referenced returns the blob paths that records name.
func referenced(ctx context.Context, s *store.Store) (map[string]bool, error) {
	named := map[string]bool{}
	datasets, err := store.ListOf[api.Dataset](ctx, s, api.DatasetsBucket)
	if err != nil {
		return nil, err
	}
	for _, d := range datasets {
		named[d.Datafile] = true
	}
	bounded, err := store.ListOf[api.BoundedDataset](ctx, s, api.BoundedBucket)
	if err != nil {
		return nil, err
	}
	for _, b := range bounded {
		named[b.Datafile] = true
		for _, d := range b.Drafts {
			named[d] = true
		}
	}
	objects, err := store.ListOf[api.Object](ctx, s, api.ObjectRecordsBucket)
	if err != nil {
		return nil, err
	}
	for _, o := range objects {
		named[o.DataPath] = true
	}
	jobs, err := store.ListOf[api.Job](ctx, s, api.JobsBucket)
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		named[j.Output] = true
	}
	packs, err := store.ListOf[api.PackRecord](ctx, s, api.PacksBucket)
	if err != nil {
		return nil, err
	}
	for _, p := range packs {
		named[p.Blob] = true
	}
	botPackages, err := store.ListOf[api.BotPackageRecord](ctx, s, api.BotPackagesBucket)
	if err != nil {
		return nil, err
	}
	for _, p := range botPackages {
		named[p.Blob] = true
		named[p.Dist] = true
	}
	delete(named, "")
	return named, nil
}
