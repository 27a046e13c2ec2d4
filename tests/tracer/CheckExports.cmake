# Checks the tracer's shared library against its C header:
#   cmake -DLIBRARY=<libtorchscope_tracer.so> -DHEADER=<tracer.h> -DNM=<nm> -P CheckExports.cmake
# Every function tracer.h declares is exported, and every exported symbol is a C API function
# (torchscope_trace_*) or in the C++ API's namespace (tracer::), so that no internal symbol, and
# no standard-library instantiation, becomes part of the ABI by accident.
cmake_minimum_required(VERSION 3.25)
if(NOT NM)
  find_program(NM nm REQUIRED)
endif()
execute_process(COMMAND "${NM}" -D -C --defined-only "${LIBRARY}"
  OUTPUT_VARIABLE _symbols RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" _lines "${_symbols}")
set(_exported "")
set(_stray "")
foreach(_line IN LISTS _lines)
  # "<address> <type> <name>"; the version node is an absolute symbol (type A).
  if(_line MATCHES "^[0-9a-f]+ ([A-Za-z]) (.*)$")
    set(_type "${CMAKE_MATCH_1}")
    set(_name "${CMAKE_MATCH_2}")
    # Newer binutils print the symbol's version node after the name.
    string(REGEX REPLACE "@@?TORCHSCOPE_TRACER_[0-9.]+$" "" _name "${_name}")
    if(_type STREQUAL "A" AND _name MATCHES "^TORCHSCOPE_TRACER_[0-9]+\\.[0-9]+$")
      continue()
    endif()
    if(_name MATCHES "^(torchscope_trace_[a-z_]+)$")
      list(APPEND _exported "${CMAKE_MATCH_1}")
    elseif(NOT _name MATCHES "^tracer::")
      list(APPEND _stray "${_name}")
    endif()
  endif()
endforeach()

file(STRINGS "${HEADER}" _declarations REGEX "TORCHSCOPE_TRACER_API .*torchscope_trace_[a-z_]+\\(")
set(_missing "")
set(_declared_count 0)
foreach(_declaration IN LISTS _declarations)
  string(REGEX MATCH "torchscope_trace_[a-z_]+\\(" _function "${_declaration}")
  string(REPLACE "(" "" _function "${_function}")
  math(EXPR _declared_count "${_declared_count} + 1")
  if(NOT _function IN_LIST _exported)
    list(APPEND _missing "${_function}")
  endif()
endforeach()

if(_declared_count LESS 10)
  message(FATAL_ERROR "found only ${_declared_count} declarations in ${HEADER}: the check is broken")
endif()
if(_missing OR _stray)
  message(FATAL_ERROR "ABI check failed for ${LIBRARY}\n"
                      "declared in tracer.h but not exported: ${_missing}\n"
                      "exported but not part of the API: ${_stray}")
endif()
list(LENGTH _exported _count)
message(STATUS "${_count} C functions exported, all ${_declared_count} declared ones among them")
