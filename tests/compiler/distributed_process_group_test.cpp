// The process group over Gloo, its DDP and the compiler collectives' exchange, with every rank a
// thread of this process (Gloo connects them over loopback TCP as it would processes): the
// collectives' results, the rendezvous' errors (a missing rank named, a world size that
// disagrees, a peer that stops answering) and DDP's buckets and averaging.
#include "compiler/capture/compile.h"
#include "compiler/capture/compiler_collectives.h"
#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"
#include "compiler/distributed/compiler_collectives.h"
#include "compiler/distributed/data_parallel.h"
#include "compiler/distributed/nccl.h"
#include "compiler/distributed/process_group.h"
#include "compiler/ops/ops.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace compiler;
using distributed::ProcessGroup;
using distributed::ReduceOp;

namespace {

using namespace std::chrono_literals;

distributed::RendezvousOptions rendezvous(const test_support::TempDir& dir, int rank, int world,
                                          std::chrono::milliseconds timeout = 20s) {
  return {.rank = rank,
          .world_size = world,
          .rendezvous_dir = dir.path().string(),
          .run_id = "test",
          .timeout = timeout};
}

// Runs `body` as every rank of a group of `world`, each in a thread; rethrows the first failure.
void run_ranks(int world, const std::function<void(ProcessGroup&)>& body) {
  test_support::TempDir dir("pg");
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(world));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        std::shared_ptr<ProcessGroup> pg = ProcessGroup::create(rendezvous(dir, r, world));
        body(*pg);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  for (const std::exception_ptr& e : errors) {
    if (e) {
      std::rethrow_exception(e);
    }
  }
}

// A TCP port nobody listens on now (the kernel's pick for port 0).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  socklen_t length = sizeof address;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

distributed::RendezvousOptions over_tcp(int port, int rank, int world,
                                        std::chrono::milliseconds timeout = 20s) {
  return {.rank = rank, .world_size = world, .master_port = port, .timeout = timeout};
}

Tensor values(std::vector<double> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return Tensor::from_values(v, {n});
}

// The message of the UserError `f` throws ("" when it throws none).
std::string user_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.message();
  }
  return "";
}

} // namespace

TEST_CASE("all_reduce sums and averages float tensors in place and out of place", "[distributed]") {
  std::mutex m;
  std::vector<std::vector<double>> sums(3), averages(3), kept(3);
  run_ranks(3, [&](ProcessGroup& pg) {
    const double r = pg.rank();
    Tensor t = values({r, 10.0 * r, 1.0});
    pg.all_reduce(t);
    Tensor a = values({r, 2.0});
    Tensor out = pg.all_reduced(a, ReduceOp::Average);
    std::lock_guard lock(m);
    sums[static_cast<std::size_t>(pg.rank())] = t.to_vector();
    averages[static_cast<std::size_t>(pg.rank())] = out.to_vector();
    kept[static_cast<std::size_t>(pg.rank())] = a.to_vector();
  });
  for (int r = 0; r < 3; ++r) {
    CHECK(sums[r] == std::vector<double>{3.0, 30.0, 3.0});
    CHECK(averages[r] == std::vector<double>{1.0, 2.0});
    CHECK(kept[r] == std::vector<double>{static_cast<double>(r), 2.0});
  }
}

TEST_CASE("broadcast, all_gather, all_gather_bytes and barrier", "[distributed]") {
  std::mutex m;
  std::vector<std::vector<double>> broadcast(2), gathered(2);
  std::vector<std::vector<std::string>> bytes(2);
  run_ranks(2, [&](ProcessGroup& pg) {
    Tensor b = values({pg.rank() + 5.0, -1.0});
    pg.broadcast(b, 1);
    std::vector<Tensor> all = pg.all_gather(values({pg.rank() * 2.0}));
    std::vector<std::string> text =
        pg.all_gather_bytes(std::string(pg.rank() + 1, 'a' + pg.rank()));
    pg.barrier();
    std::lock_guard lock(m);
    broadcast[pg.rank()] = b.to_vector();
    for (const Tensor& t : all) {
      gathered[pg.rank()].push_back(t.to_vector().at(0));
    }
    bytes[pg.rank()] = text;
  });
  for (int r = 0; r < 2; ++r) {
    CHECK(broadcast[r] == std::vector<double>{6.0, -1.0});
    CHECK(gathered[r] == std::vector<double>{0.0, 2.0});
    CHECK(bytes[r] == std::vector<std::string>{"a", "bb"});
  }
}

