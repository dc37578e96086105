package upgradeplan

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// StateFile is the name of the state file in the deployment directory.
const StateFile = ".upgrade-state.json"

// State is what the state file records: the upgrade and each step done
// or confirmed.
type State struct {
	From  string   `json:"from"`
	To    string   `json:"to"`
	Steps []Record `json:"steps"`
}

// Record is a step done (a file step) or confirmed (a manual one).
type Record struct {
	ID string `json:"id"`
	// At is when, RFC 3339 in UTC.
	At string `json:"at"`
	// Files are the files and directories the step changed.
	Files []string `json:"files,omitempty"`
	// Note says why a step changed nothing.
	Note string `json:"note,omitempty"`
	// Confirmed is set for a manual step a person confirmed.
	Confirmed bool `json:"confirmed,omitempty"`
}

// get returns the record of a step.
func (s *State) get(id string) (Record, bool) {
	for _, r := range s.Steps {
		if r.ID == id {
			return r, true
		}
	}
	return Record{}, false
}

// set records a step, in place of its record when it has one.
func (s *State) set(r Record) {
	for i := range s.Steps {
		if s.Steps[i].ID == r.ID {
			s.Steps[i] = r
			return
		}
	}
	s.Steps = append(s.Steps, r)
}

// readState reads a directory's state file; a missing one is an empty
// state.
func readState(dir string) (*State, error) {
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &State{}, nil
	}
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %v (the upgrade's record is damaged)", StateFile, err)
	}
	return &s, nil
}

// save writes the state file atomically.
func (s *State) save(dir string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, StateFile), append(data, '\n'), 0o644)
}
