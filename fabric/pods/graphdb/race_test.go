//go:build race

package graphdb_test

// raceDetector: the race detector keeps shadow memory for every byte the
// process touches (several times the heap), so resident-memory bounds
// are checked only without it.
const raceDetector = true
