// SymInt expressions, ShapeEnv guard recording, and GuardSet evaluation and explanations.
#include "compiler/capture/guards.h"
#include "compiler/capture/shape_env.h"
#include "compiler/core/sym_int.h"

#include <array>
#include <catch2/catch.hpp>

using namespace compiler;
using namespace compiler::capture;

TEST_CASE("symbolic arithmetic builds sympy-like expressions and folds constants",
          "[compiler][capture]") {
  SymInt s0(16, SymNode::symbol(0));
  SymInt s1(10, SymNode::symbol(1));
  CHECK((s0 * 128).to_string() == "128*s0");
  CHECK((2 * s0 + 1).to_string() == "2*s0 + 1");
  CHECK((s0 - 1).to_string() == "s0 - 1");
  CHECK((s1 / 2).to_string() == "(s1//2)");
  CHECK((s1 % 4).to_string() == "Mod(s1, 4)");
  CHECK((s0 * 1 + 0).to_string() == "s0");
  CHECK((s0 * 0).is_symbolic() == false);
  CHECK((SymInt(3) * SymInt(4)).to_string() == "12");
  CHECK((2 * s0 + 1).hint() == 33);
  CHECK((SymInt(-7) / SymInt(2)).hint() == -4); // floor division, as Python
  CHECK((SymInt(-7) % SymInt(2)).hint() == 1);
  std::array<std::int64_t, 2> values{5, 9};
  CHECK((s0 * s1 + 3).node()->evaluate(values) == 48);
}

TEST_CASE("comparisons on symbols record guards unless the ranges decide them",
          "[compiler][capture]") {
  ShapeEnv env;
  SymGuardRecorderScope scope(&env);
  SymInt s0 = env.create_symbol(32, SymbolSource{0, 0, "x"});
  CHECK(s0 > 16);
  CHECK_FALSE(s0 == 1); // s0 >= 2 already: no guard
  CHECK(s0 != 0);
  CHECK(s0 >= 2);
  REQUIRE(env.guards().size() == 1);
  CHECK(env.guards()[0].to_string() == "s0 > 16");
  CHECK(env.symbols()[0].lower == 17); // narrowed by the decision
  CHECK(s0 > 10);                      // implied by s0 > 16: nothing new
  CHECK(env.guards().size() == 1);
  CHECK_FALSE(s0 < 20); // recorded as its negation
  REQUIRE(env.guards().size() == 2);
  CHECK(env.guards()[1].to_string() == "s0 >= 20");
  CHECK(s0.guard_int() == 32);
  REQUIRE(env.guards().size() == 3);
  CHECK(env.guards()[2].to_string() == "Eq(s0, 32)");
  CHECK(env.guards()[2].specialization);
}

TEST_CASE("comparisons outside tracing are plain integer comparisons", "[compiler][capture]") {
  SymInt s0(8, SymNode::symbol(0));
  CHECK(active_sym_guard_recorder() == nullptr);
  CHECK(s0 > 4); // no recorder: answers from the hint, records nothing, never crashes
  CHECK(SymInt(3) < SymInt(4));
}

TEST_CASE("guard sets pass, fail with PyTorch's reasons, and print as a tree",
          "[compiler][capture]") {
  Tensor x = Tensor::empty({8, 4});
  Tensor y = Tensor::empty({4});
  GuardSet g;
  g.add_tensor_input(0, "x", *x.impl(), {true, false}, {});
  g.add_tensor_input(1, "y", *y.impl(), {}, {});
  g.add_float_input(2, "scale", 2.0, {});
  ShapeEnv env;
  {
    SymGuardRecorderScope scope(&env);
    SymInt s0 = env.create_symbol(8, SymbolSource{0, 0, "x"});
    CHECK(s0 * 4 > 16);
  }
  g.add_shape_env(env);

  auto views = [](const Tensor& a, const Tensor& b, double s) {
    return std::array<GuardInput, 3>{GuardInput::of(a), GuardInput::of(b), GuardInput::of_float(s)};
  };
  CHECK(g.check(views(x, y, 2.0)));
  CHECK(g.check(views(Tensor::empty({100, 4}), y, 2.0))); // dim 0 is dynamic
  CHECK(g.failure_reason(views(x, y, 2.0)) == std::nullopt);

  CHECK_FALSE(g.check(views(x, y, 3.0)));
  CHECK(g.failure_reason(views(x, y, 3.0)).value() == "scale == 2.0");
  Tensor y5 = Tensor::empty({5});
  CHECK(g.failure_reason(views(x, y5, 2.0)).value() ==
        "tensor 'y' size mismatch at index 0. expected 4, actual 5");
  Tensor xh = Tensor::empty({8, 4}, DType::Float16);
  CHECK(g.failure_reason(views(xh, y, 2.0)).value() ==
        "tensor 'x' dtype mismatch. expected Float, actual Half");
  Tensor x3 = Tensor::empty({8, 4, 1});
  CHECK(g.failure_reason(views(x3, y, 2.0)).value() ==
        "tensor 'x' rank mismatch. expected 2, actual 3");
  Tensor x1 = Tensor::empty({1, 4});
  CHECK(g.failure_reason(views(x1, y, 2.0)).value() == "2 <= x.size()[0]");
  Tensor x2 = Tensor::empty({2, 4}); // 4*s0 > 16 fails for s0 = 2 (range is still [2, oo])
  CHECK(g.failure_reason(views(x2, y, 2.0)).value() == "4*x.size()[0] > 16");
  Tensor xt = Tensor::empty({4, 8}).transpose(0, 1);
  CHECK(g.failure_reason(views(xt, y, 2.0)).value() ==
        "tensor 'x' stride mismatch at index 0. expected 4, actual 1");
  Tensor yg = Tensor::empty({4});
  yg.set_requires_grad(true);
  CHECK(g.failure_reason(views(x, yg, 2.0)).value() ==
        "tensor 'y' requires_grad mismatch. expected requires_grad=0");
  std::array<GuardInput, 3> wrong_kind{GuardInput::of_int(3), GuardInput::of(y),
                                       GuardInput::of_float(2.0)};
  CHECK_FALSE(g.check(wrong_kind));
  CHECK(g.failure_reason(wrong_kind).value() == "type of 'x' changed. expected Tensor, actual int");

  std::string tree = g.to_tree_string();
  CHECK(tree.find("TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, "
                  "ADInplaceOrView, AutogradCPU), torch.float32, device=None, "
                  "requires_grad=False, size=[None, 4], stride=[4, 1])") != std::string::npos);
  CHECK(tree.find("EQUALS_MATCH: L['scale'] == 2.0") != std::string::npos);
  CHECK(tree.find("+- LAMBDA_GUARD: 4*L['x'].size()[0] > 16") != std::string::npos);
}
