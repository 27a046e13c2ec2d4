// The C++ half of the differential test against PyTorch (scripts/differential-test.sh, docs/
// COMPILER.md "Checked against PyTorch"): generates random programs from seeds, runs each
// eagerly and compiled with Inductor (forward, and backward of the sum of its results), and
// writes one JSON file per program: the program as data (inputs with their values and layout,
// steps as op name and arguments), the results and the gradients of both runs.
// tests/compiler/differential/check_against_torch.py replays each description in PyTorch.
//
//   compiler_differential_programs FIRST_SEED COUNT OUT_DIR
//
// A program is a list of steps over a pool of tensors, each step adding one: an "input" step
// adds the program's input k, any other step the result of an op. The generator runs each
// step eagerly as it picks it, so later steps see real shapes; a step whose eager run is a
// UserError is dropped and another is picked. Comparisons and where() read graph inputs only,
// so a rounding difference upstream cannot flip a mask.
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

using namespace compiler;

namespace {

// An argument of a step: a tensor of the pool (by position), or a constant.
struct Ref {
  std::size_t index;
};
using Param = std::variant<Ref, std::int64_t, double, bool, std::vector<std::int64_t>>;

struct Step {
  std::string op;
  std::vector<Param> params;
};

struct Input {
  std::vector<std::int64_t> sizes; // the sizes the program sees
  std::vector<std::int64_t> perm;  // non-empty: a permuted view of a contiguous base
  std::vector<double> values;      // the base's values, in storage order
  bool boolean = false;            // a mask (not differentiated)
};

struct Program {
  std::vector<Input> inputs;
  std::vector<Step> steps;
  std::vector<std::size_t> outputs;  // pool positions
  std::int64_t reduction_length = 1; // the longest reduction or inner product (tolerance)
};

// ---------------------------------------------------------------- running a step

const Tensor& ref(const std::vector<Tensor>& pool, const Param& p) {
  return pool.at(std::get<Ref>(p).index);
}
std::int64_t int_of(const Param& p) {
  return std::get<std::int64_t>(p);
}
std::vector<SymInt> sym(const std::vector<std::int64_t>& v) {
  return {v.begin(), v.end()};
}

// The one C++ reading of each op name (the Python side has the other, check_against_torch.py).
Tensor apply_step(const Step& s, const std::vector<Tensor>& pool) {
  const auto& p = s.params;
  auto t = [&](std::size_t i) -> const Tensor& { return ref(pool, p.at(i)); };
  auto d = [&](std::size_t i) { return std::get<double>(p.at(i)); };
  auto ints = [&](std::size_t i) { return std::get<std::vector<std::int64_t>>(p.at(i)); };
  auto flag = [&](std::size_t i) { return std::get<bool>(p.at(i)); };
  const std::string& op = s.op;
  // pointwise
  if (op == "neg")
    return neg(t(0));
  if (op == "exp")
    return exp(t(0));
  if (op == "log")
    return log(t(0));
  if (op == "sin")
    return sin(t(0));
  if (op == "cos")
    return cos(t(0));
  if (op == "tanh")
    return tanh(t(0));
  if (op == "sigmoid")
    return sigmoid(t(0));
  if (op == "relu")
    return relu(t(0));
  if (op == "gelu")
    return gelu(t(0));
  if (op == "gelu_tanh")
    return gelu(t(0), "tanh");
  if (op == "sqrt")
    return sqrt(t(0));
  if (op == "rsqrt")
    return rsqrt(t(0));
  if (op == "abs")
    return abs(t(0));
  if (op == "erf")
    return erf(t(0));
  if (op == "silu")
    return silu(t(0));
  const bool scalar = p.size() > 1 && std::holds_alternative<double>(p[1]);
  if (op == "add")
    return scalar ? add(t(0), d(1)) : add(t(0), t(1));
  if (op == "sub")
    return scalar ? sub(t(0), d(1)) : sub(t(0), t(1));
  if (op == "mul")
    return scalar ? mul(t(0), d(1)) : mul(t(0), t(1));
  if (op == "div")
    return scalar ? div(t(0), d(1)) : div(t(0), t(1));
  if (op == "pow")
    return pow(t(0), d(1));
  if (op == "maximum")
    return maximum(t(0), t(1));
  if (op == "gt")
    return gt(t(0), d(1));
  if (op == "where")
    return where(t(0), t(1), t(2));
  // pointwise, more
  static const std::map<std::string, Tensor (*)(const Tensor&, SourceLoc)> kMoreUnary = {
      {"floor", &floor},
      {"ceil", &ceil},
      {"round", &round},
      {"trunc", &trunc},
      {"sign", &sign},
      {"log1p", &log1p},
      {"expm1", &expm1},
      {"tan", &tan},
      {"atan", &atan},
      {"asin", &asin},
      {"acos", &acos},
      {"sinh", &sinh},
      {"cosh", &cosh},
      {"isnan", &isnan},
      {"isinf", &isinf},
      {"logical_not", &logical_not},
      {"bitwise_not", &bitwise_not},
      {"hardswish", &hardswish}};
  static const std::map<std::string, Tensor (*)(const Tensor&, const Tensor&, SourceLoc)>
      kMoreBinary = {{"minimum", &minimum},         {"clamp_min", &clamp_min},
                     {"clamp_max", &clamp_max},     {"logical_and", &logical_and},
                     {"logical_or", &logical_or},   {"logical_xor", &logical_xor},
                     {"bitwise_and", &bitwise_and}, {"bitwise_or", &bitwise_or},
                     {"bitwise_xor", &bitwise_xor}};
  if (const auto u = kMoreUnary.find(op); u != kMoreUnary.end())
    return u->second(t(0), SourceLoc::current());
  if (const auto b = kMoreBinary.find(op); b != kMoreBinary.end())
    return b->second(t(0), t(1), SourceLoc::current());
  if (op == "clamp")
    return scalar ? clamp(t(0), d(1), d(2)) : clamp(t(0), t(1), t(2));
  if (op == "nan_to_num")
    return nan_to_num(t(0));
  if (op == "masked_fill")
    return masked_fill(t(0), t(1), d(2));
  if (op == "leaky_relu")
    return leaky_relu(t(0), d(1));
  if (op == "elu")
    return elu(t(0), d(1));
  if (op == "softplus")
    return softplus(t(0), d(1), d(2));
  // reductions
  if (op == "sum")
    return sum(t(0), ints(1), flag(2));
  if (op == "mean")
    return mean(t(0), ints(1), flag(2));
  if (op == "amax")
    return amax(t(0), ints(1), flag(2));
  if (op == "amin")
    return amin(t(0), ints(1), flag(2));
  if (op == "softmax")
    return softmax(t(0), int_of(p[1]));
  if (op == "log_softmax")
    return log_softmax(t(0), int_of(p[1]));
  // linear algebra, nn
  if (op == "matmul")
    return matmul(t(0), t(1));
  if (op == "bmm")
    return bmm(t(0), t(1));
  if (op == "layer_norm")
    return layer_norm(t(0), ints(1), t(2), t(3), d(4));
  // views and copies
  if (op == "transpose")
    return transpose(t(0), int_of(p[1]), int_of(p[2]));
  if (op == "permute")
    return permute(t(0), ints(1));
  if (op == "slice")
    return slice(t(0), int_of(p[1]), int_of(p[2]), int_of(p[3]), int_of(p[4]));
  if (op == "unsqueeze")
    return unsqueeze(t(0), int_of(p[1]));
  if (op == "squeeze")
    return squeeze(t(0), int_of(p[1]));
  if (op == "reshape")
    return reshape(t(0), sym(ints(1)));
  if (op == "expand")
    return expand(t(0), sym(ints(1)));
  if (op == "contiguous")
    return contiguous(t(0));
  if (op == "cat")
    return cat({t(0), t(1)}, int_of(p[2]));
  // indexing, more (index_select's index is a constant of the program)
  if (op == "index_select") {
    const std::vector<std::int64_t> rows = ints(2);
    const std::vector<double> values(rows.begin(), rows.end());
    return index_select(
        t(0), int_of(p[1]),
        Tensor::from_values(values, {static_cast<std::int64_t>(rows.size())}, DType::Int64));
  }
  if (op == "narrow")
    return narrow(t(0), int_of(p[1]), int_of(p[2]), int_of(p[3]));
  if (op == "tril")
    return tril(t(0), int_of(p[1]));
  if (op == "triu")
    return triu(t(0), int_of(p[1]));
  if (op == "repeat")
    return repeat(t(0), ints(1));
  if (op == "roll")
    return roll(t(0), ints(1), ints(2));
  // issue 26: reductions, losses (the reduction in the name: the program holds no strings),
  // and dropout from an explicit (seed, offset), whose mask the Python side draws with its own
  // copy of the generator (kernels/counter_rng.h)
  if (op == "var")
    return var(t(0), ints(1), d(2), flag(3));
  if (op == "logsumexp")
    return logsumexp(t(0), ints(1), flag(2));
  if (op == "mse_loss" || op == "mse_loss_sum" || op == "mse_loss_none")
    return mse_loss(t(0), t(1), op == "mse_loss" ? "mean" : op.substr(9));
  if (op == "bce_with_logits" || op == "bce_with_logits_sum")
    return binary_cross_entropy_with_logits(t(0), t(1), op == "bce_with_logits" ? "mean" : "sum");
  if (op == "dropout")
    return dropout(t(0), d(1), static_cast<std::uint64_t>(int_of(p[2])), SymInt(int_of(p[3])));
  // convolution, pooling, normalisation
  if (op == "conv2d")
    return conv2d(t(0), t(1), t(2), ints(3), ints(4), ints(5), int_of(p[6]));
  if (op == "max_pool2d")
    return max_pool2d(t(0), ints(1), ints(2), ints(3), ints(4), flag(5));
  if (op == "avg_pool2d")
    return avg_pool2d(t(0), ints(1), ints(2), ints(3), flag(4), flag(5));
  if (op == "adaptive_avg_pool2d")
    return adaptive_avg_pool2d(t(0), ints(1));
  if (op == "group_norm")
    return group_norm(t(0), int_of(p[1]), t(2), t(3), d(4));
  std::cerr << "unknown op " << op << "\n";
  std::abort();
}

// ---------------------------------------------------------------- generating a program

constexpr std::size_t kMaxInputs = 6;

class Generator {
public:
  explicit Generator(std::uint32_t seed) : rng_(seed) {}

