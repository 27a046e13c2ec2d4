# compiler/src/capture/sources.cmake: the capture half of torchscope_compiler (SymInt and
# ShapeEnv, the graph IR and its printer, guards, the interpreter, and the compile() engine).
# Included by compiler/CMakeLists.txt after the target is defined.
target_sources(torchscope_compiler PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sym_int.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shape_env.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_util.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph_printer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guards.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interpreter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/frame_tracer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/engine.cpp
)
