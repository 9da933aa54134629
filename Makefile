# The two commands of the README: `make demo` and `make test`. Both install missing Debian packages first.
SWIFT ?= swift
# Where `make install` puts markerkit: PREFIX/bin, PREFIX/lib/markerkit, PREFIX/share/{man,bash-completion,zsh,fish}.
PREFIX ?= /usr/local
# The demo prints detector timings beside OpenCV's: only an optimised build gives true ones.
BIN := .build/release/markerkit

.PHONY: demo test build docs install uninstall bench bench-quick peers fuzz sanitize clean

build:
	scripts/install-deps
	$(SWIFT) build

demo:
	scripts/install-deps --demo
	$(SWIFT) build -c release
	scripts/demo $(BIN) demo-output

# First the fake camera the camera tests run against (scripts/fake-camera-check: it behaves as a C920 through
# uvcvideo does), then the suite (scripts/run-tests: it ends with what was skipped and why, e.g. the real
# photos without a licence in a clone with no ../shared beside it), then another package built against
# MarkerKit by version (Examples/DetectMarkers), then the allocation check: track from a (fake) camera
# allocates nothing per frame; only an optimised build can show that, so it builds one. Last, `make install`
# into a temporary prefix, used from there, uninstalled.
# The suite runs optimised (with testable imports): it detects, renders and calibrates for real, and a
# debug build took 66 min for it on a 2-core machine (with the rest, over CI's 90 min), -c release 12.6 min
# plus 8.7 min to build. The release build after it builds the project's modules again without
# -enable-testing (about 5 min), so that the allocation check and the installation use what users get.
test:
	scripts/install-deps --test
	scripts/fake-camera-check
	SWIFT=$(SWIFT) scripts/run-tests -c release
	scripts/example-package-check
	$(SWIFT) build -c release
	scripts/allocations-per-frame --check
	# The same with the worker pool of an 8-core machine: which helper reads which candidate varies.
	MARKERKIT_CORES=8 scripts/allocations-per-frame --check
	scripts/install-check

# The library's documentation (DocC): the catalog Sources/MarkerKit/MarkerKit.docc and the doc comments,
# as a static site in docs-output/. Any DocC warning (a broken symbol or article link) fails the build.
docs:
	scripts/install-deps
	$(SWIFT) package --allow-writing-to-directory docs-output generate-documentation --target MarkerKit \
	    --output-path docs-output --disable-indexing --warnings-as-errors

# The release binary with its resources, the man page and bash/zsh/fish completions under PREFIX
# (scripts/install lists what goes where); `make uninstall PREFIX=...` removes exactly those files.
# DESTDIR stages the installation for packaging.
install:
	scripts/install-deps
	$(SWIFT) build -c release
	$(SWIFT) package plugin generate-manual
	scripts/install "$(DESTDIR)$(PREFIX)"

uninstall:
	scripts/install --uninstall "$(DESTDIR)$(PREFIX)"

# Speed against OpenCV in the same run (release build): Debian's OpenCV 4.6, which markerkit links, and the
# newest OpenCV from pip (`make peers`, in .build/peers; without PyPI the bench runs without it and says so).
# `make bench-quick` finishes in a few minutes.
bench:
	scripts/install-deps
	scripts/install-peers || echo "bench: the newest OpenCV could not be installed; timing against Debian's alone" >&2
	$(SWIFT) build -c release
	.build/release/markerkit bench --json bench.json

bench-quick:
	scripts/install-deps
	scripts/install-peers || echo "bench: the newest OpenCV could not be installed; timing against Debian's alone" >&2
	$(SWIFT) build -c release
	.build/release/markerkit bench --quick

peers:
	scripts/install-peers

# Every file parser under libFuzzer: FUZZ_RUNS executions (default 1000000) or FUZZ_SECONDS (300) each.
fuzz:
	scripts/install-deps --test
	scripts/fuzz

# The test suite under AddressSanitizer and under ThreadSanitizer.
sanitize:
	scripts/install-deps --test
	scripts/sanitize

clean:
	rm -rf .build .build-fuzz .build-address .build-thread demo-output docs-output
