# One place for compiler warnings: every target of ours calls torchscope_warnings().
function(torchscope_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wnon-virtual-dtor -Wcast-align
    -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough)
  # GCC 12's -Wrestrict misfires on `"literal" + std::string` inside libstdc++ (GCC PR 105329),
  # so it is off for GCC; clang builds (fuzz preset) keep their own checks.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-restrict -Wshadow=local)
  else()
    target_compile_options(${target} PRIVATE -Wshadow)
  endif()
  if(TORCHSCOPE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
