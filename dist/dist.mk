# SPDX-License-Identifier: Apache-2.0
# dist/dist.mk — shipping edgeq (included by the top-level Makefile):
#
#   make install PREFIX=/usr/local [DESTDIR=...]
#         libedge.a, the public headers (edge/*.h), the edgeq tool, a
#         pkg-config file (edgeq.pc) and a CMake package (find_package(edgeq
#         CONFIG) -> edgeq::edge); BINDIR, LIBDIR, INCLUDEDIR override the
#         usual places under PREFIX
#   make uninstall PREFIX=...   removes what install wrote
#   make amalgamation           build/amalgamation/edge.c + edge.h: the whole
#                               engine in one C99 file (dist/amalgamate.py)
#   make arduino                build/arduino/edgeq/: the Arduino library
#                               (and build/arduino/edgeq.zip)
#
# The top-level CMakeLists.txt (add_subdirectory), library.json (PlatformIO),
# zephyr/ (Zephyr module) and idf_component.yml (ESP-IDF) build the engine
# from engine/ directly: docs/install.md.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DOCDIR     ?= $(PREFIX)/share/doc/edgeq
DESTDIR    ?=

EDGE_VERSION := $(shell sed -n 's/.*define EDGE_VERSION_STRING "\(.*\)"/\1/p' engine/include/edge/edge.h)
EDGE_VERSION_WORDS := $(subst ., ,$(EDGE_VERSION))
PUBLIC_HDR = $(wildcard engine/include/edge/*.h)
CMAKE_PKG_DIR = $(LIBDIR)/cmake/edgeq
# The CMake package finds the rest relative to itself.
rel_to_cmake = $(shell realpath -m --relative-to=$(CMAKE_PKG_DIR) $(1))
HOST_POINTER_BYTES := $(shell $(CC) -dM -E -x c /dev/null 2>/dev/null | sed -n 's/.*__SIZEOF_POINTER__ //p')

DIST_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(EDGE_VERSION)|g' \
    -e 's|@VERSION_MAJOR@|$(word 1,$(EDGE_VERSION_WORDS))|g' \
    -e 's|@VERSION_MINOR@|$(word 2,$(EDGE_VERSION_WORDS))|g' \
    -e 's|@SIZEOF_VOID_P@|$(HOST_POINTER_BYTES)|g' \
    -e 's|@REL_LIBDIR@|$(call rel_to_cmake,$(LIBDIR))|g' \
    -e 's|@REL_INCLUDEDIR@|$(call rel_to_cmake,$(INCLUDEDIR))|g' \
    -e 's|@REL_BINDIR@|$(call rel_to_cmake,$(BINDIR))|g'

.PHONY: install uninstall amalgamation arduino

install: lib tool
	@test -n "$(EDGE_VERSION)" || { echo "install: no EDGE_VERSION_STRING in edge.h"; exit 1; }
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/edge \
	    $(DESTDIR)$(CMAKE_PKG_DIR) $(DESTDIR)$(DOCDIR)
	install -m 644 LICENSE NOTICE $(DESTDIR)$(DOCDIR)/
	install -m 644 $(BUILD)/libedge.a $(DESTDIR)$(LIBDIR)/libedge.a
	install -m 644 $(PUBLIC_HDR) $(DESTDIR)$(INCLUDEDIR)/edge/
	install -m 755 $(BUILD)/edgeq $(DESTDIR)$(BINDIR)/edgeq
	$(DIST_SUBST) dist/edgeq.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/edgeq.pc
	$(DIST_SUBST) dist/cmake/edgeq-config.cmake.in > $(DESTDIR)$(CMAKE_PKG_DIR)/edgeq-config.cmake
	$(DIST_SUBST) dist/cmake/edgeq-config-version.cmake.in > $(DESTDIR)$(CMAKE_PKG_DIR)/edgeq-config-version.cmake

# ---- the single-file engine ----
AMALGAMATION_DIR = $(BUILD)/amalgamation
ENGINE_TREE = $(shell find engine -name '*.c' -o -name '*.h' -o -name '*.inc')
amalgamation: $(AMALGAMATION_DIR)/edge.c
$(AMALGAMATION_DIR)/edge.c $(AMALGAMATION_DIR)/edge.h &: dist/amalgamate.py $(ENGINE_TREE)
	$(PYTHON) dist/amalgamate.py --out $(AMALGAMATION_DIR)

# ---- the Arduino library: the amalgamation in src/, an example sketch
# with the zoo's mnist_cnn and a sample 7 as C arrays ----
ARDUINO_DIR = $(BUILD)/arduino/edgeq
ARDUINO_EX  = $(ARDUINO_DIR)/examples/edgeq_mnist
arduino: $(BUILD)/arduino/edgeq.zip
$(BUILD)/arduino/edgeq.zip: $(AMALGAMATION_DIR)/edge.c dist/arduino/library.properties.in \
        dist/arduino/examples/edgeq_mnist/edgeq_mnist.ino $(FW_DATA)/mnist/sample.bin $(BUILD)/edgeq LICENSE NOTICE
	rm -rf $(ARDUINO_DIR) $@
	mkdir -p $(ARDUINO_DIR)/src $(ARDUINO_EX)
	cp $(AMALGAMATION_DIR)/edge.c $(AMALGAMATION_DIR)/edge.h $(ARDUINO_DIR)/src/
	cp LICENSE NOTICE $(ARDUINO_DIR)/
	$(DIST_SUBST) dist/arduino/library.properties.in > $(ARDUINO_DIR)/library.properties
	cp dist/arduino/examples/edgeq_mnist/edgeq_mnist.ino $(ARDUINO_EX)/
	$(BUILD)/edgeq export --c --arena $(FW_MODEL_mnist) -o $(ARDUINO_EX)/model_data.c
	$(BUILD)/edgeq export --c --name sample_data $(FW_DATA)/mnist/sample.bin -o $(ARDUINO_EX)/sample_data.c
	cd $(BUILD)/arduino && $(PYTHON) -m zipfile -c edgeq.zip edgeq

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libedge.a $(DESTDIR)$(BINDIR)/edgeq $(DESTDIR)$(LIBDIR)/pkgconfig/edgeq.pc \
	    $(PUBLIC_HDR:engine/include/%=$(DESTDIR)$(INCLUDEDIR)/%) \
	    $(DESTDIR)$(CMAKE_PKG_DIR)/edgeq-config.cmake $(DESTDIR)$(CMAKE_PKG_DIR)/edgeq-config-version.cmake \
	    $(DESTDIR)$(DOCDIR)/LICENSE $(DESTDIR)$(DOCDIR)/NOTICE
	-rmdir $(DESTDIR)$(INCLUDEDIR)/edge $(DESTDIR)$(CMAKE_PKG_DIR) $(DESTDIR)$(DOCDIR) 2>/dev/null
