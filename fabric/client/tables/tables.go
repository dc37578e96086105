// Package tables is the data half of the fabric's Go client: the
// tenant's datasets, bounded datasets and job outputs as Arrow tables
// (lazy, streamed in record batches). Package client, which links no
// Arrow, has the rest; the shell's data build uses both.
package tables

import (
	"github.com/fabricops/fabric/fabric/client"
	tenanttables "github.com/fabricops/fabric/fabric/infra/tenant/tables"
)

// Of returns the tables of the tenant c is connected to.
func Of(c *client.Client) *tenanttables.Data { return tenanttables.New(c.Data) }
