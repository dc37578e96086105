// Command gencsv writes a CSV of generated monitoring rows for the
// benchmarks: gencsv ROWS FILE (about 100 bytes a row).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gencsv ROWS FILE")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "ROWS must be a number")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("id,ts,host,region,cpu,mem,status,bytes,message\n")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	regions := []string{"north", "south", "east", "west"}
	statuses := []string{"OK", "WARN", "CRIT"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "%d,%s,host-%04d,%s,%.2f,%.1f,%s,%d,request %d handled in %d ms\n",
			i, base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i%5000, regions[i%4],
			float64(i%10000)/100, float64(i%1000)/10, statuses[i%3], i*17%100000, i, i%997)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Close()
}
