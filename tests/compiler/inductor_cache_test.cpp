// The on-disk compile cache: a miss then a hit (no code generation), corrupt and stale entries
// reported and replaced, an unwritable folder, the entry parser on malformed bytes, and the
// fx_graph_cache_* artifacts with PyTorch's fields.
#include "compiler/capture/compile.h"
#include "compiler/inductor/inductor.h"
#include "compiler/inductor/metrics.h"
#include "compiler/ops/ops.h"
#include "inductor/cache/cache_entry.h"
#include "inductor/cache/fx_graph_cache.h"
#include "inductor_compare.h"
#include "support/test_paths.h"
#include "tracer/trace.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace compiler;
namespace fs = std::filesystem;

namespace {

Tensor f(const Tensor& x) {
  return sum(add(exp(x), sin(x)), {1});
}

Tensor input() {
  return Tensor::from_values({0.1, -0.5, 2.0, 3.5, -1.25, 0.75}, {2, 3});
}

// Points the cache at `dir` for the scope.
struct CacheDirScope {
  explicit CacheDirScope(const fs::path& dir) : saved(inductor::config()) {
    inductor::config().cache_dir = dir.string();
    inductor::config().fx_graph_cache = true;
  }
  ~CacheDirScope() { inductor::config() = saved; }
  inductor::Config saved;
};

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() == ".entry") {
      out.push_back(e.path());
    }
  }
  return out;
}

} // namespace

TEST_CASE("inductor cache: a second compile of the same graph loads the machine code",
          "[inductor][cache]") {
  test_support::TempDir dir;
  CacheDirScope scope(dir.path());
  inductor::reset_counters();
  const Tensor x = input();
  auto first = compile(f);
  const Tensor a = first(x);
  CHECK(inductor::counters().cache_misses == 1);
  REQUIRE(entries(dir.path()).size() == 1);
  // The output code sits beside the entry, as PyTorch's does.
  CHECK(fs::exists(fs::path(entries(dir.path())[0]).replace_extension(".py")));
  auto second = compile(f);
  const Tensor b = second(x);
  CHECK(inductor::counters().cache_hits == 1);
  CHECK(a.to_vector() == b.to_vector());
  CHECK_CLOSE(b, f(x));
}

TEST_CASE("inductor cache: a corrupt or stale entry is reported once, recompiled and replaced",
          "[inductor][cache]") {
  test_support::TempDir dir;
  CacheDirScope scope(dir.path());
  const Tensor x = input();
  compile(f)(x);
  const fs::path entry = entries(dir.path()).at(0);
  std::string bytes = test_support::read_file(entry);
  SECTION("corrupt: flipped bytes") {
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
  }
  SECTION("corrupt: truncated") {
    bytes.resize(bytes.size() / 3);
  }
  SECTION("stale: written for another key") {
    inductor::ParsedEntry parsed = inductor::parse_entry(bytes);
    REQUIRE(parsed.entry);
    parsed.entry->key_text += "another build";
    bytes = inductor::serialize_entry(*parsed.entry);
  }
  SECTION("stale: machine code without the kernels") {
    inductor::ParsedEntry parsed = inductor::parse_entry(bytes);
    REQUIRE(parsed.entry);
    parsed.entry->object = "not an object file";
    bytes = inductor::serialize_entry(*parsed.entry);
  }
  {
    std::ofstream out(entry, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  inductor::reset_counters();
  const Tensor got = compile(f)(x);
  CHECK_CLOSE(got, f(x));
  CHECK(inductor::counters().cache_hits == 0);
  // The replacement is a good entry: the next compile hits.
  REQUIRE(inductor::parse_entry(test_support::read_file(entry)).entry);
  const Tensor again = compile(f)(x);
  CHECK(inductor::counters().cache_hits == 1);
  CHECK(again.to_vector() == got.to_vector());
}

TEST_CASE("inductor cache: an unwritable folder compiles without caching", "[inductor][cache]") {
  test_support::TempDir dir;
  const fs::path file = dir.path() / "a_file";
  std::ofstream(file) << "x";
  CacheDirScope scope(file / "cache"); // under a regular file: cannot be created
  const Tensor x = input();
  CHECK_CLOSE(compile(f)(x), f(x));
  CHECK_CLOSE(compile(f)(x), f(x));
}

TEST_CASE("inductor cache: the entry parser rejects every truncation and corruption",
          "[inductor][cache]") {
  inductor::CacheEntry e{"key", std::string(300, 'o'), "ir", {"k0", "k1"}, 42};
  const std::string bytes = inductor::serialize_entry(e);
  const inductor::ParsedEntry good = inductor::parse_entry(bytes);
  REQUIRE(good.entry);
  CHECK(good.entry->kernel_names == std::vector<std::string>{"k0", "k1"});
  CHECK(good.entry->codegen_ns == 42);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    CHECK_FALSE(inductor::parse_entry(bytes.substr(0, n)).entry);
  }
  for (std::size_t i = 0; i < bytes.size(); i += 7) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 1);
    CHECK_FALSE(inductor::parse_entry(bad).entry);
  }
}

