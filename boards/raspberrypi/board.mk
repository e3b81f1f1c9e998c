# SPDX-License-Identifier: Apache-2.0
# boards/raspberrypi/board.mk — Raspberry Pi OS / Debian userland, cross
# built with Debian's cross compilers, systolic kernel on NEON.
#
#   rpi-aarch64      64-bit, ARMv8-A + NEON: Pi 3, 4, 5 (and Zero 2 W);
#                    also classify-static (no shared libraries needed)
#   rpi-aarch64-pi5  64-bit for the Pi 5's Cortex-A76: NEON with sdot
#                    (dotprod); SIGILL on a Pi 3/4. In build/rpi-aarch64/pi5/
#   rpi-armhf        32-bit armhf (ARMv7-A + NEON-VFPv4): Pi 2, 3, 4, 5
#                    with a 32-bit OS
#
# classify links libgpiod statically (libgpiod-dev:<arch>, v1.6) when it is
# installed for the target, so the binary runs on a Pi without extra
# packages; without it classify is built with the fake GPIO backend only.
# Binaries are dynamically linked against glibc; run them here with
# ../shared/tools/pi-run (qemu-user with the Pi's CPU model).

rpi-aarch64_DIR     := $(BUILD)/rpi-aarch64
rpi-aarch64_CC      := aarch64-linux-gnu-gcc
rpi-aarch64_AR      := aarch64-linux-gnu-ar
rpi-aarch64_CFLAGS  := -march=armv8-a+crc -mtune=cortex-a72 -DEDGE_SYSTOLIC_NEON
rpi-aarch64_TRIPLET := aarch64-linux-gnu

rpi-aarch64-pi5_DIR     := $(BUILD)/rpi-aarch64/pi5
rpi-aarch64-pi5_CC      := aarch64-linux-gnu-gcc
rpi-aarch64-pi5_AR      := aarch64-linux-gnu-ar
rpi-aarch64-pi5_CFLAGS  := -mcpu=cortex-a76 -DEDGE_SYSTOLIC_NEON
rpi-aarch64-pi5_TRIPLET := aarch64-linux-gnu

rpi-armhf_DIR     := $(BUILD)/rpi-armhf
rpi-armhf_CC      := arm-linux-gnueabihf-gcc
rpi-armhf_AR      := arm-linux-gnueabihf-ar
rpi-armhf_CFLAGS  := -mcpu=cortex-a7 -mfpu=neon-vfpv4 -mfloat-abi=hard -DEDGE_SYSTOLIC_NEON
rpi-armhf_TRIPLET := arm-linux-gnueabihf

RPI_CONFIGS := rpi-aarch64 rpi-aarch64-pi5 rpi-armhf

# libgpiod for the target, if installed: static, so that it need not be on the Pi.
rpi_gpiod = $(if $(wildcard /usr/lib/$($(1)_TRIPLET)/libgpiod.a),yes,)
RPI_GPIOD_LIBS := -Wl,-Bstatic -lgpiod -Wl,-Bdynamic
$(foreach c,$(RPI_CONFIGS),\
  $(eval $(c)_GPIO := $(if $(call rpi_gpiod,$(c)),boards/raspberrypi/gpio_libgpiod.c)) \
  $(eval $(c)_LDLIBS := $(if $(call rpi_gpiod,$(c)),$$(RPI_GPIOD_LIBS))) \
  $(eval $(call BOARD_CONFIG,$(c))) \
  $(eval $(call BOARD_LINUX_APPS,$(c))))

rpi_apps = $($(1)_DIR)/classify

# A fully static classify (glibc and libgpiod inside) for any 64-bit Pi OS,
# and for ../shared/tools/pi-vm-run, whose VM has no shared libraries.
$(rpi-aarch64_DIR)/classify-static: $(CLASSIFY_SRC) $(rpi-aarch64_GPIO) $(CLASSIFY_HDR) $(rpi-aarch64_LIB)
	@mkdir -p $(dir $@)
	$(rpi-aarch64_CC) $(BOARD_APP_CFLAGS) $(rpi-aarch64_CFLAGS) $(if $(rpi-aarch64_GPIO),-DCLASSIFY_HAVE_LIBGPIOD) \
	    -Iexamples/classify $(CLASSIFY_SRC) $(rpi-aarch64_GPIO) $(call whole,$(rpi-aarch64_LIB)) -static \
	    $(if $(rpi-aarch64_GPIO),-lgpiod) -lm -o $@
rpi_test_apps = $($(1)_DIR)/systolic_check $($(1)_DIR)/run_model

board-rpi-aarch64: $(call rpi_apps,rpi-aarch64) $(call rpi_apps,rpi-aarch64-pi5) $(rpi-aarch64_DIR)/classify-static
	$(if $(rpi-aarch64_GPIO),,@echo "note: libgpiod-dev:arm64 not installed: classify has no real GPIO backend")
board-rpi-armhf: $(call rpi_apps,rpi-armhf)
	$(if $(rpi-armhf_GPIO),,@echo "note: libgpiod-dev:armhf not installed: classify has no real GPIO backend")
board-test-rpi-aarch64: board-rpi-aarch64 $(call rpi_test_apps,rpi-aarch64) $(call rpi_test_apps,rpi-aarch64-pi5)
board-test-rpi-armhf: board-rpi-armhf $(call rpi_test_apps,rpi-armhf)
