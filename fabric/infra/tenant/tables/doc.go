// Package tables is the tenant's tabular data as Arrow: datasets' and
// bounded datasets' data files stored from streams of record batches and
// read back as lazy tables, and the JSON Schemas bounded data is checked
// against. The records alone (lists, metadata, deletes) are package
// tenant's, which links no Arrow, so that the lean shell can read them.
package tables

import "github.com/fabricops/fabric/fabric/infra/tenant"

// Data is a tenant's data layer with its tables.
type Data struct{ *tenant.Data }

// New returns the tables of the tenant data layer d.
func New(d *tenant.Data) *Data { return &Data{Data: d} }
