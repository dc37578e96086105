package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/libraries/libstore"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
)

// maxLibraryRequests bounds the library lists and installs the api-server
// runs at once (each waits for pods up to its --wait).
const maxLibraryRequests = 32

// maxLibraryWait bounds a request's wait for the pods.
const maxLibraryWait = time.Hour

// libraryService answers library list and install (SPEC 4.11): it reads
// the object store's library files and asks the pods the request selects.
type libraryService struct {
	nc   *nats.Conn
	st   *store.Store
	busy chan struct{}
}

func newLibraryService(nc *nats.Conn, st *store.Store) *libraryService {
	return &libraryService{nc: nc, st: st, busy: make(chan struct{}, maxLibraryRequests)}
}

// serve answers a LibrariesAsk in a goroutine of its own, so that a long
// wait holds back no other request.
func (l *libraryService) serve(m *nats.Msg) {
	var req api.LibrariesAsk
	if err := json.Unmarshal(m.Data, &req); err != nil {
		pod.Reply(m, api.Error{Error: "bad libraries request: " + err.Error()})
		return
	}
	wait := time.Duration(req.WaitSeconds * float64(time.Second))
	if wait <= 0 || wait > maxLibraryWait {
		pod.Reply(m, api.Error{Error: fmt.Sprintf("the wait must be more than 0 and at most %s", maxLibraryWait)})
		return
	}
	select {
	case l.busy <- struct{}{}:
	default:
		pod.Reply(m, api.Error{Error: fmt.Sprintf("the api-server runs %d library requests already: try again", maxLibraryRequests)})
		return
	}
	go func() {
		defer func() { <-l.busy }()
		ctx, cancel := context.WithTimeout(context.Background(), wait+store.Timeout)
		defer cancel()
		rep, err := libstore.Run(ctx, l.nc, l.st, req)
		if err != nil {
			pod.Reply(m, api.Error{Error: err.Error()})
			return
		}
		pod.Reply(m, rep)
	}()
}
