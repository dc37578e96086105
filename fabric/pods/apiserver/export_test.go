package apiserver

import "github.com/fabricops/fabric/fabric/api"

// SetWrittenHook makes the api-server's deployments call f after each
// artifact they write (an error fails the deployment) until the test
// ends.
func SetWrittenHook(t interface{ Cleanup(func()) }, f func(api.BundleRow) error) {
	writtenHook.Store(&f)
	t.Cleanup(func() { writtenHook.Store(nil) })
}

// SetPackWrittenHook makes the api-server's pack activations call f after
// each artifact they write (an error fails the activation) until the
// test ends.
func SetPackWrittenHook(t interface{ Cleanup(func()) }, f func(api.PackCreated) error) {
	packWritten.Store(&f)
	t.Cleanup(func() { packWritten.Store(nil) })
}
