# SPDX-License-Identifier: Apache-2.0
# boards/host/board.mk — the development machine as a board: classify
# (fake GPIO only), the firmware example on stdio (its output is what the
# Cortex-M runs must reproduce) and the test tools, all linked with the top
# Makefile's libedge (portable systolic kernel).

host_DIR      := $(BUILD)/host
host_LIB       = $(BUILD)/libedge.a
host_CC        = $(CC)
host_CFLAGS    = $(EXTRA_CFLAGS)
host_GPIO     :=
host_LDLIBS   :=
host_BOARDDIR := boards/host
host_BOARD_OBJ = $(host_DIR)/board/console.o
host_FWFLAGS  :=
host_FWLINK   := -lm
host_EXT      :=

$(host_DIR)/board/console.o: boards/host/console.c boards/host/board.h
	@mkdir -p $(dir $@)
	$(host_CC) $(BOARD_APP_CFLAGS) $(host_CFLAGS) -D_POSIX_C_SOURCE=200809L -c $< -o $@

$(eval $(call BOARD_LINUX_APPS,host))
$(foreach m,$(FIRMWARE_MODELS),$(eval $(call BOARD_FIRMWARE,host,$(m))))

board-host: $(host_DIR)/classify
board-test-host: board-host $(host_DIR)/systolic_check $(host_DIR)/run_model \
    $(FIRMWARE_MODELS:%=$(host_DIR)/firmware-%)
