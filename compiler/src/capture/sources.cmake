# compiler/src/capture/sources.cmake: the capture half of torchscope_compiler (SymInt and
# ShapeEnv, guards, the frame tracer and the compile() engine).
# Included by compiler/CMakeLists.txt after the target is defined.
target_sources(torchscope_compiler PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sym_int.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shape_env.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guards.cpp
  ${CMAKE_CURRENT_LIST_DIR}/frame_tracer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compiler_collectives.cpp
)
