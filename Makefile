# Builds, tests and installs swift-keychain's command-line tools.
#   make build                      debug build of everything, warnings as errors
#   make test                       the CLI tests (KeychainCLITests)
#   make install [PREFIX=/abs/path] release build (PREFIX: absolute, default $HOME/.local); installs
#                                   security, git-credential-keychain, docker-credential-keychain,
#                                   keychain-secret-service and keychain-ssh-askpass into $(PREFIX)/bin, the
#                                   provider's D-Bus activation file into $(DBUS_SERVICES)
#                                   (org.freedesktop.secrets.service), and the systemd
#                                   user unit it names into $(SYSTEMD_USER_UNITS), with the session agent's
#                                   unit (keychain-session-agent.service; systemctl --user enable --now it)
# The installed tools are stripped (install -s) and link the Swift standard library statically
# (--static-swift-stdlib). None links Foundation or FoundationEssentials (about 9-10 MB each;
# scripts/tool-sizes checks the 12 MB budget after installing into a temporary prefix). All of them
# run without the Swift toolchain installed and start faster (no dynamic loading of the Swift
# runtime's shared libraries). They still need libsodium and libsqlite3 (Debian libsodium23, libsqlite3-0),
# docker-credential-keychain also jansson (libjansson4),
# security and keychain-secret-service also libcrypto (libssl3), keychain-secret-service also GLib
# (libglib2.0-0), and each libplist (libplist3) to read an entitlements file or a legacy item record;
# libcrypto, libplist and tpm2-tss (libtss2-esys-3.0.2-0, libtss2-tctildr0, libtss2-mu0,
# libtss2-rc0) are opened at their first use, not at start-up. scripts/static-build-flags holds the build's flags (lld, packed relocations).
# make install also builds and installs the PAM module, $(PREFIX)/lib/security/pam_keychain.so (C, libpam and
# libc only; pam/pam_keychain.c), and the program it starts, $(PREFIX)/libexec/keychain-pam-helper; the
# module is compiled to start that helper. make install-pam (root) adds the pam-auth-update profile
# /usr/share/pam-configs/keychain naming the module by its full path (docs/PAM.md).
# make install also installs the Secret portal backend's $(PORTALS)/swift-keychain.portal (xdg-desktop-portal finds
# it there from version 1.17; 1.16 reads only /usr/share: PREFIX=/usr) and the portals.conf lines that choose it,
# $(PREFIX)/share/swift-keychain/portals.conf, to merge into ~/.config/xdg-desktop-portal/portals.conf (docs/PORTAL.md).
# They are built in their own scratch folder, .build/static, so that switching between this and the
# ordinary release build (scripts/bench) never rebuilds either.
PREFIX ?= $(HOME)/.local
BINDIR := $(PREFIX)/bin
TOOLS := security git-credential-keychain docker-credential-keychain keychain-secret-service keychain-ssh-askpass
DBUS_SERVICES ?= $(or $(XDG_DATA_HOME),$(HOME)/.local/share)/dbus-1/services
SYSTEMD_USER_UNITS ?= $(or $(XDG_DATA_HOME),$(HOME)/.local/share)/systemd/user
SWIFT ?= swift
# The static release build's flags (lld, packed relocations, …), shared with the scripts that build it.
STATIC := $(shell grep -v '^\#' scripts/static-build-flags)
# SwiftPM 6.3 leaves an empty TemporaryDirectory.* folder in $TMPDIR for each of several steps of every
# build: each recipe line that runs swift gives it a folder of its own, removed when the line ends.
PRIVATE_TMPDIR = TMPDIR=$$(mktemp -d) && export TMPDIR && trap 'rm -rf "$$TMPDIR"' EXIT &&

LIBEXECDIR := $(PREFIX)/libexec
PAMDIR := $(PREFIX)/lib/security
PAM_CONFIGS ?= /usr/share/pam-configs
PORTALS ?= $(PREFIX)/share/xdg-desktop-portal/portals

.PHONY: build test release check-prefix install uninstall install-pam uninstall-pam

build:
	$(PRIVATE_TMPDIR) $(SWIFT) build --build-tests -Xswiftc -warnings-as-errors

test:
	$(PRIVATE_TMPDIR) $(SWIFT) test --filter KeychainCLITests

release:
	$(PRIVATE_TMPDIR) for tool in $(TOOLS) keychain-pam-helper; do $(SWIFT) build $(STATIC) --product $$tool || exit 1; done

