#include "run/ranks.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "io/checkpoint.hpp"

namespace mpsph {

namespace {

class OneProcess final : public Ranks {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  bool distributed() const override { return false; }
  void broadcast(std::string&) const override {}
  bool any(bool flag) const override { return flag; }
  std::unique_ptr<StepBackend> make_backend(const StepContext&, Device,
                                            const std::vector<std::unique_ptr<PhysicsModule>>&,
                                            const MpiParams&) const override {
    throw Error("internal: the single process has no rank backend");
  }
  ParticleStore gather(const ParticleStore& local) const override { return local; }
  std::vector<uint64_t> all_gather(const std::vector<uint64_t>& local) const override {
    return local;
  }
  std::optional<std::vector<uint64_t>> repeated(std::vector<uint64_t> words,
                                                std::size_t k) const override {
    return repeated_item(words, k);
  }
};

}  // namespace

std::optional<std::vector<uint64_t>> repeated_item(const std::vector<uint64_t>& words,
                                                   std::size_t k) {
  const std::size_t n = k > 0 ? words.size() / k : 0;
  const auto item = [&](std::size_t i) { return words.begin() + std::ptrdiff_t(i * k); };
  const auto less = [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(item(a), item(a) + std::ptrdiff_t(k), item(b),
                                        item(b) + std::ptrdiff_t(k));
  };
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), less);
  for (std::size_t j = 1; j < n; ++j)
    if (!less(order[j - 1], order[j]))
      return std::vector<uint64_t>(item(order[j]), item(order[j]) + std::ptrdiff_t(k));
  return std::nullopt;
}

std::size_t item_rank(const uint64_t* item, std::size_t k, std::size_t P) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (std::size_t w = 0; w < k; ++w) {
    uint64_t x = item[w] + h;  // splitmix64 of each word, chained
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    h = x ^ (x >> 31);
  }
  return std::size_t(h % P);
}

namespace {

std::string hex(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", x);
  return b;
}

}  // namespace

const Ranks& one_process() {
  static const OneProcess p;
  return p;
}

void broadcast_checkpoint_state(const Ranks& ranks, CheckpointState& state) {
  if (ranks.size() == 1) return;
  // One line per value: "t <time> <dt> <step> <next_snapshot>", "s <value> <name>",
  // "c <value> <name>"; names hold no newline (they are the driver's and the modules' keys).
  std::string text;
  if (ranks.root()) {
    text = "t " + hex(state.time) + " " + hex(state.dt) + " " + std::to_string(state.step) + " " +
           std::to_string(state.next_snapshot) + "\n";
    for (const auto& [name, v] : state.scalars) text += "s " + hex(v) + " " + name + "\n";
    for (const auto& [name, v] : state.counters)
      text += "c " + std::to_string(v) + " " + name + "\n";
  }
  ranks.broadcast(text);
  ranks.broadcast(state.config_yaml);
  if (ranks.root()) return;
  state.scalars.clear();
  state.counters.clear();
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string kind, a, b;
    f >> kind >> a;
    if (kind == "t") {
      f >> b;
      state.time = std::strtod(a.c_str(), nullptr);
      state.dt = std::strtod(b.c_str(), nullptr);
      f >> state.step >> state.next_snapshot;
    } else {
      const std::string name = line.substr(line.find(' ', 2) + 1);
      if (kind == "s") state.scalars[name] = std::strtod(a.c_str(), nullptr);
      if (kind == "c") state.counters[name] = std::strtol(a.c_str(), nullptr, 10);
    }
  }
}

void broadcast_box_and_time(const Ranks& ranks, Box& box, double& time) {
  if (ranks.size() == 1) return;
  std::string text;
  if (ranks.root())
    for (double x : {box.periodic ? 1.0 : 0.0, box.lo.x, box.lo.y, box.lo.z, box.size.x, box.size.y,
                     box.size.z, time})
      text += hex(x) + " ";
  ranks.broadcast(text);
  if (ranks.root()) return;
  std::istringstream in(text);
  double v[8];
  for (double& x : v) {
    std::string w;
    in >> w;
    x = std::strtod(w.c_str(), nullptr);
  }
  box.periodic = v[0] != 0.0;
  box.lo = {v[1], v[2], v[3]};
  box.size = {v[4], v[5], v[6]};
  time = v[7];
}

}  // namespace mpsph
