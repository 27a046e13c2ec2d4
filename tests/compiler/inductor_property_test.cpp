// Randomised property: random programs over every op of the op list (broadcasting,
// reductions, views, composites, dtypes), compiled with Inductor, give eager's results within
// the stated tolerances (tests/compiler/inductor_compare.h: f32 2e-5 relative to the element
// and the result's scale, f16 2e-3, bf16 1.6e-2, integers and bools exact), for two sizes of the
// leading dim (the second call recompiles with that dim symbolic). Every sample runs generated
// code (counted) and checks every result. Comparisons, argmax and float-to-integer conversions
// read graph inputs only, so a rounding difference upstream cannot flip a boolean or an index.
#include "compiler/capture/compile.h"
#include "compiler/inductor/metrics.h"
#include "compiler/ops/ops.h"
#include "inductor_compare.h"
#include "inductor_test_data.h"

#include <catch2/catch.hpp>
#include <functional>
#include <random>
#include <set>

using namespace compiler;

namespace {

// One step of a program: reads tensors from the pool (by index) and adds one.
struct Step {
  std::function<Tensor(const std::vector<Tensor>&)> run;
  std::string name;
};

struct Program {
  std::vector<Step> steps;
  std::size_t inputs = 2;
};

// Builds a random program over inputs [B, 6, 5] (f32), [5] (f32) and [B, 6] (an int tensor in
// [0, 5)), B varying between calls. Each step is chosen from a table; it records which ops ran.
class Generator {
public:
  explicit Generator(std::uint32_t seed) : rng_(seed) {}

  Program make(int length) {
    Program p;
    p.inputs = 3;
    // Pool entries known at generation time: rank and kind, to pick valid operands.
    kinds_ = {{3, Kind::Float, true}, {1, Kind::Float, true}, {2, Kind::Index, true}};
    for (int i = 0; i < length; ++i) {
      p.steps.push_back(step());
    }
    return p;
  }

private:
  enum class Kind { Float, Index, Other };
  struct Info {
    int rank;
    Kind kind;
    bool input;
  };

