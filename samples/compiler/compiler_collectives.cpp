// Compiler collectives: one rank sees another shape. Every rank compiles the same function and
// calls it twice; on the first call rank 1 gets a batch of 6 rows while the others get 8, on
// the second every rank gets 8.
//   - `--collectives off`: each rank specialises its first compile to its own batch; rank 1 then
//     recompiles alone (its batch changed: automatic dynamic), so the ranks' compile ids differ
//     (tlparse --all-ranks-html reports the divergence).
//   - `--collectives on`: the first compile's exchange shows the batches differ, so every rank
//     makes the batch dim dynamic from the start: one compile each, the same graph everywhere.
//   TORCH_TRACE=/tmp/t scripts/torchscope-run --nproc-per-node 2 ./sample_compiler_collectives
//   --collectives on
// Each rank prints "compiler_collectives: rank R compiled N graph(s)"; tests read that line.
#include "compiler/distributed/compiler_collectives.h"

#include "compiler/capture/compile.h"
#include "compiler/distributed/process_group.h"
#include "compiler/ops/ops.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace compiler;

namespace {

int run(bool collectives) {
  std::shared_ptr<distributed::ProcessGroup> pg = distributed::ProcessGroup::from_environment();
  if (collectives) {
    distributed::enable_compiler_collectives(pg);
  }
  const Tensor weight = randn({16, 4}, 7);
  auto f = compile([](const Tensor& x, const Tensor& w) { return sum(relu(matmul(x, w)), {0}); },
                   {.name = "score", .arg_names = {"x", "w"}});
  const std::int64_t first_rows = pg->rank() == 1 ? 6 : 8;
  for (std::int64_t rows : {first_rows, std::int64_t{8}}) {
    const Tensor x = randn({rows, 16}, static_cast<std::uint64_t>(rows));
    const Tensor y = f(x, weight);
    // The ranks' results meet, as a training step's gradients would.
    pg->all_reduce(y.contiguous());
  }
  std::printf("compiler_collectives: rank %d compiled %lld graph(s) (collectives %s)\n", pg->rank(),
              static_cast<long long>(f.stats().compiles), collectives ? "on" : "off");
  distributed::disable_compiler_collectives();
  pg->barrier();
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::strcmp(argv[1], "--collectives") != 0 ||
      (std::strcmp(argv[2], "on") != 0 && std::strcmp(argv[2], "off") != 0)) {
    std::fprintf(stderr, "usage: compiler_collectives --collectives on|off\n");
    return 2;
  }
  try {
    return run(std::strcmp(argv[2], "on") == 0);
  } catch (const UserError& e) {
    std::fprintf(stderr, "compiler_collectives: error: %s\n", e.what());
    return 2;
  }
}
