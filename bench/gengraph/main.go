// Command gengraph writes the graph of bench/graphdb.sh as two CSV files:
//
//	gengraph NODES EDGES OUTDIR
//
// OUTDIR/nodes.csv has the header node_id,name,kind,site and NODES rows,
// ids n0000001, n0000002, ...; OUTDIR/edges.csv has the header
// left_id,right_id,relation,weight and EDGES rows. The graph is
// deterministic (the same arguments give the same bytes): edge i leaves
// node 1+i*NODES/EDGES, so the out-edges are spread evenly (2 a node for
// EDGES = 2*NODES) and come in the order of their left node, and goes to
// a pseudo-random node other than itself and than the node's other edges'
// ends (no pair repeats: every edge has its own key).
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

var (
	kinds     = []string{"host", "service", "switch", "rack", "user"}
	relations = []string{"runs_on", "depends_on", "connects_to", "owned_by"}
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: gengraph NODES EDGES OUTDIR")
		os.Exit(2)
	}
	nodes, err1 := strconv.Atoi(os.Args[1])
	edges, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil || nodes < 2 || edges < 0 {
		fmt.Fprintln(os.Stderr, "gengraph: NODES (at least 2) and EDGES must be numbers")
		os.Exit(2)
	}
	dir := os.Args[3]
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = write(filepath.Join(dir, "nodes.csv"), "node_id,name,kind,site", nodes, func(w *bufio.Writer, i int) {
			fmt.Fprintf(w, "n%07d,node %d,%s,site-%02d\n", i+1, i+1, kinds[i%len(kinds)], i%40)
		})
	}
	if err == nil {
		// A node's edges are consecutive rows; used holds the ends of the
		// current node's, so that no pair repeats (each edge its own key).
		lastLeft, used := -1, map[int]bool{}
		err = write(filepath.Join(dir, "edges.csv"), "left_id,right_id,relation,weight", edges, func(w *bufio.Writer, i int) {
			left := int(int64(i) * int64(nodes) / int64(edges))
			if left != lastLeft {
				lastLeft = left
				clear(used)
			}
			h := mix(uint64(i))
			right := int(h % uint64(nodes))
			for right == left || used[right] {
				right = (right + 1) % nodes
			}
			used[right] = true
			fmt.Fprintf(w, "n%07d,n%07d,%s,%d.%02d\n", left+1, right+1, relations[(h>>32)%uint64(len(relations))], (h>>40)%10, (h>>48)%100)
		})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gengraph:", err)
		os.Exit(1)
	}
}

// write writes a CSV of a header and n rows, row i written by row.
func write(path, header string, n int, row func(*bufio.Writer, int)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(header + "\n")
	for i := 0; i < n; i++ {
		row(w, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mix is SplitMix64's finalizer: a well-spread hash of x.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
