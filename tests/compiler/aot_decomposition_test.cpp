// The decomposition table against the composite ops' kernels and derivatives: for every op
// marked Composite, over several argument sets and dtypes,
//   - values: the op decomposed all the way down to primitive ops (nested composites too)
//     equals the op's eager kernel, and only primitive ops ran;
//   - gradients: the gradient through one level of decomposition equals the gradient from the
//     op's own derivative entry (nested composites are checked by their own cases, so by
//     induction the whole decomposition is right in gradient).
#include "compiler/aot/decompositions.h"
#include "compiler/autograd/autograd.h"
#include "compiler/ops/ops.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>
#include <vector>

using namespace compiler;

namespace {

// Decomposes every composite op it sees (recursively) and runs primitive ops eagerly,
// recording which ops ran.
class DecomposeToPrims final : public OpHook {
public:
  std::set<OpKind> ran;
  Value call(OpKind op, std::span<const Value> args, const std::source_location&) override {
    if (aot::decomposition_of(op) != nullptr) {
      return aot::decompose(op, args);
    }
    ran.insert(op);
    return run_eager(op, args);
  }
};

struct Sample {
  std::string name;
  OpKind op;
  std::vector<Value> args;
};

Tensor wave(std::vector<std::int64_t> sizes, double seed, DType dtype) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = 1.5 * std::sin(0.9 * static_cast<double>(i) + seed);
  }
  return Tensor::from_values(v, std::move(sizes), dtype);
}

Tensor ints(std::vector<double> v, std::vector<std::int64_t> sizes) {
  return Tensor::from_values(v, std::move(sizes), DType::Int64);
}

