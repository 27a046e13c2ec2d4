// A main() for libFuzzer targets in ordinary builds: feeds each file named on the command line
// (every regular file under a folder) to LLVMFuzzerTestOneInput, whole and cut at a few places,
// so the fuzz targets compile and run in every test build, not only in the `fuzz` preset. A
// target signals a bug by aborting, which fails the test that runs this.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

void run(const std::string& bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

} // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    if (fs::is_directory(arg)) {
      std::vector<fs::path> found;
      for (const auto& e : fs::recursive_directory_iterator(arg)) {
        if (e.is_regular_file()) {
          found.push_back(e.path());
        }
      }
      std::sort(found.begin(), found.end()); // the same order on every machine
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(arg)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "fuzz replay: no such file or folder: %s\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s FILE-OR-FOLDER...\n", argv[0]);
    return 2;
  }
  std::size_t inputs = 0;
  for (const fs::path& f : files) {
    std::string bytes(static_cast<std::size_t>(fs::file_size(f)), '\0');
    std::ifstream in(f, std::ios::binary);
    if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
      std::fprintf(stderr, "fuzz replay: cannot read %s\n", f.c_str());
      return 2;
    }
    run(bytes);
    // Truncations: inside the first line, in the middle, one byte short of the end.
    for (std::size_t cut : {bytes.size() / 97, bytes.size() / 2, bytes.size() - 1}) {
      if (cut > 0 && cut < bytes.size()) {
        run(bytes.substr(0, cut));
        ++inputs;
      }
    }
    ++inputs;
  }
  std::printf("fuzz replay: %zu inputs from %zu files, no failure\n", inputs, files.size());
  return 0;
}
