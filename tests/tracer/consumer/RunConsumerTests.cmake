# The consumer test (CTest runs it; docs/BUILDING.md): the tracer as another project adopts it.
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -DGENERATOR=<gen> -DC_COMPILER=<cc>
#         -DCXX_COMPILER=<c++> [-DTLPARSE=<tlparse>] -P RunConsumerTests.cmake
# 1. Configures this repository with every component but the tracer off, and with every
#    optional dependency hidden (CMAKE_DISABLE_FIND_PACKAGE_*): the tracer builds with a C++
#    compiler alone. Builds it and installs component `tracer` into a temporary prefix.
# 2. Builds tests/tracer/consumer (find_package; the C test program against the shared and the
#    static library) and samples/exprc (find_package; the sample compiler), runs each, and reads
#    each log with tlparse --strict when TLPARSE is given.
# 3. Compiles the C test program with the flags pkg-config gives, runs it, reads its log.
cmake_minimum_required(VERSION 3.25)

foreach(_required SOURCE_DIR WORK_DIR GENERATOR C_COMPILER CXX_COMPILER)
  if(NOT DEFINED ${_required})
    message(FATAL_ERROR "RunConsumerTests.cmake needs -D${_required}=...")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(_prefix "${WORK_DIR}/prefix")

# Runs a command; stops the test with its output when it fails.
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${_rc}):\n${ARGN}\n${_out}")
  endif()
  message(STATUS "ok: ${what}")
  set(STEP_OUTPUT "${_out}" PARENT_SCOPE)
endfunction()

# Runs `program` writing its trace under `trace_dir`; checks there is one log and, with TLPARSE,
# that tlparse --strict reads it. Sets LOG to the log's path.
function(run_traced what trace_dir)
  file(MAKE_DIRECTORY "${trace_dir}")
  run_step("${what} runs" ${CMAKE_COMMAND} -E env "TORCH_TRACE=${trace_dir}" ${ARGN})
  file(GLOB _logs "${trace_dir}/dedicated_log_torch_trace_*.log")
  list(LENGTH _logs _count)
  if(NOT _count EQUAL 1)
    message(FATAL_ERROR "${what}: expected one log in ${trace_dir}, found ${_count}")
  endif()
  if(TLPARSE)
    run_step("tlparse --strict reads the log of ${what}"
             "${TLPARSE}" "${_logs}" -o "${trace_dir}/report" --strict --no-browser)
  endif()
  set(LOG "${_logs}" PARENT_SCOPE)
endfunction()

# 1. The tracer alone.
set(_hidden "")
foreach(_package simdjson SQLite3 ZLIB Catch2 Qt6 LLVM CUDAToolkit)
  list(APPEND _hidden "-DCMAKE_DISABLE_FIND_PACKAGE_${_package}=ON")
endforeach()
run_step("configure the tracer alone, every optional dependency hidden"
  ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/tracer-build" -G "${GENERATOR}"
  --no-warn-unused-cli
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  -DCMAKE_INSTALL_PREFIX=${_prefix}
  -DTORCHSCOPE_WERROR=ON
  -DTORCHSCOPE_BUILD_COMPILER=OFF -DTORCHSCOPE_BUILD_TLPARSE=OFF -DTORCHSCOPE_BUILD_GUI=OFF
  -DTORCHSCOPE_BUILD_TESTS=OFF -DTORCHSCOPE_BUILD_BENCHMARKS=OFF
  ${_hidden})
run_step("build the tracer's libraries"
  ${CMAKE_COMMAND} --build "${WORK_DIR}/tracer-build" --parallel 2
  --target torchscope_tracer torchscope_tracer_shared)
run_step("install component tracer"
  ${CMAKE_COMMAND} --install "${WORK_DIR}/tracer-build" --component tracer)

