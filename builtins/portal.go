package builtins

import (
	"context"
	"os"
	"os/exec"
	"strings"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// dashboardOpen is dashboard.open: the portal's URL of a dashboard, and
// the browser started on it.
func (e *Env) dashboardOpen() *starlark.Builtin {
	return doc.Builtin("dashboard.open", `open(name, browser=None)

Returns the portal's URL of dashboard name (an error when the tenant has
no dashboard of that name, or its network configuration names no
portal) as a dict of url and browser. With browser (a command line), or
else $BROWSER (commands separated by ':', %s standing for the URL, else
it is appended), the first command that starts is started on the URL,
not waited for, and named in browser ("" when none started).`,
		func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			var browser optString
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "browser?", &browser); err != nil {
				return nil, err
			}
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
				u, err := c.DashboardURL(ctx, name)
				if err != nil {
					return nil, err
				}
				cmds := string(browser)
				if cmds == "" {
					cmds = os.Getenv("BROWSER")
				}
				return map[string]any{"url": u, "browser": startBrowser(cmds, u)}, nil
			})
		})
}

// startBrowser starts the first command of cmds (':'-separated, as
// $BROWSER lists them) whose program exists on url, without waiting for
// it, and returns it ("" when none started). The URL is passed as an
// argument, never spliced into the shell's text.
func startBrowser(cmds, url string) string {
	for _, cmd := range strings.Split(cmds, ":") {
		cmd = strings.TrimSpace(cmd)
		if cmd == "" {
			continue
		}
		fields := strings.Fields(cmd)
		if _, err := exec.LookPath(fields[0]); err != nil {
			continue
		}
		line := cmd + ` "$1"`
		if strings.Contains(cmd, "%s") {
			line = strings.ReplaceAll(cmd, "%s", `"$1"`)
		}
		c := exec.Command("sh", "-c", line, "browser", url)
		if c.Start() != nil {
			continue
		}
		go func() { _ = c.Wait() }()
		return cmd
	}
	return ""
}
