package yamldoc

import (
	"fmt"
	"strings"
)

// BillionLaughs returns the classic YAML alias bomb, as a mapping whose
// first field is prefix (a "name: x" line, or ""): ten levels of ten
// aliases to the level below, 1e10 nodes expanded from under 1 KB. The
// fences' tests of every reader of YAML use it.
func BillionLaughs(prefix string) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		alias := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(alias+", ", 10), ", "))
	}
	return b.String()
}
