// The op list, dispatch through an installed hook, run_meta for every op (symbolic sizes flow
// through), and user errors that carry the caller's location.
#include "compiler/core/errors.h"
#include "compiler/ops/op_hook.h"
#include "custom_op_fixture.h"
#include "tensor_test_util.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <set>

using namespace compiler;
using tensor_test::t;

TEST_CASE("every op has a unique name, ATen name and category", "[compiler][tensor]") {
  std::set<std::string_view> names;
  std::set<std::string_view> aten;
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpKind>(i);
    names.insert(op_name(op));
    aten.insert(op_aten_name(op));
    CHECK(op_from_name(op_name(op)) == op);
    CHECK(op_from_name(op_aten_name(op)) == op);
    // Every built-in op is an ATen op; a user op prints under its own name (custom_ops.h).
    CHECK((op_aten_name(op).substr(0, 5) == "aten.") == (op_category(op) != OpCategory::Extern));
  }
  CHECK(names.size() == static_cast<std::size_t>(kNumOps));
  CHECK(aten.size() == static_cast<std::size_t>(kNumOps));
  CHECK(op_category(OpKind::add) == OpCategory::Pointwise);
  CHECK(op_category(OpKind::view) == OpCategory::View);
  CHECK(op_category(OpKind::item) == OpCategory::DataDependent);
  CHECK_FALSE(op_from_name("aten.conv2d").has_value());
}

namespace {

// Records every op and answers with run_meta, as capture's tracer does.
struct RecordingHook : OpHook {
  std::vector<OpKind> ops;
  std::vector<std::string> files;
  std::vector<std::uint_least32_t> lines;
  Value call(OpKind op, std::span<const Value> args, const std::source_location& loc) override {
    ops.push_back(op);
    files.emplace_back(loc.file_name());
    lines.push_back(loc.line());
    return run_meta(op, args);
  }
};

} // namespace

TEST_CASE("an installed hook sees every op with the caller's location", "[compiler][tensor]") {
  const Tensor x = Tensor::fake({SymInt(4), SymInt(3)}, DType::Float32);
  RecordingHook hook;
  std::uint_least32_t line = 0;
  {
    OpHookGuard guard(&hook);
    CHECK(current_op_hook() == &hook);
    line = __LINE__ + 1;
    const Tensor y = relu(add(x, 1.0));
    const Tensor z = y.transpose(0, 1);
    CHECK(z.is_fake());
    CHECK(z.sizes() == std::vector<std::int64_t>{3, 4});
  }
  CHECK(current_op_hook() == nullptr);
  REQUIRE(hook.ops.size() == 3);
  CHECK(hook.ops[0] == OpKind::add);
  CHECK(hook.ops[1] == OpKind::relu);
  CHECK(hook.ops[2] == OpKind::transpose);
  CHECK(hook.lines[0] == line);
  CHECK(hook.files[0].find("tensor_dispatch_test.cpp") != std::string::npos);
  CHECK(hook.lines[2] == line + 1); // the Tensor method forwards the caller's location
}

TEST_CASE("user errors carry the caller's file and line", "[compiler][tensor]") {
  const Tensor a = Tensor::empty({2, 3});
  const Tensor b = Tensor::empty({4, 5});
  std::uint_least32_t line = 0;
  try {
    line = __LINE__ + 1;
    (void)add(a, b);
    FAIL("expected a UserError");
  } catch (const UserError& e) {
    CHECK(e.where().line() == line);
    CHECK(std::string(e.where().file_name()).find("tensor_dispatch_test.cpp") != std::string::npos);
    CHECK(std::string(e.what()).find("tensor_dispatch_test.cpp:" + std::to_string(line)) !=
          std::string::npos);
    CHECK(e.message().find("broadcast") != std::string::npos);
  }
  try {
    line = __LINE__ + 1;
    (void)a.transpose(0, 5);
    FAIL("expected a UserError");
  } catch (const UserError& e) {
    CHECK(e.where().line() == line);
    CHECK(e.message().find("out of range") != std::string::npos);
  }
  try {
    line = __LINE__ + 1;
    (void)matmul(a, a);
    FAIL("expected a UserError");
  } catch (const UserError& e) {
    CHECK(e.where().line() == line);
  }
}