std::vector<Sample> samples(DType dt) {
  const Tensor m = wave({4, 5}, 0.1, dt);
  const Tensor m3 = wave({2, 4, 5}, 0.2, dt);
  const Tensor row = wave({5}, 0.3, dt);
  const Tensor col = wave({5, 3}, 0.4, dt);
  const Tensor b3 = wave({2, 5, 3}, 0.5, dt);
  const Tensor b4 = wave({3, 1, 5, 2}, 0.6, dt);
  std::vector<Sample> s = {
      {"sigmoid", OpKind::sigmoid, {m}},
      {"relu", OpKind::relu, {m}},
      {"relu int", OpKind::relu, {ints({-2, 3, 0, 5}, {4})}},
      {"gelu", OpKind::gelu, {m, std::string("none")}},
      {"gelu tanh", OpKind::gelu, {m, std::string("tanh")}},
      {"silu", OpKind::silu, {m}},
      // pointwise, more
      {"clamp scalars", OpKind::clamp, {m, -0.5, 0.7}},
      {"clamp tensor min", OpKind::clamp, {m, row, std::monostate{}}},
      {"clamp scalar max", OpKind::clamp, {m, std::monostate{}, 0.3}},
      {"clamp tensors, min above max", OpKind::clamp, {m, mul(row, 0.0), sub(mul(row, 0.0), 0.5)}},
      {"clamp int with float bound", OpKind::clamp, {ints({-2, 3, 0, 5}, {4}), 1.5, 4.0}},
      {"clamp_min", OpKind::clamp_min, {m, row}},
      {"clamp_min scalar", OpKind::clamp_min, {m, 0.2}},
      {"clamp_max", OpKind::clamp_max, {m, row}},
      {"nan_to_num",
       OpKind::nan_to_num,
       {Tensor::from_values({NAN, INFINITY, -INFINITY, 1.5}, {4}, dt), 0.0, std::monostate{},
        std::monostate{}}},
      {"nan_to_num given",
       OpKind::nan_to_num,
       {Tensor::from_values({NAN, INFINITY, -INFINITY, 1.5}, {4}, dt), 1.0, 2.0, -3.0}},
      {"nan_to_num int", OpKind::nan_to_num, {ints({1, 2}, {2}), 0.0, 1.0, 2.0}},
      {"masked_fill", OpKind::masked_fill, {m, gt(row, 0.0), 2.5}},
      {"masked_fill int",
       OpKind::masked_fill,
       {ints({-2, 3, 0, 5}, {4}), gt(ints({1, 0, 1, 0}, {4}), 0.0), 1.7}},
      {"leaky_relu", OpKind::leaky_relu, {m, 0.1}},
      {"elu", OpKind::elu, {m, 1.3}},
      {"softplus", OpKind::softplus, {m, 2.0, 1.0}},
      {"hardswish", OpKind::hardswish, {mul(m, 3.0)}},
      {"addmm", OpKind::addmm, {wave({3}, 0.7, dt), m, col}},
      {"mean dims", OpKind::mean, {m3, std::vector<std::int64_t>{0, 2}, false}},
      {"mean all keepdim", OpKind::mean, {m, std::vector<std::int64_t>{}, true}},
      {"var dims", OpKind::var, {m3, std::vector<std::int64_t>{0, 2}, 1.0, false}},
      {"var all biased keepdim", OpKind::var, {m, std::vector<std::int64_t>{}, 0.0, true}},
      {"logsumexp", OpKind::logsumexp, {mul(m3, 20.0), std::vector<std::int64_t>{1}, false}},
      {"logsumexp int",
       OpKind::logsumexp,
       {ints({1, 2, 3, 4}, {2, 2}), std::vector<std::int64_t>{1}, true}},
      {"matmul mm", OpKind::matmul, {m, col}},
      {"matmul vec-mat", OpKind::matmul, {row, col}},
      {"matmul mat-vec", OpKind::matmul, {m, row}},
      {"matmul dot", OpKind::matmul, {row, row}},
      {"matmul folded batch", OpKind::matmul, {m3, col}},
      {"matmul folded batch-vec", OpKind::matmul, {m3, row}},
      {"matmul batched", OpKind::matmul, {m3, b3}},
      {"matmul broadcast batch", OpKind::matmul, {m3, b4}},
      {"matmul vec-batched", OpKind::matmul, {row, b3}},
      {"softmax", OpKind::softmax, {m3, SymInt(-1)}},
      {"softmax dim 0", OpKind::softmax, {m, SymInt(0)}},
      {"log_softmax", OpKind::log_softmax, {m3, SymInt(1)}},
      {"layer_norm affine",
       OpKind::layer_norm,
       {m3, std::vector<std::int64_t>{5}, row, wave({5}, 0.7, dt), 1e-5}},
      {"layer_norm two dims",
       OpKind::layer_norm,
       {m3, std::vector<std::int64_t>{4, 5}, std::monostate{}, std::monostate{}, 1e-5}},
      {"embedding", OpKind::embedding, {col, ints({4, 0, 4, 2, 1, 3}, {2, 3})}},
      {"cross_entropy", OpKind::cross_entropy, {m, ints({4, 0, 2, 2}, {4})}},
      {"cross_entropy single", OpKind::cross_entropy, {row, ints({3}, {})}},
      {"mse_loss", OpKind::mse_loss, {m, row, std::string("mean")}},
      {"mse_loss none", OpKind::mse_loss, {m, m, std::string("none")}},
      {"binary_cross_entropy_with_logits",
       OpKind::binary_cross_entropy_with_logits,
       {mul(m, 30.0), sigmoid(m), std::string("sum")}},
      {"dropout", OpKind::dropout, {m3, 0.4, SymInt(5), SymInt(1000)}},
      {"adaptive_avg_pool2d even",
       OpKind::adaptive_avg_pool2d,
       {wave({2, 3, 6, 4}, 0.4, dt), std::vector<std::int64_t>{3, 2}}},
      {"adaptive_avg_pool2d uneven",
       OpKind::adaptive_avg_pool2d,
       {wave({3, 7, 5}, 0.5, dt), std::vector<std::int64_t>{3, 4}}},
      {"group_norm affine",
       OpKind::group_norm,
       {wave({2, 6, 3, 2}, 0.6, dt), SymInt(3), wave({6}, 0.7, dt), wave({6}, 0.8, dt), 1e-5}},
      {"group_norm 2-D, no affine",
       OpKind::group_norm,
       {wave({4, 6}, 0.9, dt), SymInt(2), std::monostate{}, std::monostate{}, 1e-5}},
      // indexing, more
      {"index_select", OpKind::index_select, {m3, SymInt(-1), ints({4, 0, 4, 1}, {4})}},
      {"index_select 0-dim index", OpKind::index_select, {m3, SymInt(1), ints({2}, {})}},
      {"narrow", OpKind::narrow, {m3, SymInt(2), SymInt(-3), SymInt(2)}},
      {"tril", OpKind::tril, {m3, SymInt(0)}},
      {"triu", OpKind::triu, {b4, SymInt(1)}},
      {"repeat", OpKind::repeat, {m, std::vector<std::int64_t>{2, 1, 3}}},
      {"roll",
       OpKind::roll,
       {m3, std::vector<std::int64_t>{1, -7}, std::vector<std::int64_t>{0, 2}}},
      {"roll flattened",
       OpKind::roll,
       {m, std::vector<std::int64_t>{3}, std::vector<std::int64_t>{}}},
      {"reshape view", OpKind::reshape, {m3, std::vector<SymInt>{SymInt(8), SymInt(-1)}}},
      {"reshape copy", OpKind::reshape, {transpose(m3, 1, 2), std::vector<SymInt>{SymInt(-1)}}},
      {"transpose", OpKind::transpose, {m3, SymInt(0), SymInt(-1)}},
      {"unsqueeze", OpKind::unsqueeze, {m, SymInt(-1)}},
      {"squeeze dim", OpKind::squeeze, {wave({4, 1, 5}, 0.8, dt), SymInt(1)}},
      {"squeeze all", OpKind::squeeze, {wave({1, 4, 1}, 0.9, dt), std::monostate{}}},
      {"detach", OpKind::detach, {m}},
      {"stack", OpKind::stack, {std::vector<Tensor>{m, mul(m, 2.0)}, SymInt(1)}},
      {"zeros", OpKind::zeros, {std::vector<SymInt>{SymInt(2), SymInt(3)}, dt}},
      {"ones", OpKind::ones, {std::vector<SymInt>{SymInt(3)}, DType::Int32}},
  };
  return s;
}

