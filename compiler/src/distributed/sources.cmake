# compiler/src/distributed/sources.cmake: torchscope_compiler_distributed, the process group over
# Gloo, DDP, the compiler collectives and NCCL (opened with dlopen at run time, nothing linked).
# A library of its own so that the compiler links no Gloo: it sits above the compiler (capture
# offers the seam the collectives plug into).
# Included by compiler/CMakeLists.txt when TORCHSCOPE_HAS_GLOO.
add_library(torchscope_compiler_distributed
  ${CMAKE_CURRENT_LIST_DIR}/process_group.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tcp_store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/data_parallel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compiler_collectives.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nccl.cpp)
add_library(torchscope::compiler_distributed ALIAS torchscope_compiler_distributed)
target_include_directories(torchscope_compiler_distributed
  PUBLIC "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/compiler/include>"
  PRIVATE "${PROJECT_SOURCE_DIR}/compiler/src")
target_link_libraries(torchscope_compiler_distributed
  PUBLIC torchscope_compiler
  PRIVATE gloo Threads::Threads ${CMAKE_DL_LIBS})
set_target_properties(torchscope_compiler_distributed PROPERTIES POSITION_INDEPENDENT_CODE ON)
torchscope_warnings(torchscope_compiler_distributed)
