package cli

import (
	"testing"

	"github.com/fabricops/fabric/runtime"
	"github.com/fabricops/fabric/scripts"
)

// TestLeanGroupsStayLean: the command groups whose builtins the lean
// client has run there: their scripts (and the modules they load) name
// none of the data builtins, so no command of theirs is handed to the
// full client. (An identifier is enough: a local function named run
// once sent every artifact command to client-data.)
func TestLeanGroupsStayLean(t *testing.T) {
	rt := runtime.New(runtime.Options{Bundle: scripts.FS})
	for _, file := range []string{
		"pods.star", "healthcheck.star", "pod_controller.star", "fabric.star", "secret.star", "project.star", "demo.star",
		"alert_rules.star", "dashboard.star", "dashgroup.star", "stack.star", "site_profile.star", "synthetics.star",
		"fmt_template.star", "staging_area.star", "subscription.star",
	} {
		src, err := scripts.FS.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if rt.Uses("@fabric//"+file, src, dataNames) {
			t.Errorf("%s names a data builtin: its commands would need client-data", file)
		}
	}
}
