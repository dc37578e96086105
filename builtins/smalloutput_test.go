package builtins_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestSmallOutputIsTheOutput: on a real fabric, the copy a small output
// has in its job's record (small_output, the lean build's) gives the rows
// and the printed table the stored Parquet gives the data build (output),
// cell for cell over the kinds a frame has (ints past 2^53, floats,
// bools, times to the nanosecond, strings, nulls); a larger output, a
// failed job's and a purged one have none.
func TestSmallOutputIsTheOutput(t *testing.T) {
	f := newFixture(t)
	f.File("kinds.csv", "host,cpu,n,up,seen,note\n"+
		"web-1,93.5,3,true,2024-01-02T03:04:05Z,\n"+
		"web-2,12,-9007199254740993,false,2024-05-06T07:08:09.123456789Z,\"a \"\"quoted\"\", note\"\n"+
		",1e300,9007199254740993,,,é\n")
	var big strings.Builder
	big.WriteString("i,name\n")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&big, "%d,row-%d\n", i, i)
	}
	f.File("big.csv", big.String())
	out := f.Exec(`
dataset.add("kinds", file = "kinds.csv")
dataset.add("big", file = "big.csv")
def finished(name):
    file.write(name + ".pipeline", "@dm:recall name = '" + name + "'")
    j = run(file = name + ".pipeline")
    return wait(j, timeout = 60)["jobid"]
k = finished("kinds")
small = small_output(k)
print(small["rows"] == output(k).rows(), small["text"] == str(output(k)))
print(small["rows"][1]["n"], small["rows"][2]["cpu"], small["rows"][1]["seen"], small["rows"][2]["host"])
print(small_output(finished("big")), len(output(finished("big")).rows()))
failed = finished("none")
print(job(failed)["status"], small_output(failed))
print("small_output" in job(k))
purge_outputs()
print(small_output(k))
`)
	want := "True True\n-9007199254740993 1e+300 2024-05-06T07:08:09.123456 None\nNone 150\nFailed None\nFalse\nNone\n"
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
}
