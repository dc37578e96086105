package cli

import (
	"os/exec"
)

var execCommand = exec.Command
