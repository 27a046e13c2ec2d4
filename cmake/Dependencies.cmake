# Finds the third-party dependencies of the components that are on, and only those: the tracer
# needs a C++ compiler and the threads library; tlparse simdjson, SQLite and zlib; the GUI Qt 6;
# the compiler's code generators LLVM 14 and the CUDA Toolkit; the tests Catch2 (and simdjson for
# their reference reader). Each comes from a Debian package; a missing one stops configuration
# with a message that names the package to install and the option that turns its user off
# (scripts/install-deps.sh installs them all). docs/BUILDING.md lists the options.
#
# LLVM and CUDA are found here, at the top level, so that their imported targets are visible
# everywhere; the code that uses them links them through torchscope_link_llvm() and
# torchscope_link_cuda() below, called from compiler/CMakeLists.txt.
include_guard(GLOBAL)

# torchscope_require(<found> <debian package> <what> <option that turns its user off>)
macro(torchscope_require found_var debian_package what off_option)
  if(NOT ${found_var})
    message(FATAL_ERROR
      "${what} was not found. Install the Debian package '${debian_package}' "
      "(or run: sudo scripts/install-deps.sh), or configure with -D${off_option}=OFF to build "
      "without the part that needs it.")
  endif()
endmacro()

find_package(Threads REQUIRED)

if(TORCHSCOPE_BUILD_TLPARSE)
  find_package(simdjson CONFIG QUIET)
  torchscope_require(simdjson_FOUND libsimdjson-dev "simdjson" TORCHSCOPE_BUILD_TLPARSE)
  find_package(SQLite3 QUIET)
  torchscope_require(SQLite3_FOUND libsqlite3-dev "SQLite 3" TORCHSCOPE_BUILD_TLPARSE)
  find_package(ZLIB QUIET)
  torchscope_require(ZLIB_FOUND zlib1g-dev "zlib" TORCHSCOPE_BUILD_TLPARSE)
  # OpenSSL's libcrypto for MD5 (the payload check), xxHash's XXH3 (used inline, from its
  # header) for the content hash that recognises payloads already checked.
  find_package(OpenSSL QUIET COMPONENTS Crypto)
  torchscope_require(OpenSSL_FOUND libssl-dev "OpenSSL (libcrypto)" TORCHSCOPE_BUILD_TLPARSE)
  find_path(XXHASH_INCLUDE_DIR xxhash.h)
  torchscope_require(XXHASH_INCLUDE_DIR libxxhash-dev "xxHash" TORCHSCOPE_BUILD_TLPARSE)
  if(NOT TARGET xxHash::xxhash)
    add_library(xxHash::xxhash INTERFACE IMPORTED)
    target_include_directories(xxHash::xxhash INTERFACE "${XXHASH_INCLUDE_DIR}")
  endif()
  # Graphviz (cgraph + gvc) lays out the graph views (docs/TLPARSE-GRAPHS.md). Optional: without
  # it, every graph gets tlparse's own layered layout.
  option(TORCHSCOPE_WITH_GRAPHVIZ "Lay out graph views with Graphviz when it is installed" ON)
  set(TORCHSCOPE_HAVE_GRAPHVIZ OFF)
  if(TORCHSCOPE_WITH_GRAPHVIZ)
    find_package(PkgConfig QUIET)
    if(PkgConfig_FOUND)
      pkg_check_modules(GRAPHVIZ QUIET IMPORTED_TARGET libgvc libcgraph)
    endif()
    if(GRAPHVIZ_FOUND)
      set(TORCHSCOPE_HAVE_GRAPHVIZ ON)
    else()
      message(STATUS "Graphviz (libgraphviz-dev: libgvc, libcgraph) not found: graph views use "
                     "the built-in layered layout; apt-get install libgraphviz-dev for dot's")
    endif()
  endif()
endif()

if(TORCHSCOPE_BUILD_TESTS OR TORCHSCOPE_BUILD_BENCHMARKS)
  find_package(Catch2 2 CONFIG QUIET)
  torchscope_require(Catch2_FOUND catch2 "Catch2" TORCHSCOPE_BUILD_TESTS)
  include(Catch)
  # The tests' reference reader of tlparse's line rules parses JSON with simdjson.
  if(NOT simdjson_FOUND)
    find_package(simdjson CONFIG QUIET)
    torchscope_require(simdjson_FOUND libsimdjson-dev "simdjson (for the tests)"
                       TORCHSCOPE_BUILD_TESTS)
  endif()
endif()

if(TORCHSCOPE_BUILD_GUI)
  find_package(Qt6 6.4 QUIET COMPONENTS Core Gui Widgets Sql Test Concurrent)
  torchscope_require(Qt6_FOUND "qt6-base-dev" "Qt 6 (Core, Gui, Widgets, Sql, Test)"
                     TORCHSCOPE_BUILD_GUI)