namespace {

// One argument list per op (real tensors), used to compare run_meta with run_eager.
std::vector<Value> sample_args(OpKind op) {
  const Tensor m = randn({4, 3}, 1);
  const Tensor m2 = randn({4, 3}, 2);
  const Tensor row = randn({3}, 3);
  switch (op_category(op)) {
  case OpCategory::Pointwise:
    if (op == OpKind::where) {
      return {gt(m, 0.0), m, row};
    }
    if (op == OpKind::gelu) {
      return {m, std::string("tanh")};
    }
    if (op == OpKind::to_dtype) {
      return {m, DType::Float16};
    }
    // pointwise, more
    switch (op) {
    case OpKind::clamp:
      return {m, row, 0.5};
    case OpKind::clamp_min:
    case OpKind::clamp_max:
    case OpKind::minimum:
    case OpKind::logical_and:
    case OpKind::logical_or:
    case OpKind::logical_xor:
      return {m, row};
    case OpKind::bitwise_and:
    case OpKind::bitwise_or:
    case OpKind::bitwise_xor:
      return {t({1, 2, 3, 4, 5, 6}, {2, 3}, DType::Int32), t({3, 5, 6}, {3}, DType::Int64)};
    case OpKind::bitwise_not:
      return {t({1, -2, 3}, {3}, DType::Int32)};
    case OpKind::nan_to_num:
      return {m, 0.0, std::monostate{}, -1.0};
    case OpKind::masked_fill:
      return {m, gt(row, 0.0), 1.5};
    case OpKind::leaky_relu:
    case OpKind::elu:
      return {m, 0.2};
    case OpKind::softplus:
      return {m, 2.0, 1.0};
    default:
      break;
    }
    if (op == OpKind::add || op == OpKind::sub || op == OpKind::mul || op == OpKind::div ||
        op == OpKind::pow || op == OpKind::maximum || op == OpKind::eq || op == OpKind::ne ||
        op == OpKind::lt || op == OpKind::le || op == OpKind::gt || op == OpKind::ge) {
      return {m, row};
    }
    return {m};
  case OpCategory::Reduction:
    if (op == OpKind::argmax) {
      return {m, SymInt(1), true};
    }
    if (op == OpKind::var) {
      return {m, std::vector<std::int64_t>{0}, 1.0, true};
    }
    return {m, std::vector<std::int64_t>{0}, false};
  case OpCategory::Linalg:
    if (op == OpKind::bmm) {
      return {randn({2, 4, 3}, 4), randn({2, 3, 5}, 5)};
    }
    if (op == OpKind::addmm) {
      return {randn({5}, 7), m, randn({3, 5}, 6)};
    }
    return {m, randn({3, 5}, 6)};
  case OpCategory::Nn:
    if (op == OpKind::layer_norm) {
      return {m, std::vector<std::int64_t>{3}, row, std::monostate{}, 1e-5};
    }
    if (op == OpKind::embedding) {
      return {m, t({0, 3, 1}, {3}, DType::Int64)};
    }
    if (op == OpKind::cross_entropy) {
      return {m, t({0, 2, 1, 1}, {4}, DType::Int64)};
    }
    if (op == OpKind::mse_loss) {
      return {m, row, std::string("none")};
    }
    if (op == OpKind::binary_cross_entropy_with_logits) {
      return {m, m2, std::string("mean")};
    }
    if (op == OpKind::dropout) {
      return {m, 0.5, SymInt(3), SymInt(40)};
    }
    if (op != OpKind::softmax && op != OpKind::log_softmax) {
      // convolution, pooling, group_norm: an image batch [2, 4, 5, 6]
      using Ints = std::vector<std::int64_t>;
      const Tensor image = randn({2, 4, 5, 6}, 8);
      const Tensor weight = randn({6, 2, 3, 3}, 9);
      switch (op) {
      case OpKind::convolution:
        return {image,      weight, randn({6}, 10), Ints{2, 1}, Ints{1, 0},
                Ints{1, 2}, false,  Ints{0, 0},     SymInt(2)};
      case OpKind::convolution_backward:
        return {randn({2, 6, 3, 2}, 11),
                image,
                weight,
                Ints{6},
                Ints{2, 1},
                Ints{1, 0},
                Ints{1, 2},
                false,
                Ints{0, 0},
                SymInt(2),
                Ints{0, 1, 0}};
      case OpKind::max_pool2d:
        return {image, Ints{3}, Ints{2}, Ints{1}, Ints{1}, true};
      case OpKind::max_pool2d_backward:
        return {randn({2, 4, 3, 4}, 12), image, Ints{3}, Ints{2}, Ints{1}, Ints{1}, true};
      case OpKind::avg_pool2d:
        return {image, Ints{2, 3}, Ints{}, Ints{1}, false, false};
      case OpKind::avg_pool2d_backward:
        return {randn({2, 4, 3, 2}, 13), image, Ints{2, 3}, Ints{}, Ints{1}, false, false};
      case OpKind::adaptive_avg_pool2d:
        return {image, Ints{3, 4}};
      case OpKind::group_norm:
        return {image, SymInt(2), randn({4}, 14), std::monostate{}, 1e-5};
      default:
        break;
      }
    }
    return {m, SymInt(-1)};
  case OpCategory::View:
    switch (op) {
    case OpKind::view:
    case OpKind::reshape:
      return {m, std::vector<SymInt>{SymInt(2), SymInt(-1)}};
    case OpKind::transpose:
      return {m, SymInt(0), SymInt(1)};
    case OpKind::permute:
      return {m, std::vector<std::int64_t>{1, 0}};
    case OpKind::slice:
      return {m, SymInt(0), SymInt(1), SymInt(3), SymInt(1)};
    case OpKind::expand:
      return {row, std::vector<SymInt>{SymInt(2), SymInt(3)}};
    case OpKind::unsqueeze:
      return {m, SymInt(1)};
    case OpKind::detach:
      return {m};
    case OpKind::narrow:
      return {m, SymInt(0), SymInt(-3), SymInt(2)};
    default:
      return {m.view({4, 1, 3}), SymInt(1)};
    }
  case OpCategory::Indexing: {
    if (op == OpKind::index_select) {
      return {m, SymInt(0), t({3, 0, 0}, {3}, DType::Int64)};
    }
    const Tensor index = t({0, 3, 1, 2, 2, 0}, {2, 3}, DType::Int64);
    if (op == OpKind::gather) {
      return {m, SymInt(0), index};
    }
    return {m, SymInt(0), index, randn({2, 3}, 7)};
  }
  case OpCategory::Shape:
    if (op == OpKind::contiguous) {
      return {m.transpose(0, 1)};
    }
    if (op == OpKind::tril || op == OpKind::triu) {
      return {m, SymInt(-1)};
    }
    if (op == OpKind::repeat) {
      return {m, std::vector<std::int64_t>{2, 1, 2}};
    }
    if (op == OpKind::roll) {
      return {m, std::vector<std::int64_t>{-1, 2}, std::vector<std::int64_t>{0, 1}};
    }
    return {std::vector<Tensor>{m, m2}, SymInt(0)};
  case OpCategory::Factory:
    if (op == OpKind::arange) {
      return {SymInt(5), DType::Int64};
    }
    if (op == OpKind::full) {
      return {std::vector<SymInt>{SymInt(2), SymInt(3)}, 1.5, DType::Float32};
    }
    if (op == OpKind::randn) {
      return {std::vector<SymInt>{SymInt(2), SymInt(3)}, SymInt(9), DType::Float32};
    }
    if (op == OpKind::rand) {
      return {std::vector<SymInt>{SymInt(2), SymInt(3)}, SymInt(9), SymInt(4), DType::BFloat16};
    }
    return {std::vector<SymInt>{SymInt(2), SymInt(3)}, DType::Int32};
  case OpCategory::DataDependent:
    return {t({1}, {1})};
  case OpCategory::Extern: {
    const std::vector<Value> args = test_ops::scale_mul_args(m, m, 0.5);
    return {args.begin(), args.end()};
  }
  case OpCategory::Transfer:
    return {m, Device::cpu()}; // the host is the one device every machine has
  }
  return {};
}

} // namespace

