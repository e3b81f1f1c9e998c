# SPDX-License-Identifier: Apache-2.0
# The engine as an ESP-IDF component, included by the top-level
# CMakeLists.txt when ESP-IDF builds it (ESP_PLATFORM). ESP32 chips have
# no kernel variant of their own: the portable kernels run. Options are
# CMake variables of the project (idf.py -DEDGEQ_OPS_HEADER=... or set()
# before project()): EDGEQ_OPS_HEADER, EDGEQ_WITH_UINT8 (default ON).

# ESP-IDF first reads every component in script mode for its requirements:
# the engine has none.
if(CMAKE_BUILD_EARLY_EXPANSION)
    idf_component_register()
    return()
endif()

file(GLOB_RECURSE edgeq_sources CONFIGURE_DEPENDS "${COMPONENT_DIR}/engine/src/*.c")

idf_component_register(SRCS ${edgeq_sources}
                       INCLUDE_DIRS "engine/include"
                       PRIV_INCLUDE_DIRS "engine/src")

if(NOT DEFINED EDGEQ_WITH_UINT8 OR EDGEQ_WITH_UINT8)
    target_compile_definitions(${COMPONENT_LIB} PRIVATE EDGE_WITH_UINT8=1)
else()
    target_compile_definitions(${COMPONENT_LIB} PRIVATE EDGE_WITH_UINT8=0)
endif()
if(EDGEQ_OPS_HEADER)
    get_filename_component(edgeq_ops "${EDGEQ_OPS_HEADER}" ABSOLUTE BASE_DIR "${CMAKE_SOURCE_DIR}")
    target_compile_definitions(${COMPONENT_LIB} PRIVATE "EDGE_OPS_HEADER=\"${edgeq_ops}\"")
endif()
