// kernels: the counter-based generator behind randn and rand, written once for the eager kernels;
// the code generators emit the same arithmetic (the LLVM emitter's and the CUDA printer's
// rand_uniform), so generated code draws exactly the numbers eager code draws.
//
//   mix(x)          SplitMix64's finaliser: x += 0x9e3779b97f4a7c15, then x ^= x >> 30,
//                   x *= 0xbf58476d1ce4e5b9, x ^= x >> 27, x *= 0x94d049bb133111eb, x ^= x >> 31
//   bits(seed, j)   mix(mix(seed) ^ (j * 0xD1B54A32D192ED03))    (j: the draw's counter)
//   uniform(seed,j) (bits(seed, j) >> 40) * 2^-24                 (24 bits: exact in f32, < 1)
//
// Every draw is a function of (seed, counter) alone, as Philox's are in PyTorch and Inductor:
// no state is carried from one element to the next, so threads and lanes draw independently.
#pragma once

#include "compiler/tensor/dtype.h"

#include <cstdint>

namespace compiler::kernels {

inline constexpr std::uint64_t kMixIncrement = 0x9e3779b97f4a7c15ULL;
inline constexpr std::uint64_t kMixMultiplier1 = 0xbf58476d1ce4e5b9ULL;
inline constexpr std::uint64_t kMixMultiplier2 = 0x94d049bb133111ebULL;
inline constexpr std::uint64_t kCounterStride = 0xD1B54A32D192ED03ULL;
// uniform() keeps the top kUniformBits of a draw.
inline constexpr int kUniformBits = 24;

constexpr std::uint64_t mix(std::uint64_t x) {
  x += kMixIncrement;
  x = (x ^ (x >> 30)) * kMixMultiplier1;
  x = (x ^ (x >> 27)) * kMixMultiplier2;
  return x ^ (x >> 31);
}

constexpr std::uint64_t random_bits(std::uint64_t seed, std::uint64_t counter) {
  return mix(mix(seed) ^ (counter * kCounterStride));
}

// A float in [0, 1) with 24 random bits.
constexpr float uniform(std::uint64_t seed, std::uint64_t counter) {
  return static_cast<float>(random_bits(seed, counter) >> (64 - kUniformBits)) * 0x1.0p-24f;
}

// The bits rand keeps of a 24-bit draw in `dtype` (floor(u * 2^bits) / 2^bits), so that every
// value is exact in the dtype and below 1: 11 for f16, 8 for bf16, all 24 otherwise.
constexpr int uniform_bits_kept(DType dtype) {
  return dtype == DType::Float16 ? 11 : dtype == DType::BFloat16 ? 8 : kUniformBits;
}

} // namespace compiler::kernels
