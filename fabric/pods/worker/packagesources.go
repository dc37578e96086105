package worker

import (
	"context"
	"sort"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/botpackages"
	"github.com/fabricops/fabric/fabric/infra/botsources"
	"github.com/fabricops/fabric/fabric/infra/tenant"
)

// packageSourceRows are the rows bots-by-source lists for the tenant's
// bot packages (Bot, Type, Description, Source): for each configured
// source of a package, each bot of the package in the forms the worker
// offers it (@ns:bot, *ns:bot, and #ns:bot for a bot with a text
// parameter named query), its type the manifest's bot_type, under the
// source's name. A package that no longer loads is left out, as are the
// packages no source configures; the rows are by source, then bot.
func packageSourceRows(ctx context.Context, data *tenant.Data, cache *packageCache) ([][]any, error) {
	st, err := data.Store(ctx)
	if err != nil {
		return nil, err
	}
	cat := &botpackages.Catalog{Store: st}
	sources, err := (&botsources.Sources{Catalog: cat}).List(ctx)
	if err != nil {
		return nil, err
	}
	if len(sources) == 0 {
		return nil, nil
	}
	recs, err := cat.List(ctx)
	if err != nil {
		return nil, err
	}
	type bot struct{ tag, kind, description string }
	byPackage := map[string][]bot{}
	for _, rec := range recs {
		if !configured(sources, rec.Name) {
			continue
		}
		// Loaded as a job loads it (the worker's cache, its installed
		// libraries): a package that cannot run here is left out.
		p, err := cache.get(ctx, cat, rec)
		if err != nil {
			continue
		}
		var bots []bot
		for _, b := range p.Manifest.Bots {
			for _, x := range packageBot(data, p, b, 0, nil) {
				bots = append(bots, bot{x.Doc.Tag, b.BotType, x.Doc.Description})
			}
		}
		sort.Slice(bots, func(i, j int) bool { return bots[i].tag < bots[j].tag })
		byPackage[rec.Name] = bots
	}
	var rows [][]any
	for _, src := range sources {
		for _, b := range byPackage[src.Package] {
			rows = append(rows, []any{b.tag, b.kind, b.description, src.Name})
		}
	}
	return rows, nil
}

// configured reports whether a source of sources configures the package
// named pkg.
func configured(sources []api.BotSource, pkg string) bool {
	for _, s := range sources {
		if s.Package == pkg {
			return true
		}
	}
	return false
}
