package worker

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/botpackages"
	"github.com/fabricops/fabric/fabric/infra/botsources"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
	"github.com/fabricops/fabric/fabric/lib/cfxql/cfxarrow"
	"github.com/fabricops/fabric/fabric/lib/engine"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// The bots of the tenant's bot packages run here as @namespace:bot: each
// call in a fresh Starlark thread (fabric/lib/botpkg) under the job's
// context (its time limit and cancellation) and memory limit, its
// source's configuration read from the step's source = 'NAME' with the
// $secure values opened from the secrets for the call alone: never in a
// parameter, a trace, a log or an error.

// sourceParam is the step parameter naming the source a bot runs against.
const sourceParam = "source"

// queryParam is the model parameter by which a bot declares push-down:
// #ns:bot QUERY gives it the CFXQL query text, to pass on to its source
// (its rows are filtered by the query all the same).
const queryParam = "query"

// maxCachedPackages bounds the loaded packages a worker keeps.
const maxCachedPackages = 64

// packageCache keeps loaded packages by their archive's path (a new
// version is a new path), so that a job does not compile them again.
type packageCache struct {
	mu     sync.Mutex
	byBlob map[string]*botpkg.Package
	// libs are the libraries the packages' modules may load (the pod's
	// installed ones), set when the worker starts.
	libs map[string]fs.FS
}

