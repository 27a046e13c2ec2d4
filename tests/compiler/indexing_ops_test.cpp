// index_select, narrow, tril, triu, repeat and roll (the "indexing, more" block of the op list):
// eager results against values worked by hand (and PyTorch's, tests/compiler/differential), their
// meta shapes against eager, user errors for PyTorch's error cases, and compiled (Inductor, host)
// against eager. In a build with NVRTC every schedule here is also compiled for the GPU
// (inductor_cuda_test.cpp turns that check on for this binary). Gradients are checked by
// autograd_gradcheck_test.cpp and the decompositions by aot_decomposition_test.cpp.
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"
#include "inductor_compare.h"
#include "inductor_test_data.h"
#include "kernels/kernels.h"

#include <catch2/catch.hpp>
#include <vector>

using namespace compiler;
using inductor_test::wave;

namespace {

// 0, 1, 2, ... in `sizes`, as float32.
Tensor counting(std::vector<std::int64_t> sizes) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<double>(i);
  }
  return Tensor::from_values(v, std::move(sizes), DType::Float32);
}

Tensor int_values(std::initializer_list<double> values, std::vector<std::int64_t> sizes) {
  return Tensor::from_values(values, std::move(sizes), DType::Int64);
}

// The meta kernel's result has the eager result's shape and dtype.
void check_meta(Value (*meta)(std::span<const Value>), const std::vector<Value>& args,
                const Tensor& eager) {
  const Tensor m = value_tensor(meta(args));
  CHECK(m.sizes() == eager.sizes());
  CHECK(m.dtype() == eager.dtype());
}

} // namespace

TEST_CASE("index_select picks slices along a dim, repeats allowed", "[compiler][indexing]") {
  const Tensor x = counting({2, 3});
  const Tensor idx = int_values({2, 0, 2}, {3});
  const Tensor cols = index_select(x, 1, idx);
  CHECK(cols.sizes() == std::vector<std::int64_t>{2, 3});
  CHECK(cols.to_vector() == std::vector<double>{2, 0, 2, 5, 3, 5});
  const Tensor rows = index_select(x, -2, int_values({1}, {}));
  CHECK(rows.sizes() == std::vector<std::int64_t>{1, 3});
  CHECK(rows.to_vector() == std::vector<double>{3, 4, 5});
  // A strided (transposed) input.
  CHECK(index_select(transpose(x, 0, 1), 0, int_values({2}, {1})).to_vector() ==
        std::vector<double>{2, 5});
  check_meta(&kernels::meta_index_select, {x, SymInt(1), idx}, cols);
}

TEST_CASE("index_select rejects what PyTorch rejects", "[compiler][indexing]") {
  const Tensor x = counting({2, 3});
  CHECK_THROWS_AS(index_select(x, 1, int_values({0, 1}, {1, 2})), UserError);      // not a vector
  CHECK_THROWS_AS(index_select(x, 1, Tensor::from_values({0.0}, {1})), UserError); // float
  CHECK_THROWS_WITH(index_select(x, 1, int_values({3}, {1})), Catch::Contains("out of range"));
  CHECK_THROWS_AS(index_select(x, 1, int_values({-1}, {1})), UserError); // no wrap-around
  CHECK_THROWS_AS(index_select(x, 2, int_values({0}, {1})), UserError);
}

TEST_CASE("narrow is a view of `length` elements from `start`", "[compiler][indexing]") {
  const Tensor x = counting({2, 4});
  const Tensor n = narrow(x, 1, 1, 2);
  CHECK(n.to_vector() == std::vector<double>{1, 2, 5, 6});
  CHECK(n.storage_offset() == 1); // shares x's storage
  CHECK(narrow(x, -1, -2, 2).to_vector() == std::vector<double>{2, 3, 6, 7});
  CHECK(narrow(x, 0, 2, 0).numel() == 0);
  check_meta(&kernels::meta_narrow, {x, SymInt(1), SymInt(1), SymInt(2)}, n);
  CHECK_THROWS_WITH(narrow(x, 1, 3, 2), Catch::Contains("exceeds"));
  CHECK_THROWS_AS(narrow(x, 1, -5, 1), UserError);
  CHECK_THROWS_AS(narrow(x, 1, 0, -1), UserError);
  CHECK_THROWS_AS(narrow(Tensor::from_values({1.0}, {}), 0, 0, 1), UserError);
}

TEST_CASE("tril and triu keep one side of a diagonal of every trailing matrix",
          "[compiler][indexing]") {
  const Tensor x = counting({2, 3});
  CHECK(tril(x).to_vector() == std::vector<double>{0, 0, 0, 3, 4, 0});
  CHECK(tril(x, 1).to_vector() == std::vector<double>{0, 1, 0, 3, 4, 5});
  CHECK(triu(x).to_vector() == std::vector<double>{0, 1, 2, 0, 4, 5});
  CHECK(triu(x, -1).to_vector() == std::vector<double>{0, 1, 2, 3, 4, 5});
  CHECK(triu(x, 2).to_vector() == std::vector<double>{0, 0, 2, 0, 0, 0});
  // Batched and strided: each [2, 2] matrix of the transposed [2, 2, 2].
  const Tensor b = transpose(counting({2, 2, 2}), 1, 2);
  CHECK(tril(b).to_vector() == std::vector<double>{0, 0, 1, 3, 4, 0, 5, 7});
  const Tensor ints = to_dtype(x, DType::Int32);
  CHECK(tril(ints).dtype() == DType::Int32);
  check_meta(&kernels::meta_triu, {x, SymInt(0)}, triu(x));
  CHECK_THROWS_WITH(tril(counting({3})), Catch::Contains("at least 2 dimensions"));
  CHECK_THROWS_AS(triu(Tensor::from_values({1.0}, {})), UserError);
}

