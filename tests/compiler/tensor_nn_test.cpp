// nn: parameters, attributes and their read notifications, submodules, and the layers.
#include "compiler/core/errors.h"
#include "compiler/nn/layers.h"
#include "tensor_test_util.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace compiler;
using tensor_test::check_values;
using tensor_test::t;

namespace {

struct ReadLog : nn::ModuleObserver {
  std::vector<std::string> reads;
  void on_attribute_read(const nn::Module& module, std::string_view name,
                         const nn::AttributeValue& value) override {
    reads.push_back(module.type_name() + "." + std::string(name) + "=" +
                    nn::attribute_to_string(value));
  }
  void on_parameter_read(const nn::Module& module, std::string_view name,
                         const Tensor& /*value*/) override {
    reads.push_back(module.type_name() + ".param:" + std::string(name));
  }
};

} // namespace

TEST_CASE("Linear computes x @ W^T + b with registered parameters", "[compiler][tensor]") {
  nn::Linear lin(3, 2, true, 5);
  const auto params = lin.named_parameters();
  REQUIRE(params.size() == 2);
  CHECK(params[0].first == "weight");
  CHECK(params[1].first == "bias");
  CHECK(params[0].second.sizes() == std::vector<std::int64_t>{2, 3});
  CHECK(params[0].second.requires_grad());
  const Tensor x = t({1, 2, 3, -1, 0, 1}, {2, 3});
  const Tensor y = lin(x);
  CHECK(y.sizes() == std::vector<std::int64_t>{2, 2});
  const Tensor& w = lin.weight();
  for (std::int64_t i = 0; i < 2; ++i) {
    for (std::int64_t o = 0; o < 2; ++o) {
      double want = 0;
      for (std::int64_t k = 0; k < 3; ++k) {
        want += x.at({i, k}) * w.at({o, k});
      }
      CHECK(std::abs(y.at({i, o}) - want) < 1e-5);
    }
  }
  CHECK_THROWS_AS(lin(t({1, 2}, {1, 2})), UserError);
  // The same seed gives the same weights.
  nn::Linear again(3, 2, true, 5);
  CHECK(again.weight().to_vector() == w.to_vector());
}

TEST_CASE("Sequential runs children in order and names parameters by path", "[compiler][tensor]") {
  auto model = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(4, 8, true, 1), std::make_shared<nn::GELU>(),
      std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{8}),
      std::make_shared<nn::Linear>(8, 2, false, 2), std::make_shared<nn::ReLU>()});
  CHECK(model->size() == 5);
  std::vector<std::string> names;
  for (const auto& [name, p] : model->named_parameters()) {
    names.push_back(name);
  }
  CHECK(names == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias", "3.weight"});
  CHECK(model->parameters().size() == 5);
  const Tensor y = (*model)(randn({3, 4}, 9));
  CHECK(y.sizes() == std::vector<std::int64_t>{3, 2});
  for (double v : y.to_vector()) {
    CHECK(v >= 0.0);
  }
  const auto modules = model->named_modules();
  CHECK(modules.size() == 6);
  CHECK(modules[1].first == "0");
  const std::string repr = model->to_string();
  CHECK(repr.find("(0): Linear(in_features=4, out_features=8, bias=True)") != std::string::npos);
  CHECK(repr.find("(2): LayerNorm((8,), eps=") != std::string::npos);
}

TEST_CASE("attribute reads notify the installed observer", "[compiler][tensor]") {
  nn::GELU gelu("tanh");
  nn::LayerNorm norm({3}, 1e-3);
  ReadLog log;
  {
    nn::ModuleObserverGuard guard(&log);
    (void)gelu(t({1, 2, 3}, {3}));
    (void)norm(t({1, 2, 3}, {3}));
    (void)norm.parameter("weight");
  }
  (void)gelu(t({1}, {1})); // not observed any more
  CHECK(log.reads == std::vector<std::string>{"GELU.approximate='tanh'", "LayerNorm.eps=0.001",
                                              "LayerNorm.param:weight"});
}

TEST_CASE("attributes are typed, versioned and recursive for training", "[compiler][tensor]") {
  nn::Sequential seq({std::make_shared<nn::ReLU>()});
  const std::uint64_t v0 = seq.version();
  seq.set_attribute("depth", std::int64_t{3});
  CHECK(seq.version() > v0);
  CHECK(seq.attr_int("depth") == 3);
  CHECK_THROWS_AS(seq.attr_double("depth"), UserError);
  CHECK_THROWS_AS(seq.attribute("missing"), UserError);
  CHECK(seq.is_training());
  seq.eval();
  CHECK_FALSE(seq.is_training());
  CHECK_FALSE(seq.child("0")->is_training());
  CHECK_THROWS_AS(seq.child("1"), UserError);
  CHECK_THROWS_AS(nn::GELU("fast"), UserError);
}

TEST_CASE("Embedding and LayerNorm layers wrap their ops", "[compiler][tensor]") {
  nn::Embedding emb(10, 4, 3);
  const Tensor out = emb(t({1, 9}, {2}, DType::Int64));
  CHECK(out.sizes() == std::vector<std::int64_t>{2, 4});
  CHECK(out.at({1, 2}) == emb.weight().at({9, 2}));
  nn::LayerNorm norm({4});
  const Tensor n = norm(randn({5, 4}, 1));
  check_values(mean(n, {1}), {0, 0, 0, 0, 0}, 1e-5);
}
