// Command graphwalk times 3-hop traversals against the fabric's graph
// database through the official driver (github.com/arangodb/go-driver/v2),
// for bench/graphdb.sh:
//
//	graphwalk [-h2] DB NODES EDGES STARTS_FILE
//
// It reads the graph database's url, user and password from the "graphdb"
// section of the network configuration (FABRIC_NETWORK_CONFIG, or that of
// FABRIC_HOME), connects over HTTP/1.1 (or h2c with -h2) with basic auth,
// opens the database DB and, for each start vertex key of STARTS_FILE (one
// a line), runs
//
//	FOR v IN 1..3 OUTBOUND @start @@edges RETURN v._key
//
// with @start = NODES/key, reading the whole cursor; each query is timed
// from the call to the last document read. It prints the documents of the
// collections NODES and EDGES, then the traversals' figures:
//
//	nodes=N edges=M starts=K rows=R empty=E p50_ms= p90_ms= p99_ms= total_s=
//
// (nearest-rank percentiles, as the DuckDB side computes them), and fails
// when the traversals found nothing at all.
//
//	graphwalk -lookup [-h2] DB NODES STARTS_FILE
//
// times indexed lookups instead: it makes a persistent index on the name
// attribute of NODES (timed: index_s), then for each start vertex key
// n0000042 runs
//
//	FOR n IN @@nodes FILTER n.name == @name RETURN n
//
// with @name "node 42" (the generator's names), and prints
//
//	lookups=K rows=R scanned_index=S scanned_full=F p50_ms= p90_ms= p99_ms= total_s= index_s=
//
// with the documents the queries read, by index and by full scan, as the
// server's cursor statistics count them; it fails unless each lookup found
// its one node reading only it.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/connection"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/local"
)

const query = "FOR v IN 1..3 OUTBOUND @start @@edges RETURN v._key"

func main() {
	h2 := flag.Bool("h2", false, "use HTTP/2 without TLS (h2c) instead of HTTP/1.1")
	byName := flag.Bool("lookup", false, "time indexed lookups of NODES by name instead of traversals")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: graphwalk [-h2] DB NODES EDGES STARTS_FILE | graphwalk -lookup [-h2] DB NODES STARTS_FILE")
		os.Exit(2)
	}
	flag.Parse()
	var err error
	switch {
	case *byName && flag.NArg() == 3:
		err = lookups(*h2, flag.Arg(0), flag.Arg(1), flag.Arg(2))
	case !*byName && flag.NArg() == 4:
		err = walk(*h2, flag.Arg(0), flag.Arg(1), flag.Arg(2), flag.Arg(3))
	default:
		flag.Usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "graphwalk:", err)
		os.Exit(1)
	}
}

// open connects to the fabric's graph database and opens database dbName.
func open(ctx context.Context, h2 bool, dbName string) (arangodb.Database, error) {
	cfg, err := bus.LoadConfig(bus.ConfigPath(local.Home()))
	if err != nil {
		return nil, err
	}
	if cfg.GraphDB.URL == "" {
		return nil, errors.New(`the network configuration has no "graphdb" url`)
	}
	ep := connection.NewRoundRobinEndpoints([]string{cfg.GraphDB.URL})
	var conn connection.Connection
	if h2 {
		conn = connection.NewHttp2Connection(connection.DefaultHTTP2ConfigurationWrapper(ep, false))
	} else {
		conn = connection.NewHttpConnection(connection.DefaultHTTPConfigurationWrapper(ep, false))
	}
	if err := conn.SetAuthentication(connection.NewBasicAuth(cfg.GraphDB.User, cfg.GraphDB.Password)); err != nil {
		return nil, err
	}
	db, err := arangodb.NewClient(conn).GetDatabase(ctx, dbName, nil) // also opens the connection
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", dbName, err)
	}
	return db, nil
}

// begin reads the start vertices and opens the database.
func begin(ctx context.Context, h2 bool, dbName, startsFile string) ([]string, arangodb.Database, error) {
	starts, err := readLines(startsFile)
	if err != nil {
		return nil, nil, err
	}
	if len(starts) == 0 {
		return nil, nil, fmt.Errorf("%s names no start vertex", startsFile)
	}
	db, err := open(ctx, h2, dbName)
	return starts, db, err
}