TEST_CASE("run_meta predicts run_eager's shape and dtype for every op", "[compiler][tensor]") {
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpKind>(i);
    INFO("op " << op_name(op));
    const std::vector<Value> args = sample_args(op);
    const Value eager = run_eager(op, args);
    const Value meta = run_meta(op, args);
    if (op_category(op) == OpCategory::DataDependent) {
      CHECK(std::holds_alternative<std::monostate>(meta));
      CHECK_FALSE(std::holds_alternative<std::monostate>(eager));
      continue;
    }
    const Tensor& e = value_tensor(eager);
    const Tensor& m = value_tensor(meta);
    CHECK_FALSE(e.is_fake());
    CHECK(e.sizes() == m.sizes());
    CHECK(e.dtype() == m.dtype());
    if (op_category(op) != OpCategory::View && op_category(op) != OpCategory::Transfer) {
      CHECK(m.is_fake()); // views and to() on the same device alias their input
    }
    // Fake inputs give fake outputs of the same metadata.
    std::vector<Value> fake_args = args;
    for (Value& v : fake_args) {
      if (auto* ten = std::get_if<Tensor>(&v)) {
        *ten = Tensor::fake(ten->sym_sizes(), ten->dtype(), ten->strides());
      } else if (auto* list = std::get_if<std::vector<Tensor>>(&v)) {
        for (Tensor& x : *list) {
          x = Tensor::fake(x.sym_sizes(), x.dtype(), x.strides());
        }
      }
    }
    const Value fake_meta = run_meta(op, fake_args);
    CHECK(value_tensor(fake_meta).sizes() == e.sizes());
    CHECK(value_tensor(fake_meta).is_fake());
  }
}

