// `tlparse query SOURCE "SQL" [--format table|csv|json]` and `tlparse query --list`: SQL over an
// index and its views, read-only (IndexReader::query refuses anything but reads).
#include "cli/query_command.h"

#include "cli/index_source.h"
#include "tlparse/report/serde_json.h"
#include "tlparse/text/terminal_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace tlparse::cli {
namespace {

constexpr const char* kQueryHelp =
    "Run SQL over a trace's index (read-only) and print the rows\n\n"
    "Usage: tlparse query <SOURCE> <SQL> [--format table|csv|json]\n"
    "       tlparse query --list\n\n"
    "Arguments:\n"
    "  <SOURCE>  An index (index.sqlite), a report folder (its index.sqlite), a log, or a\n"
    "            folder of logs (indexed first into a temporary folder, removed afterwards)\n"
    "  <SQL>     One SELECT (or WITH ... SELECT) over the tables and views of the index\n"
    "            (docs/INDEX-SCHEMA.md); writes, ATTACH and load_extension are refused.\n"
    "            Large values are stored once by content: stored_value(value_id) and\n"
    "            logged_envelope(event_id) give them back as logged\n\n"
    "Options:\n"
    "      --format <F>  table (aligned, long values cut at 80 characters; default), csv\n"
    "                    (RFC 4180) or json (an array of objects)\n"
    "      --list        List the views with what each answers and an example query\n"
    "  -h, --help        Print help\n\n"
    "Example: tlparse query tl_out/index.sqlite \"SELECT compile, category, guard FROM "
    "recompiles\"\n";

constexpr size_t kTableCellMax = 80;
constexpr size_t kTableBufferedRows = 1000;

enum class Format { table, csv, json };

int usage(const std::string& message, const char* usage_line) {
  std::cerr << "error: " << message << "\n\n"
            << usage_line << "\nFor more information, try '--help'.\n";
  return 2;
}

std::string real_text(double v) {
  std::string out;
  report::write_f64(out, v);
  return out;
}

// A cell as text (NULL as empty; blobs by size).
std::string cell_text(const index::QueryValue& v) {
  switch (v.type) {
  case index::QueryValue::Type::null:
    return "";
  case index::QueryValue::Type::integer:
    return std::to_string(v.integer);
  case index::QueryValue::Type::real:
    return real_text(v.real);
  case index::QueryValue::Type::text:
    return v.bytes;
  case index::QueryValue::Type::blob:
    return "<blob " + std::to_string(v.bytes.size()) + " bytes>";
  }
  return "";
}

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (const char c : s) {
    n += (static_cast<unsigned char>(c) & 0xc0) != 0x80 ? 1 : 0;
  }
  return n;
}

// Cuts at `max` characters (never inside a UTF-8 sequence), marking the cut.
std::string cut(const std::string& s, size_t max) {
  if (display_width(s) <= max) {
    return s;
  }
  size_t chars = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80 && ++chars > max - 1) {
      break;
    }
  }
  return s.substr(0, i) + "…";
}

class TablePrinter {
public:
  explicit TablePrinter(std::vector<std::string> columns) : columns_(std::move(columns)) {
    for (const std::string& c : columns_) {
      widths_.push_back(display_width(c));
    }
  }
  void add(const std::vector<index::QueryValue>& row) {
    std::vector<std::string> cells;
    for (const auto& v : row) {
      cells.push_back(cut(printable(cell_text(v)), kTableCellMax));
    }
    ++rows_;
    if (!flushed_) {
      for (size_t c = 0; c < cells.size(); ++c) {
        widths_[c] = std::max(widths_[c], display_width(cells[c]));
      }
      buffered_.push_back(std::move(cells));
      if (buffered_.size() >= kTableBufferedRows) {
        flush();
      }
    } else {
      print(cells);
    }
  }
  void finish() {
    flush();
    std::cout << "(" << rows_ << (rows_ == 1 ? " row)\n" : " rows)\n");
  }

private:
  void flush() {
    if (flushed_) {
      return;
    }
    flushed_ = true;
    print(columns_);
    std::string rule;
    for (size_t c = 0; c < widths_.size(); ++c) {
      rule += (c ? "  " : "") + std::string(widths_[c], '-');
    }
    std::cout << rule << "\n";
    for (const auto& r : buffered_) {
      print(r);
    }
    buffered_.clear();
  }
  void print(const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      line += c ? "  " : "";
      line += cells[c];
      if (c + 1 < cells.size()) {
        const size_t w = display_width(cells[c]);
        line.append(w < widths_[c] ? widths_[c] - w : 0, ' ');
      }
    }
    std::cout << line << "\n";
  }
  std::vector<std::string> columns_;
  std::vector<size_t> widths_;
  std::vector<std::vector<std::string>> buffered_;
  bool flushed_ = false;
  uint64_t rows_ = 0;
};

void csv_field(std::string& out, const std::string& s, bool tty) {
  const std::string v = tty ? printable(s) : s;
  if (v.find_first_of(",\"\r\n") == std::string::npos) {
    out += v;
    return;
  }
  out += '"';
  for (const char c : v) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  out += '"';
}

