// Which files are logs: the one rule the CLI and the GUI share. A path naming a file is that log.
// A folder holds the regular files named `*.log` directly inside it (TORCH_TRACE writes one per
// process or rank, never in subfolders), sorted by name so file ids do not depend on the order
// the system lists them; subfolders, FIFOs and other special files are skipped, and so nothing
// loops or blocks on a strange folder. A symlink to a regular file counts as that file. A log may
// be gzip-compressed (`*.log.gz`); it is read inflated.
#pragma once

#include "tlparse/result.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace tlparse::ingest {

// Every log of `path` (a file, or a folder's logs). An error names what is wrong: the path does
// not exist, is not a regular file, or is a folder without logs.
Result<std::vector<std::filesystem::path>> find_logs(const std::filesystem::path& path);

// The log tlparse 0.4.3 picks in a folder (`tlparse FOLDER`, `--latest`): the most recently
// modified of its logs, ties broken by name; a folder with no `*.log` file falls back to its
// newest regular file, as 0.4.3 does.
Result<std::filesystem::path> newest_log(const std::filesystem::path& folder);

// The rank in a log's file name, as tlparse 0.4.3 reads it (--all-ranks-html and
// files.rank_from_name): `dedicated_log_torch_trace_rank_<N>[_anything].log` (or `.log.gz`),
// N being the digits before the first `_` after the prefix (a leading `+` is accepted, as Rust's
// u32 parser does).
std::optional<std::uint32_t> rank_of_log_name(std::string_view file_name);

// A log by its name: `*.log` or `*.log.gz`.
bool is_log_name(std::string_view file_name);

} // namespace tlparse::ingest
