# compiler/src/inductor/sources.cmake: Inductor's part of torchscope_compiler (docs/COMPILER.md,
# "Inductor"): the graph passes (src/passes/), the loop IR, lowering, scheduling, code
# generation and the compile cache (src/inductor/). Included by compiler/CMakeLists.txt after
# the target is defined.
get_filename_component(_passes_dir "${CMAKE_CURRENT_LIST_DIR}/../passes" ABSOLUTE)
target_sources(torchscope_compiler PRIVATE
  ${_passes_dir}/pass_pipeline.cpp
  ${_passes_dir}/dead_code_elimination.cpp
  ${_passes_dir}/common_subexpression_elimination.cpp
  ${_passes_dir}/constant_folding.cpp
  ${_passes_dir}/remove_noop_views.cpp
  ${_passes_dir}/pattern_matcher.cpp
  ${_passes_dir}/pattern_rewrites.cpp
  ${_passes_dir}/reinplace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ir/expr.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ir/loop_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ir/loop_ir.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ir/index_analysis.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lowering/lowering.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lowering/pointwise.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lowering/reductions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lowering/nn.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lowering/views.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lowering/shape.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lowering/factories.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lowering/extern_kernels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scheduler/scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/kernel_compiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/output_code.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/fx_graph_runnable.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/cache_entry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/fx_graph_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/provenance.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu/cpu_kernel_compiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu/llvm_kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu/llvm_jit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu/vector_math.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu/c_printer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/runtime/thread_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/runtime/gemm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/runtime/wrapper.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compile_fx.cpp
)

# LLVM (the CPU code generator): its headers only in codegen/cpu/*.cpp, warnings from them
# silenced; linked as Debian's one shared library.
find_library(TORCHSCOPE_LLVM_LIBRARY NAMES LLVM-14 LLVM HINTS "${LLVM_LIBRARY_DIR}" NO_DEFAULT_PATH)
if(NOT TORCHSCOPE_LLVM_LIBRARY)
  message(FATAL_ERROR "libLLVM-14.so was not found in ${LLVM_LIBRARY_DIR} (package llvm-14-dev)")
endif()
target_include_directories(torchscope_compiler SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
separate_arguments(_llvm_definitions NATIVE_COMMAND "${LLVM_DEFINITIONS}")
# GCC reports null dereferences inside LLVM's inlined headers (ORC's symbol pool): not ours.
list(APPEND _llvm_definitions -Wno-null-dereference)
set_source_files_properties(
  ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu/cpu_kernel_compiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu/llvm_kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu/llvm_jit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu/vector_math.cpp
  PROPERTIES COMPILE_OPTIONS "${_llvm_definitions}")
target_link_libraries(torchscope_compiler PRIVATE ${TORCHSCOPE_LLVM_LIBRARY})

# The compile cache keys entries with a hash of the compiler's sources (cache/build_id.cmake),
# regenerated whenever one of them changes.
file(GLOB_RECURSE _compiler_sources CONFIGURE_DEPENDS
  "${CMAKE_CURRENT_LIST_DIR}/../*.cpp" "${CMAKE_CURRENT_LIST_DIR}/../*.h"
  "${CMAKE_CURRENT_LIST_DIR}/../../include/*.h")
list(SORT _compiler_sources)
set(_build_id_header "${CMAKE_CURRENT_BINARY_DIR}/generated/inductor_build_id.h")
add_custom_command(OUTPUT "${_build_id_header}"
  COMMAND ${CMAKE_COMMAND} "-DFILES=${_compiler_sources}" "-DOUTPUT=${_build_id_header}"
          -P "${CMAKE_CURRENT_LIST_DIR}/cache/build_id.cmake"
  DEPENDS ${_compiler_sources} "${CMAKE_CURRENT_LIST_DIR}/cache/build_id.cmake"
  COMMENT "Hashing the compiler's sources for the compile cache key"
  VERBATIM)
target_sources(torchscope_compiler PRIVATE "${_build_id_header}")
target_include_directories(torchscope_compiler PRIVATE "${CMAKE_CURRENT_BINARY_DIR}/generated")
