package api

import "time"

// Placement of jobs by the leading scheduler: the client sends one
// PlaceRequest to SubjectPlace and reads PlaceReply messages on its reply
// inbox. Every scheduler takes the subject, only the leading one answers:
// a first reply within PlaceAckTimeout (the final one, or Queued), then
// the final one once the job started, or failed to.
const (
	// SubjectPlace asks the leading scheduler to place a job (a
	// PlaceRequest); non-leading schedulers stay silent.
	SubjectPlace = "fabric.scheduler.place"
	// SubjectPlaceCancel withdraws a waiting PlaceRequest (a
	// PlaceCancel): the client stopped waiting for it.
	SubjectPlaceCancel = "fabric.scheduler.cancel"
	// PlaceAckTimeout bounds the wait for the leading scheduler's first
	// reply: none by then means that no scheduler leads.
	PlaceAckTimeout = 5 * time.Second
	// DefaultMaxWait is how long a job waits in the scheduler's queue for
	// a worker with capacity unless its request says otherwise
	// (PlaceRequest.MaxWait).
	DefaultMaxWait = 60 * time.Second
	// MaxMaxWait bounds what a request may ask as its max wait.
	MaxMaxWait = time.Hour
	// MaxQueue bounds the jobs waiting in a tenant's scheduler queue at
	// once; a request beyond it is refused.
	MaxQueue = 1000
)

// Placement says which workers may take a job: a site (a regular
// expression matching the whole name, or with SiteIsName the name
// itself, in any case; "" or "*": any), a CFXQL filter on the worker's
// labels and one on its resources. Each worker's own capacity filter must
// hold too.
type Placement struct {
	Site       string `json:"site,omitempty"`
	SiteIsName bool   `json:"site_is_name,omitempty"`
	LFilter    string `json:"lfilter,omitempty"`
	RFilter    string `json:"rfilter,omitempty"`
}

// PlaceRequest asks the leading scheduler to start (or, with Verify, to
// check) a pipeline on a worker it picks by Placement. A request that
// finds no worker with capacity waits in the scheduler's queue, first in
// first out, at most MaxWait seconds (0: DefaultMaxWait, 60 s; at most
// MaxMaxWait), then fails saying that no worker had capacity; the queue
// holds at most MaxQueue (1,000) requests, beyond which a request is
// refused at once. A request whose placement no worker matches at all
// (site, filters, no worker running) fails at once.
type PlaceRequest struct {
	// ID names the request, for PlaceCancel (any unique string).
	ID        string     `json:"id"`
	Verify    bool       `json:"verify,omitempty"`
	Run       RunRequest `json:"run"`
	Placement Placement  `json:"placement"`
	// MaxWait is how long the request may wait in the queue, in seconds.
	MaxWait float64 `json:"max_wait,omitempty"`
}

// Wait returns the request's max wait as a duration: DefaultMaxWait when
// unset, MaxMaxWait at most.
func (r PlaceRequest) Wait() time.Duration {
	d := time.Duration(r.MaxWait * float64(time.Second))
	switch {
	case d <= 0:
		return DefaultMaxWait
	case d > MaxMaxWait:
		return MaxMaxWait
	}
	return d
}

// PlaceReply is a reply of the leading scheduler to a PlaceRequest: an
// interim one (Queued, with the request's place in the queue), or the
// final one: Start (a run) or Verify (a check) from the worker, or Error
// when the scheduler could not place the job.
type PlaceReply struct {
	Queued   bool            `json:"queued,omitempty"`
	Position int             `json:"position,omitempty"`
	PodID    string          `json:"pod_id,omitempty"`
	Start    *StartResponse  `json:"start,omitempty"`
	Verify   *VerifyResponse `json:"verify,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// PlaceCancel withdraws the waiting request ID.
type PlaceCancel struct {
	ID string `json:"id"`
}
