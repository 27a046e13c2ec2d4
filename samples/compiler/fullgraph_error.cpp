// A failing fullgraph compile, as PyTorch's w19 workload: the function reads a tensor value on
// the host, which a single graph cannot do; compile() raises compiler::UserError naming the
// line, and the program reports it.
//   TORCH_TRACE=/tmp/trace ./sample_fullgraph_error
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"
#include "sample_util.h"

#include <cstdio>

using namespace compiler;

int main() {
  auto f = compile(
      [](const Tensor& x) {
        Tensor y = sin(x);
        std::printf("side effect: %f\n", y.item_double()); // a graph break
        return y;
      },
      {.fullgraph = true, .name = "f", .arg_names = {"x"}});
  try {
    f(samples::wave({1}));
    std::printf("unexpected: the compile succeeded\n");
    return 1;
  } catch (const UserError& e) {
    std::printf("expected failure: UserError at line %u: %s\n",
                static_cast<unsigned>(e.where().line()), e.message().c_str());
  }
  std::printf("ok\n");
  return 0;
}
