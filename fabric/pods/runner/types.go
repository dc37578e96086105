package runner

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/pods/apiserver"
	"github.com/fabricops/fabric/fabric/pods/archiver"
	"github.com/fabricops/fabric/fabric/pods/controller"
	"github.com/fabricops/fabric/fabric/pods/deliverer"
	"github.com/fabricops/fabric/fabric/pods/eventgw"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/fabricops/fabric/fabric/pods/portal"
	"github.com/fabricops/fabric/fabric/pods/scheduler"
	"github.com/fabricops/fabric/fabric/pods/worker"
)

// Type is the registration of a pod type: everything the runner, the
// local fabric (package embedded), fabrictest and fabricd know of it.
// A pod type is added here and nowhere else on the pods' side; the
// protocol's list of names (api.PodTypes, which the shell reads) must
// name the same types (TestTypesMatchAPI).
type Type struct {
	// Name is the type's name, one of the api constants.
	Name string
	// Category is api.CategoryInfra or api.CategoryApp; the pods of an
	// app type are placed in the runner's site.
	Category string
	// Dependencies are the types that must be live for a pod of the type
	// to be healthy.
	Dependencies []string
	// Scaled says that a local fabric runs as many pods of the type as it
	// has workers, not one.
	Scaled bool
	// Serve serves the type's endpoints on the started pod p, given the
	// runner's options (a copy: nothing it changes reaches another pod).
	Serve func(p *pod.Pod, o Options) error
	// Local, when set, readies the type's options for a tenant of a
	// local fabric (its files under l.Dir, its ports) and reports whether
	// the tenant runs pods of the type at all.
	Local func(o *Options, l Local) (run bool, err error)
}

// types are the pod types, in the order a local fabric starts them.
var types = []Type{
	{Name: api.APIServer, Category: api.CategoryInfra,
		Serve: func(p *pod.Pod, _ Options) error { return apiserver.Serve(p) }},
	{Name: api.Scheduler, Category: api.CategoryInfra, Dependencies: []string{api.APIServer}, Serve: serveScheduler},
	{Name: api.Worker, Category: api.CategoryApp, Dependencies: []string{api.APIServer, api.Scheduler}, Scaled: true,
		Serve: func(p *pod.Pod, o Options) error { return worker.Serve(p, o.Worker) }},
	{Name: api.EventGateway, Category: api.CategoryApp, Dependencies: []string{api.APIServer},
		Serve: func(p *pod.Pod, o Options) error { return eventgw.Serve(p, o.EventGateway) }},
	{Name: api.GraphDB, Category: api.CategoryInfra, Serve: serveGraphDB, Local: localGraphDB},
	{Name: api.Portal, Category: api.CategoryInfra, Dependencies: []string{api.APIServer},
		Serve: func(p *pod.Pod, o Options) error { return portal.Serve(p, o.Config, o.Portal) }, Local: localPortal},
}

// localPortal gives a tenant of a local fabric a portal on 127.0.0.1,
// on the port of the last run when it is free, and writes its URL in
// the network configuration (where "client dashboard open" finds it).
func localPortal(o *Options, l Local) (bool, error) {
	var err error
	o.Portal, o.Config.Portal.URL, err = portal.Local(l.LastPortal)
	return err == nil, err
}

// serveScheduler runs the election, the log archiver, the subscriptions'
// deliverer and the deployment controller: the last three act while the
// scheduler leads.
func serveScheduler(p *pod.Pod, o Options) error {
	if err := scheduler.Elect(p, o.LeaseTTL); err != nil {
		return err
	}
	archiver.Run(p)
	deliverer.Run(p, o.Deliverer)
	return controller.Serve(p, controller.Options{Period: o.ControllerPeriod})
}

// serveGraphDB serves the graph database with the credentials of the
// network configuration's graphdb section.
func serveGraphDB(p *pod.Pod, o Options) error {
	g := o.GraphDB
	g.User, g.Password = o.Config.GraphDB.User, o.Config.GraphDB.Password
	return graphdb.Serve(p, g)
}

// localGraphDB gives a tenant of a local fabric a graph database of its
// own (store, port and credentials), unless its graph database is the
// user's.
func localGraphDB(o *Options, l Local) (bool, error) {
	if l.UserGraphDB.URL != "" {
		o.Config.GraphDB = l.UserGraphDB
		return false, nil
	}
	var err error
	o.GraphDB, o.Config.GraphDB, err = graphdb.Local(filepath.Join(l.Dir, api.GraphDB, o.Config.Tenant), l.LastGraphDB)
	return err == nil, err
}

// Local is what a local fabric (fabricd local, fabrictest) gives the
// types of a tenant to ready themselves.
type Local struct {
	// Dir is the fabric's directory: a type keeps a tenant's files in
	// Dir/<type>/<tenant>.
	Dir string
	// UserGraphDB, when it has a URL, is the user's graph database (a
	// real ArangoDB): the tenant runs no graph pod.
	UserGraphDB bus.GraphDBConfig
	// LastGraphDB is the tenant's embedded graph database of the last
	// run: its port and credentials are kept when the port is free.
	LastGraphDB bus.GraphDBConfig
	// LastPortal is the URL of the tenant's portal of the last run: its
	// port is kept when free.
	LastPortal string
}

// Types returns the registered pod types, in the order a local fabric
// starts them.
func Types() []Type { return append([]Type(nil), types...) }

// Lookup returns the registration of a pod type.
func Lookup(name string) (Type, bool) {
	for _, t := range types {
		if t.Name == name {
			return t, true
		}
	}
	return Type{}, false
}

// Names returns the registered types' names.
func Names() []string {
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = t.Name
	}
	return out
}

// LocalPods returns the pods of a tenant of a local fabric: one of each
// type, workers of the scaled ones. PrepareLocal drops those a tenant
// does not run.
func LocalPods(workers int) []string {
	var out []string
	for _, t := range types {
		n := 1
		if t.Scaled {
			n = workers
		}
		for range n {
			out = append(out, t.Name)
		}
	}
	return out
}

// PrepareLocal readies o for a tenant of a local fabric: each type of
// o.Pods with a Local step gets its files and ports, and the pods of the
// types the tenant does not run are dropped. It may change o.Config (its
// graphdb and portal sections), which the caller saves after.
func PrepareLocal(o *Options, l Local) error {
	skip := map[string]bool{}
	for _, t := range types {
		if t.Local == nil || !slices.Contains(o.Pods, t.Name) {
			continue
		}
		run, err := t.Local(o, l)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		skip[t.Name] = !run
	}
	var pods []string
	for _, p := range o.Pods {
		if !skip[p] {
			pods = append(pods, p)
		}
	}
	o.Pods = pods
	return nil
}

// ParsePods parses a comma-separated list of pod types.
func ParsePods(list string) ([]string, error) {
	var pods []string
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if _, ok := Lookup(t); !ok {
			return nil, fmt.Errorf("unknown pod type %q (known: %s)", t, strings.Join(Names(), ", "))
		}
		pods = append(pods, t)
	}
	if len(pods) == 0 {
		return nil, fmt.Errorf("no pod types given")
	}
	return pods, nil
}
