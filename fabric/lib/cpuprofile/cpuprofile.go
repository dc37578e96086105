// Package cpuprofile writes a program's CPU profile from start to exit
// to the file an environment variable names (go tool pprof reads it): how
// the benchmarks find where a process's time goes.
package cpuprofile

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// Start starts the CPU profile the environment variable env asks for and
// returns what stops it (nothing when env is unset or the profile cannot
// be written; that is said on stderr).
func Start(env string) (stop func()) {
	path := os.Getenv(env)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", env, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
