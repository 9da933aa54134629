# The two commands of the README: `make demo` and `make test`. Both install missing Debian packages first.
SWIFT ?= swift
BIN := .build/debug/markerkit

.PHONY: demo test build clean

build:
	scripts/install-deps
	$(SWIFT) build

demo:
	scripts/install-deps --demo
	$(SWIFT) build
	scripts/demo $(BIN) demo-output

test:
	scripts/install-deps --test
	$(SWIFT) build
	$(SWIFT) test

clean:
	rm -rf .build demo-output