TEST_CASE("repeat tiles x, roll shifts it circularly", "[compiler][indexing]") {
  const Tensor x = counting({2, 3});
  const Tensor r = repeat(x, {1, 2});
  CHECK(r.to_vector() == std::vector<double>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
  CHECK(repeat(x, {2, 1, 1}).sizes() == std::vector<std::int64_t>{2, 2, 3});
  CHECK(repeat(x, {0, 1}).numel() == 0);
  check_meta(&kernels::meta_repeat, {x, std::vector<std::int64_t>{1, 2}}, r);
  CHECK_THROWS_WITH(repeat(x, {2}), Catch::Contains("can not be smaller"));
  CHECK_THROWS_AS(repeat(x, {1, -1}), UserError);
  // PyTorch: roll(x, -4) == [[4, 5, 0], [1, 2, 3]], roll(x, (1, -1), (0, 1)).
  CHECK(roll(x, {-4}).to_vector() == std::vector<double>{4, 5, 0, 1, 2, 3});
  const Tensor both = roll(x, {1, -1}, {0, 1});
  CHECK(both.to_vector() == std::vector<double>{4, 5, 3, 1, 2, 0});
  CHECK(roll(transpose(x, 0, 1), {1}, {0}).to_vector() == std::vector<double>{2, 5, 0, 3, 1, 4});
  check_meta(&kernels::meta_roll,
             {x, std::vector<std::int64_t>{1, -1}, std::vector<std::int64_t>{0, 1}}, both);
  CHECK_THROWS_WITH(roll(x, {1}, {0, 1}), Catch::Contains("must align"));
  CHECK_THROWS_AS(roll(x, {1}, {2}), UserError);
}

TEST_CASE("compiled index_select, narrow, tril, triu, repeat and roll equal eager",
          "[compiler][indexing]") {
  const Tensor x = wave({3, 5, 4}, 0.3);
  const Tensor idx = int_values({4, 0, 4, 1, 2, 3}, {6});
  auto f = [](const Tensor& t, const Tensor& i) {
    const Tensor picked = index_select(mul(t, 2.0), 1, i);                        // [3, 6, 4]
    const Tensor lower = tril(narrow(picked, 1, 1, 4), -1);                       // [3, 4, 4]
    const Tensor tiled = repeat(narrow(transpose(t, 1, 2), -1, 0, 2), {1, 1, 2}); // [3, 4, 4]
    return add(add(triu(exp(lower), 1), tiled), roll(narrow(t, 1, 1, 4), {1, -3}, {0, 2}));
  };
  const Tensor want = f(x, idx);
  auto cf = compile(f, {.arg_names = {"x", "index"}, .backend = "inductor"});
  CHECK_CLOSE(cf(x, idx), want);
  // The backward graph (AOT autograd's joint graph, compiled) gives eager autograd's gradient.
  auto g = [](const Tensor& t, const Tensor& i) {
    const Tensor picked = triu(index_select(t, 0, i));                             // [2, 3]
    const Tensor moved = roll(repeat(tril(narrow(t, 0, 1, 1)), {2, 1}), {1}, {1}); // [2, 3]
    return sum(mul(picked, moved));
  };
  const Tensor rows = int_values({2, 2}, {2});
  auto gradient = [&](const Tensor& loss, const Tensor& leaf) {
    const Tensor outputs[] = {loss};
    const Tensor leaves[] = {leaf};
    return autograd::grad(outputs, leaves)[0];
  };
  Tensor a = wave({3, 3}, 0.7);
  a.set_requires_grad(true);
  Tensor b = wave({3, 3}, 0.7);
  b.set_requires_grad(true);
  auto cg = compile(g, {.backend = "inductor"});
  const Tensor got = cg(a, rows);
  const Tensor want_loss = g(b, rows);
  CHECK_CLOSE(got, want_loss);
  CHECK_CLOSE(gradient(got, a), gradient(want_loss, b));
}

// A wrong answer of the existing prims' lowering, found through roll(repeat(...)) on two dims:
// cat of slices of a cat of slices of an expanded-then-reshaped copy: a slice's negative offset
// left a negative dividend after the index simplification split off its multiples (fixed in
// ir/expr.cpp; the regression test "a flattened roll of a permuted input ...").
TEST_CASE("compiled cat of slices of a cat of slices of a reshaped expand equals eager",
          "[compiler][indexing][regression]") {
  const Tensor x = wave({3, 5, 4}, 0.3);
  auto f = [](const Tensor& t) {
    const Tensor s = slice(transpose(t, 1, 2), 2, 0, 2); // [3, 4, 2]
    const Tensor r = reshape(expand(reshape(s, {1, 3, 1, 4, 1, 2}), {1, 3, 1, 4, 2, 2}), {3, 4, 4});
    const Tensor a = cat({slice(r, 0, 2, 3), slice(r, 0, 0, 2)}, 0);
    return cat({slice(a, 2, 3, 4), slice(a, 2, 0, 3)}, 2);
  };
  CHECK_CLOSE(compile(f, {.backend = "inductor"})(x), f(x));
}
