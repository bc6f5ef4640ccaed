# Sluice's two set-up commands: `make demo` runs the main job, `make test` runs the tests.
# Both install yajl's development package first when pkg-config cannot find it.

SWIFT ?= swift
SHARED ?= ../shared
CORPORA ?= $(SHARED)/corpora
RELEASE_BIN = .build/release/sluice

.PHONY: demo test build lint deps clean

# Installs libyajl-dev (and pkg-config) through apt-get, as root or through sudo, when missing.
deps:
	@if ! pkg-config --exists yajl 2>/dev/null; then \
		echo "Installing libyajl-dev (yajl is Sluice's C parser)..."; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libyajl-dev pkg-config >/dev/null; \
	fi

build: deps
	$(SWIFT) build -c release --product sluice

# The main job, on an embedded default: generate a JSON:API compound document, validate it
# strictly, flatten it to NDJSON, stream the benchmark corpora (when ../shared is beside the
# project) through the syntax check, compare Sluice with Foundation on it (sluice bench), and
# show how a fault is reported.
demo: build
	@mkdir -p .build/demo
	@echo "Generating a 10 000-article JSON:API compound document (sluice generate):"
	@$(RELEASE_BIN) generate --articles 10000 -o .build/demo/articles.json
	@ls -l .build/demo/articles.json | awk '{print "  " $$5 " bytes in .build/demo/articles.json"}'
	@echo; echo "Validating it strictly as JSON:API 1.1 (sluice validate):"
	@$(RELEASE_BIN) validate --stats .build/demo/articles.json
	@echo; echo "Flattening it to NDJSON, one line per resource (sluice flatten), first line and count:"
	@$(RELEASE_BIN) flatten .build/demo/articles.json > .build/demo/articles.ndjson
	@head -1 .build/demo/articles.ndjson | cut -c1-150 | sed 's/$$/ .../'
	@wc -l < .build/demo/articles.ndjson | awk '{print "  " $$1 " resources"}'
	@files="$(CORPORA)/twitter.json $(CORPORA)/citm_catalog.json $(CORPORA)/canada.json"; \
	if [ -f "$(CORPORA)/twitter.json" ]; then \
		echo; echo "Streaming the benchmark corpora through 'sluice validate --syntax' in 64 KiB chunks:"; \
		$(RELEASE_BIN) validate --syntax --stats $$files; \
	fi
	@echo; echo "Sluice streaming against Foundation's JSONSerialization on the same document (sluice bench):"
	@$(RELEASE_BIN) bench .build/demo/articles.json --runs 3 --quiet
	@echo; echo "A fault is reported with its file, line, column and JSON Pointer:"
	@printf '{\n  "data": [{"type": "people", "id": 7}]\n}\n' > .build/demo/invalid.json
	@$(RELEASE_BIN) validate .build/demo/invalid.json || echo "(exit status $$?)"

test: deps
	$(SWIFT) test --parallel

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

clean:
	rm -rf .build
