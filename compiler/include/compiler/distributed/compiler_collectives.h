// compiler/distributed: compiler collectives over a process group (PyTorch 2.4's
// torch._dynamo.config.enable_compiler_collectives).
//
//   distributed::enable_compiler_collectives(pg);  // every rank, before its first compile
//
// From then on every compile first all-gathers the sizes of the frame's tensor arguments over
// `pg`, and a dim whose size differs between ranks becomes dynamic on every rank, so the ranks
// compile the same graphs (capture/compiler_collectives.h says how capture uses it). Every rank
// must then compile in step, as in PyTorch: a rank that compiles while the others do not calls a
// collective they do not (docs/COMPILER.md, "Compiler collectives", says what follows). Off by
// default.
#pragma once

#include "compiler/distributed/process_group.h"

#include <memory>

namespace compiler::distributed {

void enable_compiler_collectives(std::shared_ptr<ProcessGroup> group);
void disable_compiler_collectives();

} // namespace compiler::distributed