# PREFIX must be absolute: `PREFIX=~/.local` reaches make with the tilde unexpanded from sh, dash, zsh and
# fish (only bash expands it there), and the tools would go to a folder named "~" here while the D-Bus file
# and the units, made from $(HOME), named it.
check-prefix:
	@case "$(PREFIX)" in /*) ;; *) echo "make: PREFIX must be an absolute path, not $(PREFIX) (write PREFIX=\"\$$HOME/.local\", or leave it out: that is the default)" >&2; exit 2 ;; esac

install: check-prefix release
	install -d "$(BINDIR)"
	$(PRIVATE_TMPDIR) for tool in $(TOOLS); do install -s -m 0755 "$$($(SWIFT) build $(STATIC) --show-bin-path)/$$tool" "$(BINDIR)/$$tool"; done
	install -d "$(DBUS_SERVICES)"
	printf '[D-BUS Service]\nName=org.freedesktop.secrets\nExec=%s/keychain-secret-service\nSystemdService=keychain-secret-service.service\n' \
		"$(abspath $(BINDIR))" > "$(DBUS_SERVICES)/org.freedesktop.secrets.service"
	install -d "$(SYSTEMD_USER_UNITS)"
	sed -e 's#@BINDIR@#$(abspath $(BINDIR))#g' systemd/keychain-secret-service.service.in \
		> "$(SYSTEMD_USER_UNITS)/keychain-secret-service.service"
	sed -e 's#@BINDIR@#$(abspath $(BINDIR))#g' systemd/keychain-sync.service.in > "$(SYSTEMD_USER_UNITS)/keychain-sync.service"
	install -m 0644 systemd/keychain-sync.timer "$(SYSTEMD_USER_UNITS)/keychain-sync.timer"
	sed -e 's#@BINDIR@#$(abspath $(BINDIR))#g' systemd/keychain-sync-changed.service.in \
		> "$(SYSTEMD_USER_UNITS)/keychain-sync-changed.service"
	install -m 0644 systemd/keychain-sync-changed.path "$(SYSTEMD_USER_UNITS)/keychain-sync-changed.path"
	sed -e 's#@BINDIR@#$(abspath $(BINDIR))#g' systemd/keychain-session-agent.service.in \
		> "$(SYSTEMD_USER_UNITS)/keychain-session-agent.service"
	install -d "$(LIBEXECDIR)" "$(PAMDIR)"
	$(PRIVATE_TMPDIR) install -s -m 0755 "$$($(SWIFT) build $(STATIC) --show-bin-path)/keychain-pam-helper" \
		"$(LIBEXECDIR)/keychain-pam-helper"
	./scripts/build-pam-module "$(PAMDIR)/pam_keychain.so.new" "$(abspath $(LIBEXECDIR))/keychain-pam-helper"
	strip --strip-unneeded "$(PAMDIR)/pam_keychain.so.new" && chmod 0644 "$(PAMDIR)/pam_keychain.so.new"
	mv -f "$(PAMDIR)/pam_keychain.so.new" "$(PAMDIR)/pam_keychain.so"
	install -d "$(PORTALS)" "$(PREFIX)/share/swift-keychain"
	install -m 0644 portal/swift-keychain.portal "$(PORTALS)/swift-keychain.portal"
	install -m 0644 portal/portals.conf "$(PREFIX)/share/swift-keychain/portals.conf"

# Root: the pam-auth-update profile (Debian, Ubuntu); then `pam-auth-update --enable keychain`.
install-pam: check-prefix
	install -d "$(PAM_CONFIGS)"
	sed 's#@MODULE@#$(abspath $(PAMDIR))/pam_keychain.so#g' pam/keychain.pam-config > "$(PAM_CONFIGS)/keychain"
	chmod 0644 "$(PAM_CONFIGS)/keychain"

uninstall-pam: check-prefix
	rm -f "$(PAM_CONFIGS)/keychain"

uninstall: check-prefix
	for tool in $(TOOLS); do rm -f "$(BINDIR)/$$tool"; done
	rm -f "$(DBUS_SERVICES)/org.freedesktop.secrets.service" "$(SYSTEMD_USER_UNITS)/keychain-secret-service.service"
	rm -f "$(SYSTEMD_USER_UNITS)/keychain-sync.service" "$(SYSTEMD_USER_UNITS)/keychain-sync.timer"
	rm -f "$(SYSTEMD_USER_UNITS)/keychain-sync-changed.service" "$(SYSTEMD_USER_UNITS)/keychain-sync-changed.path"
	rm -f "$(SYSTEMD_USER_UNITS)/keychain-session-agent.service"
	rm -f "$(LIBEXECDIR)/keychain-pam-helper" "$(PAMDIR)/pam_keychain.so"
	rm -f "$(PORTALS)/swift-keychain.portal" "$(PREFIX)/share/swift-keychain/portals.conf"
# The one folder that is ours alone, once empty (never one others share: bin, libexec, lib/security, the
# portals, D-Bus and systemd folders).
	rmdir "$(PREFIX)/share/swift-keychain" 2>/dev/null || true
