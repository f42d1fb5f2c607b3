// The benchmark baseline: a bare tree-sitter-python parse of each file listed in argv[1] (one
// path a line), single thread, tree freed, nothing else. gradlint's own time is reported as a ratio
// of this, measured in the same run by bench/run.sh.
#include <tree_sitter/api.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

extern "C" const TSLanguage* tree_sitter_python(void);

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE_LIST\n", argv[0]);
    return 2;
  }
  std::ifstream list(argv[1]);
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  size_t bytes = 0;
  size_t files = 0;
  double seconds = 0;
  double cpuSeconds = 0; // this thread's CPU time: steadier than wall time on a busy machine
  auto threadCpu = [] {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
  };
  std::string path;
  while (std::getline(list, path)) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) continue;
    std::ostringstream buffer;
    buffer << stream.rdbuf();
    const std::string text = std::move(buffer).str();
    const auto start = std::chrono::steady_clock::now();
    const double cpuStart = threadCpu();
    TSTree* tree =
        ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
    ts_tree_delete(tree);
    cpuSeconds += threadCpu() - cpuStart;
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bytes += text.size();
    ++files;
  }
  ts_parser_delete(parser);
  std::printf("%zu files, %zu bytes, parse %.3f s, cpu %.3f s, %.1f MB/s\n", files, bytes,
              seconds, cpuSeconds, static_cast<double>(bytes) / seconds / 1e6);
  return 0;
}
