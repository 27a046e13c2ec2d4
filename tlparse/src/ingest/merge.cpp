// merge_indexes (tlparse/ingest/merge.h): each input is opened and checked by the read API first
// (what `tlparse render` would refuse is refused here, by name), then appended by the index
// writer with its ids moved; a failure rolls back that input alone.
#include "tlparse/ingest/merge.h"

#include "ingest/writer/index_writer.h"
#include "tlparse/index/index_reader.h"

#include <map>

namespace tlparse::ingest {
namespace {

namespace fs = std::filesystem;

// Why `path` cannot be merged, or empty. Opening checks that it is an index of ours and of this
// schema version with every declared table; quick_check reads every page (a truncated or
// overwritten file fails here, not halfway through the merge).
std::string refusal(const fs::path& path, const fs::path& output, const fs::path& replaces,
                    std::int64_t& files) {
  std::error_code ec;
  if (fs::equivalent(path, output, ec) ||
      (!replaces.empty() && fs::equivalent(path, replaces, ec))) {
    return "it is the output itself";
  }
  auto reader = index::IndexReader::open(path);
  if (!reader) {
    return reader.error();
  }
  if (const Status st = (*reader)->check_integrity(); !st) {
    return st.error();
  }
  auto list = (*reader)->files();
  if (!list) {
    return list.error();
  }
  if (list->empty()) {
    return "it holds no log file";
  }
  files = static_cast<std::int64_t>(list->size());
  return {};
}

} // namespace

MergeResult merge_indexes(const std::vector<fs::path>& inputs, const fs::path& output,
                          const MergeOptions& options) {
  MergeResult result;
  index::IndexWriter writer;
  if (!writer.open(output.string(), index::IndexWriter::Role::index, &result.error)) {
    return result;
  }
  const auto give_up = [&](std::string error) {
    std::string ignored;
    (void)writer.finish(false, &ignored);
    std::error_code ec;
    fs::remove(output, ec);
    result.ok = false;
    result.error = std::move(error);
    return result;
  };
  std::uint64_t done = 0;
  for (const fs::path& input : inputs) {
    if (options.cancel != nullptr && options.cancel->load()) {
      result.cancelled = true;
      return give_up("cancelled");
    }
    MergedPart part;
    part.path = input;
    part.problem = refusal(input, output, options.replaces, part.files);
    if (part.problem.empty()) {
      std::string error;
      if (writer.merge_index(input.string(), &error)) {
        part.merged = true;
        part.first_file = result.files + 1;
        result.files += part.files;
      } else {
        part.problem = std::move(error);
      }
    }
    result.parts.push_back(std::move(part));
    if (options.on_progress) {
      options.on_progress(++done, inputs.size());
    }
  }
  if (result.files == 0) {
    return give_up("no index could be merged");
  }
  std::string error;
  if (!writer.finish(options.search_table, &error)) {
    return give_up(error);
  }
  // The counters summed over every file, read back through the read API.
  auto reader = index::IndexReader::open(output);
  if (!reader) {
    return give_up(reader.error());
  }
  auto files = (*reader)->files();
  if (!files) {
    return give_up(files.error());
  }
  std::map<std::string, std::int64_t> totals;
  std::vector<std::string> order;
  for (const index::File& f : *files) {
    auto counters = (*reader)->health(f.id);
    if (!counters) {
      return give_up(counters.error());
    }
    for (const index::HealthCounter& h : *counters) {
      auto [it, fresh] = totals.emplace(h.counter, 0);
      if (fresh) {
        order.push_back(h.counter);
      }
      it->second += h.count;
    }
  }
  for (const std::string& name : order) {
    if (totals[name] != 0) {
      result.health_totals.emplace_back(name, totals[name]);
    }
  }
  result.ok = true;
  return result;
}

} // namespace tlparse::ingest
