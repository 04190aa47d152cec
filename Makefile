# Builds, tests and installs swift-keychain's command-line tools.
#   make build                      debug build of everything, warnings as errors
#   make test                       the CLI tests (KeychainCLITests)
#   make install [PREFIX=~/.local]  release build; installs security, git-credential-keychain and
#                                   docker-credential-keychain into $(PREFIX)/bin
PREFIX ?= $(HOME)/.local
BINDIR := $(PREFIX)/bin
TOOLS := security git-credential-keychain docker-credential-keychain
SWIFT ?= swift

.PHONY: build test release install uninstall

build:
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors

test:
	$(SWIFT) test --filter KeychainCLITests

release:
	for tool in $(TOOLS); do $(SWIFT) build -c release --product $$tool || exit 1; done

install: release
	install -d "$(BINDIR)"
	for tool in $(TOOLS); do install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/$$tool" "$(BINDIR)/$$tool"; done

uninstall:
	for tool in $(TOOLS); do rm -f "$(BINDIR)/$$tool"; done
