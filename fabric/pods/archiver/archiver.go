// Package archiver is the log archiver, run by every scheduler pod and
// acting only while it leads: it writes the records of the streams each
// log archive repository names into the repository, one object per
// ended minute (the minute of the stream's time of each record), and
// deletes the minutes past the repository's retention. Where it got to
// in each stream is kept in KV, so that a new leader goes on from there.
package archiver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/logarchive"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// PositionsBucket keeps, per repository and stream, the sequence number
// of the last record archived.
const PositionsBucket = "fabric_logarchive_positions"

// Period is how often the leader archives.
var Period = 10 * time.Second

// expireEvery is how often the leader deletes minutes past retention.
const expireEvery = time.Hour

// Run starts the archiver of scheduler pod p until it stops.
func Run(p *pod.Pod) {
	ctx, cancel := context.WithCancel(context.Background())
	p.OnStop(cancel)
	go func() {
		t := time.NewTicker(Period)
		defer t.Stop()
		var lastExpire time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if !p.Leader() {
				continue
			}
			expire := time.Since(lastExpire) > expireEvery
			if err := Pass(ctx, p.Conn(), time.Now(), expire); err != nil {
				p.Warnf(api.LoggerArchiver, "archiving: %v", err)
			} else if expire {
				lastExpire = time.Now()
			}
		}
	}()
}

// Pass archives, for every repository, the ended minutes of its streams
// not archived yet (as of now), and with expire deletes the minutes past
// retention.
func Pass(ctx context.Context, nc *nats.Conn, now time.Time, expire bool) error {
	st, err := tenant.New(nc).Store(ctx)
	if err != nil {
		return err
	}
	repos, err := logarchive.Repos(ctx, st)
	if err != nil {
		return err
	}
	pos, err := st.KV(ctx, jetstream.KeyValueConfig{Bucket: PositionsBucket, History: 1})
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	for _, r := range repos {
		a, err := logarchive.Open(ctx, st, r.Name)
		if err != nil {
			return err
		}
		for _, s := range r.Streams {
			if err := archiveStream(ctx, js, pos, a, s, now); errors.Is(err, streams.ErrNotFound) {
				continue // not made yet
			} else if err != nil {
				return fmt.Errorf("stream %s into %s: %w", s, r.Name, err)
			}
		}
		if expire {
			if _, err := a.Expire(ctx, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// archiveStream writes the stream's records after the kept position whose
// minute has ended, one object per minute, moving the position on after
// each (a pass stopped between the two writes that minute again: records
// are archived at least once).
func archiveStream(ctx context.Context, js jetstream.JetStream, pos jetstream.KeyValue, a *logarchive.Archive, stream string, now time.Time) error {
	key := store.Key(a.Repo.Name) + "." + store.Key(stream)
	var after uint64
	if e, err := pos.Get(ctx, key); err == nil {
		fmt.Sscan(string(e.Value()), &after)
	}
	cutoff := now.UTC().Truncate(time.Minute)
	var minute time.Time
	var batch [][]byte
	var last uint64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if _, err := a.WriteMinute(ctx, stream, minute, batch); err != nil {
			return err
		}
		batch = nil
		_, err := pos.Put(ctx, key, []byte(fmt.Sprint(last)))
		return err
	}
	errDone := fmt.Errorf("done")
	_, err := streams.Read(ctx, js, stream, streams.ReadOptions{AfterSeq: after}, func(m streams.Message) error {
		t := m.Time.UTC()
		if !t.Before(cutoff) {
			return errDone // this minute goes on
		}
		if m := t.Truncate(time.Minute); !m.Equal(minute) {
			if err := flush(); err != nil {
				return err
			}
			minute = m
		}
		batch = append(batch, append([]byte(nil), m.Data...))
		last = m.Seq
		return nil
	})
	if err != nil && err != errDone {
		return err
	}
	return flush()
}
