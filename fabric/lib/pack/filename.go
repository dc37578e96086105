package pack

import (
	"fmt"
	"strings"
)

// FileName turns an artifact's name into a file name (a pack's files and
// a backup's): letters, digits, '-', '_' and inner '.' stay, any other
// byte is written as =XX.
func FileName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.' && i > 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	if b.Len() == 0 {
		return "="
	}
	return b.String()
}
