package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/fabricops/fabric/"

// forbidden are packages the shell must never link: the server and the
// pods run in fabricd.
var forbidden = []string{
	"github.com/nats-io/nats-server/",
	module + "fabric/pods/",
	module + "fabric/infra/natsserver",
	module + "fabric/fabrictest",
}

// maxChain is the longest chain of the module's own imports allowed
// anywhere in the tree (cmd/client -> cli -> builtins -> client -> ...).
const maxChain = 8

type listed struct {
	ImportPath string
	Imports    []string
}

func goList(t *testing.T, args ...string) []listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestShellLinksNoPod keeps DESIGN's import direction: the shell's binary
// contains no nats-server and no pod package.
func TestShellLinksNoPod(t *testing.T) {
	for _, p := range goList(t, "-deps", "./cmd/client") {
		for _, f := range forbidden {
			if strings.HasPrefix(p.ImportPath, f) {
				t.Errorf("the client links %s", p.ImportPath)
			}
		}
	}
}

// TestImportChains keeps the tree shallow: no chain of the module's own
// imports is longer than maxChain packages.
func TestImportChains(t *testing.T) {
	imports := map[string][]string{}
	for _, p := range goList(t, "./...") {
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				imports[p.ImportPath] = append(imports[p.ImportPath], imp)
			}
		}
	}
	longest := map[string][]string{}
	var chain func(p string) []string
	chain = func(p string) []string {
		if c, ok := longest[p]; ok {
			return c
		}
		best := []string{p}
		for _, imp := range imports[p] {
			if c := chain(imp); len(c)+1 > len(best) {
				best = append([]string{p}, c...)
			}
		}
		longest[p] = best
		return best
	}
	var worst []string
	for p := range imports {
		if c := chain(p); len(c) > len(worst) {
			worst = c
		}
	}
	for i := range worst {
		worst[i] = strings.TrimPrefix(worst[i], module)
	}
	t.Logf("longest import chain (%d): %s", len(worst), strings.Join(worst, " -> "))
	if len(worst) > maxChain {
		t.Errorf("an import chain of %d packages (at most %d): %s", len(worst), maxChain, strings.Join(worst, " -> "))
	}
}

// TestPodsLinkNoShell: fabricd links no package of the shell.
func TestPodsLinkNoShell(t *testing.T) {
	for _, p := range goList(t, "-deps", "./cmd/fabricd") {
		for _, f := range []string{module + "cli", module + "builtins", module + "runtime", module + "scripts", module + "fabric/client"} {
			if p.ImportPath == f || strings.HasPrefix(p.ImportPath, f+"/") {
				t.Errorf("fabricd links %s", p.ImportPath)
			}
		}
	}
}

// TestBuiltinsHaveOneDoor: the shell's modules reach the fabric only
// through fabric/client (and pure libraries): no package under builtins
// imports the infrastructure.
func TestBuiltinsHaveOneDoor(t *testing.T) {
	for _, p := range goList(t, "./builtins/...") {
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"fabric/infra/") {
				t.Errorf("%s imports %s: reach it through fabric/client", p.ImportPath, imp)
			}
		}
	}
}