double tolerance(DType dt) {
  switch (dt) {
  case DType::Float64:
    return 1e-12;
  case DType::Float32:
    return 2e-6;
  default:
    return 2e-2; // 16-bit: different rounding points
  }
}

void check_close(const Tensor& got, const Tensor& want, double tol) {
  REQUIRE(got.sizes() == want.sizes());
  REQUIRE(got.dtype() == want.dtype());
  const std::vector<double> a = got.to_vector();
  const std::vector<double> b = want.to_vector();
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("element " << i << ": decomposed " << a[i] << ", kernel " << b[i]);
    CHECK(std::abs(a[i] - b[i]) <= tol * std::max(1.0, std::abs(b[i])));
  }
}

// The float tensors of `args` (list elements included), as fresh leaves requiring grad.
std::vector<Value> with_leaves(const std::vector<Value>& args, std::vector<Tensor>& leaves) {
  std::vector<Value> out = args;
  auto lift = [&](Tensor& t) {
    if (is_floating(t.dtype())) {
      t = mul(t, 1.0); // a copy, so each call has its own leaves
      t.set_requires_grad(true);
      leaves.push_back(t);
    }
  };
  for (Value& v : out) {
    if (Tensor* t = std::get_if<Tensor>(&v)) {
      lift(*t);
    } else if (auto* list = std::get_if<std::vector<Tensor>>(&v)) {
      for (Tensor& e : *list) {
        lift(e);
      }
    }
  }
  return out;
}

} // namespace

TEST_CASE("every composite op's decomposition equals its kernel and reaches only prims",
          "[compiler][aot]") {
  std::set<OpKind> covered;
  for (DType dt : {DType::Float32, DType::Float64, DType::BFloat16}) {
    for (const Sample& s : samples(dt)) {
      INFO(s.name << " in " << dtype_name(dt));
      covered.insert(s.op);
      const Value eager = run_eager(s.op, s.args);
      DecomposeToPrims hook;
      Value decomposed;
      {
        OpHookGuard guard(&hook);
        decomposed = dispatch(s.op, s.args);
      }
      for (OpKind op : hook.ran) {
        INFO("ran " << op_name(op));
        CHECK(is_prim(op));
      }
      check_close(value_tensor(decomposed), value_tensor(eager), tolerance(dt));
    }
  }
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpKind>(i);
    INFO(op_name(op));
    CHECK((aot::decomposition_of(op) != nullptr) == (op_level(op) == OpLevel::Composite));
    if (op_level(op) == OpLevel::Composite) {
      CHECK(covered.count(op) == 1);
    }
  }
}

TEST_CASE("every composite op's decomposition has the gradient of its derivative entry",
          "[compiler][aot]") {
  for (DType dt : {DType::Float64, DType::Float32}) {
    for (const Sample& s : samples(dt)) {
      INFO(s.name << " in " << dtype_name(dt));
      std::vector<Tensor> leaves_a;
      std::vector<Tensor> leaves_b;
      const std::vector<Value> args_a = with_leaves(s.args, leaves_a);
      const std::vector<Value> args_b = with_leaves(s.args, leaves_b);
      const Tensor ya = value_tensor(dispatch(s.op, args_a));
      const Tensor yb = value_tensor(aot::decompose(s.op, args_b));
      if (!ya.requires_grad()) {
        CHECK_FALSE(yb.requires_grad()); // detach, factories, integer relu
        continue;
      }
      const Tensor w = wave(ya.sizes(), 1.3, ya.dtype());
      const Tensor la[] = {sum(mul(ya, w))};
      const Tensor lb[] = {sum(mul(yb, w))};
      const std::vector<Tensor> ga = autograd::grad(la, leaves_a, {}, false, true);
      const std::vector<Tensor> gb = autograd::grad(lb, leaves_b, {}, false, true);
      for (std::size_t k = 0; k < ga.size(); ++k) {
        INFO("input " << k);
        REQUIRE(ga[k].defined() == gb[k].defined());
        if (ga[k].defined()) {
          check_close(gb[k], ga[k], dt == DType::Float64 ? 1e-10 : 1e-4);
        }
      }
    }
  }
}
