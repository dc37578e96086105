package command

import (
	"sort"
	"strings"
)

// Closest returns up to n candidates nearest to word by edit distance,
// nearest first, leaving out those too far to be a plausible typo.
// A candidate that starts with word counts as near.
func Closest(word string, candidates []string, n int) []string {
	type scored struct {
		s string
		d int
	}
	var near []scored
	limit := max(2, len(word)/3)
	for _, c := range candidates {
		d := distance(word, c)
		if strings.HasPrefix(c, word) && word != "" {
			d = min(d, 1)
		}
		if d <= limit {
			near = append(near, scored{c, d})
		}
	}
	sort.SliceStable(near, func(i, j int) bool {
		if near[i].d != near[j].d {
			return near[i].d < near[j].d
		}
		return near[i].s < near[j].s
	})
	var out []string
	for _, s := range near {
		if len(out) == n {
			break
		}
		out = append(out, s.s)
	}
	return out
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