TEST_CASE("inductor cache: keys follow everything the code depends on", "[inductor][cache]") {
  GIVEN("two captures of graphs that differ only in a constant") {
    test_support::TempDir dir;
    CacheDirScope scope(dir.path());
    const Tensor x = input();
    compile([](const Tensor& t) { return mul(t, 2.0); })(x);
    compile([](const Tensor& t) { return mul(t, 3.0); })(x);
    CHECK(entries(dir.path()).size() == 2);
    compile([](const Tensor& t) { return mul(t, 2.0); })(transpose(x, 0, 1));
    CHECK(entries(dir.path()).size() == 3); // other strides: another key
  }
}

TEST_CASE("inductor cache: fx_graph_cache_miss and _hit carry PyTorch's fields",
          "[inductor][cache][trace]") {
  test_support::TempDir dir;
  CacheDirScope scope(dir.path() / "cache");
  REQUIRE(tracer::start({.directory = (dir.path() / "trace").string()}));
  const Tensor x = input();
  compile(f)(x);
  compile(f)(x);
  const std::string path = tracer::log_path();
  tracer::stop();
  const std::string log = test_support::read_file(path);
  for (const char* field :
       {"\"cache_status_detailed\": \"full_miss\"", "\"cache_state\": \"miss\"",
        "\"time_taken_ns\": ", "\"cache_status_detailed\": \"hit\"", "\"cache_state\": \"hit\"",
        "\"time_saved_ns\": ", "\"components\": [", "\"key\": \"f",
        "\"cache_event_time\": ", "\"name\": \"fx_graph_cache_miss\"",
        "\"name\": \"fx_graph_cache_hit\"", "] gm: ", "\"inductor_post_grad_graph\": {}"}) {
    INFO(field);
    CHECK(log.find(field) != std::string::npos);
  }
}

TEST_CASE("inductor cache: a constant read twice and two equal-shaped constants are two keys",
          "[inductor][cache]") {
  // Tensors a function closes over are constants of its graph. layer_norm(x, w, w) and
  // layer_norm(x, w, b) have the same ops and shapes; a key without the constants' identity
  // gave them one entry, and the second loaded machine code built for the first (a crash).
  test_support::TempDir dir;
  CacheDirScope scope(dir.path());
  const Tensor x = Tensor::from_values({0.5, -1.0, 2.0, 0.25, 3.0, -2.5}, {2, 3});
  const Tensor w = Tensor::from_values({1.5, -0.5, 2.0}, {3});
  const Tensor b = Tensor::from_values({0.25, 0.75, -1.0}, {3});
  const auto same = [&](const Tensor& t) { return layer_norm(t, {3}, w, w); };
  const auto distinct = [&](const Tensor& t) { return layer_norm(t, {3}, w, b); };
  CHECK_CLOSE(compile(same)(x), same(x));
  CHECK_CLOSE(compile(distinct)(x), distinct(x));
  CHECK(entries(dir.path()).size() == 2);
  // And the other way round, from a fresh cache.
  test_support::TempDir dir2;
  CacheDirScope scope2(dir2.path());
  CHECK_CLOSE(compile(distinct)(x), distinct(x));
  CHECK_CLOSE(compile(same)(x), same(x));
  CHECK(entries(dir2.path()).size() == 2);
}
