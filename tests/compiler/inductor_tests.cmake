# Inductor's tests (labels `compiler` and `inductor`), included by tests/compiler/CMakeLists.txt:
# the graph passes, the loop IR, lowering and scheduling, code generation, the compile cache.
# Code generation, the cache and the property test need a code generator (LLVM in the build).
set(_inductor_test_sources ${CMAKE_CURRENT_LIST_DIR}/passes_test.cpp)
if(TORCHSCOPE_HAS_LLVM)
  list(APPEND _inductor_test_sources
    ${CMAKE_CURRENT_LIST_DIR}/inductor_codegen_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/inductor_cache_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/inductor_property_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/inductor_regression_test.cpp
    # the "pointwise, more" ops at every level, compiled included
    ${CMAKE_CURRENT_LIST_DIR}/pointwise_more_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/indexing_ops_test.cpp
    # var, logsumexp, the losses, split/chunk, rand and dropout (issue 26)
    ${CMAKE_CURRENT_LIST_DIR}/reductions_losses_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/nn_norm_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/nn_conv_pool_test.cpp)
endif()
# The GPU generator's tests (NVRTC without a GPU; the rest skip, saying so, without one).
if(TORCHSCOPE_HAS_CUDA)
  list(APPEND _inductor_test_sources ${CMAKE_CURRENT_LIST_DIR}/inductor_cuda_test.cpp)
endif()
torchscope_add_test(NAME compiler_inductor_tests LABELS compiler inductor
  SOURCES ${_inductor_test_sources}
  LIBS torchscope_compiler
  # Compiles cache into the build tree, not the user's cache folder. (With the toolkit,
  # inductor_cuda_test.cpp turns on the NVRTC check of every host schedule for the whole binary.)
  ENVIRONMENT "TORCHINDUCTOR_CACHE_DIR=${CMAKE_BINARY_DIR}/inductor-cache")
# The tests reach the passes' internal headers (compiler/src).
target_include_directories(compiler_inductor_tests PRIVATE "${PROJECT_SOURCE_DIR}/compiler/src")
if(TORCHSCOPE_HAS_CUDA)
  target_include_directories(compiler_inductor_tests SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_include_directories(compiler_inductor_tests PRIVATE "${CMAKE_BINARY_DIR}/compiler/generated")
endif()

# Prints the figures of Inductor's performance goals (scripts/bench-inductor.sh compares them
# with PyTorch's eager kernels). Links OpenBLAS, when installed, as a yardstick for our GEMM.
if(TORCHSCOPE_HAS_LLVM)
  torchscope_add_benchmark(NAME bench_inductor SOURCES ${CMAKE_CURRENT_LIST_DIR}/inductor_bench.cpp
    LIBS torchscope_compiler)
  if(TARGET bench_inductor)
    find_library(TORCHSCOPE_OPENBLAS NAMES openblas)
    find_path(TORCHSCOPE_CBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas)
    if(TORCHSCOPE_OPENBLAS AND TORCHSCOPE_CBLAS_INCLUDE)
      target_link_libraries(bench_inductor PRIVATE ${TORCHSCOPE_OPENBLAS})
      target_include_directories(bench_inductor PRIVATE ${TORCHSCOPE_CBLAS_INCLUDE})
      target_compile_definitions(bench_inductor PRIVATE TORCHSCOPE_BENCH_OPENBLAS=1)
    endif()
  endif()
endif()

# The GPU generator's figures (bandwidth against a copy, the MLP step, reduce-overhead's
# per-call time); scripts/bench-cuda-codegen.sh prints PyTorch's beside them on the GPU machine.
if(TORCHSCOPE_HAS_CUDA)
  torchscope_add_benchmark(NAME bench_cuda_codegen
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/inductor_cuda_bench.cpp LIBS torchscope_compiler)
  if(TARGET bench_cuda_codegen)
    target_include_directories(bench_cuda_codegen PRIVATE "${PROJECT_SOURCE_DIR}/compiler/src")
    target_include_directories(bench_cuda_codegen SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  endif()
endif()

# Inductor's trace against PyTorch's logs (needs the MLP samples).
if(TARGET sample_mlp AND TARGET sample_train_mlp AND TORCHSCOPE_HAS_LLVM)
  set(_inductor_log_libs torchscope_compiler simdjson::simdjson)
  if(TARGET torchscope_tlparse)
    list(APPEND _inductor_log_libs torchscope_tlparse)
  endif()
  torchscope_add_test(NAME compiler_inductor_logs_tests LABELS compiler inductor samples
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/inductor_logs_test.cpp
    LIBS ${_inductor_log_libs})
  target_compile_definitions(compiler_inductor_logs_tests PRIVATE
    TORCHSCOPE_HAVE_TLPARSE=$<BOOL:$<TARGET_EXISTS:torchscope_tlparse>>
    SAMPLE_MLP="$<TARGET_FILE:sample_mlp>"
    SAMPLE_TRAIN_MLP="$<TARGET_FILE:sample_train_mlp>")
  add_dependencies(compiler_inductor_logs_tests sample_mlp sample_train_mlp)
endif()

# The compile-cache entry parser under a fuzzer (replayed over committed logs in test builds).
torchscope_add_fuzzer(NAME fuzz_inductor_cache_entry
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/inductor_fuzz_cache_entry.cpp
  LIBS torchscope_compiler LABELS compiler inductor
  REPLAY ${PROJECT_SOURCE_DIR}/tests/data/pytorch-2.11/w13_cache_run1
         ${PROJECT_SOURCE_DIR}/samples/logs)
foreach(_fuzz_target fuzz_inductor_cache_entry fuzz_inductor_cache_entry_replay)
  if(TARGET ${_fuzz_target})
    target_include_directories(${_fuzz_target} PRIVATE "${PROJECT_SOURCE_DIR}/compiler/src")
  endif()
endforeach()

# The differential test against PyTorch 1.13 (docs/COMPILER.md, "Checked against PyTorch"): a
# couple of hundred random programs here; scripts/differential-test.sh N runs thousands. Skips, saying
# why, where /usr/bin/python3 has no torch (Debian's python3-torch).
if(TORCHSCOPE_HAS_LLVM)
  add_executable(compiler_differential_programs
    ${CMAKE_CURRENT_LIST_DIR}/differential/differential_programs.cpp)
  torchscope_warnings(compiler_differential_programs)
  target_link_libraries(compiler_differential_programs PRIVATE torchscope_compiler)
  add_test(NAME "eager and compiled random programs agree with PyTorch 1.13 (differential)"
    COMMAND "${PROJECT_SOURCE_DIR}/scripts/differential-test.sh" 200 1)
  set_tests_properties("eager and compiled random programs agree with PyTorch 1.13 (differential)"
    PROPERTIES LABELS "compiler;inductor" SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "TORCHSCOPE_DIFFERENTIAL_BIN=$<TARGET_FILE:compiler_differential_programs>;TORCHINDUCTOR_CACHE_DIR=${CMAKE_BINARY_DIR}/test-cache/differential;TORCHSCOPE_CACHE_DIR=${CMAKE_BINARY_DIR}/test-cache/torchscope;XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-cache/xdg")
endif()
