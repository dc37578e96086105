package upgradeplan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fabricops/fabric/fabric/lib/deploydir"
)

// Options are an upgrade's: its directory, its releases and what the
// steps need.
type Options struct {
	Dir      string
	From, To string
	// Proxy and NoProxy are the proxy variables of step 8 (none when
	// Proxy is ""; NoProxy "" lists every host of values.yaml).
	Proxy, NoProxy string
	// KeyFile is where the key of policy.json's credentials is (KeyPath
	// when "").
	KeyFile string
	// Statfs reads a file system's usage (Statfs when nil).
	Statfs func(path string) (Usage, error)
	// Now is the clock of the records (time.Now when nil).
	Now func() time.Time
	// StopAfter stops Apply after the step of this id (tests: a stopped
	// run).
	StopAfter string
}

func (o *Options) now() string {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	return now().UTC().Format(time.RFC3339)
}

// KeyPath is where the key of a deployment directory's policy
// credentials is kept: $FABRIC_HOME/upgrade/NAME-HASH.key (FABRIC_HOME
// defaults to ~/.fabric), NAME the directory's base name and HASH the
// start of the SHA-256 of its absolute path.
func KeyPath(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	sum := sha256.Sum256([]byte(abs))
	home := os.Getenv("FABRIC_HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".fabric")
		} else {
			home = ".fabric"
		}
	}
	return filepath.Join(home, "upgrade", filepath.Base(abs)+"-"+hex.EncodeToString(sum[:6])+".key")
}

func (o *Options) keyFile() string {
	if o.KeyFile != "" {
		return o.KeyFile
	}
	return KeyPath(o.Dir)
}

// Statuses of a step.
const (
	Done              = "done"
	Pending           = "pending"
	NeedsConfirmation = "needs confirmation"
	Nothing           = "nothing to do"
)

// StepPlan is a step with its status and, in a plan or an apply, its
// changes.
type StepPlan struct {
	Step
	Status string `json:"status"`
	// At is when it was done or confirmed.
	At      string   `json:"at,omitempty"`
	Note    string   `json:"note,omitempty"`
	Changes []Change `json:"-"`
	// Files are the paths of Changes.
	Files []string `json:"files,omitempty"`
	// Diff is the unified diff of Changes.
	Diff string `json:"diff,omitempty"`
}

func (p *StepPlan) setChanges(c []Change) {
	p.Changes = c
	p.Files, p.Diff = nil, ""
	for _, ch := range c {
		p.Files = append(p.Files, ch.Path)
		p.Diff += ch.Diff()
	}
}

// Plan is what an upgrade would do.
type Plan struct {
	Dir    string     `json:"dir"`
	From   string     `json:"from"`
	To     string     `json:"to"`
	Checks []Check    `json:"checks"`
	Steps  []StepPlan `json:"steps"`
}

// previewEncrypt stands for the encryption in a plan, which makes no key.
func previewEncrypt(string) (string, error) { return deploydir.EncPrefix + "<sealed at apply>", nil }

// MakePlan checks the prerequisites and returns every step with its
// status; the file steps not done come with the diff of their edits
// (each over the edits of the steps before). It writes nothing.
func MakePlan(o Options) (Plan, error) {
	st, err := readState(o.Dir)
	if err != nil {
		return Plan{}, err
	}
	checks, err := check(&o, st)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Dir: o.Dir, From: o.From, To: o.To, Checks: checks}
	w := newWork(&o, previewEncrypt)
	for _, s := range Steps() {
		sp := statusFor(s, st, &o)
		if s.Kind == File && sp.Status == Pending {
			note, err := s.edit(w)
			if err != nil {
				return Plan{}, fmt.Errorf("step %s: %v", s.ID, err)
			}
			sp.Note = note
			sp.setChanges(w.take())
			if len(sp.Changes) == 0 && note == "" {
				sp.Note = "nothing to change"
			}
		}
		p.Steps = append(p.Steps, sp)
	}
	return p, nil
}

// status is a step's status from the state.
func status(s Step, st *State) StepPlan { return statusFor(s, st, nil) }

// statusFor is status under the options of a run: a step done that the
// options would do more (step 8, recorded without --proxy, given one
// now) is pending again.
func statusFor(s Step, st *State, o *Options) StepPlan {
	sp := StepPlan{Step: s, Status: Pending}
	if s.Kind == Manual {
		sp.Status = NeedsConfirmation
	}
	if r, ok := st.get(s.ID); ok {
		if o != nil && s.redo != nil && s.redo(o, r) {
			return sp
		}
		sp.Status, sp.At, sp.Note, sp.Files = Done, r.At, r.Note, r.Files
	}
	return sp
}

