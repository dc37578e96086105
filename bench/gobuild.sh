# Sourced by every benchmark before it builds (bench/common.sh sources
# it too). The binaries are built as make build builds them: static
# (CGO_ENABLED=0), so that a process starts without the dynamic loader;
# the floors and helpers of bench/ are built the same way, so that a ratio
# sets programs built alike against each other.
export CGO_ENABLED=0

# go_build OUT PKG: builds PKG into OUT, then writes OUT into place with a
# plain copy, as an install (go install, make build, a download) does. The
# linker writes its output through a memory map, and a program run from
# the pages written that way starts slower (by 0.9 ms for a 6 MB floor,
# more for a larger binary) than the same program written with write()
# or read back from disk: every binary a ratio compares is put in the
# state a user's is in.
go_build() {
  go build -trimpath -ldflags '-s -w' -o "$1.link" "$2"
  cp "$1.link" "$1.tmp"
  mv -f "$1.tmp" "$1"
  rm -f "$1.link"
}

# build_fabric: client (lean), client-data and fabricd into $out.
build_fabric() {
  local c
  for c in client client-data fabricd; do
    go_build "$out/$c" "./cmd/$c"
  done
}
