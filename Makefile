# mfdlq — make build | test | unit | e2e | bench | lint | demo | docs
GO      ?= go
BIN     ?= bin/mfdlq
SCENARIO ?= deploy

.PHONY: build test slow unit e2e bench lint demo docs clean

build:
	$(GO) build -o $(BIN) .

## test: everything — lint, unit and integration tests against a local AWS
## (moto, started and stopped here), and the end-to-end scripts.
## -parallel 8: the AWS tests mostly wait (visibility timeouts, rates,
## verify's settle), so more of them run at once than there are cores.
## cmd (the scripts, the longest package) gets a moto server of its own
## beside the one the other packages share: one moto serves on one core
## (Python's lock), and two keep both cores busy.
TESTFLAGS ?= -count=1 -parallel 8
test: lint
	@scripts/with-localaws.sh $(GO) test $(TESTFLAGS) ./cmd & cmd=$$!; \
	scripts/with-localaws.sh $(GO) test $(TESTFLAGS) $$($(GO) list ./... | grep -v '/cmd$$'); rest=$$?; \
	wait $$cmd; status=$$?; [ $$rest -eq 0 ] && [ $$status -eq 0 ]

## unit: the tests of the packages whose tests never import the local AWS
## harness (internal/localaws): no python3, no moto, no server.
unit:
	$(GO) test $(TESTFLAGS) $$($(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | grep -v 'internal/localaws' | cut -d' ' -f1)

## slow: the end-to-end scripts that wait for real time or move thousands
## (testdata/slow: a --rate 10 move, a live queue's traffic, browse in a
## pseudo-terminal, alarms flipping mid-move, a canary and verify on DLQs of
## thousands), and cmd's TestSlow… tests (SIGKILLs mid-move and reruns,
## to a queue and to a topic; sixteen workers on FIFO groups).
## CI runs it after test.
slow: build
	scripts/with-localaws.sh env MFDLQ_SLOW=1 $(GO) test $(TESTFLAGS) -run '^TestSlow' ./cmd

## e2e: only the testscript scripts in testdata/script.
e2e:
	scripts/with-localaws.sh $(GO) test $(TESTFLAGS) -run TestScripts ./cmd

bench:
	bench/run.sh

## lint: go vet, gofmt, staticcheck, gocyclo and deadcode (the three tools
## pinned in go.mod as tools: `go tool staticcheck`…); any finding fails.
## gocyclo: no product function (internal/ and _test.go files aside) above
## CYCLO, the most complex ones left when it was set (27: cmd's
## redriveOptions.validate, archive's reading.round). Split a function
## rather than raise it; lower CYCLO as the worst are split.
## deadcode: no product function reached only from tests (functions that
## only tests need live in _test.go files). internal/ is left out: the local
## AWS harness and its stand-ins are reached only from tests by design, and
## so is cmd/cmdtest (what several commands' tests share; archtest keeps it
## out of product code).
CYCLO ?= 27
lint:
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) tool gocyclo -over $(CYCLO) -ignore '_test\.go$$|^internal/' .
	@dead=$$($(GO) tool deadcode -f '{{range .Funcs}}{{printf "%s.%s %s:%d\n" $$.Path .Name .Position.File .Position.Line}}{{end}}' ./...) || exit 1; \
	out=$$(echo "$$dead" | sed 's|^github.com/mfdlq/mfdlq/||' | grep -v -e '^internal/' -e '^cmd/cmdtest\.'); \
	if [ -n "$$out" ]; then echo "deadcode: reached only from tests (move them into _test.go files):"; echo "$$out"; exit 1; fi

## demo: the Sunday-night deploy incident on a local AWS, no account needed.
demo: build
	scripts/with-localaws.sh scripts/demo.sh $(SCENARIO)

## docs: man pages, markdown reference and shell completions from the cobra
## tree, into bin/docs (build output, ignored by git).
docs:
	$(GO) run ./internal/gendocs -out bin/docs

clean:
	rm -rf bin
