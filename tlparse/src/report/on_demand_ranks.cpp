// See OnDemandRanks in tlparse/report/on_demand.h. The landing is render_multi_rank_landing into
// a cache folder of its own; each rank's pages are its OnDemandReport's, each rank in a folder of
// its own, so no file of one can take the name of another's.
#include "tlparse/index/index_reader.h"
#include "tlparse/report/multi_rank.h"
#include "tlparse/report/on_demand.h"

#include <list>
#include <map>
#include <set>

namespace tlparse::report {
namespace {

// Ranks whose reports stay open: each holds its rank's compiles and outputs in memory.
constexpr std::size_t kOpenRankReports = 4;

} // namespace

struct OnDemandRanks::Impl {
  std::filesystem::path index;
  RenderOptions options;
  std::filesystem::path raw_logs;
  std::filesystem::path cache;
  std::unique_ptr<index::IndexReader> reader;
  std::vector<index::File> files;
  std::vector<RankFile> ranks;
  std::map<std::uint32_t, std::int64_t> file_of_rank;
  std::vector<std::string> warnings;
  bool landing_done = false;
  std::set<std::string> landing_files; // what the landing wrote
  std::list<std::pair<std::uint32_t, std::unique_ptr<OnDemandReport>>> open_reports; // newest first
};

OnDemandRanks::OnDemandRanks(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OnDemandRanks::~OnDemandRanks() = default;

std::size_t OnDemandRanks::rank_count() const {
  return impl_->ranks.size();
}

const std::vector<std::string>& OnDemandRanks::warnings() const {
  return impl_->warnings;
}

Result<std::unique_ptr<OnDemandRanks>> OnDemandRanks::open(const std::filesystem::path& index,
                                                           const RenderOptions& options,
                                                           const std::filesystem::path& raw_logs,
                                                           const std::filesystem::path& cache) {
  auto impl = std::make_unique<Impl>();
  impl->index = index;
  impl->options = options;
  impl->options.index_path.clear();
  impl->options.raw_log_from_index = false; // the index may come from anyone
  impl->raw_logs = raw_logs;
  impl->cache = cache;
  auto reader = index::IndexReader::open(index);
  if (!reader) {
    return Error{reader.error()};
  }
  if (const Status st = (*reader)->check_integrity(); !st) {
    return Error{st.error()};
  }
  impl->reader = std::move(reader).value();
  auto files = impl->reader->files();
  if (!files) {
    return Error{files.error()};
  }
  impl->files = std::move(files).value();
  impl->ranks = ranks_of_files(impl->files, impl->warnings);
  if (impl->ranks.empty()) {
    return Error{index.string() + " holds no rank's log"};
  }
  for (const RankFile& r : impl->ranks) {
    impl->file_of_rank[r.rank] = r.file_id;
  }
  std::error_code ec;
  std::filesystem::create_directories(cache, ec);
  if (ec) {
    return Error{"cannot create the page cache " + cache.string() + ": " + ec.message()};
  }
  return std::unique_ptr<OnDemandRanks>(new OnDemandRanks(std::move(impl)));
}

Result<std::optional<std::filesystem::path>> OnDemandRanks::file(const std::string& relative) {
  Impl& s = *impl_;
  const std::filesystem::path landing_dir = s.cache / "landing";
  const auto from_landing = [&]() -> Result<std::optional<std::filesystem::path>> {
    if (!s.landing_done) {
      MultiRankOptions mo;
      mo.custom_header_html = s.options.custom_header_html;
      const MultiRankResult r = render_multi_rank_landing(*s.reader, s.ranks, mo, landing_dir);
      if (!r.ok) {
        return Error{r.error};
      }
      s.landing_files.insert(r.written.begin(), r.written.end());
      s.landing_done = true;
    }
    if (s.landing_files.count(relative) == 0) {
      return std::optional<std::filesystem::path>();
    }
    return std::optional<std::filesystem::path>(landing_dir / relative);
  };
  // rank_<N>/<rest>: rank N's page, unless the landing writes it (collectives_parity.json).
  const std::string prefix = "rank_";
  const auto slash = relative.find('/');
  if (!relative.starts_with(prefix) || slash == std::string::npos) {
    return from_landing();
  }
  const std::string digits = relative.substr(prefix.size(), slash - prefix.size());
  if (digits.empty() || digits.size() > 10 ||
      digits.find_first_not_of("0123456789") != std::string::npos ||
      (digits.size() > 1 && digits.front() == '0')) {
    return std::optional<std::filesystem::path>();
  }
  const unsigned long long number = std::stoull(digits);
  const auto found = number <= UINT32_MAX ? s.file_of_rank.find(static_cast<std::uint32_t>(number))
                                          : s.file_of_rank.end();
  if (found == s.file_of_rank.end()) {
    return std::optional<std::filesystem::path>();
  }
  const std::string rest = relative.substr(slash + 1);
  if (rest == files::collectives_parity) {
    return from_landing();
  }
  const std::uint32_t rank = found->first;
  auto it = s.open_reports.begin();
  while (it != s.open_reports.end() && it->first != rank) {
    ++it;
  }
  if (it != s.open_reports.end()) {
    s.open_reports.splice(s.open_reports.begin(), s.open_reports, it);
  } else {
    RenderOptions ro = s.options;
    ro.file_id = found->second;
    ro.multi_rank = true;
    ro.raw_log_source.clear();
    for (const index::File& f : s.files) {
      if (f.id == found->second) {
        ro.raw_log_source = rank_log_in(s.raw_logs, f);
      }
    }
    if (rest == files::raw_log && ro.raw_log_source.empty()) {
      return std::optional<std::filesystem::path>();
    }
    auto report = OnDemandReport::open(s.index, ro, s.cache / rank_folder(rank));
    if (!report) {
      return Error{report.error()};
    }
    s.open_reports.emplace_front(rank, std::move(report).value());
    if (s.open_reports.size() > kOpenRankReports) {
      s.open_reports.pop_back();
    }
  }
  return s.open_reports.front().second->file(rest);
}

} // namespace tlparse::report
