// The process group over Gloo (distributed/process_group.h): a rendezvous of our own that can
// name the ranks missing, then Gloo's full mesh of TCP pairs and its collectives.
#include "compiler/distributed/process_group.h"

#include "compiler/core/errors.h"
#include "tcp_store.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/common/logging.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>
#include <map>
#include <sstream>
#include <system_error>
#include <thread>

namespace compiler::distributed {

namespace fs = std::filesystem;

namespace {

std::string seconds_text(std::chrono::milliseconds t) {
  std::ostringstream out;
  out << static_cast<double>(t.count()) / 1000.0 << " s";
  return out.str();
}

std::string join_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) {
    out += (out.empty() ? "" : ", ") + std::to_string(r);
  }
  return out;
}

std::optional<long long> parse_integer(std::string_view text) {
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

// The arrival files of the rendezvous: `arrived.<rank>` holding that rank's world size, written
// whole (a temporary file renamed) so that a reader never sees half of one.
void announce_arrival(const fs::path& dir, int rank, int world_size) {
  const fs::path final_path = dir / ("arrived." + std::to_string(rank));
  const fs::path temporary = dir / (".arriving." + std::to_string(rank));
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << world_size;
    if (!out) {
      throw UserError("process group: cannot write " + temporary.string() +
                          " (is the rendezvous folder writable?)",
                      std::source_location::current());
    }
  }
  std::error_code ec;
  fs::rename(temporary, final_path, ec);
  if (ec) {
    throw UserError("process group: cannot create " + final_path.string() + ": " + ec.message(),
                    std::source_location::current());
  }
}

// The arrivals in a rendezvous folder: rank -> the world size it announced.
std::map<long long, long long> arrivals_in(const fs::path& dir) {
  std::map<long long, long long> seen;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("arrived.")) {
      continue;
    }
    std::optional<long long> peer = parse_integer(std::string_view(name).substr(8));
    std::ifstream in(e.path());
    std::string text;
    std::getline(in, text);
    std::optional<long long> peer_world = parse_integer(text);
    if (peer && peer_world) {
      seen[*peer] = *peer_world;
    }
  }
  return seen;
}

// The arrivals in a TCP store (keys arrived.<rank>, as the folder's files).
std::map<long long, long long> arrivals_in(TcpStore& store, int world_size) {
  std::map<long long, long long> seen;
  for (int r = 0; r < world_size; ++r) {
    if (std::optional<std::vector<char>> v = store.try_get("arrived." + std::to_string(r))) {
      if (std::optional<long long> peer_world =
              parse_integer(std::string_view(v->data(), v->size()))) {
        seen[r] = *peer_world;
      }
    }
  }
  return seen;
}

