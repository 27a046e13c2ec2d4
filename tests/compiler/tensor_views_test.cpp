// Tensor metadata, storage alignment, and views (they share storage with their base).
#include "compiler/core/errors.h"
#include "tensor_test_util.h"

#include <catch2/catch.hpp>
#include <cstdint>

using namespace compiler;
using tensor_test::check_values;
using tensor_test::t;

TEST_CASE("a new tensor is contiguous, zero-filled and 64-byte aligned", "[compiler][tensor]") {
  const Tensor x = Tensor::empty({2, 3, 4});
  CHECK(x.dim() == 3);
  CHECK(x.sizes() == std::vector<std::int64_t>{2, 3, 4});
  CHECK(x.strides() == std::vector<std::int64_t>{12, 4, 1});
  CHECK(x.numel() == 24);
  CHECK(x.is_contiguous());
  CHECK(x.device() == "cpu");
  CHECK_FALSE(x.is_fake());
  CHECK(reinterpret_cast<std::uintptr_t>(x.raw_data()) % Storage::kAlignment == 0);
  for (double v : x.to_vector()) {
    CHECK(v == 0.0);
  }
  CHECK(x.type_string() == "f32[2, 3, 4]");
  CHECK(x.size(-1).hint() == 4);
}

TEST_CASE("views share storage with their base", "[compiler][tensor]") {
  const Tensor x = arange(6, DType::Float32);
  const Tensor v = x.view({2, 3});
  const Tensor tr = v.transpose(0, 1);
  const Tensor p = v.permute({1, 0});
  const Tensor s = v.slice(1, 1, 3);
  const Tensor e = v.slice(0, 0, 1).expand({4, 3});
  const Tensor u = x.unsqueeze(0);
  for (const Tensor* view : {&v, &tr, &p, &s, &e, &u}) {
    CHECK(view->shares_storage_with(x));
  }
  CHECK(tr.strides() == std::vector<std::int64_t>{1, 3});
  CHECK_FALSE(tr.is_contiguous());
  check_values(tr, {0, 3, 1, 4, 2, 5});
  check_values(s, {1, 2, 4, 5});
  CHECK(s.storage_offset() == 1);
  check_values(e, {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2});
  CHECK(e.strides() == std::vector<std::int64_t>{0, 1});
  CHECK(u.sizes() == std::vector<std::int64_t>{1, 6});
  CHECK(u.squeeze(0).sizes() == std::vector<std::int64_t>{6});
  CHECK(squeeze(Tensor::empty({1, 3, 1})).sizes() == std::vector<std::int64_t>{3});

  // A write through the base is seen by every view.
  x.data<float>()[4] = 40.0f;
  CHECK(v.at({1, 1}) == 40.0);
  CHECK(tr.at({1, 1}) == 40.0);
  CHECK(s.at({1, 0}) == 40.0);
}

TEST_CASE("slice follows Python's clamping and steps", "[compiler][tensor]") {
  const Tensor x = arange(10, DType::Int64);
  check_values(x.slice(0, -3, 100), {7, 8, 9});
  check_values(x.slice(0, 2, 9, 3), {2, 5, 8});
  CHECK(x.slice(0, 5, 2).numel() == 0);
  check_values(x.slice(0, 0, std::numeric_limits<std::int64_t>::max(), 4), {0, 4, 8});
}

TEST_CASE("view infers -1, reshape copies when strides forbid a view", "[compiler][tensor]") {
  const Tensor x = arange(12, DType::Float32);
  CHECK(x.view({3, -1}).sizes() == std::vector<std::int64_t>{3, 4});
  const Tensor tr = x.view({3, 4}).transpose(0, 1); // [4, 3], not viewable as [12]
  CHECK_THROWS_AS(tr.view({12}), UserError);
  const Tensor r = tr.reshape({12});
  CHECK_FALSE(r.shares_storage_with(x));
  check_values(r, {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  // Splitting a dim of a transposed tensor is still a view.
  const Tensor split = tr.view({2, 2, 3});
  CHECK(split.shares_storage_with(x));
  CHECK(split.strides() == std::vector<std::int64_t>{2, 1, 4});
  CHECK(x.reshape({2, 6}).shares_storage_with(x));
  CHECK_THROWS_AS(x.view({5, -1}), UserError);
  CHECK_THROWS_AS(x.view({-1, -1}), UserError);
}

TEST_CASE("contiguous copies a non-contiguous tensor and returns a contiguous one as is",
          "[compiler][tensor]") {
  const Tensor x = arange(6, DType::Float32).view({2, 3});
  CHECK(x.contiguous().is_same(x));
  const Tensor c = x.transpose(0, 1).contiguous();
  CHECK(c.is_contiguous());
  CHECK_FALSE(c.shares_storage_with(x));
  check_values(c, {0, 3, 1, 4, 2, 5});
}

TEST_CASE("fake tensors carry metadata but no storage", "[compiler][tensor]") {
  const Tensor f = Tensor::fake({SymInt(2), SymInt(3)}, DType::Float16);
  CHECK(f.is_fake());
  CHECK(f.raw_data() == nullptr);
  CHECK(f.strides() == std::vector<std::int64_t>{3, 1});
  CHECK_THROWS_AS(f.data<Half>(), UserError);
  CHECK_THROWS_AS(f.to_vector(), UserError);
  CHECK_THROWS_AS(run_eager(OpKind::exp, std::vector<Value>{f}), UserError);
}

TEST_CASE("item and to_bool read one-element tensors", "[compiler][tensor]") {
  CHECK(t({2.5}, {1}).item_double() == 2.5);
  CHECK(Tensor::scalar(7, DType::Int32).item<int>() == 7);
  CHECK(Tensor::scalar(1, DType::Bool).to_bool());
  CHECK_FALSE(Tensor::scalar(0.0).to_bool());
  CHECK_THROWS_AS(t({1, 2}, {2}).item_double(), UserError);
  CHECK_THROWS_AS(t({1}, {1}).data<std::int64_t>(), UserError);
}

TEST_CASE("requires_grad is a flag on the tensor", "[compiler][tensor]") {
  Tensor x = Tensor::empty({2});
  CHECK_FALSE(x.requires_grad());
  x.set_requires_grad(true);
  CHECK(x.requires_grad());
}
