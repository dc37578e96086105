package dashboards

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fabricops/fabric/fabric/infra/artifact"
)

// PageName is the name of the internal dashboard of page i (from 1) of
// app.
func PageName(app string, i int) string { return fmt.Sprintf("%s_page%d", app, i) }

// ToApp turns the tabbed or sectioned dashboard name into an app: each of
// its sections becomes an internal dashboard (PageName), holding that
// section and the dashboard's filters, and the dashboard becomes an app
// whose dashboard_pages name them. Nothing is left half done: the pages
// are removed again when the app cannot be stored, and a page name that
// is taken refuses the whole conversion.
func (ds *Dashboards) ToApp(ctx context.Context, name string) ([]Page, error) {
	rec, err := ds.Repo.Get(ctx, artifact.Dashboard, name)
	if err != nil {
		return nil, err
	}
	d := rec.Doc
	if t, _ := d.String("dashboard_type"); t == "app" {
		return nil, fmt.Errorf("dashboard %q is an app already", name)
	}
	var sections []json.RawMessage
	if raw := d.Raw("dashboard_sections"); raw != nil {
		_ = json.Unmarshal(raw, &sections)
	}
	if len(sections) == 0 {
		return nil, fmt.Errorf("dashboard %q has no sections to make pages of", name)
	}
	var ps []Page
	var docs [][]byte
	for i, raw := range sections {
		sec, err := artifact.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("dashboard %q: dashboard_sections[%d]: %v", name, i, err)
		}
		title, _ := sec.String("title")
		if title == "" {
			title = fmt.Sprintf("Page %d", i+1)
		}
		p := Page{Name: PageName(name, i+1), Label: title}
		if _, err := ds.Repo.Get(ctx, artifact.Dashboard, p.Name); err == nil {
			return nil, fmt.Errorf("dashboard %q exists already: it would be page %d of app %q", p.Name, i+1, name)
		} else if !errors.Is(err, artifact.ErrNotFound) {
			return nil, err
		}
		page := artifact.NewDoc()
		page.SetValue("name", p.Name)
		page.SetValue("label", title)
		page.SetValue("description", fmt.Sprintf("Page %d of app %s", i+1, name))
		page.SetValue("dashboard_type", "dashboard")
		page.SetValue("app", name)
		for _, k := range []string{"dashboard_filters", "debug"} {
			if raw := d.Raw(k); raw != nil {
				page.Set(k, raw)
			}
		}
		page.Set("dashboard_sections", append(append([]byte("["), raw...), ']'))
		ps = append(ps, p)
		docs = append(docs, page.JSON())
	}
	var added []string
	undo := func() {
		for _, n := range added {
			_ = ds.Repo.Delete(context.WithoutCancel(ctx), artifact.Dashboard, n)
		}
	}
	for i, doc := range docs {
		if _, err := ds.Repo.Add(ctx, artifact.Dashboard, doc, false); err != nil {
			undo()
			return nil, fmt.Errorf("page %d of app %q: %v", i+1, name, err)
		}
		added = append(added, ps[i].Name)
	}
	d.Delete("dashboard_sections")
	d.Delete("dashboard_style")
	d.SetValue("dashboard_type", "app")
	d.SetValue("dashboard_pages", ps)
	d.SetValue("saved_time", ds.Repo.Timestamp())
	if err := ds.Repo.Replace(ctx, artifact.Dashboard, name, rec); err != nil {
		undo()
		return nil, err
	}
	return ps, nil
}
