// The compile-cache entry format (inductor/cache/cache_entry.h).
#include "inductor/cache/cache_entry.h"

#include <cstring>

namespace compiler::inductor {

namespace {

constexpr std::string_view kMagic = "TSINDCACHE1\n";
constexpr std::string_view kChecksumTag = "CSUM";

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

std::uint64_t get_u64(std::string_view in) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[static_cast<std::size_t>(i)]))
         << (8 * i);
  }
  return v;
}

void put_section(std::string& out, std::string_view tag, std::string_view bytes) {
  out += tag;
  put_u64(out, bytes.size());
  out += bytes;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    out += n;
    out += '\n';
  }
  return out;
}

} // namespace

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t seed) {
  // Eight bytes at a time (object files are hundreds of KiB): each word is folded in with a
  // multiply and a rotate, the tail byte by byte as FNV-1a; a final avalanche mixes the bits.
  std::uint64_t h = seed ^ (bytes.size() * 0x9e3779b97f4a7c15ULL);
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    h = (h ^ (w * 0xff51afd7ed558ccdULL)) * 0x100000001b3ULL;
    h = (h << 31) | (h >> 33);
  }
  for (; i < bytes.size(); ++i) {
    h ^= static_cast<unsigned char>(bytes[i]);
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::string serialize_entry(const CacheEntry& e) {
  std::string out(kMagic);
  put_section(out, "KEYT", e.key_text);
  put_section(out, "NAME", join_names(e.kernel_names));
  std::string ns;
  put_u64(ns, static_cast<std::uint64_t>(e.codegen_ns));
  put_section(out, "TIME", ns);
  put_section(out, "LLIR", e.ir);
  put_section(out, "OBJT", e.object);
  const std::uint64_t sum = fnv1a64(out);
  out += kChecksumTag;
  put_u64(out, sum);
  return out;
}

ParsedEntry parse_entry(std::string_view bytes) {
  ParsedEntry r;
  if (bytes.size() < kMagic.size() + 12 || bytes.substr(0, kMagic.size()) != kMagic) {
    r.error = "not a cache entry (bad header)";
    return r;
  }
  const std::size_t trailer = bytes.size() - 12;
  if (bytes.substr(trailer, 4) != kChecksumTag) {
    r.error = "truncated (no checksum trailer)";
    return r;
  }
  if (fnv1a64(bytes.substr(0, trailer)) != get_u64(bytes.substr(trailer + 4))) {
    r.error = "checksum mismatch";
    return r;
  }
  CacheEntry e;
  bool seen_key = false;
  bool seen_object = false;
  std::size_t at = kMagic.size();
  while (at < trailer) {
    if (trailer - at < 12) {
      r.error = "a section header runs past the end";
      return r;
    }
    const std::string_view tag = bytes.substr(at, 4);
    const std::uint64_t len = get_u64(bytes.substr(at + 4, 8));
    at += 12;
    if (len > trailer - at) {
      r.error = "a section runs past the end";
      return r;
    }
    const std::string_view body = bytes.substr(at, static_cast<std::size_t>(len));
    at += static_cast<std::size_t>(len);
    if (tag == "KEYT") {
      e.key_text.assign(body);
      seen_key = true;
    } else if (tag == "NAME") {
      std::size_t start = 0;
      while (start < body.size()) {
        const std::size_t nl = body.find('\n', start);
        if (nl == std::string_view::npos) {
          r.error = "an unterminated kernel name";
          return r;
        }
        e.kernel_names.emplace_back(body.substr(start, nl - start));
        start = nl + 1;
      }
    } else if (tag == "TIME") {
      if (body.size() != 8) {
        r.error = "a malformed time section";
        return r;
      }
      e.codegen_ns = static_cast<std::int64_t>(get_u64(body));
    } else if (tag == "LLIR") {
      e.ir.assign(body);
    } else if (tag == "OBJT") {
      e.object.assign(body);
      seen_object = true;
    }
    // Unknown sections are skipped: a later format may add some.
  }
  if (!seen_key || !seen_object) {
    r.error = "a required section is missing";
    return r;
  }
  r.entry = std::move(e);
  return r;
}

} // namespace compiler::inductor
