package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// execBuild replaces this process with the fabricd of the build directory
// dir, run with args (this process's, without "fabricd") less any
// --pod-ids, plus --pod-ids ids: the same pods come back on the new
// build. It returns only when the exec fails.
func execBuild(dir string, args, ids []string) error {
	bin := filepath.Join(dir, "fabricd")
	argv := append([]string{bin}, withoutFlag(args, "pod-ids")...)
	argv = append(argv, "--pod-ids", strings.Join(ids, ","))
	return syscall.Exec(bin, argv, os.Environ())
}

// withoutFlag is args less the flag name and its value, in any of Go's
// flag forms (-name v, --name v, -name=v, --name=v).
func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		bare := strings.TrimLeft(a, "-")
		if a == "--" {
			return append(out, args[i:]...)
		}
		if strings.HasPrefix(a, "-") && bare == name {
			i++ // its value
			continue
		}
		if strings.HasPrefix(a, "-") && strings.HasPrefix(bare, name+"=") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// writePodIDs writes each tenant's pod ids for the build an upgrade runs.
func writePodIDs(path string, ids map[string][]string) error {
	data, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// readPodIDs reads, then removes, the file writePodIDs wrote.
func readPodIDs(path string) (map[string][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(path)
	var ids map[string][]string
	if err := json.Unmarshal(data, &ids); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return ids, nil
}
