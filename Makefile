# Sluice's two set-up commands: `make demo` runs the main job, `make test` runs the tests.
# Both install yajl's development package first when pkg-config cannot find it.

SWIFT ?= swift
SHARED ?= ../shared
CORPORA ?= $(SHARED)/corpora
RELEASE_BIN = .build/release/sluice

.PHONY: demo test build lint deps postgres-deps clean docs check-install test-tsan fuzz sanitize check

# Installs what the build and the demo need through apt-get, as root or through sudo, when
# missing: libyajl-dev (Sluice's C parser), libsqlite3-dev (GRDB's SQLite) and the sqlite3 shell
# (the demo's queries).
deps:
	@if ! pkg-config --exists yajl sqlite3 2>/dev/null || ! command -v sqlite3 >/dev/null; then \
		echo "Installing libyajl-dev, libsqlite3-dev and sqlite3..."; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && \
		$$SUDO apt-get install -y -qq libyajl-dev libsqlite3-dev sqlite3 pkg-config >/dev/null; \
	fi

# The PostgreSQL server the tests import into, when its binaries are missing (as root or sudo).
postgres-deps:
	@if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		echo "Installing postgresql for the PostgreSQL import tests..."; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq postgresql >/dev/null || \
			echo "postgresql could not be installed: the PostgreSQL tests will skip."; \
	fi

build: deps
	$(SWIFT) build -c release --product sluice

# The main job, on an embedded default: generate a 100 000-article JSON:API compound document,
# import it into SQLite with the progress display (sluice import), answer a few questions with
# SQL, then compare Sluice with Foundation (sluice bench) and show how a fault is reported.
DEMO = .build/demo
DB = sluice.sqlite

demo: build
	@mkdir -p $(DEMO)
	@echo "Generating a 100 000-article JSON:API compound document (sluice generate):"
	@$(RELEASE_BIN) generate --articles 100000 -o $(DEMO)/articles.json
	@ls -l $(DEMO)/articles.json | awk '{print "  " $$5 " bytes in $(DEMO)/articles.json"}'
	@echo; echo "Importing it into $(DB) as it streams in (sluice import):"
	@rm -f $(DB) $(DB)-wal $(DB)-shm
	@if [ -x /usr/bin/time ]; then \
		/usr/bin/time -f "  peak memory %M KB" $(RELEASE_BIN) import $(DEMO)/articles.json --sqlite $(DB); \
	else \
		$(RELEASE_BIN) import $(DEMO)/articles.json --sqlite $(DB); \
	fi
	@echo; echo "Resources per type:"
	@sqlite3 -header -column $(DB) \
		"SELECT 'articles' AS type, COUNT(*) AS resources FROM articles \
		 UNION ALL SELECT 'people', COUNT(*) FROM people UNION ALL SELECT 'comments', COUNT(*) FROM comments \
		 UNION ALL SELECT 'relationship rows', COUNT(*) FROM relationships;"
	@echo; echo "The most commented article (its to-many comments are relationship rows), with its author's"
	@echo "name (a to-one relationship is the author_type and author_id columns of its row):"
	@sqlite3 -header -column $(DB) \
		"WITH most AS (SELECT source_id, COUNT(*) AS comments FROM relationships \
		   WHERE source_type = 'articles' AND name = 'comments' \
		   GROUP BY source_id ORDER BY comments DESC, CAST(source_id AS INTEGER) LIMIT 1) \
		 SELECT articles.id, articles.title, most.comments, people.name AS author FROM most \
		 JOIN articles ON articles.id = most.source_id \
		 JOIN people ON people.id = articles.author_id AND articles.author_type = 'people';"
	@echo; echo "The import as recorded in documents:"
	@sqlite3 -header -column $(DB) \
		"SELECT source, status, bytes, resources, primary_count, included_count, relationship_rows FROM documents;"
	@echo; echo "The same resources as JSON Lines, one per line (sluice flatten), imported as plain records:"
	@$(RELEASE_BIN) flatten $(DEMO)/articles.json > $(DEMO)/resources.ndjson
	@$(RELEASE_BIN) import $(DEMO)/resources.ndjson --sqlite $(DB) --table flat --pk type,id
	@sqlite3 -header -column $(DB) \
		"SELECT type, COUNT(*) AS records, COUNT(attributes_title) AS with_title FROM flat GROUP BY type ORDER BY type;"
	@echo; echo "Sluice against Foundation on a 10 000-article document (sluice bench):"
	@$(RELEASE_BIN) generate --articles 10000 -o $(DEMO)/articles-10k.json
	@$(RELEASE_BIN) bench $(DEMO)/articles-10k.json --runs 3 --quiet
	@echo; echo "A fault is reported with its file, line, column and JSON Pointer, and what was committed stays:"
	@printf '{"data": [\n  {"type": "people", "id": "1"},\n  {"type": "people", "id": 7}\n]}\n' > $(DEMO)/invalid.json
	@$(RELEASE_BIN) import $(DEMO)/invalid.json --sqlite $(DEMO)/invalid.sqlite --quiet || echo "(exit status $$?)"

