# make install: collshim installed like a package under $(PREFIX) (DESTDIR for staging).
#
#   lib/libcollshim.so             the MPICH build (build/mpich/)
#   lib/openmpi/libcollshim.so     the Open MPI build, when Open MPI is there (mk/openmpi.mk)
#   lib/pkgconfig/                 collshim-mpich.pc, collshim-openmpi.pc, and collshim.pc (the
#                                  MPICH one under its old name); their Libs carry an rpath
#   bin/                           the tools: collshim-calibrate, -report, -hull, -model, built
#                                  with MPICH; the tools that run MPI again for Open MPI, as
#                                  TOOL.openmpi, and TOOL.mpich beside the plain name (Debian's
#                                  mpirun.openmpi / mpirun.mpich)
#   include/collshim.h             the extension API
#   share/collshim/                collshim.yaml.example, config/ (the machine profiles),
#                                  examples/ (the example programs' sources)
#   share/man/                     collshim-*(1), collshim(7); TOOL.openmpi(1) and TOOL.mpich(1)
#                                  link to TOOL(1); the pages' PREFIX is the prefix installed to
#
# The developer scripts (scripts/) are not installed: they work in the source tree.
# `make check-install` (a part of `make check`): tests/tools/check-install installs into a
# temporary prefix and uses what it finds there from another directory.

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_install_default_goal := $(.DEFAULT_GOAL)

MAN_PAGES  := $(sort $(wildcard man/*.1 man/*.7))
CS_VERSION := $(shell sed -n 's/^\#define COLLSHIM_VERSION_MAJOR \([0-9]*\).*/\1/p' include/collshim.h).$(shell \
                sed -n 's/^\#define COLLSHIM_VERSION_MINOR \([0-9]*\).*/\1/p' include/collshim.h)
CS_PROFILES := $(sort $(wildcard config/*.yaml))
CS_EXAMPLES := $(sort $(wildcard examples/*.c))

I := $(DESTDIR)$(PREFIX)

# $(call cs_install_pc,NAME,LIBDIR,MPI,MPICC[,DESCRIPTION]): lib/pkgconfig/NAME.pc from
# collshim.pc.in; DESCRIPTION, when given, in place of the template's "MPI programs".
cs_install_pc = sed $(if $(5),-e '/^Description:/s|@MPI@ programs|$(5)|') -e 's|@PREFIX@|$(PREFIX)|' \
	-e 's|@VERSION@|$(CS_VERSION)|' -e 's|@NAME@|$(1)|g' \
	-e 's|@LIBDIR@|$(2)|g' -e 's|@MPI@|$(3)|g' -e 's|@MPICC@|$(4)|g' collshim.pc.in >$(I)/lib/pkgconfig/$(1).pc
# The plain collshim.pc is the MPICH one, under its old name (kept: programs use it), while
# Debian's plain mpicc is Open MPI's when both are installed: its Description says so.
CS_PC_PLAIN_DESC := MPICH programs (the same as collshim-mpich; Open MPI programs use collshim-openmpi)

# The manual pages name the installed files as PREFIX/lib/..., PREFIX/share/...: installed, they
# name them under the real prefix ($(PREFIX); DESTDIR is only where the files are staged). The
# placeholder in bold text is italic (\fIPREFIX\fB), and $PREFIX in a shell example.
cs_man_prefix = sed -e 's|\\fIPREFIX\\fB|$(PREFIX)|g' -e 's|\$$PREFIX|$(PREFIX)|g' -e 's|PREFIX|$(PREFIX)|g'

.PHONY: install check-install

# The prerequisites of both (the builds: OMPI_LIB and OMPI_TOOLS come from mk/openmpi.mk, read
# after this fragment) are named in the Makefile. OMPI_* below are read when the recipe runs.
install:
	install -d $(I)/lib/pkgconfig $(I)/bin $(I)/include $(I)/share/collshim/config \
	    $(I)/share/collshim/examples $(I)/share/man/man1 $(I)/share/man/man7
	install -m 755 $(LIB) $(I)/lib/
	install -m 755 $(TOOLS) $(I)/bin/
	install -m 644 include/collshim.h $(I)/include/
	install -m 644 collshim.yaml.example $(I)/share/collshim/
	install -m 644 $(CS_PROFILES) $(I)/share/collshim/config/
	install -m 644 $(CS_EXAMPLES) $(I)/share/collshim/examples/
	for page in $(MAN_PAGES); do \
	    dir=$(I)/share/man/man$${page##*.}; \
	    $(cs_man_prefix) $$page >$$dir/$${page##*/} && chmod 644 $$dir/$${page##*/} || exit 1; \
	done
	$(call cs_install_pc,collshim-mpich,lib,MPICH,mpicc.mpich)
	$(call cs_install_pc,collshim,lib,MPICH,mpicc.mpich,$(CS_PC_PLAIN_DESC))
	$(if $(OMPI_LIB),install -d $(I)/lib/openmpi)
	$(if $(OMPI_LIB),install -m 755 $(OMPI_LIB) $(I)/lib/openmpi/)
	$(if $(OMPI_LIB),$(call cs_install_pc,collshim-openmpi,lib/openmpi,Open MPI,mpicc.openmpi))
	for t in $(notdir $(OMPI_TOOLS)); do \
	    install -m 755 $(OMPI_B)/$$t $(I)/bin/$$t.openmpi && ln -sf $$t $(I)/bin/$$t.mpich && \
	    ln -sf $$t.1 $(I)/share/man/man1/$$t.openmpi.1 && ln -sf $$t.1 $(I)/share/man/man1/$$t.mpich.1 || exit 1; \
	done

# Built first (the Makefile), so that the install it runs only copies (no second make building
# beside this one).
check-install:
	MAKE="$(MAKE)" MPICC="$(MPICC)" MPIEXEC="$(MPIEXEC)" MPICC_OPENMPI="$(if $(HAVE_OPENMPI),$(MPICC_OPENMPI))" \
	    MPIEXEC_OPENMPI="$(MPIEXEC_OPENMPI)" PKG_CONFIG="$(PKG_CONFIG)" CS_VERSION="$(CS_VERSION)" \
	    tests/tools/check-install

CHECK_EXTRA += check-install

.DEFAULT_GOAL := $(cs_install_default_goal)
