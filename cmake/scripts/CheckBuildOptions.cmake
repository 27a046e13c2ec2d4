# Configures this repository with several combinations of the component options, hiding the
# dependencies each combination must not need (CMAKE_DISABLE_FIND_PACKAGE_*), and checks that a
# missing dependency stops configuration with its Debian package and the option that turns its
# user off. Configure only: the consumer test builds the tracer alone, the main build the rest.
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -DGENERATOR=<gen> -P CheckBuildOptions.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK_DIR}")

set(_all_off -DTORCHSCOPE_BUILD_COMPILER=OFF -DTORCHSCOPE_BUILD_TLPARSE=OFF
  -DTORCHSCOPE_BUILD_GUI=OFF -DTORCHSCOPE_BUILD_TESTS=OFF -DTORCHSCOPE_BUILD_BENCHMARKS=OFF)

# configure(<name> <PASS|FAIL> <expected text>... OPTIONS <cmake arguments>...)
function(configure name outcome)
  cmake_parse_arguments(C "" "" "EXPECT;OPTIONS;HIDE" ${ARGN})
  set(_hidden "")
  foreach(_package IN LISTS C_HIDE)
    list(APPEND _hidden "-DCMAKE_DISABLE_FIND_PACKAGE_${_package}=ON")
  endforeach()
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/${name}" -G "${GENERATOR}"
            --no-warn-unused-cli ${_all_off} ${C_OPTIONS} ${_hidden}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(outcome STREQUAL "PASS" AND NOT _rc EQUAL 0)
    message(FATAL_ERROR "${name}: configuration failed:\n${_out}")
  endif()
  if(outcome STREQUAL "FAIL" AND _rc EQUAL 0)
    message(FATAL_ERROR "${name}: configuration succeeded but should have stopped")
  endif()
  string(REGEX REPLACE "[ \n]+" " " _flat "${_out}")
  foreach(_text IN LISTS C_EXPECT)
    string(FIND "${_flat}" "${_text}" _at)
    if(_at LESS 0)
      message(FATAL_ERROR "${name}: the output does not say '${_text}':\n${_out}")
    endif()
  endforeach()
  message(STATUS "ok: ${name}")
endfunction()

configure("tlparse without Qt, LLVM, CUDA or the compiler" PASS
  OPTIONS -DTORCHSCOPE_BUILD_TLPARSE=ON
  HIDE Qt6 LLVM CUDAToolkit Catch2)
configure("the compiler without CUDA, LLVM, tlparse's libraries or Qt" PASS
  OPTIONS -DTORCHSCOPE_BUILD_COMPILER=ON -DTORCHSCOPE_WITH_CUDA=OFF -DTORCHSCOPE_WITH_LLVM=OFF
  HIDE CUDAToolkit LLVM simdjson SQLite3 ZLIB Qt6 Catch2)
configure("a missing simdjson names its package and TORCHSCOPE_BUILD_TLPARSE" FAIL
  OPTIONS -DTORCHSCOPE_BUILD_TLPARSE=ON
  HIDE simdjson
  EXPECT "libsimdjson-dev" "-DTORCHSCOPE_BUILD_TLPARSE=OFF")
configure("a missing LLVM names its package and TORCHSCOPE_WITH_LLVM" FAIL
  OPTIONS -DTORCHSCOPE_BUILD_COMPILER=ON -DTORCHSCOPE_WITH_CUDA=OFF
  HIDE LLVM
  EXPECT "llvm-14-dev" "-DTORCHSCOPE_WITH_LLVM=OFF")
configure("a missing CUDA Toolkit names TORCHSCOPE_WITH_CUDA" FAIL
  OPTIONS -DTORCHSCOPE_BUILD_COMPILER=ON -DTORCHSCOPE_WITH_LLVM=OFF
  HIDE CUDAToolkit
  EXPECT "-DTORCHSCOPE_WITH_CUDA=OFF")
configure("a missing Gloo builds the compiler without its distributed part, saying so" PASS
  OPTIONS -DTORCHSCOPE_BUILD_COMPILER=ON -DTORCHSCOPE_WITH_CUDA=OFF -DTORCHSCOPE_WITH_LLVM=OFF
  HIDE Gloo
  EXPECT "libgloo-dev" "-DTORCHSCOPE_WITH_GLOO=OFF")
configure("the GUI without tlparse is refused" FAIL
  OPTIONS -DTORCHSCOPE_BUILD_GUI=ON
  EXPECT "TORCHSCOPE_BUILD_GUI needs TORCHSCOPE_BUILD_TLPARSE")
