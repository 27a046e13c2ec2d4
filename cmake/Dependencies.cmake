# Finds every third-party dependency. Each comes from a Debian package; a missing one stops
# configuration with a message that names the package to install (scripts/install-deps.sh
# installs them all).
include_guard(GLOBAL)

macro(torchscope_require found_var debian_package what)
  if(NOT ${found_var})
    message(FATAL_ERROR
      "${what} was not found. Install the Debian package '${debian_package}' "
      "(or run: sudo scripts/install-deps.sh).")
  endif()
endmacro()

find_package(Threads REQUIRED)

find_package(simdjson CONFIG QUIET)
torchscope_require(simdjson_FOUND libsimdjson-dev "simdjson")

find_package(SQLite3 QUIET)
torchscope_require(SQLite3_FOUND libsqlite3-dev "SQLite 3")

find_package(ZLIB QUIET)
torchscope_require(ZLIB_FOUND zlib1g-dev "zlib")

# tlparse: OpenSSL's libcrypto for MD5 (the payload check), xxHash's XXH3 (used inline, from its
# header) for the content hash that recognises payloads already checked.
find_package(OpenSSL QUIET COMPONENTS Crypto)
torchscope_require(OpenSSL_FOUND libssl-dev "OpenSSL (libcrypto)")
find_path(XXHASH_INCLUDE_DIR xxhash.h)
torchscope_require(XXHASH_INCLUDE_DIR libxxhash-dev "xxHash")
if(NOT TARGET xxHash::xxhash)
  add_library(xxHash::xxhash INTERFACE IMPORTED)
  target_include_directories(xxHash::xxhash INTERFACE "${XXHASH_INCLUDE_DIR}")
endif()

# LLVM 14: the version Debian 12 ships as its default, so it matches the image's clang-14,
# clang-format-14, clang-tidy-14 and libFuzzer runtime (one toolchain for codegen and fuzzing).
# ORC's LLJIT API we use is stable from 12 onwards.
find_package(LLVM 14 CONFIG QUIET HINTS /usr/lib/llvm-14/lib/cmake/llvm)
torchscope_require(LLVM_FOUND llvm-14-dev "LLVM 14")

if(TORCHSCOPE_BUILD_TESTS OR TORCHSCOPE_BUILD_BENCHMARKS)
  find_package(Catch2 2 CONFIG QUIET)
  torchscope_require(Catch2_FOUND catch2 "Catch2")
  include(Catch)
endif()

if(TORCHSCOPE_BUILD_GUI)
  find_package(Qt6 6.4 QUIET COMPONENTS Core Gui Widgets Sql Test Concurrent)
  torchscope_require(Qt6_FOUND "qt6-base-dev" "Qt 6 (Core, Gui, Widgets, Sql, Test)")
endif()

if(TORCHSCOPE_WITH_CUDA)
  if(NOT CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
    set(CUDAToolkit_ROOT /usr/local/cuda)
  endif()
  find_package(CUDAToolkit QUIET)
  if(NOT CUDAToolkit_FOUND)
    message(FATAL_ERROR
      "The CUDA Toolkit was not found at /usr/local/cuda. Install it there, or configure with "
      "-DTORCHSCOPE_WITH_CUDA=OFF to build without the GPU backend.")
  endif()
endif()
