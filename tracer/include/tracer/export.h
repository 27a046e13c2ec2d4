/* tracer/export.h: marks what the tracer's shared library exports.
 *
 * The library is compiled with hidden visibility, so only declarations marked
 * TORCHSCOPE_TRACER_API are part of its binary interface (docs/TRACER.md, "Versions and ABI").
 * The header is C and C++; it is included by tracer/tracer.h and tracer/trace.h. */
#ifndef TORCHSCOPE_TRACER_EXPORT_H
#define TORCHSCOPE_TRACER_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define TORCHSCOPE_TRACER_API __attribute__((visibility("default")))
#else
#define TORCHSCOPE_TRACER_API
#endif

#endif /* TORCHSCOPE_TRACER_EXPORT_H */
