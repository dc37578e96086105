//go:build race

package lazy_test

// raceEnabled: the race detector's bookkeeping makes memory figures
// meaningless.
const raceEnabled = true