  Program make() {
    const int inputs = 1 + coin(2);
    for (int i = 0; i < inputs; ++i) {
      add_input(random_sizes(1 + coin(3)), true);
    }
    const int length = 3 + coin(8);
    for (int tries = 0; static_cast<int>(p_.steps.size()) < length && tries < 200; ++tries) {
      const std::size_t mark_inputs = p_.inputs.size();
      const std::size_t mark_steps = p_.steps.size();
      const std::size_t mark_pool = pool_.size();
      std::vector<Step> steps = pick_steps();
      // compile() below takes at most kMaxInputs tensors.
      if (p_.inputs.size() > kMaxInputs || !try_steps(steps)) {
        p_.inputs.resize(mark_inputs);
        p_.steps.resize(mark_steps);
        pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(mark_pool), pool_.end());
        is_input_.resize(pool_.size());
      }
    }
    // The last float result, and another float step when there is one.
    std::vector<std::size_t> floats;
    for (std::size_t i = 0; i < pool_.size(); ++i) {
      if (!is_input_[i] && pool_[i].dtype() == DType::Float32) {
        floats.push_back(i);
      }
    }
    if (!floats.empty()) {
      p_.outputs.push_back(floats.back());
      if (floats.size() > 1 && coin(2) == 0) {
        p_.outputs.push_back(
            floats[static_cast<std::size_t>(coin(static_cast<int>(floats.size()) - 1))]);
      }
    }
    return p_;
  }

private:
  int coin(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::int64_t random_size() {
    static constexpr std::int64_t kSizes[] = {0, 1, 1, 2, 3, 3, 4, 5, 5, 7, 7, 8, 12, 17};
    return kSizes[coin(static_cast<int>(std::size(kSizes)))];
  }
  std::vector<std::int64_t> random_sizes(int rank) {
    std::vector<std::int64_t> s;
    for (int i = 0; i < rank; ++i) {
      s.push_back(random_size());
    }
    return s;
  }

  // A new float input (non-contiguous a third of the time), or a mask of `sizes`.
  std::size_t add_input(std::vector<std::int64_t> sizes, bool may_permute, bool boolean = false) {
    Input in;
    in.sizes = sizes;
    in.boolean = boolean;
    std::vector<std::int64_t> base = sizes;
    if (may_permute && !boolean && sizes.size() >= 2 && coin(3) == 0) {
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        in.perm.push_back(static_cast<std::int64_t>(i));
      }
      std::shuffle(in.perm.begin(), in.perm.end(), rng_);
      // base[perm[i]] = sizes[i]: the view permute(base, perm) has `sizes`.
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        base[static_cast<std::size_t>(in.perm[i])] = sizes[i];
      }
    }
    std::int64_t n = 1;
    for (std::int64_t s : base) {
      n *= s;
    }
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (std::int64_t i = 0; i < n; ++i) {
      const double v =
          boolean ? static_cast<double>(coin(2)) : static_cast<double>(static_cast<float>(u(rng_)));
      in.values.push_back(v);
    }
    p_.inputs.push_back(in);
    p_.steps.push_back({"input", {static_cast<std::int64_t>(p_.inputs.size() - 1)}});
    const Tensor made = make_input(in, false);
    pool_.push_back(in.perm.empty() ? made : permute(made, in.perm));
    is_input_.push_back(true);
    return pool_.size() - 1;
  }

  std::size_t pick_float() {
    std::vector<std::size_t> c;
    for (std::size_t i = 0; i < pool_.size(); ++i) {
      if (pool_[i].dtype() == DType::Float32) {
        c.push_back(i);
      }
    }
    return c[static_cast<std::size_t>(coin(static_cast<int>(c.size())))];
  }
  // A float input for the other operand of a binary op: a pool entry of the same shape, or a new
  // input of a shape that broadcasts against `sizes` (dims dropped from the front or set to 1).
  std::size_t operand_like(const std::vector<std::int64_t>& sizes) {
    for (std::size_t i = 0; i < pool_.size() && coin(2) == 0; ++i) {
      if (pool_[i].dtype() == DType::Float32 && pool_[i].sizes() == sizes) {
        return i;
      }
    }
    std::vector<std::int64_t> s = sizes;
    if (!s.empty() && coin(3) == 0) {
      s.erase(s.begin(), s.begin() + coin(static_cast<int>(s.size()) + 1));
    }
    for (std::int64_t& v : s) {
      if (coin(4) == 0) {
        v = 1;
      }
    }
    return add_input(s, true);
  }
  // The position the next step's result takes.
  std::size_t next() const { return pool_.size(); }

  std::int64_t dim_of(std::size_t a) {
    const auto r = static_cast<int>(pool_[a].dim());
    return r == 0 ? 0 : static_cast<std::int64_t>(coin(r)) - (coin(2) == 0 ? r : 0);
  }

  // One to three steps (a few ops are guarded: log of |x| + 0.5, exp of tanh(x)).
  std::vector<Step> pick_steps() {
    static const char* kUnary[] = {"neg",  "sin",       "cos", "tanh", "sigmoid", "relu",
                                   "gelu", "gelu_tanh", "abs", "erf",  "silu",    "contiguous"};
    const std::size_t a = pick_float();
    const std::vector<std::int64_t> sa = pool_[a].sizes();
    const auto rank = static_cast<std::int64_t>(sa.size());
    switch (coin(30)) {
    case 0:
    case 1:
      return {{kUnary[coin(static_cast<int>(std::size(kUnary)))], {Ref{a}}}};
    case 2: // guarded domains
      switch (coin(4)) {
      case 0:
        return {{"tanh", {Ref{a}}}, {"exp", {Ref{next()}}}};
      case 1:
        return {{"abs", {Ref{a}}}, {"add", {Ref{next()}, 0.5}}, {"log", {Ref{next() + 1}}}};
      case 2:
        return {{"abs", {Ref{a}}}, {"add", {Ref{next()}, 0.25}}, {"rsqrt", {Ref{next() + 1}}}};
      default:
        return {{"abs", {Ref{a}}}, {"sqrt", {Ref{next()}}}};
      }
    case 3:
    case 4: {
      static const char* kBinary[] = {"add", "sub", "mul", "maximum"};
      const std::size_t b = operand_like(sa);
      return {{kBinary[coin(4)], coin(2) == 0 ? std::vector<Param>{Ref{a}, Ref{b}}
                                              : std::vector<Param>{Ref{b}, Ref{a}}}};
    }
    case 5: { // a / (|b| + 0.5), or a scalar op
      if (coin(2) == 0) {
        static const char* kScalar[] = {"add", "sub", "mul", "div"};
        return {{kScalar[coin(4)], {Ref{a}, coin(2) == 0 ? 1.5 : -0.75}}};
      }
      const std::size_t b = operand_like(sa);
      return {{"abs", {Ref{b}}}, {"add", {Ref{next()}, 0.5}}, {"div", {Ref{a}, Ref{next() + 1}}}};
    }
    case 6: { // pow of a positive base
      const double e =
          std::array<double, 4>{2.0, 0.5, 3.0, -1.5}[static_cast<std::size_t>(coin(4))];
      return {{"abs", {Ref{a}}}, {"add", {Ref{next()}, 0.5}}, {"pow", {Ref{next() + 1}, e}}};
    }
    case 7: { // where over a mask computed from a graph input
      const std::size_t c = add_input(sa, true);
      const std::size_t b = operand_like(sa);
      return {{"gt", {Ref{c}, 0.0}}, {"where", {Ref{next()}, Ref{a}, Ref{b}}}};
    }
    case 8:
    case 9: {
      static const char* kReduce[] = {"sum", "mean", "amax", "amin"};
      const char* op = kReduce[coin(4)];
      std::vector<std::int64_t> dims;
      if (rank > 0 && coin(4) != 0) {
        dims.push_back(dim_of(a));
      }
      const bool extremum = op[0] == 'a';
      std::int64_t len = 1;
      for (std::size_t i = 0; i < sa.size(); ++i) {
        const bool reduced = dims.empty() || (dims[0] + rank) % std::max<std::int64_t>(rank, 1) ==
                                                 static_cast<std::int64_t>(i);
        if (reduced) {
          len *= sa[i];
        }
      }
      if (extremum && len == 0) {
        return {}; // PyTorch refuses amax over nothing
      }
      note_reduction(len);
      return {{op, {Ref{a}, dims, coin(2) == 0}}};
    }
    case 10: {
      if (rank == 0) {
        return {};
      }
      const std::int64_t dim = dim_of(a);
      note_reduction(sa[static_cast<std::size_t>((dim + rank) % rank)]);
      return {{coin(2) == 0 ? "softmax" : "log_softmax", {Ref{a}, dim}}};
    }
    case 11:
    case 12: { // matmul with a new operand: [k] or [k, m], or bmm
      if (rank == 0) {
        return {};
      }
      const std::int64_t k = sa.back();
      note_reduction(k);
      if (rank == 3 && coin(2) == 0) {
        const std::size_t b = add_input({sa[0], k, random_size()}, true);
        return {{"bmm", {Ref{a}, Ref{b}}}};
      }
      const std::size_t b = add_input(coin(4) == 0 ? std::vector<std::int64_t>{k}
                                                   : std::vector<std::int64_t>{k, random_size()},
                                      true);
      return {{"matmul", {Ref{a}, Ref{b}}}};
    }
    case 13: { // layer_norm over the last dim
      if (rank == 0) {
        return {};
      }
      const std::int64_t len = sa.back();
      note_reduction(len);
      const std::size_t w = add_input({len}, false);
      const std::size_t b = add_input({len}, false);
      return {{"layer_norm", {Ref{a}, std::vector<std::int64_t>{len}, Ref{w}, Ref{b}, 1e-5}}};
    }
    case 14: { // slice, sometimes empty or past the end
      if (rank == 0) {
        return {};
      }
      const std::int64_t dim = dim_of(a);
      const std::int64_t size = sa[static_cast<std::size_t>((dim + rank) % rank)];
      auto bound = [&] {
        return static_cast<std::int64_t>(coin(static_cast<int>(2 * size + 5))) - size - 2;
      };
      const std::int64_t step = 1 + (coin(3) == 0 ? coin(3) : 0);
      return {{"slice", {Ref{a}, dim, bound(), coin(4) == 0 ? std::int64_t{30} : bound(), step}}};
    }
    case 15: {
      if (rank < 2) {
        return {
            {"unsqueeze", {Ref{a}, static_cast<std::int64_t>(coin(static_cast<int>(rank) + 1))}}};
      }
      std::vector<std::int64_t> perm(sa.size());
      for (std::size_t i = 0; i < perm.size(); ++i) {
        perm[i] = static_cast<std::int64_t>(i);
      }
      std::shuffle(perm.begin(), perm.end(), rng_);
      if (coin(2) == 0) {
        return {{"permute", {Ref{a}, perm}}};
      }
      return {{"transpose", {Ref{a}, perm[0], perm[1]}}};
    }
    case 16: { // expand a size-1 dim, or squeeze it
      for (std::size_t i = 0; i < sa.size(); ++i) {
        if (sa[i] == 1) {
          if (coin(2) == 0) {
            return {{"squeeze", {Ref{a}, static_cast<std::int64_t>(i)}}};
          }
          std::vector<std::int64_t> s = sa;
          s[i] = 3;
          return {{"expand", {Ref{a}, s}}};
        }
      }
      return {{"unsqueeze", {Ref{a}, std::int64_t{0}}}};
    }
    case 17: // flatten
      return {{"reshape", {Ref{a}, std::vector<std::int64_t>{-1}}}};
    case 18: {
      if (rank == 0) {
        return {};
      }
      return {{"cat", {Ref{a}, Ref{a}, dim_of(a)}}};
    }
    // pointwise, more
    case 19: { // unary: activations on any value; the rest of tanh(x) (exp-like growth, poles)
      switch (coin(13)) {
      case 0:
        return {{"atan", {Ref{a}}}};
      case 1:
        return {{"hardswish", {Ref{a}}}};
      case 2:
        return {{"leaky_relu", {Ref{a}, 0.1}}};
      case 3:
        return {{"elu", {Ref{a}, 1.3}}};
      case 4:
        return {{"softplus", {Ref{a}, 2.0, 1.0}}};
      case 5:
        return {{"abs", {Ref{a}}}, {"log1p", {Ref{next()}}}};
      case 6:
      case 7: { // asin, acos inside (-0.9, 0.9): finite gradients in f32
        return {{"tanh", {Ref{a}}},
                {"mul", {Ref{next()}, 0.9}},
                {coin(2) == 0 ? "asin" : "acos", {Ref{next() + 1}}}};
      }
      default: {
        static const char* kOfTanh[] = {"expm1", "tan", "sinh", "cosh", "nan_to_num"};
        return {{"tanh", {Ref{a}}}, {kOfTanh[coin(5)], {Ref{next()}}}};
      }
      }
    }
    case 20: { // minimum and clamps against a tensor or scalars
      static const char* kBinary[] = {"minimum", "clamp_min", "clamp_max"};
      const int pick = coin(5);
      if (pick < 3) {
        const std::size_t b = operand_like(sa);
        return {{kBinary[pick], {Ref{a}, Ref{b}}}};
      }
      if (pick == 3) {
        return {{"clamp", {Ref{a}, -0.5, 0.75}}};
      }
      const std::size_t lo = operand_like(sa);
      const std::size_t hi = operand_like(sa);
      return {{"clamp", {Ref{a}, Ref{lo}, Ref{hi}}}};
    }
    case 21: { // rounding, masks and NaN tests of graph inputs (no upstream rounding to flip)
      const std::size_t c = add_input(sa, true);
      switch (coin(5)) {
      case 0: {
        static const char* kRound[] = {"floor", "ceil", "round", "trunc", "sign"};
        return {{kRound[coin(5)], {Ref{c}}}, {"mul", {Ref{a}, Ref{next()}}}};
      }
      case 1: { // a mask of two masks, then where
        static const char* kCombine[] = {"logical_and", "logical_or", "logical_xor",
                                         "bitwise_and", "bitwise_or", "bitwise_xor"};
        const std::size_t d = add_input(sa, true);
        const std::size_t b = operand_like(sa);
        return {{"gt", {Ref{c}, 0.0}},
                {"gt", {Ref{d}, 0.5}},
                {kCombine[coin(6)], {Ref{next()}, Ref{next() + 1}}},
                {"where", {Ref{next() + 2}, Ref{a}, Ref{b}}}};
      }
      case 2:
        return {{"gt", {Ref{c}, 0.0}},
                {coin(2) == 0 ? "logical_not" : "bitwise_not", {Ref{next()}}},
                {"masked_fill", {Ref{a}, Ref{next() + 1}, -1.25}}};
      case 3: { // log of an input: NaN below 0
        const std::size_t b = operand_like(sa);
        return {{"log", {Ref{c}}},
                {"isnan", {Ref{next()}}},
                {"where", {Ref{next() + 1}, Ref{a}, Ref{b}}}};
      }
      default:
        return {
            {"log", {Ref{c}}}, {"nan_to_num", {Ref{next()}}}, {"mul", {Ref{a}, Ref{next() + 1}}}};
      }
    }
    // indexing, more
    case 22: { // index_select: repeated, unordered or no indices
      if (rank == 0) {
        return {};
      }
      const std::int64_t dim = dim_of(a);
      const std::int64_t size = sa[static_cast<std::size_t>((dim + rank) % rank)];
      std::vector<std::int64_t> rows(size == 0 ? 0 : static_cast<std::size_t>(coin(5)));
      for (std::int64_t& r : rows) {
        r = coin(static_cast<int>(size));
      }
      return {{"index_select", {Ref{a}, dim, rows}}};
    }
    case 23: { // narrow, start sometimes counted from the end
      if (rank == 0) {
        return {};
      }
      const std::int64_t dim = dim_of(a);
      const std::int64_t size = sa[static_cast<std::size_t>((dim + rank) % rank)];
      const std::int64_t start = coin(static_cast<int>(size) + 1);
      const std::int64_t length = coin(static_cast<int>(size - start) + 1);
      return {{"narrow", {Ref{a}, dim, coin(3) == 0 ? start - size : start, length}}};
    }
    case 24: { // tril / triu with a diagonal around 0
      if (rank < 2) {
        return {};
      }
      const std::int64_t diagonal = coin(7) - 3;
      return {{coin(2) == 0 ? "tril" : "triu", {Ref{a}, diagonal}}};
    }
    case 25: { // repeat (sometimes with a new leading dim) or roll (sometimes flattened)
      if (coin(2) == 0) {
        std::vector<std::int64_t> repeats(sa.size() + static_cast<std::size_t>(coin(2)));
        for (std::int64_t& r : repeats) {
          r = coin(3);
        }
        return {{"repeat", {Ref{a}, repeats}}};
      }
      const std::int64_t shift = coin(11) - 5;
      if (rank == 0 || coin(3) == 0) {
        return {{"roll", {Ref{a}, std::vector<std::int64_t>{shift}, std::vector<std::int64_t>{}}}};
      }
      return {{"roll",
               {Ref{a}, std::vector<std::int64_t>{shift}, std::vector<std::int64_t>{dim_of(a)}}}};
    }
    case 26: { // var or logsumexp over some dims
      std::vector<std::int64_t> dims;
      std::int64_t len = 1;
      for (std::int64_t d = 0; d < rank; ++d) {
        if (coin(2) == 0) {
          dims.push_back(coin(2) == 0 ? d : d - rank);
          len *= sa[static_cast<std::size_t>(d)];
        }
      }
      if (dims.empty()) {
        for (std::int64_t d : sa) {
          len *= d;
        }
      }
      note_reduction(len);
      if (coin(2) == 0) {
        // A correction of 1 over one element divides 0 by 0: PyTorch warns and its gradient is
        // whatever inf * 0 rounds to, so those draws use correction 0.
        const double correction = len > 1 ? static_cast<double>(coin(2)) : 0.0;
        return {{"var", {Ref{a}, dims, correction, coin(2) == 0}}};
      }
      return {{"logsumexp", {Ref{a}, dims, coin(2) == 0}}};
    }
    case 27: { // the losses, against a target input of the same shape; dropout
      std::int64_t len = 1;
      for (std::int64_t d : sa) {
        len *= d;
      }
      note_reduction(len);
      const std::size_t b = operand_like(sa);
      switch (coin(6)) {
      case 0:
        return {{"mse_loss", {Ref{a}, Ref{b}}}};
      case 1:
        return {{coin(2) == 0 ? "mse_loss_sum" : "mse_loss_none", {Ref{a}, Ref{b}}}};
      case 2:
      case 3:
        return {{"sigmoid", {Ref{b}}},
                {coin(2) == 0 ? "bce_with_logits" : "bce_with_logits_sum", {Ref{a}, Ref{next()}}}};
      default: {
        static constexpr double kP[] = {0.0, 0.25, 0.5, 0.75};
        return {{"dropout",
                 {Ref{a}, kP[coin(4)], std::int64_t{coin(1000)}, std::int64_t{coin(100000)}}}};
      }
      }
    }
    case 28: { // convolution, pooling, group_norm over an image batch (a new one when a is not)
      using Ints = std::vector<std::int64_t>;
      std::size_t x = a;
      Ints xs = sa;
      if (rank != 4) {
        xs = {1 + coin(2), 2 * (1 + coin(2)), 3 + coin(5), 3 + coin(5)};
        x = add_input(xs, true);
      }
      const std::int64_t channels = xs[1];
      auto pair = [&](std::int64_t lo, std::int64_t count) {
        return coin(2) == 0
                   ? Ints{lo + coin(static_cast<int>(count))}
                   : Ints{lo + coin(static_cast<int>(count)), lo + coin(static_cast<int>(count))};
      };
      auto first = [](const Ints& v) { return v[0]; };
      auto last = [](const Ints& v) { return v.back(); };
      switch (coin(5)) {
      case 0: {
        const std::int64_t groups = channels % 2 == 0 && coin(2) == 0 ? 2 : 1;
        const std::int64_t out = groups * (1 + coin(3));
        const Ints kernel = {1 + coin(3), 1 + coin(3)};
        note_reduction(channels / groups * kernel[0] * kernel[1]);
        const std::size_t w = add_input({out, channels / groups, kernel[0], kernel[1]}, false);
        const std::size_t b = add_input({out}, false);
        return {{"conv2d", {Ref{x}, Ref{w}, Ref{b}, pair(1, 2), pair(0, 2), pair(1, 2), groups}}};
      }
      case 1: {
        const Ints kernel = pair(1, 3);
        note_reduction(first(kernel) * last(kernel));
        const Ints padding = {coin(static_cast<int>(first(kernel) / 2 + 1)),
                              coin(static_cast<int>(last(kernel) / 2 + 1))};
        return {{"max_pool2d",
                 {Ref{x}, kernel, coin(3) == 0 ? Ints{} : pair(1, 2), padding, pair(1, 2),
                  coin(2) == 0}}};
      }
      case 2: {
        const Ints kernel = pair(1, 3);
        note_reduction(first(kernel) * last(kernel));
        const Ints padding = {coin(static_cast<int>(first(kernel) / 2 + 1)),
                              coin(static_cast<int>(last(kernel) / 2 + 1))};
        return {{"avg_pool2d",
                 {Ref{x}, kernel, coin(3) == 0 ? Ints{} : pair(1, 2), padding, coin(2) == 0,
                  coin(2) == 0}}};
      }
      case 3: {
        const Ints size = {1 + coin(4), 1 + coin(4)};
        note_reduction(xs[2] * xs[3]);
        return {{"adaptive_avg_pool2d", {Ref{x}, size}}};
      }
      default: {
        const std::int64_t groups = channels % 2 == 0 && coin(2) == 0 ? 2 : 1;
        note_reduction(channels / groups * xs[2] * xs[3]);
        const std::size_t w = add_input({channels}, false);
        const std::size_t b = add_input({channels}, false);
        return {{"group_norm", {Ref{x}, groups, Ref{w}, Ref{b}, 1e-5}}};
      }
      }
    }
    default: { // a sum over every element: its length sets the tolerance, as other reductions'
      const std::size_t b = operand_like(sa);
      std::int64_t len = 1;
      for (std::int64_t d : sa) {
        len *= d;
      }
      note_reduction(len);
      return {{"mul", {Ref{a}, Ref{b}}},
              {"sum", {Ref{next()}, std::vector<std::int64_t>{}, false}}};
    }
    }
  }

  void note_reduction(std::int64_t len) {
    p_.reduction_length = std::max(p_.reduction_length, len);
  }

  bool try_steps(const std::vector<Step>& steps) {
    if (steps.empty()) {
      return false;
    }
    const std::size_t pool_mark = pool_.size();
    for (const Step& s : steps) {
      try {
        pool_.push_back(apply_step(s, pool_));
        is_input_.push_back(false);
      } catch (const UserError&) {
        pool_.resize(pool_mark);
        is_input_.resize(pool_mark);
        return false;
      }
    }
    // Keep results small enough to print, and away from overflow.
    if (pool_.back().numel() > 4096) {
      pool_.resize(pool_mark);
      is_input_.resize(pool_mark);
      return false;
    }
    for (const Step& s : steps) {
      p_.steps.push_back(s);
    }
    return true;
  }

