# einocompact: the targets CI and people use. `make test` is what CI runs.
GO ?= go
PKGS ?= ./...

.PHONY: test setup vet lint bench bench-compare demo fmt fuzz load

## test: set up (scripts/setup), vet, then run every test (race detector on)
## once. Vet builds with -race too, so the test binaries reuse its compiled
## packages instead of compiling every dependency a second time. A test
## skipped for want of a program (internal/testdeps) is named in the run's
## last line, since go test shows no skip of a package that passes.
test: setup
	$(GO) vet -race $(PKGS)
	@log="$$(mktemp)"; echo "$(GO) test -race -count=1 $(PKGS)"; \
	EINOCOMPACT_SKIPLOG="$$log" $(GO) test -race -count=1 $(PKGS); status=$$?; \
	scripts/setup --report "$$log"; rm -f "$$log"; exit $$status

## setup: what the tests need on a machine with only Go: the Debian packages
## chromium, redis-server and gcc when missing (as root or through sudo;
## NO_APT=1 goes on without them and their tests are skipped), then the
## modules (go mod download).
setup:
	GO="$(GO)" NO_APT="$(NO_APT)" scripts/setup

vet:
	$(GO) vet $(PKGS)

## lint: fail when a file is not gofmt-formatted.
lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@# No function of the library or its integrations above cyclomatic
	@# complexity 20 (docs/architecture.md): gocyclo lists any and fails.
	@go run github.com/fzipp/gocyclo/cmd/gocyclo@v0.6.0 -over 20 -ignore '_test\.go$$' hooks integration

fmt:
	gofmt -w .

## bench: the micro-benchmarks, with allocations, then their medians as tables
## (about three minutes on 2 cores; BENCHFLAGS=-count=10 for steadier medians).
BENCHFLAGS ?= -benchtime=200ms -count=5
BENCHOUT ?= $(or $(TMPDIR),/tmp)/einocompact-bench.txt
bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(BENCHFLAGS) $(PKGS) | tee $(BENCHOUT)
	$(GO) run ./cmd/benchcompare -micro $(BENCHOUT)

## bench-compare: the bill (every request priced under provider cache models)
## and the 300-step cost simulation against Eino's summarization
## middleware; rewrites the generated parts of docs/benchmarks.md and its plot.
bench-compare:
	$(GO) run ./cmd/benchcompare -sim -docs docs

## demo: the project's main job: the fx agent app, offline (scripted model replies, real tools, extractive summarizer);
## it ends by saying where it wrote the compaction inspector's page of the run (DEMO_HTML).
DEMO_HTML ?= $(or $(TMPDIR),/tmp)/einocompact-demo.html
demo:
	$(GO) run ./examples/fx-app --html $(DEMO_HTML)

## fuzz: explore each fuzz target for FUZZTIME (default 20s); `make test`
## already replays their committed corpora (each package's testdata/fuzz).
## A target is PACKAGE:NAME.
FUZZTIME ?= 20s
FUZZ_TARGETS := ./hooks/compaction:FuzzRender ./hooks/compaction:FuzzMarkerOf ./hooks/compaction:FuzzCompact \
	./hooks/compaction:FuzzCompactors ./hooks/compaction:FuzzHook ./internal/spotlight:FuzzMark
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; \
		echo "== $$name ($$pkg)"; \
		$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=10s $$pkg/; \
	done

## load: 200 concurrent agent runs sharing one hook, compactor and counter,
## with a slow summarizer that fails at random: under -race, then without it
## for runs/s and hook latency (`make test` runs a 40-run version).
load:
	EINOCOMPACT_LOAD=full $(GO) test -race -count=1 -v -run='^TestLoadSharedHookManyRuns$$' ./hooks/compaction/
	EINOCOMPACT_LOAD=full $(GO) test -count=1 -v -run='^TestLoadSharedHookManyRuns$$' ./hooks/compaction/
