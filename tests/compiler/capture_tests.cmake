# Capture's tests (label `compiler`), included by tests/compiler/CMakeLists.txt.
torchscope_add_test(NAME compiler_capture_tests LABELS compiler
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/capture_compile_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/capture_trace_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/capture_property_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/capture_guards_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/capture_threads_test.cpp
  LIBS torchscope_compiler simdjson::simdjson
  # Capture's tests check compiled results against eager bit for bit, so they compile with the
  # "eager" backend (the graph interpreter); generated code is checked against eager within
  # tolerances by Inductor's tests (inductor_tests.cmake) and by the samples.
  ENVIRONMENT TORCHSCOPE_COMPILE_BACKEND=eager)

torchscope_add_benchmark(NAME bench_compiler SOURCES ${CMAKE_CURRENT_LIST_DIR}/capture_bench.cpp
  LIBS torchscope_compiler)

# The samples' traces against PyTorch's logs of the matching workloads (labels compiler and
# samples); needs the sample programs, and reads the logs with our tlparse when it is built.
if(TARGET sample_recompile)
  set(_sample_log_libs simdjson::simdjson)
  if(TARGET torchscope_tlparse)
    list(APPEND _sample_log_libs torchscope_tlparse)
  endif()
  torchscope_add_test(NAME compiler_sample_logs_tests LABELS compiler samples
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/sample_logs_test.cpp
    LIBS ${_sample_log_libs}
    # The samples' compiles cache into the build tree, not the user's cache folder.
    ENVIRONMENT "TORCHINDUCTOR_CACHE_DIR=${CMAKE_BINARY_DIR}/inductor-cache")
  target_compile_definitions(compiler_sample_logs_tests PRIVATE
    TORCHSCOPE_HAVE_TLPARSE=$<BOOL:$<TARGET_EXISTS:torchscope_tlparse>>
    SAMPLE_RECOMPILE="$<TARGET_FILE:sample_recompile>"
    SAMPLE_DATA_DEPENDENT="$<TARGET_FILE:sample_data_dependent>"
    SAMPLE_DYNAMIC_SHAPES="$<TARGET_FILE:sample_dynamic_shapes>"
    SAMPLE_FULLGRAPH_ERROR="$<TARGET_FILE:sample_fullgraph_error>"
    SAMPLE_MLP="$<TARGET_FILE:sample_mlp>")
  add_dependencies(compiler_sample_logs_tests sample_recompile sample_data_dependent
    sample_dynamic_shapes sample_fullgraph_error sample_mlp)
  if(TARGET tlparse)
    target_compile_definitions(compiler_sample_logs_tests PRIVATE
      TLPARSE_BINARY="$<TARGET_FILE:tlparse>")
    add_dependencies(compiler_sample_logs_tests tlparse)
  endif()
endif()

# The extension points (custom backends, aot_autograd with user compilers, custom graph passes):
# compiled with Inductor, so not under the eager backend above.
torchscope_add_test(NAME compiler_extension_tests LABELS compiler
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/extension_points_test.cpp
  LIBS torchscope_compiler
  ENVIRONMENT "TORCHINDUCTOR_CACHE_DIR=${CMAKE_BINARY_DIR}/inductor-cache")
