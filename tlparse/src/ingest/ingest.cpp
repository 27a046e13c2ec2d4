// ingest_files: the files of one run, read in parallel (one FileIngest a file, at most
// kMaxIngestThreads at once), the first straight into the index and the others into parts merged
// in file order, so the index is the same whatever the timing.
#include "tlparse/ingest/ingest.h"

#include "ingest/file_ingest.h"
#include "ingest/writer/index_writer.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace tlparse::ingest {
namespace {

// Progress over all files, from whichever worker reads: one total, reported in order.
class SharedProgress {
public:
  SharedProgress(const IngestOptions& options, size_t files) : options_(options), done_(files, 0) {}
  void set_total(uint64_t total) { total_ = total; }
  void update(size_t file, uint64_t done) {
    if (!options_.on_progress) {
      return;
    }
    std::lock_guard lock(mutex_);
    done_[file] = done;
    uint64_t sum = 0;
    for (const uint64_t d : done_) {
      sum += d;
    }
    options_.on_progress(sum, total_);
  }

private:
  const IngestOptions& options_;
  std::mutex mutex_;
  std::vector<uint64_t> done_;
  uint64_t total_ = 0;
};

// Removes the part files of a parallel ingest, whatever happens.
struct PartFiles {
  std::vector<std::filesystem::path> paths;
  ~PartFiles() {
    for (const auto& p : paths) {
      std::error_code ec;
      std::filesystem::remove(p, ec);
    }
  }
};

} // namespace

IngestResult ingest_files(const std::vector<std::filesystem::path>& logs,
                          const std::filesystem::path& index_path, const IngestOptions& options) {
  IngestResult result;
  const size_t n = logs.size();
  // Messages of parallel files must not interleave mid-line.
  std::mutex message_mutex;
  IngestOptions opts = options;
  if (options.on_message) {
    opts.on_message = [&](const std::string& m) {
      std::lock_guard lock(message_mutex);
      options.on_message(m);
    };
  }
  SharedProgress progress(options, n);
  // File i's ids start after the bytes of the files before it: a file has fewer rows in any table
  // than bytes, so each part's ids lie past the index's when it is merged, and it is appended as
  // stored (IndexWriter::merge_part; a part that outgrows its range, such as a gzip log's, has
  // its ids moved instead). The index is the same whatever the number of workers.
  std::vector<int64_t> id_base(n, 0);
  {
    uint64_t total = 0;
    for (size_t i = 0; i < n; ++i) {
      id_base[i] = static_cast<int64_t>(std::min<uint64_t>(total, INT64_MAX / 4));
      std::error_code ec;
      const auto size = std::filesystem::file_size(logs[i], ec);
      total += ec ? 0 : size;
    }
    progress.set_total(total);
  }
  // File 0 goes straight into the index; the others into parts, merged in order as they finish.
  // Workers are bounded (each holds a file's buffers), so memory does not grow with the files.
  const size_t wanted =
      options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::min<size_t>({n, wanted, kMaxIngestThreads});
  PartFiles parts;
  for (size_t i = 1; i < n; ++i) {
    parts.paths.push_back(index_path.string() + ".part" + std::to_string(i));
  }
  std::vector<FileResult> files(n);
  std::vector<std::string> errors(n);
  enum class State : char { pending, done, failed, cancelled };
  std::vector<State> state(n, State::pending);
  std::mutex mutex;
  std::condition_variable changed;
  std::atomic<size_t> next{0};
  std::atomic<bool> abort{false}; // set when a file fails: the others stop at their next line
  index::IndexWriter writer;
  if (!writer.open(index_path.string(), index::IndexWriter::Role::index, &result.error)) {
    return result;
  }
  const auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      std::string error;
      bool ok = true;
      bool was_cancelled = false;
      const auto report = [&](uint64_t done) { progress.update(i, done); };
      if (!abort.load()) {
        if (i == 0) {
          FileIngest ingest(writer, opts, &abort);
          ok = ingest.run(logs[0], 1, files[0], error, report);
          was_cancelled = ingest.cancelled();
        } else {
          index::IndexWriter part;
          ok = part.open(parts.paths[i - 1].string(), index::IndexWriter::Role::part, &error);
          if (ok) {
            part.start_ids_after(id_base[i]);
            FileIngest ingest(part, opts, &abort);
            ok = ingest.run(logs[i], static_cast<int64_t>(i + 1), files[i], error, report);
            was_cancelled = ingest.cancelled();
            ok = ok && part.finish(false, &error);
          }
        }
      } else {
        ok = false;
        was_cancelled = true;
      }
      if (!ok && !was_cancelled) {
        abort = true;
      }
      const std::lock_guard lock(mutex);
      state[i] = ok ? State::done : was_cancelled ? State::cancelled : State::failed;
      errors[i] = std::move(error);
      changed.notify_all();
    }
  };
  // One worker runs on this thread; several run on threads of their own while this one merges.
  std::vector<std::thread> threads;
  if (workers == 1) {
    work();
  } else {
    for (size_t w = 0; w < workers; ++w) {
      threads.emplace_back(work);
    }
  }
  // Merge in file order as the parts finish (the first file is already in the index).
  bool complete = true;
  for (size_t i = 0; i < n && complete; ++i) {
    State st;
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return state[i] != State::pending; });
      st = state[i];
    }
    if (st != State::done) {
      complete = false;
      break;
    }
    if (i > 0) {
      std::string error;
      if (!writer.merge_part(parts.paths[i - 1].string(), &error)) {
        errors[i] = std::move(error);
        complete = false;
        abort = true;
        break;
      }
      std::error_code ec;
      std::filesystem::remove(parts.paths[i - 1], ec);
    }
  }
  abort = abort || !complete;
  for (std::thread& t : threads) {
    t.join();
  }
  result.cancelled = options.cancel != nullptr && options.cancel->load();
  if (complete && !result.cancelled) {
    std::string error;
    if (writer.finish(options.search_table, &error)) {
      result.ok = true;
      result.files = std::move(files);
    } else {
      result.error = std::move(error);
    }
  } else {
    for (size_t i = 0; i < n && result.error.empty(); ++i) {
      if (!errors[i].empty() && state[i] != State::cancelled) {
        result.error = errors[i];
      }
    }
    if (result.error.empty()) {
      result.error = "cancelled";
    }
    std::string ignored;
    (void)writer.finish(false, &ignored);
  }
  if (!result.ok) {
    result.files.clear();
    std::error_code ec;
    std::filesystem::remove(index_path, ec);
  }
  return result;
}

} // namespace tlparse::ingest
