# The AOT stage's tests (label `compiler`): eager autograd and its gradient check, the
# optimizers, decompositions, the joint graph, the partitioner, the compiled training path and
# its traces. Included by tests/compiler/CMakeLists.txt.
torchscope_add_test(NAME compiler_autograd_tests LABELS compiler
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/autograd_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autograd_gradcheck_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/optim_test.cpp
  LIBS torchscope_compiler)

torchscope_add_test(NAME compiler_aot_tests LABELS compiler
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/aot_decomposition_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/aot_training_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/aot_partition_test.cpp
  LIBS torchscope_compiler)
