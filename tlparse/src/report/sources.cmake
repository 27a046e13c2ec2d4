# Sources of the report renderers and the syntax highlighter, compiled into torchscope_tlparse
# (tlparse/CMakeLists.txt includes this file). Paths are relative to tlparse/.
set(TORCHSCOPE_TLPARSE_REPORT_SOURCES
  src/highlight/cpp_lexer.cpp
  src/highlight/highlight.cpp
  src/highlight/html.cpp
  src/highlight/json_lexer.cpp
  src/highlight/python_lexer.cpp
  src/report/answers_sections.cpp
  src/report/artifact_pages.cpp
  src/report/diff_json.cpp
  src/report/diff_page.cpp
  src/report/export_report.cpp
  src/report/flame_chart.cpp
  src/report/graph_pages.cpp
  src/report/html_page.cpp
  src/report/index_page.cpp
  src/report/json_outputs.cpp
  src/report/metrics_pages.cpp
  src/report/multi_rank.cpp
  src/report/on_demand.cpp
  src/report/output_collisions.cpp
  src/report/output_folder.cpp
  src/report/provenance_pages.cpp
  src/report/render.cpp
  src/report/serde_json.cpp
  src/report/stack_trie.cpp
)