public:
  static Tensor make_input(const Input& in, bool requires_grad) {
    std::vector<std::int64_t> base = in.sizes;
    if (!in.perm.empty()) {
      for (std::size_t i = 0; i < in.sizes.size(); ++i) {
        base[static_cast<std::size_t>(in.perm[i])] = in.sizes[i];
      }
    }
    Tensor t = Tensor::from_values(in.values, base);
    if (in.boolean) {
      return to_dtype(t, DType::Bool);
    }
    t.set_requires_grad(requires_grad);
    return t;
  }

private:
  std::mt19937 rng_;
  Program p_;
  std::vector<Tensor> pool_;
  std::vector<bool> is_input_;
};

// ---------------------------------------------------------------- running a program

struct Run {
  std::vector<Tensor> outputs;
  std::vector<Tensor> grads; // per input (undefined for masks)
  std::string error;
};

std::vector<Tensor> run_steps(const Program& p, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> pool;
  for (const Step& s : p.steps) {
    pool.push_back(s.op == "input" ? inputs.at(static_cast<std::size_t>(int_of(s.params[0])))
                                   : apply_step(s, pool));
  }
  std::vector<Tensor> out;
  for (std::size_t o : p.outputs) {
    out.push_back(pool[o]);
  }
  return out;
}

Run run_program(const Program& p, bool compiled) {
  Run r;
  std::vector<Tensor> leaves;
  std::vector<Tensor> inputs;
  for (const Input& in : p.inputs) {
    leaves.push_back(Generator::make_input(in, !in.boolean));
    inputs.push_back(in.perm.empty() ? leaves.back() : permute(leaves.back(), in.perm));
  }
  try {
    if (!compiled) {
      r.outputs = run_steps(p, inputs);
    } else {
      // compile() takes tensors as separate arguments: one lambda per input count.
      auto body = [&p](auto... xs) { return run_steps(p, {xs...}); };
      const CompileOptions options{.name = "program"};
      switch (inputs.size()) {
      case 1:
        r.outputs = compile([&](const Tensor& a) { return body(a); }, options)(inputs[0]);
        break;
      case 2:
        r.outputs = compile([&](const Tensor& a, const Tensor& b) { return body(a, b); },
                            options)(inputs[0], inputs[1]);
        break;
      case 3:
        r.outputs = compile(
            [&](const Tensor& a, const Tensor& b, const Tensor& c) { return body(a, b, c); },
            options)(inputs[0], inputs[1], inputs[2]);
        break;
      case 4:
        r.outputs = compile([&](const Tensor& a, const Tensor& b, const Tensor& c,
                                const Tensor& d) { return body(a, b, c, d); },
                            options)(inputs[0], inputs[1], inputs[2], inputs[3]);
        break;
      case 5:
        r.outputs = compile([&](const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& d,
                                const Tensor& e) { return body(a, b, c, d, e); },
                            options)(inputs[0], inputs[1], inputs[2], inputs[3], inputs[4]);
        break;
      default:
        r.outputs =
            compile([&](const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& d,
                        const Tensor& e, const Tensor& f) { return body(a, b, c, d, e, f); },
                    options)(inputs[0], inputs[1], inputs[2], inputs[3], inputs[4], inputs[5]);
        break;
      }
    }
    // The loss: the sum of every result's sum.
    Tensor loss;
    for (const Tensor& o : r.outputs) {
      loss = loss.defined() ? add(loss, sum(o)) : sum(o);
    }
    if (loss.defined() && loss.requires_grad()) {
      loss.backward();
    }
    for (const Tensor& l : leaves) {
      r.grads.push_back(l.dtype() == DType::Bool ? Tensor() : l.grad());
    }
  } catch (const UserError& e) {
    r.error = e.message();
  }
  return r;
}