file(STRINGS "${WORK_DIR}/tracer-build/CMakeCache.txt" _libdir REGEX "^CMAKE_INSTALL_LIBDIR:")
string(REGEX REPLACE "^[^=]*=" "" CMAKE_INSTALL_LIBDIR "${_libdir}")
foreach(_file
    include/tracer/trace.h include/tracer/tracer.h include/tracer/json_writer.h
    include/tracer/export.h include/tracer/version.h
    ${CMAKE_INSTALL_LIBDIR}/libtorchscope_tracer.a ${CMAKE_INSTALL_LIBDIR}/libtorchscope_tracer.so
    ${CMAKE_INSTALL_LIBDIR}/cmake/torchscope_tracer/torchscope_tracerConfig.cmake
    ${CMAKE_INSTALL_LIBDIR}/cmake/torchscope_tracer/torchscope_tracerConfigVersion.cmake
    ${CMAKE_INSTALL_LIBDIR}/pkgconfig/torchscope-tracer.pc)
  if(NOT EXISTS "${_prefix}/${_file}")
    message(FATAL_ERROR "the install lacks ${_file}")
  endif()
endforeach()
message(STATUS "ok: the install has the headers, both libraries, the CMake package, the .pc")

# 2. find_package consumers.
set(_consumer_flags -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_CXX_FLAGS=-Werror
  -DCMAKE_PREFIX_PATH=${_prefix})
run_step("configure the C consumer (find_package)"
  ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}" -B "${WORK_DIR}/c-consumer" ${_consumer_flags})
run_step("build the C consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/c-consumer" --parallel 2)
foreach(_variant shared static)
  run_traced("the C consumer linked ${_variant}" "${WORK_DIR}/trace-c-${_variant}"
             "${WORK_DIR}/c-consumer/c_consumer_${_variant}")
endforeach()

run_step("configure the sample compiler samples/exprc (find_package)"
  ${CMAKE_COMMAND} -S "${SOURCE_DIR}/samples/exprc" -B "${WORK_DIR}/exprc" ${_consumer_flags})
run_step("build the sample compiler" ${CMAKE_COMMAND} --build "${WORK_DIR}/exprc" --parallel 2)
run_traced("the sample compiler" "${WORK_DIR}/trace-exprc"
           "${WORK_DIR}/exprc/exprc" "${SOURCE_DIR}/samples/exprc/example.expr")
if(TLPARSE)
  # Its passes appear in the report: each compile's folder holds the IR after every pass.
  set(_report "${WORK_DIR}/trace-exprc/report")
  # axpy is frame 0, poly frame 1 (recompiled for float), norm 2, cube 3 (its compile fails).
  foreach(_expected
      "-_1_0_0/dynamo_output_graph_*.txt" "-_1_0_0/exprc_after_fold_constants_*.txt"
      "-_1_0_0/exprc_after_eliminate_dead_code_*.txt" "-_1_0_0/inductor_output_code_*.html"
      "-_1_0_0/compilation_metrics_*.html" "-_1_1_0/recompile_reasons_*.json"
      "-_3_0_0/compilation_metrics_*.html")
    file(GLOB _found "${_report}/${_expected}")
    if(NOT _found)
      message(FATAL_ERROR "the sample compiler's report lacks ${_expected}")
    endif()
  endforeach()
  file(READ "${_report}/failures_and_restarts.html" _failures)
  string(FIND "${_failures}" "NotImplementedError" _at)
  if(_at LESS 0)
    message(FATAL_ERROR "the failed compile of cube is not in failures_and_restarts.html")
  endif()
  message(STATUS "ok: the sample compiler's passes are in the report")
endif()

# 3. pkg-config.
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${_prefix}/${CMAKE_INSTALL_LIBDIR}/pkgconfig")
run_step("pkg-config finds torchscope-tracer"
  "${PKG_CONFIG}" --cflags --libs torchscope-tracer)
separate_arguments(_pc_flags UNIX_COMMAND "${STEP_OUTPUT}")
run_step("compile the C test program with pkg-config's flags"
  "${C_COMPILER}" -std=c99 -Wall -Wextra -Wpedantic -Werror
  "${CMAKE_CURRENT_LIST_DIR}/../c_api_program.c" -o "${WORK_DIR}/c_pkgconfig" ${_pc_flags})
run_traced("the pkg-config build" "${WORK_DIR}/trace-pkgconfig"
           ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${_prefix}/${CMAKE_INSTALL_LIBDIR}"
           "${WORK_DIR}/c_pkgconfig")
