# tfm: the Transformer of "Attention Is All You Need" as small Unix tools.
#   make          build (installs missing Debian packages first when run as root)
#   make test     build and run the test suite, then build it with clang under ASan + UBSan and
#                 run it again with a libFuzzer smoke run of every input reader
#   make demo     a pipeline of the tools, as in the README
#   make install  install tools, library, headers, man pages (PREFIX=/usr/local)
#   make deps     install the Debian packages tfm needs (or print the apt-get line); make test
#                 also installs what only the tests use (Chromium, for tfm-view's pages)
#   make bench    the attention benchmark against this machine's sgemm
#   make fuzz     each fuzz target for FUZZ_SECONDS (default 600) from its seed corpus

BUILD       ?= build
ASAN_BUILD  ?= build-asan
FUZZ_SECONDS ?= 5
PREFIX      ?= /usr/local
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

# Build and test dependencies: all Debian packages.
DEB_PACKAGES := g++ cmake make pkg-config libcli11-dev libxtensor-dev libxtensor-blas-dev \
                libopenblas-dev doctest-dev nlohmann-json3-dev libsentencepiece-dev zlib1g-dev libzip-dev libyaml-cpp-dev libutf8proc-dev libdnnl-dev libopenmpi-dev openmpi-bin parallel python3-numpy \
                clang libclang-rt-14-dev

# What only the tests need: a browser for tfm-view's pages (tests/cli/view.sh skips its browser
# checks where it cannot be installed).
DEB_TEST_PACKAGES := chromium

.PHONY: all build test deps-test test-release test-asan build-asan ctest-release ctest-asan fuzz demo install deps bench clean

all: build

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	    echo "tfm: installing $$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else \
	    echo "tfm: missing Debian packages. Run as root:"; \
	    echo "    apt-get install $$missing"; exit 1; \
	fi

deps-test: deps
	@missing=$$(for p in $(DEB_TEST_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	    echo "tfm: installing for the tests: $$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } || \
	    echo "tfm: $$missing could not be installed: the tests that need it are skipped"; \
	else \
	    echo "tfm: $$missing not installed (apt-get install $$missing): the tests that need it are skipped"; \
	fi

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The sanitizer build: clang, ASan + UBSan at -O1, with the libFuzzer targets (label fuzz)
# beside the tests, so that one build serves both.
$(ASAN_BUILD)/CMakeCache.txt: | deps
	CC=clang CXX=clang++ cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTFM_SANITIZE=ON \
	    -DTFM_FUZZ=ON -DTFM_FUZZ_SECONDS=$(FUZZ_SECONDS) $(CMAKE_FLAGS)

test-release: build ctest-release
ctest-release:
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
build-asan: deps $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)
test-asan: build-asan ctest-asan
ctest-asan:
	cd $(ASAN_BUILD) && $(ASAN_ENV) ctest --output-on-failure -j $(JOBS)

# Each fuzz target for FUZZ_SECONDS (default 600 here) from its seeds.
fuzz: build-asan
	cd $(ASAN_BUILD) && $(ASAN_ENV) TFM_FUZZ_SECONDS=$(if $(filter command line,$(origin FUZZ_SECONDS)),$(FUZZ_SECONDS),600) \
	    ctest --output-on-failure -j $(JOBS) -L fuzz

# All runs: the optimised build and its tests, the sanitizer build and its tests (with the
# fuzz smoke run), each build and each test run timed; ctest's summary closes each run, the
# stage times close the whole.
STAGES := build:release ctest-release:release build-asan:sanitizer ctest-asan:sanitizer
test: deps deps-test
	@set -e; start=$$(date +%s); times=""; \
	for st in $(STAGES); do \
	    target=$${st%%:*}; what=$${st#*:}; \
	    case $$target in build*) kind=build;; *) kind=tests;; esac; \
	    s=$$(date +%s); $(MAKE) --no-print-directory $$target; \
	    times="$$times$$(printf '  %-10s %-6s %5d s' $$what $$kind $$(( $$(date +%s) - s )))\n"; \
	done; \
	printf 'make test: stage times\n%b  %-17s %5d s\n' "$$times" total $$(( $$(date +%s) - start ))

# The main job: German sentences translated by the model that ships with tfm
# (share/models/multi30k-de-en, found without -m), then the same through a pipe of the tools,
# English sentences into German (-m multi30k-en-de), and attention over positional encodings.
demo: build
	printf 'Ein Mann fährt mit dem Fahrrad durch die Stadt.\nZwei Hunde spielen im Schnee.\nEine Frau mit einem roten Hut singt auf einer Bühne.\n' | \
	    $(BUILD)/bin/tfm-translate --beam 4
	echo "Ein kleines Mädchen isst einen Apfel." | $(BUILD)/bin/tfm-encode | $(BUILD)/bin/tfm-decode --beam 4
	printf 'A man rides a bicycle through the city.\nTwo dogs play in the snow.\n' | \
	    $(BUILD)/bin/tfm-translate -m multi30k-en-de
	$(BUILD)/bin/tfm-posenc -n 8 -d 16 | $(BUILD)/bin/tfm-attend --heads 4 --causal --weights-out -t
	echo "Ein Mann mit einem roten Hut fährt Fahrrad." | $(BUILD)/bin/tfm-view -o $(BUILD)/view.html
	@echo "tfm-view wrote $(BUILD)/view.html: open it in a browser to explore the attention"

bench: build
	$(BUILD)/bin/tfm-bench attention --n 256:4096:x2 --d 512 --heads 8

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
