# prowcrawl: see README.md. Every target works on a fresh clone with Go 1.26
# and the Go module proxy.
GO       ?= go
BIN      := bin/prowcrawl
DB       ?= prowcrawl.db
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
FUZZTIME ?= 30s
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build test test-full lint check demo bench bench-engine bench-suggest fuzz fuzz-short deps testdata schema clean

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/prowcrawl

## test: every test, with the race detector. The race detector also turns
## on checkptr, the checks of unsafe pointer arithmetic, everywhere; in
## SQLite (modernc.org/sqlite, C translated to Go, all pointer arithmetic)
## they made each query's parse cost milliseconds and the suite several
## times slower, so they are off there alone. Every package, SQLite's
## included, stays instrumented for races.
RACEFLAGS := -race -gcflags='modernc.org/...=-d=checkptr=0'
## -short narrows the few tests whose cost grows with every run they crawl
## (to a few of the sample's jobs, one fault seed); test-full runs them
## whole, without the race detector, and CI runs both.
test:
	$(GO) test $(RACEFLAGS) -short -count=1 ./...
	$(GO) test -count=1 -run 'Coverage' ./stats

## test-full: every test at full size, without the race detector.
test-full:
	$(GO) test -count=1 -timeout 30m ./...

## lint: formatting, vet, staticcheck and the package dependency rules.
lint: deps
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./... ./testdata/gen
	$(GO) run $(STATICCHECK) ./... ./testdata/gen

check: lint test

## schema: write db/schema.sql, the schema every migration makes, which a new
## database gets in one step. Run it after adding a migration; a test fails
## until then.
schema:
	$(GO) test -count=1 -run '^TestSchemaSnapshot$$' ./db -update-schema

## demo: crawl the bundled sample bucket into $(DB), show what is in it and
## what its failed runs share that no rule explains.
## Run it twice: the second crawl reads nothing it has already stored.
demo: build
	$(BIN) crawl --bucket testdata/bucket --mirror-of gs://test-platform-results-public --db $(DB) --since 2019-01-01 --presubmits
	$(BIN) status --db $(DB) --runs 40
	$(BIN) report --db $(DB)
	$(BIN) suggest --db $(DB) --top 5

## bench: every Go benchmark, then the engine beside ripgrep and grep.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(MAKE) bench-engine

## bench-suggest: suggest on planted failure modes at 10k, 100k and 1M
## texts, one table beside triage's published figures (.ci/bench-suggest;
## about 2 minutes; BENCH_SIZES picks the sizes).
bench-suggest:
	./.ci/bench-suggest

## bench-engine: prowcrawl classify, rg and GNU grep on the same generated
## logs, one core each, median of three runs (.ci/bench-engine).
bench-engine:
	./.ci/bench-engine

## fuzz: run every fuzz target for $(FUZZTIME) each.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 2s $$pkg; \
	  done; done

## fuzz-short: what CI runs. A count of inputs rather than a duration: a
## fuzz run that ends on a deadline while a worker is busy can fail with
## "context deadline exceeded" on a loaded machine, which is no finding.
fuzz-short:
	$(MAKE) fuzz FUZZTIME=20000x

