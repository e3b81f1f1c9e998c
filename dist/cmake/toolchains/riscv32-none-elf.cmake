# SPDX-License-Identifier: Apache-2.0
# A CMake toolchain file for bare-metal RV32 with Debian's
# riscv64-unknown-elf-gcc: RV32IMC, soft float (the ESP32-C3's ISA).
#   cmake -DCMAKE_TOOLCHAIN_FILE=dist/cmake/toolchains/riscv32-none-elf.cmake
# EDGEQ_RISCV_ARCH / EDGEQ_RISCV_ABI override it (rv32imfc / ilp32f).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_CXX_COMPILER riscv64-unknown-elf-g++)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES EDGEQ_RISCV_ARCH EDGEQ_RISCV_ABI)

if(NOT EDGEQ_RISCV_ARCH)
    set(EDGEQ_RISCV_ARCH rv32imc)
endif()
if(NOT EDGEQ_RISCV_ABI)
    set(EDGEQ_RISCV_ABI ilp32)
endif()
set(CMAKE_C_FLAGS_INIT "-march=${EDGEQ_RISCV_ARCH} -mabi=${EDGEQ_RISCV_ABI} -mcmodel=medany")
set(CMAKE_CXX_FLAGS_INIT "${CMAKE_C_FLAGS_INIT}")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
