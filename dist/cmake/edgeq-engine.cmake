# SPDX-License-Identifier: Apache-2.0
# edgeq_add_engine(<target>): libedge as a static library target built
# from engine/ (every .c under engine/src, found by globbing), with the
# options EDGEQ_OPS_HEADER, EDGEQ_WITH_UINT8 and EDGEQ_KERNELS. Used by the
# top-level CMakeLists.txt; the Zephyr and ESP-IDF files take the same
# sources and options their own way.
include(CheckCSourceCompiles)

set(EDGEQ_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." CACHE INTERNAL "")
get_filename_component(EDGEQ_ROOT "${EDGEQ_ROOT}" ABSOLUTE)

# The variant the target's compiler can run: its predefined macros say
# which of MVE, the M-profile DSP extension or NEON it has.
function(edgeq_detect_kernels out)
    set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
    check_c_source_compiles("
#if !(defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1))
#error no MVE
#endif
int edgeq_probe;" EDGEQ_TARGET_HAS_MVE)
    check_c_source_compiles("
#if !(defined(__ARM_FEATURE_DSP) && defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#error no Cortex-M DSP
#endif
int edgeq_probe;" EDGEQ_TARGET_HAS_DSP)
    check_c_source_compiles("
#if !defined(__ARM_NEON)
#error no NEON
#endif
int edgeq_probe;" EDGEQ_TARGET_HAS_NEON)
    if(EDGEQ_TARGET_HAS_MVE)
        set(${out} mve PARENT_SCOPE)
    elseif(EDGEQ_TARGET_HAS_DSP)
        set(${out} dsp PARENT_SCOPE)
    elseif(EDGEQ_TARGET_HAS_NEON)
        set(${out} neon PARENT_SCOPE)
    else()
        set(${out} portable PARENT_SCOPE)
    endif()
endfunction()

# EDGEQ_KERNELS -> the engine's -D (empty for portable; x86 SIMD is chosen
# at run time inside the engine whatever this says).
function(edgeq_kernel_definition out)
    set(kernels "${EDGEQ_KERNELS}")
    if(kernels STREQUAL "" OR kernels STREQUAL "auto")
        edgeq_detect_kernels(kernels)
    endif()
    if(kernels STREQUAL "portable")
        set(${out} "" PARENT_SCOPE)
    elseif(kernels MATCHES "^(neon|dsp|mve)$")
        string(TOUPPER "${kernels}" upper)
        set(${out} "EDGE_SYSTOLIC_${upper}" PARENT_SCOPE)
    else()
        message(FATAL_ERROR "EDGEQ_KERNELS=${EDGEQ_KERNELS}: use auto, portable, neon, dsp or mve")
    endif()
    message(STATUS "edgeq: ${kernels} kernels")
endfunction()

function(edgeq_add_engine target)
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${EDGEQ_ROOT}/engine/src/*.c")
    add_library(${target} STATIC ${sources})
    set_target_properties(${target} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                          C_EXTENSIONS OFF OUTPUT_NAME edge)
    target_include_directories(${target} PUBLIC "${EDGEQ_ROOT}/engine/include"
                               PRIVATE "${EDGEQ_ROOT}/engine/src")
    if(EDGEQ_WITH_UINT8)
        target_compile_definitions(${target} PRIVATE EDGE_WITH_UINT8=1)
    else()
        target_compile_definitions(${target} PRIVATE EDGE_WITH_UINT8=0)
    endif()
    edgeq_kernel_definition(kernel_define)
    if(kernel_define)
        target_compile_definitions(${target} PRIVATE ${kernel_define})
    endif()
    if(EDGEQ_OPS_HEADER)
        get_filename_component(ops "${EDGEQ_OPS_HEADER}" ABSOLUTE BASE_DIR "${CMAKE_BINARY_DIR}")
        if(NOT EXISTS "${ops}")
            message(FATAL_ERROR "EDGEQ_OPS_HEADER: no such file: ${ops}")
        endif()
        target_compile_definitions(${target} PRIVATE "EDGE_OPS_HEADER=\"${ops}\"")
    endif()
    # Sections per function and object: a firmware linked with
    # --gc-sections keeps only the engine code it reaches.
    if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(${target} PRIVATE -ffunction-sections -fdata-sections)
    endif()
endfunction()
