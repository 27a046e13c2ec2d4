# compiler/distributed's tests (label `distributed`), built where Gloo is: the process group,
# DDP and the compiler collectives with ranks as threads (distributed_process_group_test.cpp),
# and whole programs through scripts/torchscope-run (distributed_launch_test.cpp; a few seconds,
# 2 and 4 ranks; their logs checked against schemas/trace with the schemas tests' scanner). Included by tests/compiler/CMakeLists.txt.
if(NOT TARGET torchscope_compiler_distributed)
  return()
endif()
torchscope_add_test(NAME compiler_distributed_tests LABELS compiler distributed
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/distributed_process_group_test.cpp
  LIBS torchscope_compiler_distributed)

torchscope_add_test(NAME compiler_distributed_launch_tests LABELS compiler distributed samples
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/distributed_launch_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/schemas/json_schema.cpp
          ${PROJECT_SOURCE_DIR}/tests/schemas/trace_scan.cpp
  LIBS simdjson::simdjson torchscope_schemas)
target_compile_definitions(compiler_distributed_launch_tests PRIVATE
  TORCHSCOPE_RUN="${PROJECT_SOURCE_DIR}/scripts/torchscope-run"
  SAMPLE_DDP_TRAIN="$<TARGET_FILE:sample_ddp_train>"
  SAMPLE_COMPILER_COLLECTIVES="$<TARGET_FILE:sample_compiler_collectives>")
add_dependencies(compiler_distributed_launch_tests sample_ddp_train sample_compiler_collectives)
if(TARGET tlparse)
  target_compile_definitions(compiler_distributed_launch_tests PRIVATE
    TLPARSE_BINARY="$<TARGET_FILE:tlparse>")
  add_dependencies(compiler_distributed_launch_tests tlparse)
endif()
