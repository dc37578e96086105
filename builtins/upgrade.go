package builtins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/fabric/lib/upgradeplan"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// StopAfterEnv names the environment variable that stops upgrade.apply
// after a step (for tests of a run that stopped half-way).
const StopAfterEnv = "FABRIC_UPGRADE_STOP_AFTER"

// upgradeModule is the upgrade module: the 8.0.0 -> 8.1.0.1 procedure
// of SPEC 9.1 over a deployment directory (fabric/lib/upgradeplan). It
// reaches no fabric.
func (e *Env) upgradeModule() starlark.Value {
	return doc.Module("upgrade", `The 8.0.0 -> 8.1.0.1 upgrade of a deployment directory (SPEC 9.1;
README: "Upgrading a deployment directory"): its file edits, planned as
diffs or applied and recorded, and the steps a person does, recorded
when confirmed.`, starlark.StringDict{
		"plan": doc.Builtin("upgrade.plan", `plan(dir, from_="8.0.0", to="8.1.0.1", proxy=None, no_proxy=None)

Checks the prerequisites (the files, disk use below 80%, the versions in
force, the registry volume) and returns {dir, from, to, checks, steps}:
each step's id, title, kind (file or manual), status (done, pending,
needs confirmation), at, note, todo (a manual step's), and for a file
step not done its files and unified diff. Writes nothing.`, upgradePlan),
		"apply": doc.Builtin("upgrade.apply", `apply(dir, from_="8.0.0", to="8.1.0.1", proxy=None, no_proxy=None, stop_after=None)

Makes the file steps not done, in order, each file backed up as
FILE.bak-8.0.0 before its first change and each step recorded in
DIR/.upgrade-state.json; returns {applied, manual, stopped, done}:
the steps done now (with files and diff) and the manual steps waiting
for a confirmation. stop_after (or $FABRIC_UPGRADE_STOP_AFTER) stops
after that step.`, upgradeApply),
		"confirm": doc.Builtin("upgrade.confirm", `confirm(dir, ids, from_="8.0.0", to="8.1.0.1")

Records manual steps as done by a person and returns those recorded now.`, upgradeConfirm),
		"status": doc.Builtin("upgrade.status", `status(dir)

Returns every step with its status (done, pending, needs confirmation)
and when it was done or confirmed.`, upgradeStatus),
		"key_path": doc.Builtin("upgrade.key_path", `key_path(dir)

Returns where the key of dir's policy credentials is kept.`, upgradeKeyPath),
		"interactive": doc.Builtin("upgrade.interactive", `interactive()

Returns whether the standard input and output are a terminal, where a
person can confirm the manual steps one by one.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
				return nil, err
			}
			// The shell buffers its stdin: a terminal is known by the
			// process's own, and only when the output goes to one too (a
			// test's buffers never ask).
			io := host.From(thread)
			return starlark.Bool(io.StdoutTerminal && (host.IsTerminal(io.Stdin) || host.IsTerminal(os.Stdin))), nil
		}),
	})
}

// UpgradeStatfs reads the disk use that upgrade plan and apply check
// (upgradeplan.Statfs). Tests give a fixed one, so that what they check
// does not depend on how full the disk they run on is.
var UpgradeStatfs = upgradeplan.Statfs

// upgradeOptions unpacks the options of plan and apply.
func upgradeOptions(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, extra ...any) (upgradeplan.Options, error) {
	var o upgradeplan.Options
	from, to := optString("8.0.0"), optString("8.1.0.1")
	var proxy, noProxy optString
	pairs := append([]any{"dir", &o.Dir, "from_?", &from, "to?", &to, "proxy?", &proxy, "no_proxy?", &noProxy}, extra...)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return o, err
	}
	o.Dir = host.From(thread).Path(o.Dir)
	o.From, o.To, o.Proxy, o.NoProxy = string(from), string(to), string(proxy), string(noProxy)
	o.Statfs = UpgradeStatfs
	return o, nil
}

// plainValue converts a result through its JSON form (its json tags,
// embedded structs flattened).
func plainValue(b *starlark.Builtin, v any, err error) (starlark.Value, error) {
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, fail(b.Name(), err)
	}
	return starvalue.ToStarlark(x)
}

func upgradePlan(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	o, err := upgradeOptions(thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	p, err := upgradeplan.MakePlan(o)
	return plainValue(b, p, err)
}

func upgradeApply(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var stop optString
	o, err := upgradeOptions(thread, b, args, kwargs, "stop_after?", &stop)
	if err != nil {
		return nil, err
	}
	o.StopAfter = string(stop)
	if o.StopAfter == "" {
		o.StopAfter = os.Getenv(StopAfterEnv)
	}
	r, err := upgradeplan.Apply(o)
	return plainValue(b, r, err)
}

func upgradeConfirm(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var o upgradeplan.Options
	var ids *starlark.List
	from, to := optString("8.0.0"), optString("8.1.0.1")
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &o.Dir, "ids", &ids, "from_?", &from, "to?", &to); err != nil {
		return nil, err
	}
	o.Dir, o.From, o.To = host.From(thread).Path(o.Dir), string(from), string(to)
	o.Statfs = UpgradeStatfs
	var list []string
	for i := 0; i < ids.Len(); i++ {
		s, ok := starlark.AsString(ids.Index(i))
		if !ok {
			return nil, fail(b.Name(), fmt.Errorf("ids: got %s, want a list of step ids", ids.Index(i).Type()))
		}
		list = append(list, s)
	}
	r, err := upgradeplan.ConfirmSteps(o, list)
	if r == nil {
		r = []upgradeplan.StepPlan{}
	}
	return plainValue(b, r, err)
}

func upgradeStatus(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dir string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir); err != nil {
		return nil, err
	}
	r, err := upgradeplan.Status(host.From(thread).Path(dir))
	return plainValue(b, r, err)
}

func upgradeKeyPath(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dir string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir); err != nil {
		return nil, err
	}
	return starlark.String(upgradeplan.KeyPath(host.From(thread).Path(dir))), nil
}
