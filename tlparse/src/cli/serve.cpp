// See serve.h. One connection at a time (a person browsing a report), HTTP/1.0 semantics:
// read the request head, answer, close.
#include "cli/serve.h"

#include "tlparse/report/graph_pages.h"
#include "tlparse/report/on_demand.h"
#include "tlparse/text/hex_digit.h"
#include "tlparse/text/terminal_text.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace tlparse::cli {
namespace fs = std::filesystem;

namespace {

const char* content_type(const std::string& path) {
  const auto ends = [&](const char* ext) { return path.ends_with(ext); };
  if (ends(".html")) {
    return "text/html; charset=utf-8";
  }
  if (ends(".json") || ends(".jsonl")) {
    return "application/json; charset=utf-8";
  }
  if (ends(".txt") || ends(".log")) {
    return "text/plain; charset=utf-8";
  }
  if (ends(".svg")) {
    return "image/svg+xml";
  }
  return "application/octet-stream";
}

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void respond(int fd, int status, const char* reason, const char* type, std::string_view body,
             bool head_only, std::uint64_t length) {
  std::ostringstream h;
  h << "HTTP/1.0 " << status << ' ' << reason << "\r\nContent-Type: " << type
    << "\r\nContent-Length: " << length
    << "\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\n";
  if (std::string_view(type).starts_with("image/svg")) {
    // A graph view draws log text: whatever it holds, the browser runs no script of it.
    h << "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'\r\n";
  }
  h << "Connection: close\r\n\r\n";
  if (send_all(fd, h.str()) && !head_only) {
    send_all(fd, body);
  }
}

void respond_text(int fd, int status, const char* reason, const std::string& text, bool head) {
  respond(fd, status, reason, "text/plain; charset=utf-8", text, head, text.size());
}

void send_file(int fd, const fs::path& file, const std::string& rel, bool head) {
  std::ifstream in(file, std::ios::binary);
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (!in || ec) {
    respond_text(fd, 500, "Internal Server Error", "cannot read the page\n", head);
    return;
  }
  respond(fd, 200, "OK", content_type(rel), {}, true, size);
  if (head) {
    return;
  }
  std::string chunk(1u << 20, '\0');
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0 || !send_all(fd, std::string_view(chunk.data(), got))) {
      break;
    }
  }
}

void handle(int fd, const PageSource& report) {
  // The request head, up to 16 KB, within 10 s.
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.find("\n\n") == std::string::npos &&
         head.size() < (16u << 10)) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) {
      return;
    }
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      return;
    }
    head.append(buf, static_cast<std::size_t>(n));
  }
  const std::string line = head.substr(0, head.find_first_of("\r\n"));
  const auto sp1 = line.find(' ');
  const auto sp2 = line.find(' ', sp1 == std::string::npos ? 0 : sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos) {
    respond_text(fd, 400, "Bad Request", "bad request\n", false);
    return;
  }
  const std::string method = line.substr(0, sp1);
  const std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const bool head_only = method == "HEAD";
  if (method != "GET" && !head_only) {
    respond_text(fd, 405, "Method Not Allowed", "only GET and HEAD\n", false);
    return;
  }
  const auto rel = report_path_of(target);
  if (!rel) {
    respond_text(fd, 404, "Not Found", "not found\n", head_only);
    return;
  }
  auto file = report(*rel);
  if (!file) {
    respond_text(fd, 500, "Internal Server Error", "the index cannot be read\n", head_only);
    std::cerr << "Error: " << text::terminal_safe_lines(file.error()) << "\n";
    return;
  }
  if (!*file) {
    respond_text(fd, 404, "Not Found", "not found\n", head_only);
    return;
  }
  send_file(fd, **file, *rel, head_only);
}

} // namespace

std::optional<std::string> report_path_of(const std::string& target) {
  std::string path = target.substr(0, target.find_first_of("?#"));
  std::string decoded;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 2 < path.size() && text::hex_digit_value(path[i + 1]) >= 0 &&
        text::hex_digit_value(path[i + 2]) >= 0) {
      decoded.push_back(static_cast<char>(text::hex_digit_value(path[i + 1]) * 16 +
                                          text::hex_digit_value(path[i + 2])));
      i += 2;
    } else {
      decoded.push_back(path[i]);
    }
  }
  if (decoded.empty() || decoded.front() != '/') {
    return std::nullopt;
  }
  decoded.erase(0, 1);
  if (decoded.empty()) {
    return std::string("index.html");
  }
  std::size_t start = 0;
  while (true) {
    const auto slash = decoded.find('/', start);
    const std::string seg = decoded.substr(start, slash - start);
    if (seg.empty() || seg == "." || seg == "..") {
      return std::nullopt;
    }
    if (slash == std::string::npos) {
      break;
    }
    start = slash + 1;
  }
  for (const unsigned char c : decoded) {
    if (c < 0x20 || c == 0x7f || c == '\\') {
      return std::nullopt;
    }
  }
  return decoded;
}

