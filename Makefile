# gonero: two commands a user needs.
#   make run   - build and run a regtest node that mines to the development
#                wallet "alice" (embedded store in ./data, fixed difficulty 1 as
#                monerod-lab's regtest chains, RPC on 127.0.0.1:18081, ZMQ RPC
#                on 127.0.0.1:18082, as monerod's defaults)
#   make test  - everything CI checks: format, vet, staticcheck, unit tests,
#                cross-checks against monerod, short fuzz runs
#   make test-lws LWS_BIN=DIR - monero-lws (built apart, its binaries in DIR)
#                on gonerod and on monerod, compared (bench/lws.sh; not in make test)
# Both install missing system packages with apt-get (as root) first; `make build`
# needs only Go, a C compiler and librandomx-dev, and names what is missing.

GO        ?= go
DATA_DIR  ?= ./data
BIN       := bin/gonerod
# The regtest wallet "alice" of testdata/regtest (its seed is in that README).
MINING_ADDRESS  ?= 43HBKxZWFcNgr7c5wiJdRoRb8cqWwS1h4gE5P5MSd27CJDHpVogKad5jJnyYk9m1u11bLAwbNfAawGYbkGEKN1tdVGKR9MS
MINING_INTERVAL ?= 5s

.PHONY: run test test-lws build deps clean

deps:
	@scripts/deps.sh build

build: deps
	$(GO) build -o $(BIN) ./cmd/gonerod

run: build
	$(BIN) --regtest --offline --fixed-difficulty 1 --data-dir $(DATA_DIR) --start-mining $(MINING_ADDRESS) --mining-interval $(MINING_INTERVAL)

test:
	@scripts/deps.sh test
	@scripts/test.sh

test-lws:
	bench/lws.sh $(if $(LWS_BIN),--lws-bin $(LWS_BIN))

clean:
	rm -rf bin
