// Data parallel training of a compiled MLP (the model of train_mlp, smaller): each rank
// compiles the model, trains on its shard of every batch and averages the gradients with
// DistributedDataParallel, so after N steps every rank holds the parameters one process
// training on the whole batch would hold. Run it through the launcher, or alone (one rank):
//   scripts/torchscope-run --nproc-per-node 4 build/release/samples/sample_ddp_train --steps 5
//   TORCH_TRACE=/tmp/trace scripts/torchscope-run --nproc-per-node 2 ./sample_ddp_train
// --out PREFIX writes each rank's final parameters to PREFIX.rank<N>.txt (one value a line),
// which tests/compiler/distributed_test.cpp compares with a one-process run.
// Each rank starts from other random weights (seeded by its rank): DDP's broadcast of rank 0's
// parameters is what makes the replicas equal.
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/distributed/data_parallel.h"
#include "compiler/distributed/process_group.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "compiler/optim/optim.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

using namespace compiler;

namespace {

constexpr std::int64_t kFeatures = 32;
constexpr std::int64_t kHidden = 64;
constexpr std::int64_t kClasses = 10;

std::shared_ptr<nn::Sequential> make_model(std::uint64_t seed) {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(kFeatures, kHidden, true, seed), std::make_shared<nn::GELU>(),
      std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{kHidden}),
      std::make_shared<nn::Linear>(kHidden, kClasses, true, seed + 1)});
}

struct Arguments {
  int steps = 5;
  std::int64_t batch = 32;
  std::string out;
};

Arguments parse(int argc, char** argv) {
  Arguments a;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--steps") == 0 && has_value) {
      a.steps = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--batch") == 0 && has_value) {
      a.batch = std::atoll(argv[++i]);
    } else if (std::strcmp(argv[i], "--out") == 0 && has_value) {
      a.out = argv[++i];
    } else {
      throw UserError(std::string("ddp_train: unknown argument '") + argv[i] +
                          "' (usage: ddp_train [--steps N] [--batch B] [--out PREFIX])",
                      std::source_location::current());
    }
  }
  if (a.steps < 1 || a.batch < 1) {
    throw UserError("ddp_train: --steps and --batch must be positive",
                    std::source_location::current());
  }
  return a;
}

void write_parameters(const std::string& path, const nn::Module& model) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    throw UserError("ddp_train: cannot write " + path, std::source_location::current());
  }
  for (const auto& [name, p] : model.named_parameters()) {
    for (double v : p.to_vector()) {
      std::fprintf(f, "%s %.9g\n", name.c_str(), v);
    }
  }
  std::fclose(f);
}

int run(const Arguments& args) {
  // Started by a launcher: one rank of a group; alone: a group of one.
  std::shared_ptr<distributed::ProcessGroup> pg =
      distributed::ProcessGroup::environment_has_rank()
          ? distributed::ProcessGroup::from_environment()
          : distributed::ProcessGroup::create({.rank = 0, .world_size = 1});
  const int rank = pg->rank();
  const int world = pg->world_size();
  if (args.batch % world != 0) {
    throw UserError("ddp_train: --batch " + std::to_string(args.batch) + " does not split into " +
                        std::to_string(world) + " equal shards",
                    std::source_location::current());
  }
  auto model = make_model(11 + 100 * static_cast<std::uint64_t>(rank));
  distributed::DistributedDataParallel ddp(pg, *model);
  auto forward = [](nn::Sequential& m, const Tensor& x) { return m(x); };
  auto cmodel = compile(forward, {.name = "ddp_forward", .arg_names = {"model", "x"}});
  optim::SGD opt(model->parameters(), {.lr = 0.1, .momentum = 0.9});
  const Tensor teacher = randn({kFeatures, kClasses}, 99);
  const std::int64_t shard = args.batch / world;

  for (int step = 0; step < args.steps; ++step) {
    // Every rank draws the same whole batch and keeps its shard.
    const Tensor batch = randn({args.batch, kFeatures}, static_cast<std::uint64_t>(1000 + step));
    const Tensor x = batch.slice(0, shard * rank, shard * (rank + 1)).contiguous();
    Tensor y;
    {
      autograd::NoGradGuard no_grad;
      y = argmax(matmul(x, teacher), 1);
    }
    const Tensor loss = cross_entropy(cmodel(*model, x), y);
    loss.backward();
    ddp.synchronize_gradients();
    opt.step();
    opt.zero_grad();
    Tensor mean_loss = loss.detach().contiguous();
    pg->all_reduce_average(mean_loss);
    if (rank == 0) {
      std::printf("ddp_train: step %d loss %.6f (%d rank(s), %lld samples each)\n", step,
                  mean_loss.item_double(), world, static_cast<long long>(shard));
    }
  }
  std::printf("ddp_train: rank %d of %d: %lld compile(s), %zu gradient bucket(s)\n", rank, world,
              static_cast<long long>(cmodel.stats().compiles), ddp.buckets().size());
  if (!args.out.empty()) {
    write_parameters(args.out + ".rank" + std::to_string(rank) + ".txt", *model);
  }
  pg->barrier();
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const UserError& e) {
    std::fprintf(stderr, "ddp_train: error: %s\n", e.what());
    return 2;
  }
}