  std::size_t pick(std::function<bool(const Info&)> ok) {
    std::vector<std::size_t> c;
    for (std::size_t i = 0; i < kinds_.size(); ++i) {
      if (ok(kinds_[i])) {
        c.push_back(i);
      }
    }
    return c.empty() ? 0 : c[std::uniform_int_distribution<std::size_t>(0, c.size() - 1)(rng_)];
  }
  int coin(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  Step add_step(std::string name, int rank, Kind kind,
                std::function<Tensor(const std::vector<Tensor>&)> fn) {
    kinds_.push_back({rank, kind, false});
    return {std::move(fn), std::move(name)};
  }

  Step step() {
    const std::size_t a = pick([](const Info& i) { return i.kind == Kind::Float; });
    const int ra = kinds_[a].rank;
    const std::size_t v = 1; // the [5] vector broadcasts against any last dim of 5
    switch (coin(24)) {
    case 0: {
      const std::size_t b =
          pick([&](const Info& i) { return i.kind == Kind::Float && i.rank == ra; });
      const int op = coin(5);
      return add_step("binary", ra, Kind::Float, [=](const std::vector<Tensor>& t) {
        const Tensor& x = t[a];
        const Tensor& y = kinds_ok(t[b], x) ? t[b] : x;
        switch (op) {
        case 0:
          return add(x, y);
        case 1:
          return sub(x, mul(y, 0.5));
        case 2:
          return mul(x, y);
        case 3:
          return div(x, add(abs(y), 1.0));
        default:
          return pow(add(abs(x), 0.5), 1.5);
        }
      });
    }
    case 1:
      if (ra >= 1) {
        return add_step("broadcast", ra, Kind::Float,
                        [=](const std::vector<Tensor>& t) { return add(t[a], t[v]); });
      }
      [[fallthrough]];
    case 2: {
      const int op = coin(11);
      const bool tanh_form = coin(2) == 1;
      return add_step("unary", ra, Kind::Float, [=](const std::vector<Tensor>& t) {
        const Tensor& x = t[a];
        switch (op) {
        case 0:
          return exp(mul(tanh(x), 2.0));
        case 1:
          return log(add(abs(x), 0.5));
        case 2:
          return sin(x);
        case 3:
          return cos(x);
        case 4:
          return sigmoid(x);
        case 5:
          return relu(neg(x));
        case 6:
          return gelu(x, tanh_form ? "tanh" : "none");
        case 7:
          return sqrt(abs(x));
        case 8:
          return silu(x);
        case 9:
          return tanh(x);
        default:
          return abs(x);
        }
      });
    }
    case 3: {
      // Comparisons and where, on inputs only.
      const std::size_t in = pick([](const Info& i) { return i.input && i.kind == Kind::Float; });
      const int r = kinds_[in].rank;
      return add_step("where", r, Kind::Float, [=](const std::vector<Tensor>& t) {
        const Tensor& x = t[in];
        return where(gt(x, 0.25), x, neg(x));
      });
    }
    case 4: {
      const std::size_t in = pick([](const Info& i) { return i.input && i.kind == Kind::Float; });
      const int r = kinds_[in].rank;
      const int to = coin(4);
      return add_step("to_dtype", r, to == 3 ? Kind::Other : Kind::Float,
                      [=](const std::vector<Tensor>& t) {
                        const Tensor& x = t[in];
                        switch (to) {
                        case 0:
                          return to_dtype(to_dtype(x, DType::Float16), DType::Float32);
                        case 1:
                          return to_dtype(to_dtype(x, DType::BFloat16), DType::Float32);
                        case 2:
                          return to_dtype(to_dtype(mul(x, 10.0), DType::Int32), DType::Float32);
                        default:
                          return to_dtype(x, DType::Int64);
                        }
                      });
    }
    case 5:
    case 6: {
      if (ra == 0) {
        return step();
      }
      const std::int64_t d = coin(ra);
      const bool keep = coin(2) == 1;
      const int op = coin(4);
      return add_step("reduction", keep ? ra : ra - 1, Kind::Float,
                      [=](const std::vector<Tensor>& t) {
                        switch (op) {
                        case 0:
                          return sum(t[a], {d}, keep);
                        case 1:
                          return mean(t[a], {d}, keep);
                        case 2:
                          return amax(t[a], {d}, keep);
                        default:
                          return amin(t[a], {d}, keep);
                        }
                      });
    }
    case 7: {
      const std::size_t in = pick([](const Info& i) { return i.input && i.kind == Kind::Float; });
      const int r = kinds_[in].rank;
      const std::int64_t d = coin(r);
      return add_step("argmax", r - 1, Kind::Other,
                      [=](const std::vector<Tensor>& t) { return argmax(t[in], d); });
    }
    case 8:
      if (ra >= 1) {
        const std::int64_t d = coin(ra);
        const bool log = coin(2) == 1;
        return add_step("softmax", ra, Kind::Float, [=](const std::vector<Tensor>& t) {
          return log ? log_softmax(t[a], d) : softmax(t[a], d);
        });
      }
      return step();
    case 9: {
      const std::size_t x =
          pick([](const Info& i) { return i.kind == Kind::Float && i.rank >= 1; });
      const int r = kinds_[x].rank;
      return add_step("layer_norm", r, Kind::Float, [=](const std::vector<Tensor>& t) {
        const std::int64_t last = t[x].sizes().back();
        if (last == 5) {
          return layer_norm(t[x], {5}, t[v], t[v]);
        }
        return layer_norm(t[x], {last});
      });
    }
    case 10:
      // A 3-D x 2-D product, a 2-D one, a batched one, and addmm.
      return add_step("matmul", 3, Kind::Float, [=](const std::vector<Tensor>& t) {
        const Tensor& x = t[0]; // [B, 6, 5]
        const Tensor w = reshape(expand(t[v], {SymInt(6), SymInt(5)}), {SymInt(5), SymInt(6)});
        Tensor y = matmul(x, w);                // [B, 6, 6]
        y = add(y, bmm(x, transpose(x, 1, 2))); // [B, 6, 6]
        const Tensor row = select_row(x);       // [6, 5]
        return add(
            y, unsqueeze(addmm(t[v].slice(0, 0, 1).expand({SymInt(6)}), row, transpose(row, 0, 1)),
                         0));
      });
    case 11:
      return add_step("embedding", 3, Kind::Float, [=](const std::vector<Tensor>& t) {
        const Tensor table = reshape(expand(t[v], {SymInt(5), SymInt(5)}), {SymInt(5), SymInt(5)});
        return embedding(add(table, 1.0), t[2]); // [B, 6, 5]
      });
    case 12:
      return add_step("cross_entropy", 0, Kind::Float, [=](const std::vector<Tensor>& t) {
        const Tensor logits = reshape(t[0], {SymInt(-1), SymInt(5)});
        const Tensor target = reshape(t[2], {SymInt(-1)});
        return cross_entropy(logits, target);
      });
    case 13:
    case 14: {
      const int op = coin(7);
      if (ra < 2 && op != 3 && op != 4) {
        return step();
      }
      const int out_rank = op == 3 ? ra + 1 : (op == 6 ? 1 : ra);
      return add_step("view", out_rank, Kind::Float, [=](const std::vector<Tensor>& t) {
        const Tensor& x = t[a];
        switch (op) {
        case 0:
          return mul(transpose(x, 0, 1), 2.0);
        case 1:
          return add(slice(x, -1, 1, x.size(-1), 2), 1.0);
        case 2:
          return contiguous(permute(x, reversed(x.dim())));
        case 3:
          return sin(unsqueeze(x, 0));
        case 4:
          return cos(expand(unsqueeze(x, 0), prepend(x, 2)));
        case 5:
          return squeeze(unsqueeze(exp(mul(x, 0.1)), 1), 1);
        default:
          return reshape(mul(transpose(x, 0, x.dim() - 1), 3.0), {SymInt(-1)});
        }
      });
    }
    case 15: {
      const std::size_t b =
          pick([&](const Info& i) { return i.kind == Kind::Float && i.rank == ra; });
      const bool stacked = coin(2) == 1;
      return add_step(stacked ? "stack" : "cat", stacked ? ra + 1 : ra, Kind::Float,
                      [=](const std::vector<Tensor>& t) {
                        const Tensor& x = t[a];
                        const Tensor& y = kinds_ok(t[b], x) ? t[b] : x;
                        if (stacked) {
                          return stack({x, neg(y)}, 0);
                        }
                        return ra == 0 ? stack({x, y}, 0) : cat({x, y, x}, ra - 1);
                      });
    }
    case 16:
      return add_step("factories", ra, Kind::Float, [=](const std::vector<Tensor>& t) {
        const Tensor& x = t[a];
        Tensor f = add(full(x.sym_sizes(), 1.5), ones(x.sym_sizes()));
        if (x.dim() >= 1) {
          f = add(f, to_dtype(arange(x.size(-1)), DType::Float32));
        }
        return mul(x, add(f, zeros(x.sym_sizes())));
      });
    case 17:
      return add_step("int_arith", 2, Kind::Other, [=](const std::vector<Tensor>& t) {
        const Tensor& i = t[2];
        return add(mul(i, i), sub(abs(neg(i)), relu(i)));
      });
    case 18:
      return add_step("bool", 2, Kind::Other, [=](const std::vector<Tensor>& t) {
        return to_dtype(ne(t[2], 3.0), DType::Int32);
      });
    case 19:
      return add_step("half_chain", ra, Kind::Float, [=](const std::vector<Tensor>& t) {
        const Tensor h = to_dtype(t[a], DType::Float16);
        return to_dtype(mul(add(h, h), 0.5), DType::Float32);
      });
    case 20:
      return add_step("randn", ra, Kind::Float, [=](const std::vector<Tensor>& t) {
        return add(t[a], randn(t[a].sym_sizes(), 3));
      });
    case 21: {
      // The prims the AOT stage's decompositions use.
      const std::size_t b =
          pick([&](const Info& i) { return i.kind == Kind::Float && i.rank == ra; });
      const int op = coin(4);
      // (mm's [6, 6] result is not reused: later steps assume a last dim of 5.)
      return add_step("prims", op == 3 ? 2 : ra, op == 3 ? Kind::Other : Kind::Float,
                      [=](const std::vector<Tensor>& t) {
                        const Tensor& x = t[a];
                        const Tensor& y = kinds_ok(t[b], x) ? t[b] : x;
                        switch (op) {
                        case 0:
                          return maximum(x, neg(y));
                        case 1:
                          return rsqrt(add(abs(x), 0.5));
                        case 2:
                          return erf(x);
                        default: {
                          const Tensor row = select_row(t[0]); // [6, 5]
                          return mm(row, transpose(row, 0, 1));
                        }
                        }
                      });
    }
    case 22: {
      // gather and scatter_add along the last dim with the index input ([B, 6] in [0, 5)).
      const bool scatter = coin(2) == 1;
      return add_step(scatter ? "scatter_add" : "gather", 3, Kind::Float,
                      [=](const std::vector<Tensor>& t) {
                        const Tensor index = unsqueeze(t[2], -1); // [B, 6, 1]
                        if (scatter) {
                          return scatter_add(t[0], 2, index, mul(slice(t[0], 2, 0, 1), 2.0));
                        }
                        return gather(t[0], 2, index);
                      });
    }
    default:
      return add_step("sum_all", 0, Kind::Float,
                      [=](const std::vector<Tensor>& t) { return sum(t[a]); });
    }
  }

  static bool kinds_ok(const Tensor& b, const Tensor& a) {
    return b.dtype() == a.dtype() && b.dim() == a.dim() && b.sizes() == a.sizes();
  }
  static Tensor select_row(const Tensor& x) { return squeeze(slice(x, 0, 0, 1), 0); }
  static std::vector<std::int64_t> reversed(std::int64_t rank) {
    std::vector<std::int64_t> p;
    for (std::int64_t i = rank; i-- > 0;) {
      p.push_back(i);
    }
    return p;
  }
  static std::vector<SymInt> prepend(const Tensor& x, std::int64_t n) {
    std::vector<SymInt> s = {SymInt(n)};
    for (const SymInt& d : x.sym_sizes()) {
      s.push_back(d);
    }
    return s;
  }

  std::mt19937 rng_;
  std::vector<Info> kinds_;
};

Tensor indices(std::int64_t b, double seed) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < b * 6; ++i) {
    v.push_back(static_cast<double>((i * 7 + static_cast<std::int64_t>(seed)) % 5));
  }
  return Tensor::from_values(v, {b, 6}, DType::Int64);
}

} // namespace