func (c *packageCache) get(ctx context.Context, cat *botpackages.Catalog, rec api.BotPackageRecord) (*botpkg.Package, error) {
	c.mu.Lock()
	p, ok := c.byBlob[rec.Blob]
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	fsys, err := cat.Files(ctx, rec)
	if err != nil {
		return nil, err
	}
	if p, err = botpkg.LoadWith(ctx, fsys, botpkg.Limits{}, c.libs); err != nil {
		return nil, fmt.Errorf("bot package %s: %v", rec.Name, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byBlob == nil || len(c.byBlob) >= maxCachedPackages {
		c.byBlob = map[string]*botpkg.Package{}
	}
	c.byBlob[rec.Blob] = p
	return p, nil
}

// namespaces are those of a pipeline's steps' tags.
func namespaces(steps []engine.Step) map[string]bool {
	out := map[string]bool{}
	for _, s := range steps {
		if len(s.Tag) > 1 {
			if ns, _, ok := strings.Cut(s.Tag[1:], ":"); ok {
				out[ns] = true
			}
		}
	}
	return out
}

// packageBots returns the bots of the tenant's packages of the
// namespaces a job's steps use, for a job whose memory limit is memoryMB.
// A package that no longer loads is left out (its bots are then unknown
// to the job's pipeline, which says so).
func packageBots(ctx context.Context, data *tenant.Data, cache *packageCache, used map[string]bool, sources map[string]api.PipelineSource, memoryMB float64) ([]engine.Extension, error) {
	if !usesPackages(used) {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := data.Store(ctx)
	if err != nil {
		return nil, err
	}
	cat := &botpackages.Catalog{Store: st}
	recs, err := cat.List(ctx)
	if err != nil {
		return nil, err
	}
	var xs []engine.Extension
	// A step that names no source runs against the pipeline's source of
	// its package (the sources map's entry whose type is the package's
	// name), until a step names one.
	last := &lastSources{byPackage: map[string]string{}}
	for _, src := range sources {
		if src.Type != "" && src.Name != "" {
			last.byPackage[src.Type] = src.Name
		}
	}
	for _, rec := range recs {
		if !used[rec.Namespace] {
			continue
		}
		p, err := cache.get(ctx, cat, rec)
		if err != nil {
			// The pipeline calls its bots: say why they cannot run
			// (a library not installed on this pod, ...), not "unknown bot".
			return nil, err
		}
		for _, b := range p.Manifest.Bots {
			xs = append(xs, packageBot(data, p, b, int64(memoryMB*(1<<20)), last)...)
		}
	}
	return xs, nil
}

// usesPackages reports whether a namespace of used may be a package's
// (a pipeline of the fabric's own bots alone needs no package).
func usesPackages(used map[string]bool) bool {
	for ns := range used {
		if !botpkg.ReservedNamespaces[ns] {
			return true
		}
	}
	return false
}

// lastSources are the sources a job's steps named, by package: a step of
// a package that names none runs against the source the job's last step
// of that package named (a pipeline names its source once, on its first
// step, or in its sources map), or else the package's only source.
type lastSources struct {
	mu        sync.Mutex
	byPackage map[string]string
}

// use returns the source of a step of pkg that names name ("": none).
func (l *lastSources) use(pkg, name string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if name == "" {
		return l.byPackage[pkg]
	}
	l.byPackage[pkg] = name
	return name
}

// packageBot is one bot of a package as engine extensions: @ns:bot with
// its parameters; *ns:bot QUERY, its rows filtered by a CFXQL query (run
// with no parameters, against the job's source of the package); and, for
// a bot with a text parameter named query, #ns:bot QUERY, the query
// pushed down to it as that parameter.
func packageBot(data *tenant.Data, p *botpkg.Package, b botpkg.Bot, memory int64, last *lastSources) []engine.Extension {
	doc := engine.BotDoc{Tag: p.Tag(b.Name), Description: b.Description}
	for _, mp := range b.ModelParameters {
		typ := map[string]string{"text": "string", "number": "number", "boolean": "bool"}[mp.Type]
		doc.Params = append(doc.Params, engine.ParamDoc{Name: mp.Name, Type: typ, Required: mp.Mandatory, Default: mp.Default, Description: mp.Description})
	}
	doc.Params = append(doc.Params, engine.ParamDoc{Name: sourceParam, Type: "string", Description: "the bot source (a configuration of the package) the bot runs against"})
	star := engine.BotDoc{Tag: "*" + strings.TrimPrefix(doc.Tag, "@"), Description: withNote(b.Description, "its rows filtered by a CFXQL query")}
	bot := b.Name
	filtered := func(pushDown bool) engine.BotFunc {
		return func(ctx context.Context, in *frame.Frame, params map[string]string) (*frame.Frame, error) {
			q, err := cfxarrow.Parse(params["query"])
			if err != nil {
				return nil, fmt.Errorf("invalid query: %w", err)
			}
			var botParams map[string]string
			if pushDown {
				botParams = map[string]string{queryParam: params["query"]}
			}
			out, err := callBot(ctx, data, p, bot, memory, last, in, botParams)
			if err != nil {
				return nil, err
			}
			return q.WithNow(time.Now()).Filter(out)
		}
	}
	xs := []engine.Extension{
		{Doc: doc, Run: func(ctx context.Context, in *frame.Frame, params map[string]string) (*frame.Frame, error) {
			return callBot(ctx, data, p, bot, memory, last, in, params)
		}},
		{Doc: star, Run: filtered(false)},
	}
	for _, mp := range b.ModelParameters {
		if mp.Name == queryParam && mp.Type == "text" {
			push := engine.BotDoc{Tag: "#" + strings.TrimPrefix(doc.Tag, "@"), Description: withNote(b.Description, "a CFXQL query pushed down to its source, its rows filtered by it")}
			xs = append(xs, engine.Extension{Doc: push, Run: filtered(true)})
		}
	}
	return xs
}

// withNote is a bot's description with a note in parentheses after it
// (the note alone for a bot without one).
func withNote(description, note string) string {
	if description == "" {
		return "(" + note + ")"
	}
	return description + " (" + note + ")"
}

// callBot runs one call of a package's bot over the frame in hand.
func callBot(ctx context.Context, data *tenant.Data, p *botpkg.Package, bot string, memory int64, last *lastSources,
	in *frame.Frame, params map[string]string) (*frame.Frame, error) {
	// What the bot prints is traced with its step (bounded, secrets
	// redacted by the package), as the job's log.
	call := botpkg.Call{Bot: bot, Params: map[string]string{}, Memory: memory, Print: func(msg string) { engine.Log(ctx, msg) }}
	for k, v := range params {
		if k != sourceParam {
			call.Params[k] = v
		}
	}
	name := last.use(p.Manifest.Extension.DefaultName, params[sourceParam])
	if name == "" {
		var err error
		if name, err = soleSource(ctx, data, p.Manifest.Extension.DefaultName); err != nil {
			return nil, err
		}
	}
	if name != "" {
		config, err := sourceConfig(ctx, data, p, name)
		if err != nil {
			return nil, err
		}
		call.Config = config
	}
	return runBot(ctx, p, call, in)
}

// soleSource is the one source of a package, "" when it has none or
// several (a step must then name one).
func soleSource(ctx context.Context, data *tenant.Data, pkg string) (string, error) {
	st, err := data.Store(ctx)
	if err != nil {
		return "", err
	}
	all, err := (&botsources.Sources{Catalog: &botpackages.Catalog{Store: st}}).List(ctx)
	if err != nil {
		return "", err
	}
	name := ""
	for _, src := range all {
		if src.Package == pkg {
			if name != "" {
				return "", nil
			}
			name = src.Name
		}
	}
	return name, nil
}

// sourceConfig is the configuration of the source name, its secrets
// opened; the source must be one of the package's.
func sourceConfig(ctx context.Context, data *tenant.Data, p *botpkg.Package, name string) (map[string]any, error) {
	st, err := data.Store(ctx)
	if err != nil {
		return nil, err
	}
	srcs := &botsources.Sources{Catalog: &botpackages.Catalog{Store: st}, Secrets: &secret.Store{Store: st}}
	src, err := srcs.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if src.Package != p.Manifest.Extension.DefaultName {
		return nil, fmt.Errorf("source %s configures bot package %s, not %s", name, src.Package, p.Manifest.Extension.DefaultName)
	}
	return srcs.Resolved(ctx, src)
}

// checkPackageSource checks the source name of the bot package typ (found
// false when typ names no package): its configuration, secrets opened,
// by the package's check_credentials when it has one.
func checkPackageSource(ctx context.Context, data *tenant.Data, name, typ string) (found bool, err error) {
	st, err := data.Store(ctx)
	if err != nil {
		return false, err
	}
	cat := &botpackages.Catalog{Store: st}
	rec, err := cat.Get(ctx, typ)
	if err != nil {
		return false, nil
	}
	fsys, err := cat.Files(ctx, rec)
	if err != nil {
		return true, err
	}
	p, err := botpkg.Load(ctx, fsys, botpkg.Limits{})
	if err != nil {
		return true, err
	}
	config, err := sourceConfig(ctx, data, p, name)
	if err != nil {
		return true, err
	}
	return true, p.CheckCredentials(ctx, config)
}
