# The GPU runtime's tests (label `compiler`), included by tests/compiler/CMakeLists.txt.
# Devices, device guards and what a machine without CUDA says are tested in every build; the
# CUDA runtime's own tests (allocator, kernel cache, NVRTC, and on a GPU everything else, each
# skipping, saying so, without one) need the toolkit's headers.
set(_cuda_test_sources ${CMAKE_CURRENT_LIST_DIR}/tensor_device_test.cpp)
if(TORCHSCOPE_HAS_CUDA)
  list(APPEND _cuda_test_sources ${CMAKE_CURRENT_LIST_DIR}/cuda_runtime_test.cpp)
endif()
torchscope_add_test(NAME compiler_cuda_tests LABELS compiler
  SOURCES ${_cuda_test_sources}
  LIBS torchscope_compiler)
# The kernel cache's entry reader and device strings, on any bytes (compiled in every build:
# the cache needs nothing of CUDA, so the fuzz preset, built without it, fuzzes it too).
torchscope_add_fuzzer(NAME fuzz_cuda_cache SOURCES ${CMAKE_CURRENT_LIST_DIR}/cuda_cache_fuzz.cpp
  LIBS torchscope_compiler LABELS compiler
  REPLAY "${PROJECT_SOURCE_DIR}/tests/data/cuda-cache")
foreach(_fuzz_target fuzz_cuda_cache fuzz_cuda_cache_replay)
  if(TARGET ${_fuzz_target})
    target_include_directories(${_fuzz_target} PRIVATE "${PROJECT_SOURCE_DIR}/compiler/src")
  endif()
endforeach()

if(TORCHSCOPE_HAS_CUDA)
  # The runtime's internal headers (compiler/src/cuda/) and the toolkit's cuda.h under them.
  target_include_directories(compiler_cuda_tests PRIVATE "${PROJECT_SOURCE_DIR}/compiler/src")
  target_include_directories(compiler_cuda_tests SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_compile_definitions(compiler_cuda_tests PRIVATE TORCHSCOPE_HAS_CUDA=1)

  # The driver and NVRTC are opened at run time, so no binary needs libcuda.so.1 to start
  # (CI has no driver). This checks the test binary, which links the whole compiler.
  add_test(NAME "the compiler links neither libcuda nor NVRTC"
    COMMAND sh -c "! readelf -d \"$<TARGET_FILE:compiler_cuda_tests>\" | grep -E 'NEEDED.*(libcuda|libnvrtc)'")
  set_tests_properties("the compiler links neither libcuda nor NVRTC" PROPERTIES LABELS compiler)

  torchscope_add_benchmark(NAME bench_cuda_runtime
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/cuda_runtime_bench.cpp
    LIBS torchscope_compiler)
  if(TARGET bench_cuda_runtime)
    target_include_directories(bench_cuda_runtime PRIVATE "${PROJECT_SOURCE_DIR}/compiler/src"
                                                          "${PROJECT_SOURCE_DIR}/tests")
    target_include_directories(bench_cuda_runtime SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  endif()
endif()