TEST_CASE("a rendezvous folder and run id serve runs one after another", "[distributed]") {
  test_support::TempDir dir("pg-reuse");
  for (int run = 0; run < 2; ++run) {
    std::vector<double> sums(2);
    std::vector<std::thread> threads;
    for (int r = 0; r < 2; ++r) {
      threads.emplace_back([&, r] {
        std::shared_ptr<ProcessGroup> pg = ProcessGroup::create(rendezvous(dir, r, 2, 5s));
        Tensor t = values({1.0 + run});
        pg->all_reduce(t);
        sums[static_cast<std::size_t>(r)] = t.to_vector().at(0);
        pg->barrier();
      });
    }
    for (std::thread& t : threads) {
      t.join();
    }
    CHECK(sums == std::vector<double>{2.0 + 2 * run, 2.0 + 2 * run});
    CHECK_FALSE(std::filesystem::exists(dir.path() / "test"));
  }
}

TEST_CASE("rendezvous over TCP at MASTER_ADDR:MASTER_PORT, and its errors", "[distributed]") {
  const int port = free_port();
  std::vector<double> sums(3);
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      std::shared_ptr<ProcessGroup> pg = ProcessGroup::create(over_tcp(port, r, 3));
      Tensor t = values({1.0 + r});
      pg->all_reduce(t);
      sums[static_cast<std::size_t>(r)] = t.to_vector().at(0);
      pg->barrier();
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  CHECK(sums == std::vector<double>{6.0, 6.0, 6.0});

  // Rank 2 of 3 never comes: ranks 0 and 1 name it.
  const int port2 = free_port();
  std::string error0, error1;
  std::thread one(
      [&] { error1 = user_error_of([&] { ProcessGroup::create(over_tcp(port2, 1, 3, 600ms)); }); });
  error0 = user_error_of([&] { ProcessGroup::create(over_tcp(port2, 0, 3, 600ms)); });
  one.join();
  INFO(error0 << " / " << error1);
  CHECK(error0.find("for rank 2 of 3, which never arrived") != std::string::npos);
  CHECK(error1.find("rank 2 of 3") != std::string::npos);

  // Nobody serves: a client gives up after the timeout, naming the address.
  const std::string lonely =
      user_error_of([&] { ProcessGroup::create(over_tcp(free_port(), 1, 2, 300ms)); });
  CHECK(lonely.find("no rendezvous server answered at 127.0.0.1:") != std::string::npos);
}

TEST_CASE("a group of one needs no rendezvous and its collectives are the identity",
          "[distributed]") {
  std::shared_ptr<ProcessGroup> pg = ProcessGroup::create({.rank = 0, .world_size = 1});
  Tensor t = values({1.5, 2.5});
  pg->all_reduce(t, ReduceOp::Average);
  CHECK(t.to_vector() == std::vector<double>{1.5, 2.5});
  CHECK(pg->all_gather_bytes("x") == std::vector<std::string>{"x"});
  pg->barrier();
}

TEST_CASE("bad collective arguments are user errors", "[distributed]") {
  std::shared_ptr<ProcessGroup> pg = ProcessGroup::create({.rank = 0, .world_size = 1});
  CHECK(user_error_of([&] {
          pg->all_reduce(Tensor::from_values({1.0}, {1}, DType::Int64));
        }).find("float32") != std::string::npos);
  CHECK(user_error_of([&] {
          pg->all_reduce(values({1, 2, 3, 4}).view({2, 2}).transpose(0, 1));
        }).find("contiguous") != std::string::npos);
  CHECK(user_error_of([&] { pg->broadcast(values({1.0}), 3); }).find("root 3") !=
        std::string::npos);
}

TEST_CASE("rendezvous errors: bad options, a missing rank named, world sizes that disagree",
          "[distributed]") {
  test_support::TempDir dir("pg-errors");
  CHECK(user_error_of([&] {
          ProcessGroup::create(rendezvous(dir, 2, 2));
        }).find("rank 2 is outside [0, 2)") != std::string::npos);
  CHECK(user_error_of([&] {
          ProcessGroup::create({.rank = 0, .world_size = 2});
        }).find("TORCHSCOPE_RENDEZVOUS_DIR") != std::string::npos);

  // Ranks 0 and 1 of 3 start; rank 2 never does. Both fail within the timeout, naming it.
  std::string missing0, missing1;
  const auto start = std::chrono::steady_clock::now();
  std::thread other([&] {
    missing1 = user_error_of([&] { ProcessGroup::create(rendezvous(dir, 1, 3, 400ms)); });
  });
  missing0 = user_error_of([&] { ProcessGroup::create(rendezvous(dir, 0, 3, 400ms)); });
  other.join();
  CHECK(std::chrono::steady_clock::now() - start < 10s);
  INFO(missing0);
  CHECK(missing0.find("for rank 2 of 3, which never arrived") != std::string::npos);
  CHECK(missing1.find("rank 2 of 3") != std::string::npos);

  // A second run in the same folder whose ranks were given different world sizes.
  test_support::TempDir dir2("pg-world");
  std::string wrong0, wrong1;
  std::thread peer(
      [&] { wrong1 = user_error_of([&] { ProcessGroup::create(rendezvous(dir2, 1, 3, 2s)); }); });
  wrong0 = user_error_of([&] { ProcessGroup::create(rendezvous(dir2, 0, 2, 2s)); });
  peer.join();
  INFO(wrong0 << " / " << wrong1);
  CHECK(wrong0.find("WORLD_SIZE") != std::string::npos);
  CHECK(wrong1.find("WORLD_SIZE") != std::string::npos);
}