// A private folder for the pages rendered (removed by the caller when the server stops).
std::optional<fs::path> page_cache_folder() {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmpdir != nullptr && *tmpdir ? tmpdir : "/tmp") + "/tlparse-serve-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr) {
    std::cerr << "Error: cannot create a page cache folder: " << std::strerror(errno) << "\n";
    return std::nullopt;
  }
  return fs::path(name.data());
}

int serve_report(const ServeRequest& request, const report::RenderOptions& options) {
  const auto cache_folder = page_cache_folder();
  if (!cache_folder) {
    return 1;
  }
  const fs::path cache = *cache_folder;
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{cache};

  auto report = report::OnDemandReport::open(request.index, options, cache / "report");
  if (!report) {
    std::cerr << "Error: " << text::terminal_safe_lines(report.error()) << "\n";
    return 1;
  }
  return serve_pages(request, [&](const std::string& rel) { return (*report)->file(rel); });
}

int serve_all_ranks(const ServeRequest& request, const report::RenderOptions& options,
                    const std::filesystem::path& raw_logs) {
  const auto cache = page_cache_folder();
  if (!cache) {
    return 1;
  }
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{*cache};
  auto report = report::OnDemandRanks::open(request.index, options, raw_logs, *cache / "report");
  if (!report) {
    std::cerr << "Error: " << text::terminal_safe_lines(report.error()) << "\n";
    return 1;
  }
  for (const std::string& w : (*report)->warnings()) {
    std::cerr << "Warning: " << text::terminal_safe_lines(w) << "\n";
  }
  std::cout << (*report)->rank_count() << " rank(s); each rank's pages are rendered when first "
            << "asked for\n";
  return serve_pages(request, [&](const std::string& rel) { return (*report)->file(rel); });
}

int serve_pages(const ServeRequest& request, const PageSource& pages) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
  int listener = -1;
  std::uint16_t port = 0;
  const std::uint16_t first = request.port.value_or(8000);
  const std::uint16_t last = request.port ? *request.port : 8099;
  for (std::uint32_t p = first; p <= last && listener < 0; ++p) {
    addrinfo* found = nullptr;
    if (::getaddrinfo(request.host.c_str(), std::to_string(p).c_str(), &hints, &found) != 0) {
      std::cerr << "Error: cannot resolve --host " << request.host << "\n";
      return 1;
    }
    for (addrinfo* a = found; a != nullptr && listener < 0; a = a->ai_next) {
      const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) {
        continue;
      }
      const int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 16) == 0) {
        listener = fd;
        port = static_cast<std::uint16_t>(p);
      } else {
        ::close(fd);
      }
    }
    ::freeaddrinfo(found);
  }
  if (listener < 0) {
    std::cerr << "Error: cannot listen on " << request.host << " port "
              << (request.port ? std::to_string(*request.port) : std::string("8000-8099")) << ": "
              << std::strerror(errno) << "\n";
    return 1;
  }
  const bool v6 = request.host.find(':') != std::string::npos;
  const fs::path served =
      request.index.has_parent_path() ? request.index.parent_path() : fs::path(".");
  std::cout << "Serving " << served.string() << " at http://"
            << (v6 ? "[" + request.host + "]" : request.host) << ":" << port << "/\n"
            << "Graph views at http://" << (v6 ? "[" + request.host + "]" : request.host) << ":"
            << port << "/" << report::kGraphsIndex << "\n"
            << "Press Ctrl+C to stop" << std::endl;
  while (request.stop == nullptr || !request.stop->load()) {
    pollfd p{listener, POLLIN, 0};
    const int ready = ::poll(&p, 1, 250);
    if (ready <= 0) {
      continue; // timeout or a signal: check the stop flag
    }
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      continue;
    }
    handle(fd, pages);
    ::close(fd);
  }
  ::close(listener);
  return 0;
}

} // namespace tlparse::cli
