# gonero: two commands a user needs.
#   make run   - build and run a regtest node (embedded store in ./data)
#   make test  - everything CI checks: format, vet, staticcheck, unit tests,
#                cross-checks against monerod, short fuzz runs
# Both install missing system packages with apt-get (as root) first.

GO        ?= go
DATA_DIR  ?= ./data
BIN       := bin/gonerod

.PHONY: run test build deps lint fuzz clean

deps:
	@scripts/deps.sh

build: deps
	$(GO) build -o $(BIN) ./cmd/gonerod

run: build
	$(BIN) --regtest --data-dir $(DATA_DIR)

test: deps
	@scripts/test.sh

clean:
	rm -rf bin