TEST_CASE("inductor property: random programs over every op equal eager within tolerance",
          "[inductor][property]") {
  const int samples = 60;
  std::set<std::string> kinds;
  for (int s = 0; s < samples; ++s) {
    Generator gen(static_cast<std::uint32_t>(1000 + s));
    const Program program = gen.make(6 + s % 7);
    std::vector<Tensor> results;
    auto fn = [&program](const Tensor& x, const Tensor& v, const Tensor& idx) {
      std::vector<Tensor> pool = {x, v, idx};
      for (const Step& st : program.steps) {
        pool.push_back(st.run(pool));
      }
      // Every value is a result, so every step is checked.
      return std::vector<Tensor>(pool.begin() + 3, pool.end());
    };
    for (const Step& st : program.steps) {
      kinds.insert(st.name);
    }
    auto compiled = compile(fn, {.name = "random_program"});
    for (std::int64_t b : {3, 5}) {
      const Tensor x = inductor_test::wave({b, 6, 5}, s, 1.7);
      const Tensor v = inductor_test::wave({5}, s + 0.5, 1.7);
      const Tensor idx = indices(b, s);
      const std::vector<Tensor> want = fn(x, v, idx);
      inductor::reset_counters();
      const std::vector<Tensor> got = compiled(x, v, idx);
      const inductor::Counters c = inductor::counters();
      INFO("sample " << s << " batch " << b);
      CHECK(c.kernel_launches + c.extern_calls > 0); // generated code ran
      REQUIRE(got.size() == want.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        INFO("result " << k << " (" << program.steps[k].name << ")");
        CHECK_CLOSE(got[k], want[k]);
      }
    }
  }
  // The samples covered every family of the generator.
  CHECK(kinds.size() >= 22);
}