// Waits until ranks 0..world_size-1 have all announced themselves with this world size;
// `arrivals` reads who has so far, `where` names the meeting place in messages.
template <class Arrivals>
void await_every_rank(Arrivals&& arrivals, const std::string& where, int rank, int world_size,
                      std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::vector<bool> seen(static_cast<std::size_t>(world_size), false);
    for (const auto& [peer, peer_world] : arrivals()) {
      if (peer_world != world_size || peer >= world_size) {
        throw UserError("process group: rank " + std::to_string(peer) +
                            " started with WORLD_SIZE=" + std::to_string(peer_world) +
                            " but rank " + std::to_string(rank) +
                            " with WORLD_SIZE=" + std::to_string(world_size) + " (rendezvous " +
                            where + "); every rank of a run must be given the same world size",
                        std::source_location::current());
      }
      seen[static_cast<std::size_t>(peer)] = true;
    }
    std::vector<int> missing;
    for (int r = 0; r < world_size; ++r) {
      if (!seen[static_cast<std::size_t>(r)]) {
        missing.push_back(r);
      }
    }
    if (missing.empty()) {
      return;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw UserError("process group: rank " + std::to_string(rank) + " waited " +
                          seconds_text(timeout) + " in " + where + " for rank" +
                          (missing.size() > 1 ? "s " : " ") + join_ranks(missing) + " of " +
                          std::to_string(world_size) +
                          ", which never arrived (did they start, with the same rendezvous "
                          "and run id?)",
                      std::source_location::current());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

const char* op_name(ReduceOp op) {
  return op == ReduceOp::Sum ? "sum" : "average";
}

} // namespace

struct ProcessGroup::Impl {
  int rank = 0;
  int world_size = 1;
  std::chrono::milliseconds timeout{};
  std::shared_ptr<gloo::rendezvous::Context> context;
  // Each collective gets a tag of its own, in the order every rank calls them.
  std::uint32_t next_tag = 1;

  // Runs one Gloo collective; its failures (a peer gone, a timeout) become UserErrors.
  template <class F>
  void run(const char* what, F&& collective) {
    try {
      collective(next_tag++);
    } catch (const gloo::Exception& e) {
      throw UserError(std::string("process group: ") + what + " on rank " + std::to_string(rank) +
                          " of " + std::to_string(world_size) + " failed: " + e.what() +
                          " (a peer exited, or did not call the same collective within " +
                          seconds_text(timeout) + ")",
                      current_call_site());
    } catch (const gloo::EnforceNotMet& e) {
      // Gloo's own checks: what ranks sent disagrees (sizes differ between ranks).
      throw UserError(std::string("process group: ") + what + " on rank " + std::to_string(rank) +
                          " of " + std::to_string(world_size) + " failed: " + e.what() +
                          " (did every rank pass a tensor of the same size?)",
                      current_call_site());
    }
  }

  // Gloo aborts the process when ranks pass buffers of different sizes to one collective, so
  // the sizes are compared first (one small all-gather; torch.distributed checks only under
  // TORCH_DISTRIBUTED_DEBUG=DETAIL, and hangs or crashes otherwise).
  void check_same_size(const char* what, std::size_t bytes) {
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(world_size));
    std::int64_t mine = static_cast<std::int64_t>(bytes);
    run(what, [&](std::uint32_t tag) {
      gloo::AllgatherOptions opts(context);
      opts.setInput(&mine, 1);
      opts.setOutput(sizes.data(), sizes.size());
      opts.setTag(tag);
      opts.setTimeout(timeout);
      gloo::allgather(opts);
    });
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      if (sizes[r] != mine) {
        throw UserError(std::string("process group: ") + what + ": rank " + std::to_string(r) +
                            " passed " + std::to_string(sizes[r]) + " bytes, rank " +
                            std::to_string(rank) + " " + std::to_string(mine) +
                            "; every rank must pass a tensor of the same size and dtype",
                        current_call_site());
      }
    }
  }

  // The bytes of a real, contiguous CPU tensor.
  static std::span<std::byte> bytes_of(const Tensor& t, const char* what) {
    if (!t.defined() || t.is_fake()) {
      user_error(std::string("process group: ") + what + " needs a real tensor");
    }
    if (!t.device().is_cpu()) {
      user_error(std::string("process group: ") + what +
                 " runs on CPU tensors over Gloo; this one is on " + t.device().str());
    }
    if (!t.is_contiguous()) {
      user_error(std::string("process group: ") + what +
                 " needs a contiguous tensor (call contiguous() first)");
    }
    auto* first = static_cast<std::byte*>(t.raw_data());
    return {first, static_cast<std::size_t>(t.numel()) * dtype_size(t.dtype())};
  }
};

ProcessGroup::ProcessGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProcessGroup::~ProcessGroup() = default;

int ProcessGroup::rank() const noexcept {
  return impl_->rank;
}
int ProcessGroup::world_size() const noexcept {
  return impl_->world_size;
}
std::chrono::milliseconds ProcessGroup::timeout() const noexcept {
  return impl_->timeout;
}

