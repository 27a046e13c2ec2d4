# Generates a C++ X-macro header from schemas/trace/event_kinds.json (the one catalogue of
# event kinds). Run at build time: cmake -DIN=<json> -DOUT=<header> -P GenerateEventKinds.cmake
file(READ "${IN}" json)
string(JSON count LENGTH "${json}" kinds)
math(EXPR last "${count} - 1")
set(body "")
foreach(i RANGE ${last})
  string(JSON key GET "${json}" kinds ${i} key)
  string(JSON payload GET "${json}" kinds ${i} payload)
  string(JSON context GET "${json}" kinds ${i} context)
  string(JSON known GET "${json}" kinds ${i} tlparse_0_4_3)
  string(JSON output GET "${json}" kinds ${i} output)
  string(JSON emitted GET "${json}" kinds ${i} emitted_by_compiler)
  string(JSON description GET "${json}" kinds ${i} description)
  string(REPLACE "\\" "\\\\" description "${description}")
  string(REPLACE "\"" "\\\"" description "${description}")
  if(known)
    set(known true)
  else()
    set(known false)
  endif()
  if(emitted)
    set(emitted true)
  else()
    set(emitted false)
  endif()
  string(APPEND body "  X(${key}, \"${key}\", ${payload}, ${context}, ${known}, ${output}, ${emitted}, \"${description}\") \\\n")
endforeach()
string(JSON acount LENGTH "${json}" artifacts)
math(EXPR alast "${acount} - 1")
set(abody "")
foreach(i RANGE ${alast})
  string(JSON name GET "${json}" artifacts ${i} name)
  string(JSON enc GET "${json}" artifacts ${i} encoding)
  # "torch._functorch.config" -> torch__functorch_config: a name C++ code can spell.
  string(MAKE_C_IDENTIFIER "${name}" identifier)
  string(APPEND abody "  X(${identifier}, \"${name}\", ${enc}) \\\n")
endforeach()
set(content "// Generated from schemas/trace/event_kinds.json by cmake/scripts/GenerateEventKinds.cmake.
// Do not edit: edit the catalogue.
#pragma once

// X(identifier, \"key\", payload, context, known_to_tlparse_0_4_3, report_output,
//   emitted_by_compiler, \"description\")
//   payload: none | text | json | optional;  context: compile | global | any
#define TORCHSCOPE_EVENT_KINDS(X) \\
${body}
#define TORCHSCOPE_EVENT_KIND_COUNT ${count}

// X(identifier, \"artifact name\", encoding)  encoding: string | json
#define TORCHSCOPE_KNOWN_ARTIFACTS(X) \\
${abody}
")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${content}")
