package pipeline

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// VersionDayFormat is the day part of a version (time layout).
const VersionDayFormat = "2006_01_02"

var versionPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{4}_\d{2}_\d{2})_([1-9]\d{0,8})$`) })

// Version returns the version YYYY_MM_DD_N: the nth of day t (in UTC).
func Version(t time.Time, n int) string {
	return fmt.Sprintf("%s_%d", t.UTC().Format(VersionDayFormat), n)
}

// ParseVersion splits a version YYYY_MM_DD_N into its day and n.
func ParseVersion(v string) (day string, n int, ok bool) {
	m := versionPattern().FindStringSubmatch(v)
	if m == nil {
		return "", 0, false
	}
	if _, err := time.Parse(VersionDayFormat, m[1]); err != nil {
		return "", 0, false
	}
	n, _ = strconv.Atoi(m[2])
	return m[1], n, true
}

// CompareVersions orders versions by day, then by n (so 2026_01_02_10
// comes after 2026_01_02_9); anything that is not a version comes first,
// in string order.
func CompareVersions(a, b string) int {
	da, na, oka := ParseVersion(a)
	db, nb, okb := ParseVersion(b)
	switch {
	case oka && okb:
		return cmp.Or(cmp.Compare(da, db), cmp.Compare(na, nb))
	case oka:
		return 1
	case okb:
		return -1
	}
	return cmp.Compare(a, b)
}
