# einocompact: the targets CI and people use. `make test` is what CI runs.
GO ?= go
PKGS ?= ./...

.PHONY: test vet lint bench bench-compare demo fmt fuzz load

## test: vet, then run every test (race detector on) once.
test: vet
	$(GO) test -race -count=1 $(PKGS)

vet:
	$(GO) vet $(PKGS)

## lint: fail when a file is not gofmt-formatted.
lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

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
