package builtins

import (
	"github.com/fabricops/fabric/fabric/client"
	"sort"
)

// ArtifactModuleNames are the names of the artifact kinds' modules.
func ArtifactModuleNames() []string {
	var names []string
	for name := range client.ArtifactKinds {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
