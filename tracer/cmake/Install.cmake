# Installs the tracer as a package (component `tracer`):
#   include/tracer/*.h                              the C++ and C APIs
#   lib/libtorchscope_tracer.a, .so.X.Y.Z           the static and the shared library
#   lib/cmake/torchscope_tracer/                    find_package(torchscope_tracer CONFIG):
#                                                   torchscope::tracer (shared),
#                                                   torchscope::tracer_static
#   lib/pkgconfig/torchscope-tracer.pc              pkg-config (relocatable)
# `cmake --install <build> --component tracer --prefix <dir>` installs only this.
include(CMakePackageConfigHelpers)
set(_package_dir "${CMAKE_INSTALL_LIBDIR}/cmake/torchscope_tracer")

install(TARGETS torchscope_tracer torchscope_tracer_shared
  EXPORT torchscope_tracer_targets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT tracer
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT tracer NAMELINK_COMPONENT tracer
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT tracer)
install(FILES
    include/tracer/trace.h
    include/tracer/json_writer.h
    include/tracer/tracer.h
    include/tracer/export.h
    "${_tracer_generated}/tracer/version.h"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/tracer" COMPONENT tracer)
install(EXPORT torchscope_tracer_targets
  NAMESPACE torchscope::
  FILE torchscope_tracerTargets.cmake
  DESTINATION "${_package_dir}" COMPONENT tracer)

configure_package_config_file(cmake/torchscope_tracerConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/torchscope_tracerConfig.cmake"
  INSTALL_DESTINATION "${_package_dir}")
# While the version is 0.y a new minor version may break the C++ ABI and API; from 1.0 on, a
# new major version (docs/TRACER.md, "Versions and ABI").
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_compatibility SameMinorVersion)
else()
  set(_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(
  "${CMAKE_CURRENT_BINARY_DIR}/torchscope_tracerConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY ${_compatibility})
install(FILES
    "${CMAKE_CURRENT_BINARY_DIR}/torchscope_tracerConfig.cmake"
    "${CMAKE_CURRENT_BINARY_DIR}/torchscope_tracerConfigVersion.cmake"
  DESTINATION "${_package_dir}" COMPONENT tracer)

# pkg-config: the prefix is found from the .pc file's own place, so the package can be moved.
set(_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH _pc_to_prefix "/prefix/${_pc_dir}" "/prefix")
string(REGEX REPLACE "/$" "" _pc_to_prefix "${_pc_to_prefix}")
foreach(_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
    set(_pc_${_dir} "${CMAKE_INSTALL_${_dir}}")
  else()
    set(_pc_${_dir} "\${prefix}/${CMAKE_INSTALL_${_dir}}")
  endif()
endforeach()
configure_file(cmake/torchscope-tracer.pc.in
  "${CMAKE_CURRENT_BINARY_DIR}/torchscope-tracer.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/torchscope-tracer.pc"
  DESTINATION "${_pc_dir}" COMPONENT tracer)