## deps: dependencies point one way. The domain (the root package)
## imports only the standard library and prow, only db touches SQL, only
## gcs touches GCS, the backends (gcs, mirror) import no package of the
## module but the root, the cache none but artifact, artifact stores
## nothing, the parsers, the classifier, the statistics and the proposals
## of new symptoms do no I/O, nothing below the domain's users (the
## backends, cache, artifact, the parsers, classify, stats, suggest)
## imports db, nothing outside tests imports the fake source or starts
## another program, and a report is decided, then rendered: assess
## decides from the numbers it is given and reads and renders nothing,
## report only writes (every read of the store and every analysis takes a
## context, which report never holds), and the numbers (analyze, db) know
## nothing of the words above them.
deps:
	@set -e; $(GO) list -f '{{.ImportPath}} {{join .Imports " "}}' ./... | awk ' \
	  { pkg=$$1; sub(".*/prowcrawl/?", "", pkg); root=($$1 == "github.com/openshift-eng/prowcrawl"); \
	    for (i = 2; i <= NF; i++) { imp=$$i; \
	      if ((imp == "database/sql" || imp ~ /^modernc.org\/sqlite/) && pkg != "db") { print pkg " imports " imp " (only db may)"; bad=1 } \
	      if (imp ~ /^cloud.google.com\/go\/storage/ && pkg != "gcs") { print pkg " imports " imp " (only gcs may)"; bad=1 } \
	      if ((pkg == "gcs" || pkg == "mirror") && imp ~ /prowcrawl\// && imp !~ /prowcrawl\/prow$$/) { print pkg " imports " imp " (a backend imports only the root package and prow)"; bad=1 } \
	      if ((pkg == "gcs" || pkg == "mirror" || pkg == "cache" || pkg == "artifact" || pkg == "prow" || pkg == "classify" || pkg == "stats" || pkg == "suggest") && imp ~ /prowcrawl\/db$$/) { print pkg " imports " imp " (it is below db)"; bad=1 } \
	      if ((pkg == "prow" || pkg == "classify" || pkg == "stats" || pkg == "suggest") && (imp == "os" || imp == "net/http" || imp ~ /prowcrawl\/(db|crawler|analyze)$$/)) { print pkg " imports " imp " (it must do no I/O)"; bad=1 } \
	      if (root && imp ~ /prowcrawl\// && imp !~ /prowcrawl\/prow$$/) { print "prowcrawl imports " imp " (the domain imports only prow)"; bad=1 } \
	      if (root && imp ~ /\./ && imp !~ /^github.com\/openshift-eng\/prowcrawl\//) { print "prowcrawl imports " imp " (the domain imports only the standard library and prow)"; bad=1 } \
	      if (pkg == "artifact" && (imp == "os" || imp == "net/http" || imp ~ /prowcrawl\/(crawler|cache|db)$$/)) { print pkg " imports " imp " (it must not know where bytes come from or go)"; bad=1 } \
	      if (pkg == "db" && imp ~ /prowcrawl\/(crawler|classify|analyze|artifact)$$/) { print pkg " imports " imp " (db is the bottom layer)"; bad=1 } \
	      if (pkg == "report" && (imp == "context" || imp == "os" || imp == "net/http")) { print pkg " imports " imp " (report only writes: it reads and computes nothing)"; bad=1 } \
	      if (pkg == "assess" && (imp == "context" || imp == "os" || imp == "net/http" || imp ~ /prowcrawl\/(report|crawler|cache|classify|search|suggest|export)$$/)) { print pkg " imports " imp " (assess only decides: it reads and renders nothing)"; bad=1 } \
	      if ((pkg == "analyze" || pkg == "db") && imp ~ /prowcrawl\/(report|assess)$$/) { print pkg " imports " imp " (the numbers know nothing of their words)"; bad=1 } \
	      if (pkg == "cache" && imp ~ /prowcrawl\// && imp !~ /prowcrawl\/artifact$$/) { print pkg " imports " imp " (the cache imports only artifact, whose run value it hands out)"; bad=1 } \
	      if (imp ~ /prowcrawl\/internal\/sourcetest$$/) { print pkg " imports " imp " (the fake source is for tests only)"; bad=1 } \
	      if (imp == "os/exec") { print pkg " imports " imp " (prowcrawl runs no other program)"; bad=1 } \
	    } } END { exit bad }'
	@echo "dependency rules hold"

## testdata: regenerate the sample bucket (deterministic).
testdata:
	$(GO) run ./testdata/gen -out testdata/bucket

clean:
	rm -rf bin $(DB) $(DB)-wal $(DB)-shm
