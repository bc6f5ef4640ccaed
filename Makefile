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

# The main job: stream the benchmark corpora through `sluice validate --syntax`, printing each
# file's size and the parser's throughput.
demo: build
	@files="$(CORPORA)/twitter.json $(CORPORA)/citm_catalog.json $(CORPORA)/canada.json"; \
	for f in $$files; do [ -f "$$f" ] || { echo "missing $$f: set CORPORA=DIR or SHARED=DIR"; exit 2; }; done; \
	echo "Streaming the corpora through 'sluice validate --syntax' in 64 KiB chunks:"; \
	$(RELEASE_BIN) validate --syntax --stats $$files; \
	echo; echo "A fault is reported with its file, line and column:"; \
	printf '{\n  "data": [1, 2,]\n}\n' > .build/demo-invalid.json; \
	$(RELEASE_BIN) validate --syntax .build/demo-invalid.json || echo "(exit status $$?)"

test: deps
	$(SWIFT) test --parallel

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

clean:
	rm -rf .build
