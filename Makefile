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
	GOOS=darwin $(GO) build ./...
	GOOS=freebsd $(GO) build ./...

# setup installs what running needs, when it is missing: Chromium, Node
# and npm (Debian packages, as root) and Lighthouse (outside the checkout,
# see scripts/setup.sh). `./scripts/setup.sh --dry-run` lists it.
setup:
	@./scripts/setup.sh

# setup-test is setup plus what only the tests use: the services and
# tools their fixtures start (bind9, redis-server, gnutls-bin, nftables,
# ...; installed stopped and disabled at boot), versitygw and Redocly CLI.
setup-test:
	@./scripts/setup.sh --test

bench:
	@./bench/run.sh
