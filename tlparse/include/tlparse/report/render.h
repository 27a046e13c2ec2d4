// The tlparse report: renders the compatible output folder (tlparse 0.4.3's layout and file
// names, docs/TLPARSE-INGEST.md and tlparse/src/report/README.md) from an index. The ingest decided
// every output (path, name, number, suffix, kind) and stored them in order; the renderer produces
// their bytes plus the global pages (index.html, failures_and_restarts.html,
// compile_directory.json, chromium_events.json, raw.log, raw.jsonl). Same index -> byte-identical
// folder.
//
// Everything from the log is HTML-escaped and UTF-8-repaired; every path is checked again before
// writing so nothing lands outside `out_dir`, even if the index was crafted by hand.
#pragma once

#include "tlparse/index/schema.gen.h"
#include "tlparse/result.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tlparse::index {
class IndexReader;
}

namespace tlparse::report {

// The files of a report besides its per-event outputs, named once here.
namespace files {
inline constexpr const char* index_html = "index.html";
inline constexpr const char* failures_html = "failures_and_restarts.html";
inline constexpr const char* compile_directory = "compile_directory.json";
inline constexpr const char* chromium_events = "chromium_events.json";
inline constexpr const char* raw_jsonl = "raw.jsonl";
inline constexpr const char* raw_log = "raw.log";
inline constexpr const char* index = "index.sqlite"; // the index the report was rendered from
// All of the above: names no per-event output may take (report/output_collisions.h).
inline constexpr const char* all[] = {
    index_html, failures_html, compile_directory, chromium_events, raw_jsonl, raw_log, index};
} // namespace files

// Every file (relative path) a report rendered from `reader` may hold: the files above and each
// output of every ingested file. What `tlparse --overwrite` may delete of a previous report.
Result<std::vector<std::string>> report_files(const tlparse::index::IndexReader& reader);

struct RenderOptions {
  // -p: inductor_output_code was stored as .txt payload outputs (the ingest decided the kinds;
  // this only changes wording on the index page).
  bool plain_text = false;
  // --custom-header-html: inserted verbatim at the top of index.html. It comes from the person
  // running the tool, not from the log, so it is trusted like tlparse does.
  std::string custom_header_html;
  // One rank of an --all-ranks-html report: index.html links the rank's collectives_parity.json
  // (written beside it by the multi-rank landing).
  bool multi_rank = false;
  // --all-ranks-html: also write the rank's chromium events, `pid` set to
  // `combined_chromium_pid`, into this new file (created here; must not exist), for the landing to
  // concatenate into the combined chromium_events.json (MultiRankOptions::chromium_parts).
  std::filesystem::path combined_chromium_part;
  std::uint32_t combined_chromium_pid = 0;
  // -i/--inductor-provenance: also write provenance_tracking_<folder>.html for every compile
  // folder (the three-panel highlighter) and list them on index.html.
  bool inductor_provenance = false;
  // --graphs and --serve: the provenance pages also link each graph's drawing under graphs/
  // (graph_pages.h). Off, they are as before.
  bool graph_links = false;
  // Stop at the first output that cannot be written (default: count it and go on).
  bool strict = false;
  // Which ingested file to render (single-rank mode renders one file); 0 = the first one.
  std::int64_t file_id = 0;
  // Path of the original log, for raw.log.
  std::filesystem::path raw_log_source;
  // With no raw_log_source: copy the file whose path the index stores as raw.log. Off by default
  // because an index is untrusted input (it is what people attach to bug reports): a tampered one
  // could name ~/.ssh/id_rsa, which would then be copied into a report meant to be shared. Turn
  // it on only for an index this process just wrote.
  bool raw_log_from_index = false;
  // The index file `reader` reads. When given, the renderer opens two more read-only
  // connections and writes chromium_events.json and raw.jsonl on their own threads while the
  // per-event outputs render (same bytes, less wall time).
  std::filesystem::path index_path;
  // Called now and then with the per-event outputs written so far (progress bars).
  std::function<void(std::uint64_t done, std::uint64_t total)> on_progress;
  // Polled between outputs: once true the render stops with an error ("cancelled").
  const std::atomic<bool>* cancel = nullptr;
};

struct RenderResult {
  bool ok = false;
  std::string error; // the first I/O failure when !ok
  std::uint64_t files_written = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t unsafe_paths_refused = 0; // paths that would have left out_dir
  std::uint64_t cache_hits = 0;           // outputs served from the (kind, payload) cache
  std::vector<std::string> warnings;      // e.g. raw.log source missing
  // Wall time of each phase ("outputs", "chromium_events.json", ...), for benchmarks and -v.
  std::vector<std::pair<std::string, double>> phase_seconds;
};

// The bytes the report writes for an output that holds its payload as text: payload_text and
// payload_copy, the payload; json_pretty, the payload pretty-printed with sorted keys (as logged
// when it is not JSON). For the kinds that are pages it is the payload as logged. The GUI shows
// artifacts through it, so both show the same text.
std::string text_output(index::OutputKind kind, std::string_view payload);

// Renders the report of one file of `reader` into `out_dir` (created if missing; existing files
// of the same names are replaced). Never throws for bad log data; returns !ok on I/O errors.
RenderResult render_report(const tlparse::index::IndexReader& reader, const RenderOptions& options,
                           const std::filesystem::path& out_dir);

// -e/--export: the export report instead of the compile report (docs/TLPARSE-EXPORT.md):
// index.html listing the issues draft export logged, symbolic_guard_information_<n>.html pages
// and the exported programs, named and numbered as tlparse 0.4.3 does in export mode.
RenderResult render_export_report(const tlparse::index::IndexReader& reader,
                                  const RenderOptions& options,
                                  const std::filesystem::path& out_dir);

} // namespace tlparse::report
