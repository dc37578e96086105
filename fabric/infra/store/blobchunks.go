package store

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// chunkReader reads a blob at any offset by fetching the chunks that hold
// the bytes asked for, by their sequence in the object store's stream
// (direct gets, several at once), without the rest of the blob. It
// serves blobs whose chunks are stored one after the other and all of one
// size but the last, which is how this store writes them (PutBlob fills
// each chunk); for others OpenBlobFile downloads the blob instead.
//
// The object store's SHA-256 digest covers a whole blob, so reads by
// chunk do not check it; each chunk is checked to be the blob's (its
// subject) and of the size expected, and JetStream checksums what it
// stores.
type chunkReader struct {
	ctx     context.Context
	path    string
	stream  jetstream.Stream
	subject string
	first   uint64 // the first chunk's sequence
	chunk   int64  // the size of every chunk but the last
	n       int64  // chunks
	size    int64

	mu      sync.Mutex
	cache   map[int64][]byte        // recently read chunks
	order   []int64                 // cache keys, oldest first
	pending map[int64]chan struct{} // chunks being fetched
	errs    map[int64]error
}

// chunkCache is how many chunks (of 128 KB) a chunkReader keeps: the
// chunks fetched ahead of the reads (about a row group per reader) and
// those a read shares with the next one at their boundary.
const chunkCache = 64

// fetchers bounds the chunks one read fetches at once.
const fetchers = 8

// openChunks returns a chunkReader over the blob at path when its chunks
// allow one, or nil.
func (s *Store) openChunks(ctx context.Context, path string) (*chunkReader, error) {
	actx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var info *jetstream.ObjectInfo
	err := Retry(actx, func(actx context.Context) error {
		obs, err := s.objectStore(actx)
		if err == nil {
			info, err = obs.GetInfo(actx, path)
		}
		return err
	})
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, ErrNotFound
	}
	if err != nil || info.NUID == "" || info.Chunks == 0 {
		return nil, nil // the download tells
	}
	chunk := int64(128 << 10) // the object store's default
	if info.Opts != nil && info.Opts.ChunkSize > 0 {
		chunk = int64(info.Opts.ChunkSize)
	}
	stream, err := s.objectStream(ctx)
	if err != nil {
		return nil, nil
	}
	subject := "$O." + s.bucket + ".C." + info.NUID
	var first, last *jetstream.RawStreamMsg
	err = Retry(actx, func(actx context.Context) (err error) {
		if first, err = stream.GetMsg(actx, 1, jetstream.WithGetMsgSubject(subject)); err != nil {
			return err
		}
		last, err = stream.GetLastMsgForSubject(actx, subject)
		return err
	})
	if err != nil || first.Subject != subject || last.Subject != subject {
		return nil, nil
	}
	n, size := int64(info.Chunks), int64(info.Size)
	contiguous := last.Sequence-first.Sequence+1 == uint64(n)
	uniform := (n == 1 || int64(len(first.Data)) == chunk) && (n-1)*chunk+int64(len(last.Data)) == size
	if !contiguous || !uniform {
		return nil, nil
	}
	c := &chunkReader{ctx: ctx, path: path, stream: stream, subject: subject, first: first.Sequence,
		chunk: chunk, n: n, size: size, cache: map[int64][]byte{}, pending: map[int64]chan struct{}{}, errs: map[int64]error{}}
	c.keep(0, first.Data)
	c.keep(n-1, last.Data)
	return c, nil
}

// readAt reads len(p) bytes at off (short only at the end).
func (c *chunkReader) readAt(p []byte, off int64) (int, error) {
	end := min(off+int64(len(p)), c.size)
	k0, k1 := off/c.chunk, (end-1)/c.chunk
	datas := make([][]byte, k1-k0+1)
	errs := make([]error, len(datas))
	var wg sync.WaitGroup
	sem := make(chan struct{}, fetchers)
	for k := k0; k <= k1; k++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			datas[k-k0], errs[k-k0] = c.get(k)
		}()
	}
	wg.Wait()
	n := 0
	for i, data := range datas {
		if errs[i] != nil {
			return n, errs[i]
		}
		from := max(off-(k0+int64(i))*c.chunk, 0)
		n += copy(p[n:], data[from:])
	}
	return n, nil
}

// get returns chunk k, fetching it unless it is cached or being fetched.
func (c *chunkReader) get(k int64) ([]byte, error) {
	for {
		c.mu.Lock()
		if data, ok := c.cache[k]; ok {
			c.mu.Unlock()
			return data, nil
		}
		if err, ok := c.errs[k]; ok {
			c.mu.Unlock()
			return nil, err
		}
		if wait, ok := c.pending[k]; ok {
			c.mu.Unlock()
			<-wait
			continue
		}
		done := make(chan struct{})
		c.pending[k] = done
		c.mu.Unlock()
		data, err := c.fetch(k)
		c.mu.Lock()
		delete(c.pending, k)
		if err != nil {
			c.errs[k] = err
		} else {
			c.keepLocked(k, data)
		}
		c.mu.Unlock()
		close(done)
		return data, err
	}
}

// fetch reads chunk k from the stream and checks that it is the blob's.
func (c *chunkReader) fetch(k int64) ([]byte, error) {
	var msg *jetstream.RawStreamMsg
	ctx, cancel := context.WithTimeout(c.ctx, BlobIdleTimeout)
	defer cancel()
	err := Retry(ctx, func(actx context.Context) (err error) {
		msg, err = c.stream.GetMsg(actx, c.first+uint64(k))
		return err
	})
	if err != nil {
		if ctx.Err() != nil && c.ctx.Err() == nil {
			return nil, fmt.Errorf("reading %s: no answer for %s", c.path, BlobIdleTimeout)
		}
		return nil, fmt.Errorf("reading %s: %w", c.path, err)
	}
	want := c.chunk
	if k == c.n-1 {
		want = c.size - k*c.chunk
	}
	if msg.Subject != c.subject || int64(len(msg.Data)) != want {
		return nil, fmt.Errorf("reading %s: it changed while it was read", c.path)
	}
	return msg.Data, nil
}

// prefetch starts fetching the chunks that hold n bytes at off, in the
// background, a few at a time; reads of them then find them cached (or
// wait for the fetch already under way).
func (c *chunkReader) prefetch(off, n int64) {
	if n <= 0 || off >= c.size {
		return
	}
	end := min(off+n, c.size)
	k0, k1 := off/c.chunk, (end-1)/c.chunk
	go func() {
		var wg sync.WaitGroup
		sem := make(chan struct{}, fetchers)
		for k := k0; k <= k1 && c.ctx.Err() == nil; k++ {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				_, _ = c.get(k) // an error is the read's to report
			}()
		}
		wg.Wait()
	}()
}

func (c *chunkReader) keep(k int64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keepLocked(k, data)
}

func (c *chunkReader) keepLocked(k int64, data []byte) {
	if _, ok := c.cache[k]; ok {
		return
	}
	c.cache[k] = data
	c.order = append(c.order, k)
	if len(c.order) > chunkCache {
		delete(c.cache, c.order[0])
		c.order = c.order[1:]
	}
}
