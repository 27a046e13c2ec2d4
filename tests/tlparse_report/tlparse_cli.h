// What the end-to-end tests of the report share: the path of the `tlparse` binary they drive
// (nullptr when it is not built), shell quoting for the command lines they run, and one HTTP
// exchange with a `tlparse --serve` they started.
#pragma once

#include <arpa/inet.h>
#include <cstdint>
#include <filesystem>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace test_support {

#ifdef TORCHSCOPE_TLPARSE_BIN
inline constexpr const char* kTlparse = TORCHSCOPE_TLPARSE_BIN;
#else
inline constexpr const char* kTlparse = nullptr;
#endif

// `p` in single quotes for sh, embedded quotes escaped.
inline std::string quoted(const std::filesystem::path& p) {
  std::string out = "'";
  for (const char c : p.string()) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

// One HTTP/1.0 exchange with 127.0.0.1:port; the whole response, or "" when nothing answers.
inline std::string http_get(int port, const std::string& target) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "";
  }
  const std::string req = "GET " + target + " HTTP/1.0\r\nHost: x\r\n\r\n";
  (void)::send(fd, req.data(), req.size(), 0);
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) {
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

// The body of an HTTP response.
inline std::string body_of(const std::string& response) {
  const auto at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

} // namespace test_support