std::shared_ptr<ProcessGroup> ProcessGroup::create(const RendezvousOptions& options) {
  const std::source_location here = std::source_location::current();
  if (options.world_size < 1) {
    throw UserError("process group: world size must be at least 1, got " +
                        std::to_string(options.world_size),
                    here);
  }
  if (options.rank < 0 || options.rank >= options.world_size) {
    throw UserError("process group: rank " + std::to_string(options.rank) + " is outside [0, " +
                        std::to_string(options.world_size) + ")",
                    here);
  }
  if (options.timeout.count() <= 0) {
    throw UserError("process group: the timeout must be positive", here);
  }
  auto impl = std::make_unique<Impl>();
  impl->rank = options.rank;
  impl->world_size = options.world_size;
  impl->timeout = options.timeout;
  if (options.world_size == 1) {
    // One rank has nobody to meet: every collective is the identity.
    return std::shared_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
  }
  const bool over_tcp = options.rendezvous_dir.empty() && options.master_port != 0;
  if (options.rendezvous_dir.empty() && !over_tcp) {
    throw UserError("process group: a world of " + std::to_string(options.world_size) +
                        " ranks needs a rendezvous: a folder every rank shares "
                        "(TORCHSCOPE_RENDEZVOUS_DIR) or rank 0's address (MASTER_ADDR and "
                        "MASTER_PORT)",
                    here);
  }
  // The meeting place: a folder (Gloo's FileStore), or a TCP store that rank 0 serves.
  const fs::path run_dir =
      over_tcp ? fs::path() : fs::path(options.rendezvous_dir) / options.run_id;
  std::unique_ptr<TcpStore> tcp_store;
  std::unique_ptr<gloo::rendezvous::Store> file_store;
  const std::string arrived = std::to_string(options.world_size);
  if (over_tcp) {
    const std::string where = options.master_addr + ":" + std::to_string(options.master_port);
    tcp_store = std::make_unique<TcpStore>(options.master_addr, options.master_port,
                                           options.rank == 0, options.timeout);
    tcp_store->set("arrived." + std::to_string(options.rank),
                   std::vector<char>(arrived.begin(), arrived.end()));
    await_every_rank([&] { return arrivals_in(*tcp_store, options.world_size); }, where,
                     options.rank, options.world_size, options.timeout);
  } else {
    std::error_code ec;
    fs::create_directories(run_dir / "gloo", ec);
    if (ec) {
      throw UserError("process group: cannot create the rendezvous folder " + run_dir.string() +
                          ": " + ec.message(),
                      here);
    }
    announce_arrival(run_dir, options.rank, options.world_size);
    await_every_rank([&] { return arrivals_in(run_dir); }, run_dir.string(), options.rank,
                     options.world_size, options.timeout);
    file_store = std::make_unique<gloo::rendezvous::FileStore>((run_dir / "gloo").string());
  }
  gloo::rendezvous::Store& store = over_tcp ? *tcp_store : *file_store;
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = options.host;
    std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(options.rank, options.world_size);
    context->setTimeout(options.timeout);
    context->connectFullMesh(store, device);
    impl->context = std::move(context);
    // Every rank has read the store: once all are past this barrier, rank 0 clears the run's
    // files (or stops serving), so that a later run with the same id in the same folder meets
    // no stale arrival.
    gloo::BarrierOptions barrier(impl->context);
    barrier.setTag(0);
    barrier.setTimeout(options.timeout);
    gloo::barrier(barrier);
    if (options.rank == 0 && !over_tcp) {
      std::error_code ec;
      fs::remove_all(run_dir, ec);
    }
  } catch (const gloo::Exception& e) {
    throw UserError("process group: rank " + std::to_string(options.rank) +
                        " could not connect to its peers over TCP on " + options.host + ": " +
                        e.what(),
                    here);
  }
  return std::shared_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

bool ProcessGroup::environment_has_rank() {
  return std::getenv("RANK") != nullptr && std::getenv("WORLD_SIZE") != nullptr;
}