endif()

# LLVM 14: the version Debian 12 ships as its default, so it matches the image's clang-14,
# clang-format-14, clang-tidy-14 and libFuzzer runtime (one toolchain for codegen and fuzzing).
# ORC's LLJIT API we use is stable from 12 onwards.
set(TORCHSCOPE_HAS_LLVM OFF)
if(TORCHSCOPE_BUILD_COMPILER AND TORCHSCOPE_WITH_LLVM)
  find_package(LLVM 14 CONFIG QUIET HINTS /usr/lib/llvm-14/lib/cmake/llvm)
  torchscope_require(LLVM_FOUND llvm-14-dev "LLVM 14" TORCHSCOPE_WITH_LLVM)
  set(TORCHSCOPE_HAS_LLVM ON)
endif()

set(TORCHSCOPE_HAS_CUDA OFF)
if(TORCHSCOPE_BUILD_COMPILER AND TORCHSCOPE_WITH_CUDA)
  if(NOT CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
    set(CUDAToolkit_ROOT /usr/local/cuda)
  endif()
  find_package(CUDAToolkit QUIET)
  if(NOT CUDAToolkit_FOUND)
    message(FATAL_ERROR
      "The CUDA Toolkit was not found at /usr/local/cuda (or through nvcc on PATH). Install it "
      "there, or configure with "
      "-DTORCHSCOPE_WITH_CUDA=OFF to build the compiler without its GPU backend.")
  endif()
  set(TORCHSCOPE_HAS_CUDA ON)
endif()

# Gloo (Debian's libgloo-dev): the compiler's process group (compiler/distributed/). Optional:
# without it the compiler builds without compiler/distributed, its samples and its tests.
set(TORCHSCOPE_HAS_GLOO OFF)
if(TORCHSCOPE_BUILD_COMPILER AND TORCHSCOPE_WITH_GLOO)
  find_package(Gloo CONFIG QUIET)
  if(Gloo_FOUND AND TARGET gloo)
    set(TORCHSCOPE_HAS_GLOO ON)
  else()
    message(WARNING
      "Gloo was not found: building the compiler without its distributed part "
      "(compiler/distributed: the process group, DDP, compiler collectives; the ddp samples and "
      "their tests). Install the Debian package 'libgloo-dev' (or run: sudo "
      "scripts/install-deps.sh) to build it, or configure with -DTORCHSCOPE_WITH_GLOO=OFF to "
      "silence this message.")
  endif()
endif()

# torchscope_link_llvm(<target> COMPONENTS <llvm component>...)
# Links the named LLVM components (as llvm-config names them: core, orcjit, native, ...) into
# <target> privately, with LLVM's headers as system headers and its definitions. Use it only
# under `if(TORCHSCOPE_HAS_LLVM)`; LLVM stays out of every public header (docs/BUILDING.md).
function(torchscope_link_llvm target)
  cmake_parse_arguments(L "" "" "COMPONENTS" ${ARGN})
  if(NOT TORCHSCOPE_HAS_LLVM)
    message(FATAL_ERROR "torchscope_link_llvm(${target}) called while LLVM is off "
                        "(guard the call with if(TORCHSCOPE_HAS_LLVM))")
  endif()
  llvm_map_components_to_libnames(_llvm_libs ${L_COMPONENTS})
  separate_arguments(_llvm_definitions NATIVE_COMMAND "${LLVM_DEFINITIONS}")
  target_include_directories(${target} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
  target_compile_definitions(${target} PRIVATE ${_llvm_definitions} TORCHSCOPE_HAS_LLVM=1)
  target_link_libraries(${target} PRIVATE ${_llvm_libs})
endfunction()

# torchscope_link_cuda(<target> LIBS <library>...)
# Marks <target> as built with CUDA (TORCHSCOPE_HAS_CUDA=1) and links the named libraries into it
# privately. Use it only under `if(TORCHSCOPE_HAS_CUDA)`. The compiler's runtime links no CUDA
# library itself: it opens libcuda and NVRTC at run time (compiler/src/cuda/sources.cmake).
function(torchscope_link_cuda target)
  cmake_parse_arguments(C "" "" "LIBS" ${ARGN})
  if(NOT TORCHSCOPE_HAS_CUDA)
    message(FATAL_ERROR "torchscope_link_cuda(${target}) called while CUDA is off "
                        "(guard the call with if(TORCHSCOPE_HAS_CUDA))")
  endif()
  target_compile_definitions(${target} PRIVATE TORCHSCOPE_HAS_CUDA=1)
  target_link_libraries(${target} PRIVATE ${C_LIBS})
endfunction()
