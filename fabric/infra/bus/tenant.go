package bus

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

// Tenant is a tenant of a server: a NATS account with JetStream and one
// user.
type Tenant struct {
	Name     string
	User     string
	Password string
}

// NewTenant returns a tenant whose user is its name, with a new random
// password.
func NewTenant(name string) (Tenant, error) {
	if err := ValidTenantName(name); err != nil {
		return Tenant{}, err
	}
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return Tenant{}, err
	}
	return Tenant{Name: name, User: name, Password: base64.RawURLEncoding.EncodeToString(buf)}, nil
}

// ValidTenantName checks a tenant name: 1 to 63 lower-case letters, digits,
// '_' and '-', starting with a letter or digit.
func ValidTenantName(name string) error {
	ok := len(name) > 0 && len(name) <= 63
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || i > 0 && (c == '_' || c == '-')
	}
	if !ok {
		return fmt.Errorf("invalid tenant name %q: use lower-case letters, digits, '_' and '-'", name)
	}
	return nil
}