std::shared_ptr<ProcessGroup> ProcessGroup::from_environment() {
  const std::source_location here = std::source_location::current();
  auto integer = [&](const char* name, bool required) -> std::optional<long long> {
    const char* text = std::getenv(name);
    if (text == nullptr) {
      if (required) {
        throw UserError(std::string("process group: the environment variable ") + name +
                            " is not set (start the program with scripts/torchscope-run, or "
                            "set RANK, WORLD_SIZE and TORCHSCOPE_RENDEZVOUS_DIR)",
                        here);
      }
      return std::nullopt;
    }
    std::optional<long long> value = parse_integer(text);
    if (!value) {
      throw UserError(std::string("process group: ") + name + "='" + text + "' is not an integer",
                      here);
    }
    return value;
  };
  RendezvousOptions options;
  options.rank = static_cast<int>(*integer("RANK", true));
  options.world_size = static_cast<int>(*integer("WORLD_SIZE", true));
  if (const char* dir = std::getenv("TORCHSCOPE_RENDEZVOUS_DIR")) {
    options.rendezvous_dir = dir;
  } else if (const char* addr = std::getenv("MASTER_ADDR")) {
    options.master_addr = addr;
    std::optional<long long> port = integer("MASTER_PORT", true);
    if (*port <= 0 || *port > 65535) {
      throw UserError("process group: MASTER_PORT=" + std::to_string(*port) + " is not a TCP port",
                      here);
    }
    options.master_port = static_cast<int>(*port);
  }
  if (const char* id = std::getenv("TORCHSCOPE_RUN_ID")) {
    options.run_id = id;
  } else if (const char* elastic = std::getenv("TORCHELASTIC_RUN_ID")) {
    options.run_id = elastic;
  }
  if (options.run_id.empty() || options.run_id.find('/') != std::string::npos) {
    throw UserError(
        "process group: the run id '" + options.run_id + "' must be a non-empty folder name", here);
  }
  if (const char* host = std::getenv("TORCHSCOPE_GLOO_HOST")) {
    options.host = host;
  }
  if (std::optional<long long> seconds = integer("TORCHSCOPE_DIST_TIMEOUT_S", false)) {
    if (*seconds <= 0) {
      throw UserError("process group: TORCHSCOPE_DIST_TIMEOUT_S must be positive", here);
    }
    options.timeout = std::chrono::seconds(*seconds);
  }
  return create(options);
}

void ProcessGroup::all_reduce(std::span<float> values, ReduceOp op) {
  if (impl_->world_size > 1) {
    impl_->check_same_size(op == ReduceOp::Sum ? "all_reduce(sum)" : "all_reduce(average)",
                           values.size_bytes());
  }
  if (impl_->world_size > 1 && !values.empty()) {
    impl_->run(op == ReduceOp::Sum ? "all_reduce(sum)" : "all_reduce(average)",
               [&](std::uint32_t tag) {
                 gloo::AllreduceOptions opts(impl_->context);
                 opts.setOutput(values.data(), values.size());
                 opts.setReduceFunction(
                     static_cast<void (*)(void*, const void*, const void*, std::size_t)>(
                         &gloo::sum<float>));
                 opts.setTag(tag);
                 opts.setTimeout(impl_->timeout);
                 gloo::allreduce(opts);
               });
  }
  if (op == ReduceOp::Average && impl_->world_size > 1) {
    const float scale = 1.0f / static_cast<float>(impl_->world_size);
    for (float& v : values) {
      v *= scale;
    }
  }
}

void ProcessGroup::all_reduce(const Tensor& tensor, ReduceOp op) {
  std::span<std::byte> bytes = Impl::bytes_of(tensor, "all_reduce");
  if (tensor.dtype() != DType::Float32) {
    user_error(std::string("process group: all_reduce(") + op_name(op) +
               ") supports float32 tensors; this one is " +
               std::string(dtype_name(tensor.dtype())));
  }
  all_reduce(std::span<float>(reinterpret_cast<float*>(bytes.data()), bytes.size() / sizeof(float)),
             op);
}

Tensor ProcessGroup::all_reduced(const Tensor& tensor, ReduceOp op) {
  Tensor copy = Tensor::empty(tensor.sizes(), tensor.dtype());
  std::span<std::byte> from = Impl::bytes_of(tensor, "all_reduce");
  std::memcpy(copy.raw_data(), from.data(), from.size());
  all_reduce(copy, op);
  return copy;
}

