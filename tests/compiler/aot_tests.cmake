# The AOT stage's tests (label `compiler`): eager autograd and its gradient check, the
# optimizers, decompositions, the joint graph, the partitioner, the compiled training path and
# its traces. Included by tests/compiler/CMakeLists.txt.
torchscope_add_test(NAME compiler_autograd_tests LABELS compiler
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/autograd_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/autograd_gradcheck_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/optim_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/inplace_test.cpp
  LIBS torchscope_compiler)

torchscope_add_test(NAME compiler_aot_tests LABELS compiler
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/aot_decomposition_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/aot_training_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/aot_partition_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/aot_graph_test.cpp
  LIBS torchscope_compiler simdjson::simdjson)
# The joint-graph passes are run through the pass pipeline's internal header (compiler/src).
target_include_directories(compiler_aot_tests PRIVATE "${PROJECT_SOURCE_DIR}/compiler/src")

# The samples' traces against PyTorch's w01 (training) and w03 (inference) logs (labels compiler,
# samples); reads the
# logs with our tlparse when it is built.
if(TARGET sample_train_mlp)
  set(_aot_log_libs simdjson::simdjson)
  if(TARGET torchscope_tlparse)
    list(APPEND _aot_log_libs torchscope_tlparse)
  endif()
  torchscope_add_test(NAME compiler_aot_sample_logs_tests LABELS compiler samples
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/aot_sample_logs_test.cpp
    LIBS ${_aot_log_libs})
  target_compile_definitions(compiler_aot_sample_logs_tests PRIVATE
    TORCHSCOPE_HAVE_TLPARSE=$<BOOL:$<TARGET_EXISTS:torchscope_tlparse>>
    SAMPLE_TRAIN_MLP="$<TARGET_FILE:sample_train_mlp>"
    SAMPLE_TRAIN_TRANSFORMER="$<TARGET_FILE:sample_train_transformer>"
    SAMPLE_TRAIN_LLAMA="$<TARGET_FILE:sample_train_llama>"
    SAMPLE_DATA_DEPENDENT="$<TARGET_FILE:sample_data_dependent>")
  add_dependencies(compiler_aot_sample_logs_tests sample_train_mlp sample_train_transformer
    sample_train_llama
    sample_data_dependent)
  if(TARGET tlparse)
    target_compile_definitions(compiler_aot_sample_logs_tests PRIVATE
      TLPARSE_BINARY="$<TARGET_FILE:tlparse>")
    add_dependencies(compiler_aot_sample_logs_tests tlparse)
  endif()
endif()

# Prints the AOT stage's figures (not a test).
torchscope_add_benchmark(NAME bench_aot SOURCES ${CMAKE_CURRENT_LIST_DIR}/aot_bench.cpp
  LIBS torchscope_compiler)
if(TARGET bench_aot)
  target_include_directories(bench_aot PRIVATE "${PROJECT_SOURCE_DIR}/compiler/src")
endif()