// ---------------------------------------------------------------- JSON

void number(std::ostream& o, double v) {
  if (std::isnan(v)) {
    o << "NaN";
  } else if (std::isinf(v)) {
    o << (v > 0 ? "Infinity" : "-Infinity");
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    o << buf;
  }
}

void ints(std::ostream& o, const std::vector<std::int64_t>& v) {
  o << '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    o << (i ? "," : "") << v[i];
  }
  o << ']';
}

void tensor(std::ostream& o, const Tensor& t) {
  if (!t.defined()) {
    o << "null";
    return;
  }
  o << "{\"sizes\":";
  ints(o, t.sizes());
  o << ",\"values\":[";
  const std::vector<double> v = t.to_vector();
  for (std::size_t i = 0; i < v.size(); ++i) {
    o << (i ? "," : "");
    number(o, v[i]);
  }
  o << "]}";
}

void param(std::ostream& o, const Param& p) {
  if (const auto* r = std::get_if<Ref>(&p)) {
    o << "{\"ref\":" << r->index << '}';
  } else if (const auto* i = std::get_if<std::int64_t>(&p)) {
    o << *i;
  } else if (const auto* d = std::get_if<double>(&p)) {
    o << "{\"float\":";
    number(o, *d);
    o << '}';
  } else if (const auto* b = std::get_if<bool>(&p)) {
    o << (*b ? "true" : "false");
  } else {
    ints(o, std::get<std::vector<std::int64_t>>(p));
  }
}