void json_value(std::string& out, const index::QueryValue& v) {
  switch (v.type) {
  case index::QueryValue::Type::null:
    out += "null";
    return;
  case index::QueryValue::Type::integer:
    out += std::to_string(v.integer);
    return;
  case index::QueryValue::Type::real:
    if (!std::isfinite(v.real)) {
      out += "null"; // JSON has no NaN or infinity
    } else {
      report::write_f64(out, v.real);
    }
    return;
  case index::QueryValue::Type::text:
    report::write_json_string(out, text::valid_utf8(v.bytes));
    return;
  case index::QueryValue::Type::blob: {
    static const char* digits = "0123456789abcdef";
    out += "{\"blob_hex\":\"";
    for (const char c : v.bytes) {
      out += digits[static_cast<unsigned char>(c) >> 4];
      out += digits[static_cast<unsigned char>(c) & 15];
    }
    out += "\"}";
    return;
  }
  }
}

int list_views() {
  std::cout << "Views (tlparse query SOURCE \"SQL\"; columns and SQL in docs/INDEX-SCHEMA.md):\n";
  for (const auto& v : index::kViewInfos) {
    std::cout << "\n" << v.name << "\n  " << v.doc << "\n  example: " << v.example << "\n";
  }
  return 0;
}

} // namespace

int run_query_command(int argc, char** argv) {
  constexpr const char* kUsage = "Usage: tlparse query <SOURCE> <SQL> [--format table|csv|json]\n"
                                 "       tlparse query --list\n";
  std::vector<std::string> positional;
  Format format = Format::table;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << kQueryHelp;
      return 0;
    }
    if (arg == "--list") {
      list = true;
    } else if (arg == "--format" || arg.rfind("--format=", 0) == 0) {
      std::string f;
      if (arg == "--format") {
        if (i + 1 >= argc) {
          return usage("a value is required for '--format <F>'", kUsage);
        }
        f = argv[++i];
      } else {
        f = arg.substr(9);
      }
      if (f == "table") {
        format = Format::table;
      } else if (f == "csv") {
        format = Format::csv;
      } else if (f == "json") {
        format = Format::json;
      } else {
        return usage("--format is table, csv or json, not '" + printable(f) + "'", kUsage);
      }
    } else if (arg.size() > 1 && arg[0] == '-' && positional.size() != 1) {
      return usage("unexpected argument '" + printable(arg) + "' found", kUsage);
    } else {
      positional.push_back(arg);
    }
  }
  if (list) {
    return list_views();
  }
  if (positional.size() != 2) {
    return usage(
        positional.empty()       ? "the following required arguments were missing: <SOURCE> <SQL>"
        : positional.size() == 1 ? "the following required arguments were missing: <SQL>"
                                 : "unexpected argument '" + printable(positional[2]) + "' found",
        kUsage);
  }
  auto source = IndexSource::open(positional[0]);
  if (!source) {
    std::cerr << "Error: " << printable(source.error()) << "\n";
    return 1;
  }
  const bool tty = ::isatty(STDOUT_FILENO) != 0;
  std::optional<TablePrinter> table;
  std::vector<std::string> columns;
  std::string out;
  bool first_row = true;
  index::QueryOptions options;
  options.cancel = &interrupted();
  const Status st = (*source)->reader().query(
      positional[1],
      [&](const std::vector<std::string>& cols) {
        columns = cols;
        if (format == Format::table) {
          std::vector<std::string> shown;
          for (const auto& c : cols) {
            shown.push_back(printable(c));
          }
          table.emplace(std::move(shown));
        } else if (format == Format::csv) {
          for (size_t c = 0; c < cols.size(); ++c) {
            out += c ? "," : "";
            csv_field(out, cols[c], tty);
          }
          out += "\r\n";
        } else {
          out += "[";
        }
      },
      [&](const std::vector<index::QueryValue>& row) {
        if (format == Format::table) {
          table->add(row);
          return true;
        }
        if (format == Format::csv) {
          for (size_t c = 0; c < row.size(); ++c) {
            out += c ? "," : "";
            if (row[c].type != index::QueryValue::Type::null) {
              csv_field(out, cell_text(row[c]), tty);
            }
          }
          out += "\r\n";
        } else {
          out += first_row ? "\n  {" : ",\n  {";
          for (size_t c = 0; c < row.size(); ++c) {
            out += c ? ", " : "";
            report::write_json_string(out, columns[c]);
            out += ": ";
            json_value(out, row[c]);
          }
          out += "}";
        }
        first_row = false;
        if (out.size() > (1u << 20)) {
          std::cout << out;
          out.clear();
        }
        return true;
      },
      options);
  if (!st) {
    std::cout << out << std::flush;
    std::cerr << "Error: " << printable(st.error()) << "\n";
    return 1;
  }
  if (format == Format::table) {
    table->finish();
  } else if (format == Format::json) {
    out += first_row ? "]\n" : "\n]\n";
  }
  std::cout << out << std::flush;
  return 0;
}

} // namespace tlparse::cli
