# SPDX-License-Identifier: Apache-2.0
# A CMake toolchain file for Cortex-M with Arm's GNU toolchain:
#   cmake -DCMAKE_TOOLCHAIN_FILE=dist/cmake/toolchains/arm-none-eabi.cmake \
#         -DEDGEQ_CPU=cortex-m4 ...
# EDGEQ_CPU: cortex-m0plus, cortex-m3, cortex-m4 (default), cortex-m7,
# cortex-m33 or cortex-m55, with the hard-float ABI where the core has an FPU.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# No startup code or linker script here: probe by compiling, not linking.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES EDGEQ_CPU)

if(NOT EDGEQ_CPU)
    set(EDGEQ_CPU cortex-m4)
endif()
set(_edgeq_fpu_cortex-m4 "-mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(_edgeq_fpu_cortex-m7 "-mfloat-abi=hard -mfpu=fpv5-d16")
set(_edgeq_fpu_cortex-m33 "-mfloat-abi=hard -mfpu=fpv5-sp-d16")
set(_edgeq_fpu_cortex-m55 "-mfloat-abi=hard")
set(CMAKE_C_FLAGS_INIT "-mcpu=${EDGEQ_CPU} -mthumb ${_edgeq_fpu_${EDGEQ_CPU}}")
set(CMAKE_CXX_FLAGS_INIT "${CMAKE_C_FLAGS_INIT}")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
