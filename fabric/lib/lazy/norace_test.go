//go:build !race

package lazy_test

const raceEnabled = false
