// compiler/capture: the seam of compiler collectives (PyTorch's enable_compiler_collectives).
//
// Several ranks that compile the same function should compile the same graphs: a rank whose
// inputs alone changed size would otherwise recompile alone (and, with collectives in the graph,
// hang the others). When an exchange is installed, every compile of every frame first shares
// the sizes of its tensor arguments with the other ranks; a dimension whose size differs between
// ranks is made dynamic on all of them (automatic dynamic shapes, decided together). Capture
// only calls the exchange; compiler/distributed installs one over its process group
// (distributed/compiler_collectives.h). Off by default, as in PyTorch. Every rank must then
// compile in step: an exchange waits for the others (the process group's timeout bounds it).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace compiler::capture {

// The sizes of one tensor argument of the frame being compiled.
struct InputSizes {
  std::string name;
  std::vector<std::int64_t> sizes;

  friend bool operator==(const InputSizes&, const InputSizes&) = default;
};

// What the ranks exchanged for one compile.
struct SizeExchangeResult {
  // Every rank's inputs, in rank order (this rank's among them).
  std::vector<std::vector<InputSizes>> ranks;
  int rank = 0;
};

// Shares this rank's inputs with the other ranks and returns everyone's. Throws (a UserError)
// when the others do not answer.
using SizeExchange = std::function<SizeExchangeResult(const std::vector<InputSizes>& local)>;

// Installs the exchange every later compile (of every compiled function) runs; an empty
// function turns compiler collectives off. Not while another thread compiles.
void set_size_exchange(SizeExchange exchange);
bool size_exchange_enabled() noexcept;

} // namespace compiler::capture
