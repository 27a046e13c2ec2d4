// Internal: a key-value store over TCP for the rendezvous, torchrun's MASTER_ADDR/MASTER_PORT
// (Gloo's headers offer a file store and a Redis store, no TCP one). Rank 0 serves it on
// MASTER_PORT; every rank, rank 0 included, is a client. Values are set once and read by
// polling: the rendezvous is the only user, a few keys per rank.
#pragma once

#include <chrono>
#include <cstdint>
#include <gloo/rendezvous/store.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace compiler::distributed {

class TcpStoreServer;

class TcpStore : public gloo::rendezvous::Store {
public:
  // Rank 0 (`serve`) listens on host:port first. Connecting retries until `timeout`; a failure
  // is a compiler::UserError naming the address.
  TcpStore(const std::string& host, int port, bool serve, std::chrono::milliseconds timeout);
  ~TcpStore() override;

  void set(const std::string& key, const std::vector<char>& data) override;
  // Waits for the key (up to the timeout), as Gloo's stores do.
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;
  // The value now, or nullopt when the key is not set yet.
  std::optional<std::vector<char>> try_get(const std::string& key);

private:
  std::optional<std::vector<char>> request(char op, const std::string& key,
                                           const std::vector<char>& value);

  std::unique_ptr<TcpStoreServer> server_;
  int fd_ = -1;
  std::chrono::milliseconds timeout_;
  std::string address_;
};

} // namespace compiler::distributed
