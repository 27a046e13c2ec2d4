# Capture's tests (label `compiler`), included by tests/compiler/CMakeLists.txt.
torchscope_add_test(NAME compiler_capture_tests LABELS compiler
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/capture_compile_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/capture_trace_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/capture_property_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/capture_guards_test.cpp
  LIBS torchscope_compiler simdjson::simdjson)

torchscope_add_benchmark(NAME bench_compiler SOURCES ${CMAKE_CURRENT_LIST_DIR}/capture_bench.cpp
  LIBS torchscope_compiler)
