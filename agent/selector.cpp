#include "agent/selector.h"

#include "agent/update.h"

#include <algorithm>
#include <cmath>

namespace kbcc::agent {

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

Rng Rng::fork(uint64_t stream) const {
  Rng r(state_ ^ (stream * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL));
  r.next();
  return r;
}

double selection_score(const Option &o, const SelectorOptions &opt) {
  return (expected_speedup(o) - 1.0) * o.stats.confidence + opt.optimism / std::sqrt(1.0 + o.stats.attempts);
}

std::optional<Choice> select_option(const std::vector<Option> &candidates,
                                    const std::function<bool(const Option &)> &eligible, const SelectorOptions &opt,
                                    Rng &rng) {
  std::vector<std::pair<Choice, uint64_t>> keyed;
  for (const Option &o : candidates)
    if (eligible(o)) keyed.push_back({Choice{o, selection_score(o, opt), false}, rng.next()});
  if (keyed.empty()) return std::nullopt;
  // By score; equal scores (no evidence tells them apart) in an order drawn
  // from the generator, so a seed reproduces it and no id is favoured.
  std::sort(keyed.begin(), keyed.end(), [](const auto &a, const auto &b) {
    return a.first.score != b.first.score ? a.first.score > b.first.score : a.second < b.second;
  });
  std::vector<Choice> pool;
  for (auto &[choice, key] : keyed)
    pool.push_back(std::move(choice));
  if (opt.greedy) return pool.front();
  double explore = rng.uniform();
  double pick = rng.uniform();
  if (explore < opt.exploration) {
    Choice c = pool[std::min(pool.size() - 1, static_cast<size_t>(pick * pool.size()))];
    c.explored = true;
    return c;
  }
  size_t k = std::min(pool.size(), static_cast<size_t>(std::max(1, opt.top_k)));
  std::vector<double> w(k);
  double total = 0, tau = std::max(1e-6, opt.temperature);
  for (size_t i = 0; i < k; ++i)
    total += w[i] = std::exp((pool[i].score - pool[0].score) / tau);
  double target = pick * total;
  for (size_t i = 0; i < k; ++i) {
    target -= w[i];
    if (target < 0) return pool[i];
  }
  return pool[k - 1];
}

} // namespace kbcc::agent
