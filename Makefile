# Fabric: the client shell and the fabric it administers.
# make demo   builds the client and runs the demo workflow on the embedded default
# make test   installs what the tests need (once) and runs every test

GO       ?= go
BIN      := bin
VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/fabricops/fabric/cli.Version=$(VERSION)

.PHONY: all build test demo bench lint install deps fuzz clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/client ./cmd/client

# The tests drive the REPL under tmux; install it when missing (Debian).
deps:
	@command -v tmux >/dev/null 2>&1 || { \
	  echo "installing tmux (REPL terminal test)"; \
	  if command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux) >/dev/null 2>&1 \
	      || echo "warning: could not install tmux; the terminal test will be skipped"; \
	  else echo "warning: no apt-get; the terminal test will be skipped"; fi; }

test: deps
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed on:"; gofmt -l .; exit 1; }
	$(GO) test -count=1 ./...

demo: build
	$(BIN)/client run examples/demo.star

bench: build
	bash bench/startup.sh

lint:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed on:"; gofmt -l .; exit 1; }

# Short runs of every fuzz test (longer: make fuzz FUZZTIME=5m).
FUZZTIME ?= 15s
fuzz:
	$(GO) test ./runtime/command -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME)
	$(GO) test ./runtime/stdlib -run '^$$' -fuzz FuzzDecodeYAML -fuzztime $(FUZZTIME)
	$(GO) test ./fabric/pipeline -run '^$$' -fuzz FuzzChecksum -fuzztime $(FUZZTIME)
	$(GO) test ./cli -run '^$$' -fuzz FuzzSplitWords -fuzztime $(FUZZTIME)
	$(GO) test ./runtime/stdlib -run '^$$' -fuzz FuzzDecodeJSON -fuzztime $(FUZZTIME)

install:
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/client

clean:
	rm -rf $(BIN)
