# compiler/src/passes/sources.cmake: the graph passes of torchscope_compiler (docs/COMPILER.md,
# "Graph passes"): the one pass pipeline and its pass lists, the registry of user passes, run by Inductor (pre-grad and
# post-grad) and by the AOT stage (joint graph), and one file per pass. Included by
# compiler/CMakeLists.txt after the target is defined.
target_sources(torchscope_compiler PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/pass_pipeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/custom_passes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/remove_noop_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/remove_noop_views.cpp
  ${CMAKE_CURRENT_LIST_DIR}/constant_folding.cpp
  ${CMAKE_CURRENT_LIST_DIR}/common_subexpression_elimination.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pattern_matcher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pattern_rewrites.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dead_code_elimination.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reinplace.cpp)
