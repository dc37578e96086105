//go:build !race

package graphdb_test

// raceDetector is false: resident-memory bounds are checked.
const raceDetector = false
