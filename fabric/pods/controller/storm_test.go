package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
)

// TestHostileServiceCompletesAtOnce: a service pipeline that completes
// as soon as it starts is followed with a growing wait, as one that
// fails is, not at every end (before, the controller restarted it about
// 21 times a second, forever), and the deployment's activity feed says
// it is backing off.
func TestHostileServiceCompletesAtOnce(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	tc := connect(t, f)
	tc.addPipeline(t, "instant", "@dm:empty\n")
	start := time.Now()
	tc.add(t, artifact.Deployment, "id: storm\nname: Storm\nservice_pipelines:\n  - {name: instant, label: main}\n", false)

	waitFor(t, 20*time.Second, "the activity entry of the back-off", func() (bool, string) {
		lines := tc.activity(t)
		return hasLine(lines, "Backing off service main of deployment Storm (id storm): ", "completed after", "the next starts in"),
			strings.Join(lines, "\n")
	})
	// Fewer jobs under load, never more: a fixed wait is a fair bound.
	time.Sleep(time.Until(start.Add(10 * time.Second)))
	all, err := tc.recs.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, j := range all {
		if j.Owner != nil && j.Owner.Deployment == "storm" {
			n++
		}
	}
	// With a 1 s period: at 0, at once, then after 1, 2 and 4 s (and
	// one started as the 10 s end).
	if n < 2 || n > 7 {
		t.Fatalf("%d jobs started in 10 s, want 2 to 7 (a back-off of 1, 2, 4, 8 s)", n)
	}
}