// Result is what an apply did.
type Result struct {
	// Applied are the file steps done by this run, with their changes.
	Applied []StepPlan `json:"applied"`
	// Manual are the manual steps up to where the run stopped that wait
	// for a confirmation.
	Manual []StepPlan `json:"manual"`
	// Stopped is the step the run stopped after (Options.StopAfter).
	Stopped string `json:"stopped,omitempty"`
	// Done reports whether every step is done or confirmed.
	Done bool `json:"done"`
}

// Apply checks the prerequisites (before the first step) and that
// every step can be made (in memory, as MakePlan), then does
// each file step not done, in order: its files backed up before their
// first change, written, and the step recorded in the state file; a
// manual step not confirmed is listed in the result. A failed step
// stops the run with its error; the next run starts with it. A run
// after the last step changes nothing.
func Apply(o Options) (Result, error) {
	res := Result{Applied: []StepPlan{}, Manual: []StepPlan{}}
	st, err := readState(o.Dir)
	if err != nil {
		return res, err
	}
	// The whole run is made in memory first: a step that would fail
	// refuses the run before anything is written.
	if _, err := MakePlan(o); err != nil {
		return res, err
	}
	var enc *deploydir.Encrypter
	encrypt := func(plain string) (string, error) {
		if enc == nil {
			key, err := deploydir.ReadKey(o.keyFile(), true)
			if err != nil {
				return "", fmt.Errorf("the policy key: %v", err)
			}
			if enc, err = deploydir.NewEncrypter(key); err != nil {
				return "", err
			}
		}
		return enc.Encrypt(plain)
	}
	for _, s := range Steps() {
		sp := statusFor(s, st, &o)
		switch {
		case sp.Status == Done:
		case s.Kind == Manual:
			res.Manual = append(res.Manual, sp)
		default:
			w := newWork(&o, encrypt)
			note, err := s.edit(w)
			if err != nil {
				return res, fmt.Errorf("step %s: %v", s.ID, err)
			}
			sp.setChanges(w.take())
			if err := write(o.Dir, sp.Changes); err != nil {
				return res, fmt.Errorf("step %s: %v", s.ID, err)
			}
			if len(sp.Changes) == 0 && note == "" {
				note = "nothing to change"
			}
			sp.Status, sp.At, sp.Note = Done, o.now(), note
			st.From, st.To = o.From, o.To
			st.set(Record{ID: s.ID, At: sp.At, Files: sp.Files, Note: note})
			if err := st.save(o.Dir); err != nil {
				return res, fmt.Errorf("recording step %s: %v", s.ID, err)
			}
			res.Applied = append(res.Applied, sp)
		}
		if o.StopAfter == s.ID {
			res.Stopped = s.ID
			return res, nil
		}
	}
	res.Done = len(res.Manual) == 0
	return res, nil
}

// ConfirmSteps records manual steps as done by a person. An unknown id
// or a file step is refused before anything is recorded; a step
// recorded already keeps its record. It returns the steps recorded now.
func ConfirmSteps(o Options, ids []string) ([]StepPlan, error) {
	st, err := readState(o.Dir)
	if err != nil {
		return nil, err
	}
	if _, err := check(&o, st); err != nil && len(st.Steps) == 0 {
		return nil, err
	}
	for _, id := range ids {
		s, ok := find(id)
		if !ok {
			return nil, fmt.Errorf("no step %q", id)
		}
		if s.Kind != Manual {
			return nil, fmt.Errorf("step %s is a file step: apply does it", id)
		}
	}
	var out []StepPlan
	for _, id := range ids {
		if _, ok := st.get(id); ok {
			continue
		}
		s, _ := find(id)
		r := Record{ID: id, At: o.now(), Confirmed: true}
		st.From, st.To = o.From, o.To
		st.Steps = append(st.Steps, r)
		out = append(out, StepPlan{Step: s, Status: Done, At: r.At})
	}
	if len(out) > 0 {
		if err := st.save(o.Dir); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Status returns every step with its status (done, pending or needs
// confirmation) and when it was done, from the directory's state file.
func Status(dir string) ([]StepPlan, error) {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	st, err := readState(dir)
	if err != nil {
		return nil, err
	}
	var out []StepPlan
	for _, s := range Steps() {
		out = append(out, status(s, st))
	}
	return out, nil
}
