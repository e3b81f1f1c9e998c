# SPDX-License-Identifier: Apache-2.0
# ESP-IDF's first pass over a component, reduced: its CMakeLists.txt in
# script mode with idf_component_register only gathering requirements.
macro(idf_component_register)
endmacro()
include(${COMPONENT_DIR}/CMakeLists.txt)
