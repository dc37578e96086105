package pack

import (
	"strings"
	"testing"
)

func TestSystemAndBase(t *testing.T) {
	if !IsSystem(" System ") || IsSystem("Fabric") || IsSystem("") {
		t.Error("IsSystem")
	}
	for name, want := range map[string]bool{"fault-management-base": true, "inventory_collection.base": true, "baseline": false, "ml": false, "base": true} {
		if IsBase(name) != want {
			t.Errorf("IsBase(%q) = %v", name, !want)
		}
	}
	p := []string{"ml@9.0.0", "vm-inventory@9.0.2", "inventory-collection-base@7.2.0", "fault-management-base@9.0.13", "ml@10.0.0"}
	CatalogueOrder(p, func(s string) string { return strings.Split(s, "@")[0] }, func(s string) string { return strings.Split(s, "@")[1] })
	if got := strings.Join(p, " "); got != "fault-management-base@9.0.13 inventory-collection-base@7.2.0 ml@9.0.0 ml@10.0.0 vm-inventory@9.0.2" {
		t.Errorf("order: %s", got)
	}
}