namespace {

// Counts the comparisons made on symbolic sizes, as capture's ShapeEnv records guards.
struct CountingRecorder : SymGuardRecorder {
  std::vector<std::string> guards;
  void on_compare(SymCmp op, const SymInt& lhs, const SymInt& rhs, bool result) override {
    guards.push_back(lhs.to_string() + " " + sym_cmp_name(op) + " " + rhs.to_string() + " -> " +
                     (result ? "true" : "false"));
  }
  void on_specialize(const SymInt& value) override {
    guards.push_back("specialize " + value.to_string());
  }
};

SymInt sym(std::int64_t id, std::int64_t hint) {
  return SymInt(hint, SymNode::symbol(id));
}

} // namespace

TEST_CASE("symbolic sizes flow through meta functions", "[compiler][tensor]") {
  CountingRecorder recorder;
  SymGuardRecorderScope scope(&recorder);
  const Tensor x = Tensor::fake({sym(0, 8), SymInt(4)}, DType::Float32);
  const Tensor w = Tensor::fake({SymInt(4), SymInt(16)}, DType::Float32);
  auto meta = [](OpKind op, std::vector<Value> args) { return value_tensor(run_meta(op, args)); };

  const Tensor y = meta(OpKind::matmul, {x, w});
  CHECK(y.type_string() == "f32[s0, 16]");
  const Tensor z = meta(OpKind::add, {y, Tensor::fake({SymInt(16)}, DType::Float32)});
  CHECK(z.type_string() == "f32[s0, 16]");
  const Tensor flat = meta(OpKind::view, {z, std::vector<SymInt>{SymInt(-1)}});
  CHECK(flat.sym_sizes()[0].is_symbolic());
  CHECK(flat.sizes()[0] == 8 * 16);
  const Tensor s = meta(OpKind::sum, {z, std::vector<std::int64_t>{1}, true});
  CHECK(s.type_string() == "f32[s0, 1]");
  const Tensor c = meta(OpKind::cat, {std::vector<Tensor>{x, x}, SymInt(0)});
  CHECK(c.sym_sizes()[0].is_symbolic());
  CHECK(c.sizes()[0] == 16);
  const Tensor r = meta(OpKind::arange, {sym(0, 8), DType::Int64});
  CHECK(r.type_string() == "i64[s0]");
  // The same symbol on both sides matches structurally.
  const Tensor sq = meta(OpKind::mul, {x, x});
  CHECK(sq.type_string() == "f32[s0, 4]");
  const Tensor xt = meta(OpKind::transpose, {x, SymInt(0), SymInt(1)});
  CHECK(meta(OpKind::matmul, {xt, x}).type_string() == "f32[4, 4]");
  // None of these decisions needed a guard: s0 is never compared with a constant here.
  CHECK(recorder.guards.empty());

  // Adding two different symbols must record that they are equal.
  const Tensor other = Tensor::fake({sym(1, 8), SymInt(4)}, DType::Float32);
  (void)meta(OpKind::add, {x, other});
  REQUIRE(recorder.guards.size() == 1);
  CHECK(recorder.guards[0] == "s0 == s1 -> true");
}

