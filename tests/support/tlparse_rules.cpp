#include "support/tlparse_rules.h"

#include "support/test_paths.h"

#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <regex>
#include <simdjson.h>

namespace test_support {

namespace {

// RFC 1321 written a second way (table-free round functions) so the tracer's MD5 is checked
// against an independent implementation.
struct Md5Ref {
  std::uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  static std::uint32_t rol(std::uint32_t x, int c) { return (x << c) | (x >> (32 - c)); }
  void block(const unsigned char* p) {
    std::uint32_t x[16];
    for (int i = 0; i < 16; ++i) {
      std::memcpy(&x[i], p + 4 * i, 4); // little-endian host (x86_64)
    }
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    static const int s[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
    for (int i = 0; i < 64; ++i) {
      std::uint32_t f;
      int g;
      const int round = i / 16;
      if (round == 0) {
        f = d ^ (b & (c ^ d));
        g = i;
      } else if (round == 1) {
        f = c ^ (d & (b ^ c));
        g = (5 * i + 1) & 15;
      } else if (round == 2) {
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
      }
      // K[i] = floor(abs(sin(i + 1)) * 2^32), computed rather than tabulated.
      const auto k = static_cast<std::uint32_t>(static_cast<std::uint64_t>(
          std::abs(std::sin(static_cast<double>(i + 1))) * 4294967296.0));
      const std::uint32_t tmp = d;
      d = c;
      c = b;
      b = b + rol(a + f + k + x[g], s[round][i % 4]);
      a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
  }
};

bool is_hex_lower(std::string_view s) {
  if (s.size() != 32) {
    return false;
  }
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t extra = 0;
    if (c < 0x80) {
      extra = 0;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
    } else {
      return false;
    }
    if (extra != 0 && i + extra >= s.size()) {
      return false;
    }
    for (std::size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
        return false;
      }
    }
    i += extra + 1;
  }
  return true;
}

} // namespace

std::string md5_hex(const std::string& bytes) {
  Md5Ref m;
  std::string data = bytes;
  const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
  data.push_back(static_cast<char>(0x80));
  while (data.size() % 64 != 56) {
    data.push_back('\0');
  }
  for (int i = 0; i < 8; ++i) {
    data.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
  }
  for (std::size_t off = 0; off < data.size(); off += 64) {
    m.block(reinterpret_cast<const unsigned char*>(data.data() + off));
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (std::uint32_t w : m.h) {
    for (int k = 0; k < 4; ++k) {
      const unsigned byte = (w >> (8 * k)) & 0xFF;
      out.push_back(hex[byte >> 4]);
      out.push_back(hex[byte & 15]);
    }
  }
  return out;
}

TlparseRuleCounts parse_by_tlparse_rules(const std::string& text) {
  // The glog regex (docs/TLPARSE-INGEST.md, "The glog prefix"), verbatim in meaning (unanchored,
  // '.' unescaped, no space before the pathname group so it keeps the leading space).
  static const std::regex glog(
      R"(([VIWEC])(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2}).(\d{6}) (\d+)([^:]+):(\d+)\] (.))");
  TlparseRuleCounts counts;
  std::vector<std::pair<std::int64_t, std::string>> lines;
  {
    std::size_t pos = 0;
    std::int64_t lineno = 0;
    while (pos <= text.size()) {
      std::size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) {
        nl = text.size();
      }
      std::string line = text.substr(pos, nl - pos);
      ++lineno;
      if (!line.empty() && line.back() == '\r') {
        line.pop_back();
      }
      if (!line.empty() && valid_utf8(line)) {
        lines.emplace_back(lineno, std::move(line));
      }
      if (nl == text.size()) {
        break;
      }
      pos = nl + 1;
    }
  }
  simdjson::dom::parser parser;
  std::optional<std::int64_t> expected_rank;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& [lineno, line] = lines[i];
    std::smatch m;
    if (!std::regex_search(line, m, glog)) {
      ++counts.fail_glog;
      continue;
    }
    const std::size_t json_start = static_cast<std::size_t>(m.position(11));
    std::string envelope = line.substr(json_start);
    simdjson::dom::element root;
    if (parser.parse(envelope).get(root) != simdjson::SUCCESS || !root.is_object()) {
      counts.fail_json += 2; // tlparse counts the envelope and the raw.jsonl re-parse
      continue;
    }
    simdjson::dom::object obj = root.get_object();
    ParsedEvent ev;
    ev.line = lineno;
    ev.level = m.str(1);
    ev.pathname = m.str(9);
    ev.source_line = std::stoll(m.str(10));
    ev.envelope = envelope;
    static const char* kContext[] = {
        "frame_id", "frame_compile_id", "attempt", "compiled_autograd_id", "rank", "has_payload"};
    for (auto field : obj) {
      std::string_view k = field.key;
      bool context = false;
      for (const char* c : kContext) {
        context = context || k == c;
      }
      if (!context && ev.kind.empty()) {
        ev.kind = std::string(k);
      }
    }
    if (ev.kind == "str") {
      ++counts.str;
      counts.events.push_back(std::move(ev));
      continue;
    }
    std::string_view declared;
    if (obj["has_payload"].get(declared) == simdjson::SUCCESS) {
      ev.has_payload = true;
      std::string payload;
      bool first = true;
      while (i + 1 < lines.size() && !lines[i + 1].second.empty() &&
             lines[i + 1].second[0] == '\t') {
        if (!first) {
          payload.push_back('\n');
        }
        payload.append(lines[i + 1].second.substr(1));
        first = false;
        ++i;
      }
      if (!is_hex_lower(declared) || md5_hex(payload) != declared) {
        ++counts.fail_payload_md5;
      }
      ev.payload = std::move(payload);
    }
    std::int64_t rank = -1;
    const bool has_rank = obj["rank"].get(rank) == simdjson::SUCCESS;
    if (expected_rank) {
      if (!has_rank || rank != *expected_rank) {
        ++counts.other_rank;
        continue;
      }
    } else if (has_rank) {
      expected_rank = rank;
    }
    ++counts.ok;
    ++counts.kinds[ev.kind];
    counts.events.push_back(std::move(ev));
  }
  return counts;
}

TlparseRuleCounts parse_file_by_tlparse_rules(const std::filesystem::path& path) {
  return parse_by_tlparse_rules(read_file(path));
}

} // namespace test_support