void run_json(std::ostream& o, const Run& r) {
  o << "{\"error\":";
  if (r.error.empty()) {
    o << "null";
  } else {
    o << '"';
    for (char c : r.error) {
      o << (c == '"' || c == '\\' ? '\'' : (c == '\n' ? ' ' : c));
    }
    o << '"';
  }
  o << ",\"outputs\":[";
  for (std::size_t i = 0; i < r.outputs.size(); ++i) {
    o << (i ? "," : "");
    tensor(o, r.outputs[i]);
  }
  o << "],\"grads\":[";
  for (std::size_t i = 0; i < r.grads.size(); ++i) {
    o << (i ? "," : "");
    tensor(o, r.grads[i]);
  }
  o << "]}";
}

void write(std::ostream& o, std::uint32_t seed, const Program& p, const Run& eager,
           const Run& compiled) {
  o << "{\"seed\":" << seed << ",\"reduction_length\":" << p.reduction_length << ",\"inputs\":[";
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const Input& in = p.inputs[i];
    o << (i ? "," : "") << "{\"sizes\":";
    ints(o, in.sizes);
    o << ",\"perm\":";
    ints(o, in.perm);
    o << ",\"bool\":" << (in.boolean ? "true" : "false") << ",\"values\":[";
    for (std::size_t j = 0; j < in.values.size(); ++j) {
      o << (j ? "," : "");
      number(o, in.values[j]);
    }
    o << "]}";
  }
  o << "],\"steps\":[";
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    o << (i ? "," : "") << "{\"op\":\"" << p.steps[i].op << "\",\"args\":[";
    for (std::size_t j = 0; j < p.steps[i].params.size(); ++j) {
      o << (j ? "," : "");
      param(o, p.steps[i].params[j]);
    }
    o << "]}";
  }
  o << "],\"outputs\":";
  std::vector<std::int64_t> outs(p.outputs.begin(), p.outputs.end());
  ints(o, outs);
  o << ",\"eager\":";
  run_json(o, eager);
  o << ",\"compiled\":";
  run_json(o, compiled);
  o << "}\n";
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: " << argv[0] << " FIRST_SEED COUNT OUT_DIR\n";
    return 2;
  }
  const auto first = static_cast<std::uint32_t>(std::stoul(argv[1]));
  const auto count = static_cast<std::uint32_t>(std::stoul(argv[2]));
  const std::filesystem::path dir = argv[3];
  std::filesystem::create_directories(dir);
  for (std::uint32_t seed = first; seed < first + count; ++seed) {
    const Program p = Generator(seed).make();
    if (p.outputs.empty()) {
      continue;
    }
    const Run eager = run_program(p, false);
    const Run compiled = run_program(p, true);
    std::ofstream out(dir / ("program_" + std::to_string(seed) + ".json"));
    write(out, seed, p, eager, compiled);
  }
  return 0;
}