TEST_CASE("run_eager and run_meta do not re-enter an installed hook", "[compiler][tensor]") {
  RecordingHook hook;
  OpHookGuard guard(&hook);
  const Tensor logits = t({1, 2, 3, 4}, {2, 2});
  const Value args[] = {logits, t({0, 1}, {2}, DType::Int64)};
  const Value loss = run_eager(OpKind::cross_entropy, args);
  CHECK_FALSE(value_tensor(loss).is_fake());
  CHECK(hook.ops.empty());
}

TEST_CASE("values print readably and accessors check their kind", "[compiler][tensor]") {
  CHECK(value_to_string(Value(std::monostate{})) == "None");
  CHECK(value_to_string(Value(1.5)) == "1.5");
  CHECK(value_to_string(Value(true)) == "True");
  CHECK(value_to_string(Value(SymInt(3))) == "3");
  CHECK(value_to_string(Value(std::vector<std::int64_t>{1, -1})) == "[1, -1]");
  CHECK(value_to_string(Value(DType::BFloat16)) == "torch.bfloat16");
  CHECK(value_to_string(Value(std::string("tanh"))) == "'tanh'");
  CHECK(value_to_string(Value(Tensor::fake({SymInt(2)}, DType::Int32))) == "i32[2]");
  CHECK(value_kind_name(Value(std::vector<Tensor>{})) == "Tensor[]");
  CHECK_THROWS_AS(value_tensor(Value(1.0)), UserError);
  CHECK(value_double(Value(SymInt(2))) == 2.0);
}

TEST_CASE("misuse of the low-level API is a user error, never a crash", "[compiler][tensor]") {
  const Tensor undefined;
  CHECK_FALSE(undefined.defined());
  CHECK_THROWS_AS(undefined.dim(), UserError);
  CHECK_THROWS_AS(undefined.sizes(), UserError);
  CHECK_THROWS_AS(add(undefined, Tensor::empty({1})), UserError);
  CHECK_THROWS_AS(add(Tensor::empty({1}), undefined), UserError);
  CHECK_THROWS_AS(cat({Tensor::empty({1}), undefined}), UserError);
  for (int i = 0; i < kNumOps; ++i) {
    INFO("op " << op_name(static_cast<OpKind>(i)));
    CHECK_THROWS_AS(run_eager(static_cast<OpKind>(i), std::vector<Value>{}), UserError);
    CHECK_THROWS_AS(run_meta(static_cast<OpKind>(i), std::vector<Value>{}), UserError);
  }
  CHECK_THROWS_AS(run_eager(OpKind::add, std::vector<Value>{Tensor::empty({1}), std::string("x")}),
                  UserError);
  CHECK_THROWS_AS(Tensor::fake({SymInt(2)}, DType::Float32, {1, 1}), UserError);
  CHECK_THROWS_AS(Tensor::empty({std::int64_t{1} << 40, std::int64_t{1} << 40}), UserError);
  CHECK_THROWS_AS(Tensor::from_values({1.0, 2.0}, {3}), UserError);
  CHECK_THROWS_AS(Tensor::empty({2}).at({2}), UserError);
}
