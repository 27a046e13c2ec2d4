# The tensor half's tests: dtypes, tensors and views, every eager kernel against hand-computed
# values, randomised checks against a per-element reference, run_meta against run_eager,
# dispatch and its hook, user errors, and nn.
torchscope_add_test(NAME compiler_tensor_tests LABELS compiler
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/tensor_dtype_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_views_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_elementwise_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_reduction_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_linalg_nn_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_factory_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_dispatch_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_nn_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_property_test.cpp
  LIBS torchscope_compiler)

# Prints the eager kernels' throughput (not a test).
torchscope_add_benchmark(NAME bench_tensor_kernels
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tensor_kernels_bench.cpp
  LIBS torchscope_compiler)
