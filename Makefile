# gonero: two commands a user needs.
#   make run   - build and run a regtest node (embedded store in ./data, fixed
#                difficulty 1 as monerod-lab's regtest chains, RPC on 127.0.0.1:18081)
#   make test  - everything CI checks: format, vet, staticcheck, unit tests,
#                cross-checks against monerod, short fuzz runs
# Both install missing system packages with apt-get (as root) first.

GO        ?= go
DATA_DIR  ?= ./data
BIN       := bin/gonerod

.PHONY: run test build deps clean

deps:
	@scripts/deps.sh

build: deps
	$(GO) build -o $(BIN) ./cmd/gonerod

run: build
	$(BIN) --regtest --fixed-difficulty 1 --data-dir $(DATA_DIR)

test: deps
	@scripts/test.sh

clean:
	rm -rf bin
