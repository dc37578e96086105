package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	infra "github.com/fabricops/fabric/fabric/infra/local"
)

// StopTimeout bounds a graceful stop before the process is killed.
const StopTimeout = 20 * time.Second

// ReapWait bounds how long Down waits, once the fabric has stopped, for
// its process to be gone (reaped by its parent, init after the client
// that started it left).
const ReapWait = 5 * time.Second

// Down stops the running local fabric gracefully: pods drained, server shut
// down, data kept. It returns false when none was running.
func Down(home string) (bool, error) {
	st, err := infra.Status(home)
	if err != nil || st == nil {
		return false, err
	}
	if err := syscall.Kill(st.PID, syscall.SIGTERM); err != nil {
		return false, fmt.Errorf("cannot stop the local fabric (pid %d): %v", st.PID, err)
	}
	deadline := time.Now().Add(StopTimeout)
	for infra.Alive(st.PID) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if infra.Alive(st.PID) {
		_ = syscall.Kill(st.PID, syscall.SIGKILL)
		for i := 0; i < 100 && infra.Alive(st.PID); i++ {
			time.Sleep(20 * time.Millisecond)
		}
		infra.RemoveState(home)
		return true, fmt.Errorf("the local fabric did not stop within %s and was killed", StopTimeout)
	}
	for reaped := time.Now().Add(ReapWait); infra.Exists(st.PID) && time.Now().Before(reaped); {
		time.Sleep(20 * time.Millisecond)
	}
	return true, nil
}

// Logs returns the last n lines of the local fabric's log (all when n <= 0).
func Logs(home string, n int) (string, error) {
	data, err := os.ReadFile(infra.LogFile(home))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no local fabric log at %s: the local fabric never ran here", infra.LogFile(home))
	}
	if err != nil {
		return "", err
	}
	text := string(data)
	if n > 0 {
		lines := strings.SplitAfter(text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		text = strings.Join(lines, "")
	}
	return text, nil
}
