package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profileEnv names a file fabricd writes its CPU profile to, from start
// to exit (go tool pprof reads it): how the benchmarks find where a pod's
// time goes.
const profileEnv = "FABRICD_CPUPROFILE"

// startProfile starts the CPU profile FABRICD_CPUPROFILE asks for and
// returns what stops it (nothing when it asks for none).
func startProfile() func() {
	path := os.Getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "fabricd: %s: %v\n", profileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