void ProcessGroup::broadcast(const Tensor& tensor, int root) {
  if (root < 0 || root >= impl_->world_size) {
    user_error("process group: broadcast root " + std::to_string(root) + " is outside [0, " +
               std::to_string(impl_->world_size) + ")");
  }
  std::span<std::byte> bytes = Impl::bytes_of(tensor, "broadcast");
  if (impl_->world_size == 1) {
    return;
  }
  impl_->check_same_size("broadcast", bytes.size());
  if (bytes.empty()) {
    return;
  }
  impl_->run("broadcast", [&](std::uint32_t tag) {
    gloo::BroadcastOptions opts(impl_->context);
    opts.setOutput(reinterpret_cast<std::uint8_t*>(bytes.data()), bytes.size());
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(impl_->timeout);
    gloo::broadcast(opts);
  });
}

std::vector<Tensor> ProcessGroup::all_gather(const Tensor& tensor) {
  std::span<std::byte> bytes = Impl::bytes_of(tensor, "all_gather");
  const std::size_t ranks = static_cast<std::size_t>(impl_->world_size);
  std::vector<std::uint8_t> gathered(bytes.size() * ranks);
  if (ranks > 1) {
    impl_->check_same_size("all_gather", bytes.size());
  }
  if (ranks == 1 || bytes.empty()) {
    std::memcpy(gathered.data(), bytes.data(), bytes.size());
  } else {
    impl_->run("all_gather", [&](std::uint32_t tag) {
      gloo::AllgatherOptions opts(impl_->context);
      opts.setInput(reinterpret_cast<std::uint8_t*>(bytes.data()), bytes.size());
      opts.setOutput(gathered.data(), gathered.size());
      opts.setTag(tag);
      opts.setTimeout(impl_->timeout);
      gloo::allgather(opts);
    });
  }
  std::vector<Tensor> out;
  out.reserve(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    Tensor t = Tensor::empty(tensor.sizes(), tensor.dtype());
    std::memcpy(t.raw_data(), gathered.data() + r * bytes.size(), bytes.size());
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> ProcessGroup::all_gather_bytes(std::string_view bytes) {
  const std::size_t ranks = static_cast<std::size_t>(impl_->world_size);
  if (ranks == 1) {
    return {std::string(bytes)};
  }
  // Lengths first, then every rank's bytes padded to the longest.
  std::vector<std::int64_t> lengths(ranks);
  std::int64_t mine = static_cast<std::int64_t>(bytes.size());
  impl_->run("all_gather (lengths)", [&](std::uint32_t tag) {
    gloo::AllgatherOptions opts(impl_->context);
    opts.setInput(&mine, 1);
    opts.setOutput(lengths.data(), lengths.size());
    opts.setTag(tag);
    opts.setTimeout(impl_->timeout);
    gloo::allgather(opts);
  });
  const std::size_t longest =
      static_cast<std::size_t>(*std::max_element(lengths.begin(), lengths.end()));
  std::vector<std::uint8_t> padded(std::max<std::size_t>(longest, 1), 0);
  std::memcpy(padded.data(), bytes.data(), bytes.size());
  std::vector<std::uint8_t> gathered(padded.size() * ranks);
  impl_->run("all_gather", [&](std::uint32_t tag) {
    gloo::AllgatherOptions opts(impl_->context);
    opts.setInput(padded.data(), padded.size());
    opts.setOutput(gathered.data(), gathered.size());
    opts.setTag(tag);
    opts.setTimeout(impl_->timeout);
    gloo::allgather(opts);
  });
  std::vector<std::string> out;
  out.reserve(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto* first = reinterpret_cast<const char*>(gathered.data() + r * padded.size());
    out.emplace_back(first, static_cast<std::size_t>(lengths[r]));
  }
  return out;
}

void ProcessGroup::barrier() {
  if (impl_->world_size == 1) {
    return;
  }
  impl_->run("barrier", [&](std::uint32_t tag) {
    gloo::BarrierOptions opts(impl_->context);
    opts.setTag(tag);
    opts.setTimeout(impl_->timeout);
    gloo::barrier(opts);
  });
}

} // namespace compiler::distributed