TEST_CASE("a peer that does not join a collective is a user error after the timeout",
          "[distributed]") {
  test_support::TempDir dir("pg-timeout");
  std::string error;
  std::thread quiet([&] {
    std::shared_ptr<ProcessGroup> pg = ProcessGroup::create(rendezvous(dir, 1, 2, 500ms));
    std::this_thread::sleep_for(1500ms); // connected, but never calls all_reduce
  });
  {
    std::shared_ptr<ProcessGroup> pg = ProcessGroup::create(rendezvous(dir, 0, 2, 500ms));
    error = user_error_of([&] { pg->all_reduce(values({1.0})); });
  }
  quiet.join();
  INFO(error);
  CHECK(error.find("all_reduce(sum) on rank 0 of 2 failed") != std::string::npos);
}

TEST_CASE("ranks that pass tensors of different sizes get user errors, not a hang",
          "[distributed]") {
  test_support::TempDir dir("pg-sizes");
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      errors[static_cast<std::size_t>(r)] = user_error_of([&] {
        std::shared_ptr<ProcessGroup> pg = ProcessGroup::create(rendezvous(dir, r, 2, 1s));
        pg->all_reduce(values(std::vector<double>(r == 0 ? 4 : 1000, 1.0)));
      });
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  for (const std::string& e : errors) {
    INFO(e);
    CHECK(e.find("every rank must pass a tensor of the same size") != std::string::npos);
  }
}

TEST_CASE("the environment: RANK and WORLD_SIZE are required and must be integers",
          "[distributed]") {
  ::unsetenv("RANK");
  ::unsetenv("WORLD_SIZE");
  CHECK_FALSE(ProcessGroup::environment_has_rank());
  CHECK(user_error_of([] { ProcessGroup::from_environment(); }).find("RANK is not set") !=
        std::string::npos);
  ::setenv("RANK", "zero", 1);
  ::setenv("WORLD_SIZE", "1", 1);
  CHECK(user_error_of([] { ProcessGroup::from_environment(); }).find("RANK='zero'") !=
        std::string::npos);
  ::setenv("RANK", "0", 1);
  CHECK(ProcessGroup::from_environment()->world_size() == 1);
  ::setenv("MASTER_ADDR", "127.0.0.1", 1);
  CHECK(user_error_of([] { ProcessGroup::from_environment(); }).find("MASTER_PORT is not set") !=
        std::string::npos);
  ::setenv("MASTER_PORT", "70000", 1);
  CHECK(user_error_of([] { ProcessGroup::from_environment(); }).find("not a TCP port") !=
        std::string::npos);
  ::unsetenv("MASTER_ADDR");
  ::unsetenv("MASTER_PORT");
  ::unsetenv("RANK");
  ::unsetenv("WORLD_SIZE");
}

