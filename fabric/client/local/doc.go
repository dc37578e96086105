// Package local is the local fabric as the shell drives it: Up starts
// fabricd ("fabricd local") and waits until it is ready, saying why when
// it is not; Down stops it; Logs reads its log; FindDaemon and FindBinary
// find the binaries beside the client. The local fabric's layout and
// state, which fabricd's embedded fabric shares, are fabric/infra/local's.
package local