# The tests run beside a private PostgreSQL cluster on loopback (scripts/with-postgres.sh starts
# and removes it); where none can start, the PostgreSQL tests skip and say why. Their scratch
# files and directories go in a TMPDIR of the run's own, removed when it ends, pass or fail.
# SWIFT_BUILD_FLAGS: build options for the test and docs builds alike (both must agree, or the
# docs build compiles everything again). Empty by default; the index store must stay on, since
# `swift test` finds the tests through it on Linux.
SWIFT_BUILD_FLAGS ?=

test: deps postgres-deps
	@scratch=$$(mktemp -d /tmp/sluice-test-run.XXXXXX) && \
		TMPDIR=$$scratch scripts/with-postgres.sh scripts/failures-last.sh $(SWIFT) test --parallel $(SWIFT_BUILD_FLAGS); \
		status=$$?; rm -rf "$$scratch"; exit $$status

# libFuzzer targets (Fuzz/), each for FUZZ_SECONDS (default 60); fails on any crash, leak, hang,
# memory blow-up or differential mismatch. See scripts/fuzz.sh.
fuzz: deps
	scripts/fuzz.sh

# The tests under sanitizers: the SluiceJSON and SluiceJSONAPI suites under Address Sanitizer
# (Tests/AddressSanitizer; SANITIZE_ALL=1 runs the whole suite instead, in .build-asan), then the
# concurrent code under Thread Sanitizer (test-tsan). Any report fails the run.
sanitize: deps test-tsan
	@if [ -n "$(SANITIZE_ALL)" ]; then \
		ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/AddressSanitizer/lsan.supp \
			SLUICE_SANITIZER=address SWIFT_BACKTRACE=enable=no scripts/with-postgres.sh $(SWIFT) test --sanitize=address --scratch-path .build-asan; \
	else \
		rm -f Tests/AddressSanitizer/.build/*/debug/description.json; \
		cd Tests/AddressSanitizer && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 \
			LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/AddressSanitizer/lsan.supp SWIFT_BACKTRACE=enable=no \
			$(SWIFT) test --sanitize=address; \
	fi

# The concurrent code under Thread Sanitizer (Tests/ThreadSanitizer): the parallel path's workers,
# the import pipe into SQLite and PostgreSQL (a private cluster, as for make test), `sluice import`
# of a URL (the CLI built instrumented and run against the loopback test server) and the HTTP
# client. Any report fails the run; the backtracer is off because it forks a process that TSan's
# runtime cannot follow.
# A hang fails the run after TSAN_TIMEOUT seconds (build included), and each suite's tests after
# ten minutes each (their time limits), rather than holding the machine.
TSAN_TIMEOUT ?= 2400
test-tsan: deps postgres-deps
	@# A path dependency's file list is cached with the build description: drop it, so that a
	@# source file Sluice gained since the last run is built too (scripts/fuzz.sh does the same).
	rm -f Tests/ThreadSanitizer/.build/*/debug/description.json
	@scratch=$$(mktemp -d /tmp/sluice-test-run.XXXXXX) && cd Tests/ThreadSanitizer && \
		TMPDIR=$$scratch TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/Tests/ThreadSanitizer/tsan.supp" SWIFT_BACKTRACE=enable=no \
		timeout $(TSAN_TIMEOUT) ../../scripts/with-postgres.sh $(SWIFT) test --sanitize=thread; \
		status=$$?; rm -rf "$$scratch"; exit $$status

# Everything CI runs, then what it leaves out for time (each builds the dependency graph again):
# the concurrent code under Thread Sanitizer and a dependent package's view of Sluice. Run it
# before a release, and after changing the import pipe, the HTTP client or the public API.
check: lint test docs test-tsan check-install

# The DocC documentation of every library, built from its catalog; fails on any warning.
docs: deps
	SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" scripts/check-docs.sh

# A package that depends on Sluice by path, as the README's "Adding Sluice to a package" says:
# it must resolve none of Sluice's test-only packages, and its tests compile and run the README's
# examples verbatim.
# (swift-metrics was one too, until postgres-nio, which SluicePostgres needs, brought it in.)
TEST_ONLY_PACKAGES = hummingbird
check-install: deps
	@# A path dependency's file list is cached with the build description (see test-tsan).
	rm -f Examples/FirstHour/.build/*/debug/description.json
	cd Examples/FirstHour && $(SWIFT) package resolve
	@resolved=$$(sed -n 's/.*"identity" : "\(.*\)".*/\1/p' Examples/FirstHour/Package.resolved | sort); \
	echo "Examples/FirstHour resolved $$(echo "$$resolved" | wc -l) packages: $$(echo $$resolved)"; \
	for name in $(TEST_ONLY_PACKAGES); do \
		if echo "$$resolved" | grep -qx "$$name"; then \
			echo "check-install: a dependent resolved the test-only package $$name" >&2; exit 1; \
		fi; \
	done
	cd Examples/FirstHour && $(SWIFT) test

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift Examples/FirstHour

clean:
	rm -rf .build
