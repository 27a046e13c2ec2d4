// The rendezvous' TCP store (distributed/tcp_store.h): one server thread on rank 0 answering
// set and get requests, one blocking connection per client. A request is an op byte ('S' or
// 'G'), the key and the value, each length-prefixed (u32, host order: every rank runs this
// code); an answer is a found byte and a length-prefixed value.
#include "tcp_store.h"

#include "compiler/core/errors.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <map>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace compiler::distributed {

namespace {

[[noreturn]] void fail(const std::string& message) {
  throw UserError("process group: " + message, std::source_location::current());
}

// Moves all `n` bytes with `io` (send or recv), across short transfers and interruptions;
// false when the peer is gone.
template <class Io>
bool transfer_all(char* p, std::size_t n, Io&& io) {
  while (n > 0) {
    const ssize_t k = io(p, n);
    if (k <= 0) {
      if (k < 0 && errno == EINTR) {
        continue;
      }
      return false;
    }
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

bool write_all(int fd, const void* data, std::size_t n) {
  return transfer_all(const_cast<char*>(static_cast<const char*>(data)), n,
                      [fd](char* p, std::size_t k) { return ::send(fd, p, k, MSG_NOSIGNAL); });
}

bool read_all(int fd, void* data, std::size_t n) {
  return transfer_all(static_cast<char*>(data), n,
                      [fd](char* p, std::size_t k) { return ::recv(fd, p, k, 0); });
}

bool write_blob(int fd, const char* data, std::size_t n) {
  const auto length = static_cast<std::uint32_t>(n);
  return write_all(fd, &length, sizeof length) && write_all(fd, data, n);
}

// Refuses lengths above 16 MiB: a rendezvous value is an address, a stray client is not trusted.
bool read_blob(int fd, std::vector<char>& out) {
  std::uint32_t length = 0;
  if (!read_all(fd, &length, sizeof length) || length > (16u << 20)) {
    return false;
  }
  out.resize(length);
  return read_all(fd, out.data(), length);
}

sockaddr_in resolve(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) {
    fail("cannot resolve MASTER_ADDR '" + host + "'");
  }
  sockaddr_in address{};
  std::memcpy(&address, found->ai_addr, sizeof address);
  ::freeaddrinfo(found);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  return address;
}

} // namespace

class TcpStoreServer {
public:
  TcpStoreServer(const std::string& host, int port) {
    const sockaddr_in address = resolve(host, port);
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int on = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listen_fd_, 128) != 0) {
      const std::string why = std::strerror(errno);
      ::close(listen_fd_);
      fail("rank 0 cannot serve the rendezvous on " + host + ":" + std::to_string(port) + ": " +
           why + " (is MASTER_PORT in use?)");
    }
    if (::pipe(wake_) != 0) {
      ::close(listen_fd_);
      fail("cannot create a pipe for the rendezvous server");
    }
    thread_ = std::thread([this] { serve(); });
  }

  ~TcpStoreServer() {
    const char stop = 1;
    (void)!::write(wake_[1], &stop, 1);
    thread_.join();
    ::close(wake_[0]);
    ::close(wake_[1]);
    ::close(listen_fd_);
  }

  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;

private:
  void serve() {
    std::vector<int> clients;
    for (;;) {
      std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
      for (int c : clients) {
        fds.push_back({c, POLLIN, 0});
      }
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) {
          continue;
        }
        break;
      }
      if (fds[0].revents != 0) {
        break;
      }
      std::vector<int> still;
      for (std::size_t i = 2; i < fds.size(); ++i) {
        const int c = fds[i].fd;
        if (fds[i].revents == 0 || answer(c)) {
          still.push_back(c);
        } else {
          ::close(c);
        }
      }
      if ((fds[1].revents & POLLIN) != 0) {
        if (const int c = ::accept(listen_fd_, nullptr, nullptr); c >= 0) {
          still.push_back(c);
        }
      }
      clients.swap(still);
    }
    for (int c : clients) {
      ::close(c);
    }
  }

  // One request of client `c`; false when the client went away or sent garbage.
  bool answer(int c) {
    char op = 0;
    std::vector<char> key, value;
    if (!read_all(c, &op, 1) || !read_blob(c, key) || !read_blob(c, value)) {
      return false;
    }
    const std::string k(key.begin(), key.end());
    if (op == 'S') {
      values_[k] = std::move(value);
      const char found = 1;
      return write_all(c, &found, 1) && write_blob(c, nullptr, 0);
    }
    if (op == 'G') {
      auto it = values_.find(k);
      const char found = it != values_.end() ? 1 : 0;
      return write_all(c, &found, 1) &&
             (found != 0 ? write_blob(c, it->second.data(), it->second.size())
                         : write_blob(c, nullptr, 0));
    }
    return false;
  }

  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::map<std::string, std::vector<char>> values_;
  std::thread thread_;
};

TcpStore::TcpStore(const std::string& host, int port, bool serve, std::chrono::milliseconds timeout)
    : timeout_(timeout), address_(host + ":" + std::to_string(port)) {
  if (port <= 0 || port > 65535) {
    fail("MASTER_PORT " + std::to_string(port) + " is not a TCP port");
  }
  if (serve) {
    server_ = std::make_unique<TcpStoreServer>(host, port);
  }
  const sockaddr_in address = resolve(host, port);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) {
      const int on = 1;
      ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      return;
    }
    ::close(fd_);
    fd_ = -1;
    if (std::chrono::steady_clock::now() >= deadline) {
      fail("no rendezvous server answered at " + address_ + " within " +
           std::to_string(timeout.count()) +
           " ms (has rank 0 started, with the same "
           "MASTER_ADDR and MASTER_PORT?)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

TcpStore::~TcpStore() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

std::optional<std::vector<char>> TcpStore::request(char op, const std::string& key,
                                                   const std::vector<char>& value) {
  char found = 0;
  std::vector<char> answer;
  if (!write_all(fd_, &op, 1) || !write_blob(fd_, key.data(), key.size()) ||
      !write_blob(fd_, value.data(), value.size()) || !read_all(fd_, &found, 1) ||
      !read_blob(fd_, answer)) {
    fail("the rendezvous server at " + address_ + " stopped answering (did rank 0 exit?)");
  }
  if (found == 0) {
    return std::nullopt;
  }
  return answer;
}

std::optional<std::vector<char>> TcpStore::try_get(const std::string& key) {
  return request('G', key, {});
}

void TcpStore::set(const std::string& key, const std::vector<char>& data) {
  request('S', key, data);
}

std::vector<char> TcpStore::get(const std::string& key) {
  wait({key}, timeout_);
  return *try_get(key);
}

void TcpStore::wait(const std::vector<std::string>& keys,
                    const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const std::string& key : keys) {
    while (!try_get(key)) {
      if (std::chrono::steady_clock::now() >= deadline) {
        fail("the rendezvous key '" + key + "' did not appear at " + address_ + " within " +
             std::to_string(timeout.count()) + " ms");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

} // namespace compiler::distributed
