# Inductor's tests (labels `compiler` and `inductor`), included by tests/compiler/CMakeLists.txt:
# the graph passes, the loop IR, lowering and scheduling, code generation, the compile cache.
torchscope_add_test(NAME compiler_inductor_tests LABELS compiler inductor
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/passes_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/inductor_codegen_test.cpp
  LIBS torchscope_compiler)
# The tests reach the passes' internal headers (compiler/src).
target_include_directories(compiler_inductor_tests PRIVATE "${PROJECT_SOURCE_DIR}/compiler/src")
