package graphdb

import (
	"strconv"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// limitRows are the query limits (as the server holds them, defaults
// filled) of a tenant's graph database as the limits command lists them.
func limitRows(l aql.Limits, conns int) []api.LimitRow {
	const pod = "fabricd settings: limits.query"
	mb := func(n int64) string { return strconv.FormatInt(n>>20, 10) }
	itoa := strconv.Itoa
	return []api.LimitRow{
		{Scope: "query", Limit: "query_bytes", Value: itoa(l.QueryBytes), SetBy: pod},
		{Scope: "query", Limit: "nesting", Value: itoa(l.Nesting), SetBy: pod},
		{Scope: "query", Limit: "memory_mb", Value: mb(l.Memory), Maximum: mb(l.Memory), SetBy: "a cursor's memoryLimit, up to the maximum; " + pod},
		{Scope: "query", Limit: "max_runtime_seconds", Value: strconv.FormatFloat(l.Runtime.Seconds(), 'f', -1, 64), Maximum: strconv.FormatFloat(l.Runtime.Seconds(), 'f', -1, 64), SetBy: "a cursor's maxRuntime, up to the maximum; " + pod},
		{Scope: "query", Limit: "result_mb", Value: mb(l.Result), SetBy: pod},
		{Scope: "query", Limit: "concurrent", Value: itoa(l.Concurrent), SetBy: pod},
		{Scope: "query", Limit: "queued", Value: itoa(l.Queue), SetBy: pod},
		{Scope: "query", Limit: "open_cursors_mb", Value: mb(l.CursorBytes), SetBy: pod},
		{Scope: "graph database", Limit: "max_connections", Value: itoa(conns), SetBy: "fixed; more wait in the kernel's queue"},
		{Scope: "graph store", Limit: "min_free_disk_mb", Value: mb(graphstore.MinFreeDisk), SetBy: "fixed: a write must leave it free, and twice its own size"},
	}
}
