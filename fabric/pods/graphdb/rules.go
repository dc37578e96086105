package graphdb

import "strings"

// ruleList is ArangoDB 3.12's optimizer rules as a single server of the
// community edition lists them (GET /_api/query/rules), in the order it
// applies them, with their flags: D can be disabled, P can create more
// plans, X is disabled by default, H is hidden. (Cluster-only and
// enterprise-only rules are not registered on such a server.) This
// server plans no queries: the list is what a client of ArangoDB's API
// reads and may name in a query's optimizer.rules, which the server
// accepts and ignores.
var ruleList = []struct{ name, flags string }{
	{"replace-function-with-index", ""},
	{"replace-like-with-range", ""},
	{"replace-entries-with-object-iteration", "D"},
	{"inline-subqueries", "D"},
	{"simplify-conditions", "D"},
	{"move-calculations-up", "D"},
	{"move-filters-up", "D"},
	{"remove-redundant-calculations", "D"},
	{"remove-unnecessary-filters", "D"},
	{"remove-unnecessary-calculations", "D"},
	{"specialize-collect", "PH"},
	{"remove-redundant-sorts", "D"},
	{"optimize-subqueries", "D"},
	{"interchange-adjacent-enumerations", "PD"},
	{"replace-equal-attribute-accesses", "XD"},
	{"move-calculations-up-2", "D"},
	{"move-filters-up-2", "D"},
	{"remove-redundant-sorts-2", "D"},
	{"remove-sort-rand-limit-1", "D"},
	{"remove-collect-variables", "D"},
	{"propagate-constant-attributes", "D"},
	{"remove-data-modification-out-variables", "D"},
	{"replace-or-with-in", "D"},
	{"remove-redundant-or", "D"},
	{"geo-index-optimizer", "D"},
	{"use-indexes", "D"},
	{"remove-filter-covered-by-index", "D"},
	{"remove-unnecessary-filters-2", "D"},
	{"use-index-for-sort", "D"},
	{"use-index-for-collect", "D"},
	{"sort-in-values", "D"},
	{"optimize-traversal-last-element-access", "D"},
	{"optimize-traversals", "D"},
	{"optimize-enumerate-path-filters", "D"},
	{"optimize-paths", "D"},
	{"remove-filter-covered-by-traversal", "D"},
	{"handle-arangosearch-views", ""},
	{"arangosearch-constrained-sort", "D"},
	{"remove-unnecessary-calculations-2", "D"},
	{"remove-redundant-path-var", "D"},
	{"optimize-projections", "D"},
	{"move-calculations-down", "D"},
	{"fuse-filters", "D"},
	{"remove-unnecessary-calculations-3", "DXH"},
	{"sort-limit", "D"},
	{"reduce-extraction-to-projection", "D"},
	{"move-filters-into-enumerate", "D"},
	{"optimize-count", "D"},
	{"late-document-materialization-arangosearch", "D"},
	{"late-document-materialization", "D"},
	{"batch-materialize-documents", "D"},
	{"push-down-late-materialization", "D"},
	{"push-limit-into-index", "D"},
	{"materialize-into-separate-variable", ""},
	{"use-vector-index", "D"},
	{"push-filter-into-enumerate-near", "XH"},
	{"immutable-search-condition", "D"},
	{"remove-unnecessary-calculations-4", "D"},
	{"splice-subqueries", ""},
	{"join-index-nodes", "D"},
	{"async-prefetch", "D"},
}

// optimizerRules answers GET /_api/query/rules: each rule's name and
// flags, every flag present.
func optimizerRules() []map[string]any {
	out := make([]map[string]any, 0, len(ruleList))
	for _, r := range ruleList {
		has := func(f string) bool { return strings.Contains(r.flags, f) }
		out = append(out, map[string]any{"name": r.name, "flags": map[string]any{
			"hidden": has("H"), "clusterOnly": false, "canBeDisabled": has("D"),
			"canCreateAdditionalPlans": has("P"), "disabledByDefault": has("X"), "enterpriseOnly": false}})
	}
	return out
}
