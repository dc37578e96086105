package worker

import (
	"bytes"
	"log"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// smallOutput returns the copy of a small output that its job's record
// keeps (api.SmallOutput), read back from the Parquet the worker stores
// (pq) by the reader the clients' data build uses, so that its cells and
// printed table are what that build gives; nil when the output is not
// small.
func smallOutput(pq []byte, name string) *api.SmallOutput {
	src, err := frame.OpenParquet(bytes.NewReader(pq), name, frame.Scan{})
	if err != nil {
		log.Printf("worker: reading back output %s: %v", name, err)
		return nil
	}
	f, err := frame.ReadFrom(src)
	src.Close()
	if err != nil {
		log.Printf("worker: reading back output %s: %v", name, err)
		return nil
	}
	if f.NumRows() > api.SmallOutputRows {
		return nil
	}
	rows := make([][]any, f.NumRows())
	for i := range rows {
		rows[i] = f.Row(i)
	}
	return api.NewSmallOutput(f.Columns(), rows, f.String())
}
