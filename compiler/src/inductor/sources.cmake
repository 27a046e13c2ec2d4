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
  ${CMAKE_CURRENT_LIST_DIR}/metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compile_fx.cpp
)
