# Sourced by every benchmark before it builds (bench/common.sh sources
# it too). The binaries are built as make build builds them: static
# (CGO_ENABLED=0), so that a process starts without the dynamic loader;
# the floors and helpers of bench/ are built the same way, so that a ratio
# sets programs built alike against each other.
export CGO_ENABLED=0

# build_fabric: client (lean), client-data and fabricd into $out.
build_fabric() {
  local c
  for c in client client-data fabricd; do
    go build -trimpath -ldflags '-s -w' -o "$out/$c" "./cmd/$c"
  done
}
