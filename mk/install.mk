# What `make install` adds to the Makefile's install rule: the manual pages (man/: the tools'
# collshim-calibrate(1), collshim-report(1), collshim-hull(1), collshim-model(1) and the
# collshim(7) overview) under $(PREFIX)/share/man, and $(PREFIX)/lib/pkgconfig/collshim.pc for
# the extension API (collshim.pc.in with the prefix and include/collshim.h's version).
# `make check-install` (a part of `make check`): tests/tools/check-install installs into a
# temporary prefix, builds examples/moving_window.c with nothing but
# `pkg-config --cflags --libs collshim` and $(MPICC), runs it under $(MPIEXEC) -n 2 with the
# installed library, and renders every installed manual page with groff's warnings on.

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_install_default_goal := $(.DEFAULT_GOAL)

MAN_PAGES  := $(sort $(wildcard man/*.1 man/*.7))
CS_VERSION := $(shell sed -n 's/^\#define COLLSHIM_VERSION_MAJOR \([0-9]*\).*/\1/p' include/collshim.h).$(shell \
                sed -n 's/^\#define COLLSHIM_VERSION_MINOR \([0-9]*\).*/\1/p' include/collshim.h)

.PHONY: install-docs check-install

install: install-docs

install-docs: $(MAN_PAGES) collshim.pc.in include/collshim.h
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7 \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(filter %.7,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man7/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(CS_VERSION)|' collshim.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/collshim.pc

# Built here first, so that the install below only copies (no second make building beside this one).
check-install: $(LIB) $(TOOLS)
	MAKE="$(MAKE)" MPICC="$(MPICC)" MPIEXEC="$(MPIEXEC)" PKG_CONFIG="$(PKG_CONFIG)" \
	    CS_VERSION="$(CS_VERSION)" tests/tools/check-install

CHECK_EXTRA += check-install

.DEFAULT_GOAL := $(cs_install_default_goal)
