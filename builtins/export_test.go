package builtins

import (
	"sort"

	"github.com/fabricops/fabric/fabric/infra/artifact"
)

// ArtifactModuleNames are the names of the artifact kinds' modules.
func ArtifactModuleNames() []string {
	var names []string
	for name := range artifact.Kinds {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
