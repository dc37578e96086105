package pack

import (
	"sort"
	"strings"
)

// SystemPublisher is the publisher of the packs of the system bundle:
// the packs the product ships with a release, as opposed to those a
// tenant or a catalogue publishes. A pack is of the system bundle when
// its manifest says publisher: system (any case).
const SystemPublisher = "system"

// IsSystem reports whether a pack's publisher makes it a system-bundle
// pack.
func IsSystem(publisher string) bool {
	return strings.EqualFold(strings.TrimSpace(publisher), SystemPublisher)
}

// IsBase reports whether a pack is a base pack, which the others of a
// catalogue build on: its name has the word base, between hyphens,
// underscores or dots (fault-management-base, inventory_collection.base).
func IsBase(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == ' ' }) {
		if w == "base" {
			return true
		}
	}
	return false
}

// CatalogueOrder sorts packs for an installation: base packs first, then
// the others, each by name and then version (numerically).
func CatalogueOrder[T any](packs []T, name, version func(T) string) {
	sort.SliceStable(packs, func(i, j int) bool {
		a, b := packs[i], packs[j]
		if IsBase(name(a)) != IsBase(name(b)) {
			return IsBase(name(a))
		}
		if name(a) != name(b) {
			return name(a) < name(b)
		}
		return CompareVersions(version(a), version(b)) < 0
	})
}
