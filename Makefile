# einocompact: the targets CI and people use. `make test` is what CI runs.
GO ?= go
PKGS ?= ./...

.PHONY: test vet lint bench demo fmt

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

## bench: the micro-benchmarks, with allocations.
bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

## demo: the project's main job.
demo:
	@echo "demo: not yet (see issue 5)"
