# The two commands a fresh machine needs: `make run` and `make test`.
# Both run `make setup` first, which installs what is missing.

GO ?= go
# ADDR, when given (make run ADDR=127.0.0.1:9090), is passed as -addr;
# unset, the server's own default applies: SITEDIAG_ADDR, else
# 127.0.0.1:8080.
ADDR ?=
# STATICCHECK is the pinned staticcheck `make test` runs after go vet
# (2026.2.2), fetched through the module proxy by go run.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: run test setup setup-test vet fmt bench

run: setup
	$(GO) build -o bin/sitediag-server ./examples/server
	exec ./bin/sitediag-server $(if $(ADDR),-addr $(ADDR))

test: setup-test vet
	$(GO) test -count=1 -timeout 30m ./...

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# setup installs the runtime parts the operations and tests need when
# they are missing: Debian packages (as root).
setup:
	@./scripts/setup.sh

# setup-test is setup plus what only the tests use: Redocly CLI, pinned
# in tools/redocly, which lints the OpenAPI description.
setup-test:
	@./scripts/setup.sh --test

bench:
	@./bench/run.sh
