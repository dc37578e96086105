package artifact

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// The kinds whose records others use are not deleted while used: a stack
// or a site profile a synthetic profile names, a dashboard a dashboard
// group lists. (Set
// here, not in the kinds' declarations: the kinds refer to each other.)
func init() {
	Stack.UsedBy = func(ctx context.Context, r *Repo, name string) (string, error) {
		return r.firstUser(ctx, Synthetics, func(d *Doc) bool { s, _ := d.String("stack"); return s == name })
	}
	SiteProfile.UsedBy = func(ctx context.Context, r *Repo, name string) (string, error) {
		return r.firstUser(ctx, Synthetics, func(d *Doc) bool { s, _ := d.String("site_profile"); return s == name })
	}
	Dashboard.UsedBy = func(ctx context.Context, r *Repo, name string) (string, error) {
		return r.firstUser(ctx, DashGroup, func(d *Doc) bool { return slices.Contains(groupDashboards(d), name) })
	}
}

// firstUser names the first record of kind k (by name) that uses
// something, as a refusal says it: `synthetic profile "web"` ("" when
// none does).
func (r *Repo) firstUser(ctx context.Context, k *Kind, uses func(d *Doc) bool) (string, error) {
	recs, err := r.List(ctx, k)
	if err != nil {
		return "", err
	}
	for _, rec := range recs {
		if uses(rec.Doc) {
			return fmt.Sprintf("%s %q", k.Name, rec.name(k)), nil
		}
	}
	return "", nil
}

// groupDashboards are the names of the dashboards a group lists.
func groupDashboards(d *Doc) []string {
	var list []struct {
		Name string `json:"name"`
	}
	if raw := d.Raw("dashboardList"); raw != nil {
		_ = json.Unmarshal(raw, &list)
	}
	names := make([]string, len(list))
	for i, item := range list {
		names[i] = item.Name
	}
	return names
}
