package pack

import (
	"strings"
)

// Kinds of a line of a side-by-side diff.
const (
	lineSame    = "same"
	lineChanged = "changed"
	lineRemoved = "removed"
	lineAdded   = "added"
)

// maxDiffCells bounds the table of a line diff (lines of the left's
// differing middle times the right's); past it the middle is shown
// changed as a whole.
const maxDiffCells = 4_000_000

// diffLine is a line of a side-by-side diff: the left's line and the
// right's (their numbers from 1, 0 when the side has no line there).
type diffLine struct {
	LeftNo, RightNo int
	Left, Right     string
	Kind            string
}

// splitLines splits a text into its lines ("\r\n" as "\n"; no last
// empty line for a text ending with a line break).
func splitLines(text []byte) []string {
	s := strings.ReplaceAll(string(text), "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// lineDiff compares two texts line by line (longest common
// subsequence) and pairs them side by side: equal lines on one row,
// the lines removed and added between two equal ones paired as changed
// rows, the rest of the longer run removed or added.
func lineDiff(left, right []byte) []diffLine {
	a, b := splitLines(left), splitLines(right)
	// The common head and tail are equal lines.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	// ops: '=' an equal line, '-' a line of a only, '+' of b only.
	var ops []byte
	for range pre {
		ops = append(ops, '=')
	}
	ops = append(ops, middleOps(ma, mb)...)
	for range suf {
		ops = append(ops, '=')
	}
	var out []diffLine
	i, j := 0, 0
	for k := 0; k < len(ops); {
		if ops[k] == '=' {
			out = append(out, diffLine{LeftNo: i + 1, RightNo: j + 1, Left: a[i], Right: b[j], Kind: lineSame})
			i, j, k = i+1, j+1, k+1
			continue
		}
		// A run of removed and added lines, paired.
		var dels, adds []int
		for ; k < len(ops) && ops[k] != '='; k++ {
			if ops[k] == '-' {
				dels = append(dels, i)
				i++
			} else {
				adds = append(adds, j)
				j++
			}
		}
		for n := 0; n < max(len(dels), len(adds)); n++ {
			var d diffLine
			switch {
			case n < len(dels) && n < len(adds):
				d = diffLine{LeftNo: dels[n] + 1, Left: a[dels[n]], RightNo: adds[n] + 1, Right: b[adds[n]], Kind: lineChanged}
			case n < len(dels):
				d = diffLine{LeftNo: dels[n] + 1, Left: a[dels[n]], Kind: lineRemoved}
			default:
				d = diffLine{RightNo: adds[n] + 1, Right: b[adds[n]], Kind: lineAdded}
			}
			out = append(out, d)
		}
	}
	return out
}

// middleOps are the edit operations from a to b: by the longest common
// subsequence when the table is small enough, else all of a removed and
// all of b added.
func middleOps(a, b []string) []byte {
	n, m := len(a), len(b)
	if n == 0 || m == 0 || n*m > maxDiffCells {
		ops := make([]byte, 0, n+m)
		for range n {
			ops = append(ops, '-')
		}
		for range m {
			ops = append(ops, '+')
		}
		return ops
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:], in one slice of (n+1)*(m+1).
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	ops := make([]byte, 0, n+m)
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, '=')
			i, j = i+1, j+1
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			ops = append(ops, '-')
			i++
		default:
			ops = append(ops, '+')
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, '-')
	}
	for ; j < m; j++ {
		ops = append(ops, '+')
	}
	return ops
}
