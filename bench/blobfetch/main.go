// Command blobfetch is the floor that bench/pipeline.sh compares
// "client dataset get --tofile" against: it fetches a dataset's stored data
// file, as it is, from the tenant's object store of the fabric in
// FABRIC_HOME (or FABRIC_NETWORK_CONFIG), with nats.go alone, and writes it
// to a file. No decoding, no temporary file, no atomic rename.
//
//	blobfetch NAME FILE
//
// It prints the bytes written and the dataset's stored format.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/local"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: blobfetch NAME FILE")
		os.Exit(2)
	}
	if err := fetch(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "blobfetch:", err)
		os.Exit(1)
	}
}

func fetch(name, path string) error {
	cfg, err := bus.LoadConfig(bus.ConfigPath(local.Home()))
	if err != nil {
		return err
	}
	nc, err := bus.Connect(cfg, "blobfetch")
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	kv, err := js.KeyValue(ctx, api.DatasetsBucket)
	if err != nil {
		return fmt.Errorf("records %s: %w", api.DatasetsBucket, err)
	}
	e, err := kv.Get(ctx, store.Key(name))
	if err != nil {
		return fmt.Errorf("dataset %q: %w", name, err)
	}
	var d api.Dataset
	if err := json.Unmarshal(e.Value(), &d); err != nil {
		return err
	}
	obs, err := js.ObjectStore(ctx, api.ObjectsBucket)
	if err != nil {
		return fmt.Errorf("object store %s: %w", api.ObjectsBucket, err)
	}
	r, err := obs.Get(ctx, d.Datafile)
	if err != nil {
		return fmt.Errorf("%s: %w", d.Datafile, err)
	}
	defer r.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Println(n, d.Format)
	return nil
}
