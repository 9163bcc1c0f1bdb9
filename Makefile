# The two commands of a fresh machine: `make run` and `make test`. Each runs
# scripts/setup.sh first, which installs what is missing and nothing else.

GO ?= go
ARGS ?=

.PHONY: run test setup build bench vet fmt

run: setup build
	./bin/yakor serve $(ARGS)

test:
	bash scripts/test.sh

setup:
	bash scripts/setup.sh

build:
	$(GO) build -buildvcs=auto -o bin/yakor ./cmd/yakor

# Every benchmark, written to docs/benchmarks.md (ARGS: bench all's flags).
bench: setup build
	./bin/yakor bench all $(ARGS)

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')