func walk(h2 bool, dbName, nodes, edges, startsFile string) error {
	ctx := context.Background()
	starts, db, err := begin(ctx, h2, dbName, startsFile)
	if err != nil {
		return err
	}

	var counts [2]int64
	for i, name := range []string{nodes, edges} {
		coll, err := db.GetCollection(ctx, name, nil)
		if err == nil {
			counts[i], err = coll.Count(ctx)
		}
		if err != nil {
			return fmt.Errorf("collection %s: %w", name, err)
		}
	}

	times := make([]time.Duration, 0, len(starts))
	rows, empty := 0, 0
	t0 := time.Now()
	for _, key := range starts {
		t := time.Now()
		n, err := traverse(ctx, db, nodes+"/"+key, edges)
		if err != nil {
			return fmt.Errorf("from %s/%s: %w", nodes, key, err)
		}
		times = append(times, time.Since(t))
		rows += n
		if n == 0 {
			empty++
		}
	}
	total := time.Since(t0)
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	ms := func(q float64) float64 { return float64(pct(times, q)) / 1e6 }
	fmt.Printf("nodes=%d edges=%d starts=%d rows=%d empty=%d p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f total_s=%.3f\n",
		counts[0], counts[1], len(starts), rows, empty, ms(0.5), ms(0.9), ms(0.99), total.Seconds())
	if rows == 0 {
		return errors.New("no traversal found any vertex")
	}
	return nil
}

// traverse runs the query from the vertex start and returns the number of
// keys it read.
func traverse(ctx context.Context, db arangodb.Database, start, edges string) (int, error) {
	cur, err := db.Query(ctx, query, &arangodb.QueryOptions{
		BindVars:  map[string]any{"start": start, "@edges": edges},
		BatchSize: 1000,
	})
	if err != nil {
		return 0, err
	}
	defer cur.Close()
	n := 0
	for cur.HasMore() {
		var key string
		if _, err := cur.ReadDocument(ctx, &key); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// pct is the nearest-rank percentile q of sorted durations.
func pct(s []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// readLines returns the non-empty lines of a file.
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	return out, sc.Err()
}

// lookups makes the index on NODES' name, then finds each start vertex by
// its name.
func lookups(h2 bool, dbName, nodes, startsFile string) error {
	ctx := context.Background()
	starts, db, err := begin(ctx, h2, dbName, startsFile)
	if err != nil {
		return err
	}
	coll, err := db.GetCollection(ctx, nodes, nil)
	if err != nil {
		return fmt.Errorf("collection %s: %w", nodes, err)
	}
	ti := time.Now()
	if _, _, err := coll.EnsurePersistentIndex(ctx, []string{"name"}, &arangodb.CreatePersistentIndexOptions{Name: "by-name"}); err != nil {
		return fmt.Errorf("indexing %s by name: %w", nodes, err)
	}
	index := time.Since(ti)
	times := make([]time.Duration, 0, len(starts))
	var rows, byIndex, full int64
	t0 := time.Now()
	for _, key := range starts {
		var n int
		if _, err := fmt.Sscanf(key, "n%d", &n); err != nil {
			return fmt.Errorf("start vertex %q is not a generated key", key)
		}
		t := time.Now()
		cur, err := db.Query(ctx, "FOR n IN @@nodes FILTER n.name == @name RETURN n", &arangodb.QueryOptions{
			BindVars: map[string]any{"@nodes": nodes, "name": fmt.Sprint("node ", n)}, BatchSize: 1000})
		if err != nil {
			return fmt.Errorf("looking up %s: %w", key, err)
		}
		found := 0
		for cur.HasMore() {
			var doc map[string]any
			if _, err := cur.ReadDocument(ctx, &doc); err != nil {
				cur.Close()
				return err
			}
			found++
		}
		times = append(times, time.Since(t))
		st := cur.Statistics()
		cur.Close()
		rows += int64(found)
		byIndex += int64(st.ScannedIndexInt)
		full += int64(st.ScannedFullInt)
		if found != 1 || int64(st.ScannedIndexInt) != 1 || int64(st.ScannedFullInt) != 0 {
			return fmt.Errorf("looking up %s found %d documents, reading %d by index and %d by full scan; want the one, read by index", key, found, int64(st.ScannedIndexInt), int64(st.ScannedFullInt))
		}
	}
	total := time.Since(t0)
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	ms := func(q float64) float64 { return float64(pct(times, q)) / 1e6 }
	fmt.Printf("lookups=%d rows=%d scanned_index=%d scanned_full=%d p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f total_s=%.3f index_s=%.3f\n",
		len(starts), rows, byIndex, full, ms(0.5), ms(0.9), ms(0.99), total.Seconds(), index.Seconds())
	return nil
}
