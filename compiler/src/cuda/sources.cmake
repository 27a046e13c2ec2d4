# compiler/src/cuda/sources.cmake: the GPU runtime of torchscope_compiler (docs/COMPILER.md,
# "GPU runtime"). Included by compiler/CMakeLists.txt after the target is defined.
#
# With the CUDA Toolkit (TORCHSCOPE_HAS_CUDA) the runtime is built on the toolkit's headers;
# libcuda and NVRTC are opened at run time (dlopen), so nothing of CUDA is linked and every
# binary starts on a machine without a driver. Without it, no_cuda.cpp stands in and says so.
#
# The current device, DeviceGuard and CudaError, and the kernel cache (plain files, fuzzed in
# every build), need nothing of CUDA.
target_sources(torchscope_compiler PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cuda_common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_cache.cpp)
if(TORCHSCOPE_HAS_CUDA)
  target_sources(torchscope_compiler PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/driver_api.cpp
    ${CMAKE_CURRENT_LIST_DIR}/nvrtc_api.cpp
    ${CMAKE_CURRENT_LIST_DIR}/runtime.cpp
    ${CMAKE_CURRENT_LIST_DIR}/caching_allocator.cpp
    ${CMAKE_CURRENT_LIST_DIR}/copy_engine.cpp
    ${CMAKE_CURRENT_LIST_DIR}/host_copy.cpp
    ${CMAKE_CURRENT_LIST_DIR}/module.cpp
    ${CMAKE_CURRENT_LIST_DIR}/nvrtc_compiler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_hooks.cpp)
  # Headers only (cuda.h, nvrtc.h): the libraries are opened at run time.
  torchscope_link_cuda(torchscope_compiler LIBS ${CMAKE_DL_LIBS})
  target_include_directories(torchscope_compiler SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  list(GET CUDAToolkit_INCLUDE_DIRS 0 _cuda_include_dir)
  target_compile_definitions(torchscope_compiler PRIVATE
    TORCHSCOPE_NVRTC_SONAME="libnvrtc.so.${CUDAToolkit_VERSION_MAJOR}"
    TORCHSCOPE_CUDA_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}"
    TORCHSCOPE_CUDA_INCLUDE_DIR="${_cuda_include_dir}")
else()
  target_sources(torchscope_compiler PRIVATE ${CMAKE_CURRENT_LIST_DIR}/no_cuda.cpp)
endif()