TEST_CASE("DDP: rank 0's parameters everywhere, gradients averaged in capped buckets",
          "[distributed]") {
  std::mutex m;
  std::vector<std::vector<double>> weights(2), grads(2), bias_grads(2);
  std::vector<std::vector<std::vector<std::size_t>>> buckets(2);
  run_ranks(2, [&](ProcessGroup& pg) {
    const double r = pg.rank();
    Tensor w = values({1.0 + r, 2.0 + r, 3.0 + r});
    Tensor b = values({r});
    Tensor u = values({7.0});
    for (Tensor* p : {&w, &b, &u}) {
      p->set_requires_grad(true);
    }
    // A 12-byte cap: w (12 bytes) fills a bucket; u and b share the other (last first).
    std::shared_ptr<ProcessGroup> shared(&pg, [](ProcessGroup*) {});
    distributed::DistributedDataParallel ddp(shared, {w, b, u}, {.bucket_cap_bytes = 12});
    sum(mul(w, values({r + 1.0, 1.0, 1.0})), {}).backward();
    sum(mul(b, values({2.0 * r})), {}).backward(); // u gets no gradient on either rank
    ddp.synchronize_gradients();
    std::lock_guard lock(m);
    weights[pg.rank()] = w.to_vector();
    grads[pg.rank()] = w.grad().to_vector();
    bias_grads[pg.rank()] = b.grad().to_vector();
    buckets[pg.rank()] = ddp.buckets();
    CHECK(u.grad().to_vector() == std::vector<double>{0.0});
  });
  for (int r = 0; r < 2; ++r) {
    CHECK(weights[r] == std::vector<double>{1.0, 2.0, 3.0});
    CHECK(grads[r] == std::vector<double>{1.5, 1.0, 1.0});
    CHECK(bias_grads[r] == std::vector<double>{1.0});
    CHECK(buckets[r] == std::vector<std::vector<std::size_t>>{{2, 1}, {0}});
  }
}

TEST_CASE("compiler collectives: a dim that differs on another rank is dynamic from the first "
          "compile, and equal sizes stay static",
          "[distributed]") {
  auto f = [](const Tensor& x) { return add(relu(x), x); };
  // A stand-in for the other rank: it saw 6 rows where this rank sees 8.
  capture::set_size_exchange([](const std::vector<capture::InputSizes>& local) {
    capture::SizeExchangeResult r;
    std::vector<capture::InputSizes> other = local;
    other.at(0).sizes.at(0) = 6;
    r.ranks = {local, other};
    return r;
  });
  auto with = compile(f, {.name = "f", .arg_names = {"x"}});
  with(values({1, 2, 3, 4, 5, 6, 7, 8}).view({8, 1}));
  with(values({1, 2, 3, 4, 5, 6}).view({6, 1}));
  capture::set_size_exchange({});
  REQUIRE(with.records().size() == 1);
  CHECK(with.records()[0].symbols.size() == 1);
  CHECK(with.stats().compiles == 1);

  // Every rank saw the same sizes: nothing is made dynamic.
  capture::set_size_exchange([](const std::vector<capture::InputSizes>& local) {
    return capture::SizeExchangeResult{{local, local}, 0};
  });
  auto same = compile(f, {.name = "f", .arg_names = {"x"}});
  same(values({1, 2, 3, 4}).view({4, 1}));
  capture::set_size_exchange({});
  REQUIRE(same.records().size() == 1);
  CHECK(same.records()[0].symbols.empty());
}

TEST_CASE("NCCL: loaded with dlopen, and a missing or foreign library is reported, not fatal",
          "[distributed]") {
  const distributed::NcclStatus absent = distributed::load_nccl({"/nonexistent/libnccl.so.2"});
  CHECK_FALSE(absent.available);
  CHECK(absent.unavailable_reason.find("/nonexistent/libnccl.so.2") != std::string::npos);
  const distributed::NcclStatus foreign = distributed::load_nccl({"libm.so.6"});
  CHECK_FALSE(foreign.available);
  CHECK(foreign.unavailable_reason.find("lacks ncclGetVersion") != std::string::npos);
  const distributed::NcclStatus& found = distributed::nccl_status();
  if (!found.available) {
    TORCHSCOPE_SKIP("NCCL is not installed: " << found.unavailable_reason);
  }
  CHECK(found.version >= 20000);
  CHECK_FALSE(found.library.empty());
}

TEST_CASE("NCCL: rank 0's communicator id reaches every rank, and without a GPU every rank fails "
          "to join with the reason",
          "[distributed]") {
  if (!distributed::nccl_status().available) {
    TORCHSCOPE_SKIP("NCCL is not installed");
  }
  std::mutex m;
  std::vector<std::string> ids(2), join_errors(2);
  run_ranks(2, [&](ProcessGroup& pg) {
    std::string id = distributed::nccl_unique_id(pg);
    std::string error;
    if (!cuda::is_available()) {
      error = user_error_of([&] { distributed::NcclCommunicator::create(pg, 0); });
    }
    std::lock_guard lock(m);
    ids[pg.rank()] = id;
    join_errors[pg.rank()] = error;
  });
  CHECK(ids[0].size() == 128);
  CHECK(ids[0] == ids[1]);
  CHECK(ids[0] != std::string(128, '\0'));
  if (!cuda::is_available()) {
    for (const std::string& e : join_errors) {
      INFO(e);
      CHECK(e.find("cannot join the communicator: no CUDA device") != std::string::npos);
    }
  }
}
