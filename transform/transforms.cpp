// The table of transforms and the search helpers.
#include "transform/transform.h"

namespace kbcc::transform {

// Defined in the transform's own file.
std::vector<Transform> lexical_transforms();
Transform block_size_transform();
Transform coarsen_transform();
Transform split_loop_transform();
Transform privatize_transform();
Transform transpose_transform();
Transform tiling_transform();
Transform register_blocking_transform();
Transform vectorize_transform();
Transform cache_hint_transform();
Transform collectives_transform();
Transform window_transform();

Error not_applicable(const std::string &why) { return make_error(why, "not-applicable"); }

long int_param(const Params &p, const char *key, long fallback) {
  auto it = p.find(key);
  if (it == p.end()) return fallback;
  try {
    return std::stol(it->second);
  } catch (...) {
    return fallback;
  }
}

std::pair<long, long> shape_param(const Params &p, const char *key, const std::string &fallback) {
  auto it = p.find(key);
  const std::string &v = it == p.end() ? fallback : it->second;
  try {
    size_t x = v.find('x');
    if (x == std::string::npos) return {std::stol(v), 1};
    return {std::stol(v.substr(0, x)), std::stol(v.substr(x + 1))};
  } catch (...) {
    return {0, 0};
  }
}

const std::vector<Transform> &transforms() {
  static const std::vector<Transform> table = [] {
    std::vector<Transform> t = lexical_transforms();
    for (Transform x : {block_size_transform(), coarsen_transform(), split_loop_transform(), privatize_transform(),
                        transpose_transform(), tiling_transform(), register_blocking_transform(), vectorize_transform(),
                        cache_hint_transform(), collectives_transform(), window_transform()})
      t.push_back(x);
    return t;
  }();
  return table;
}

const Transform *find_transform(const std::string &id) {
  for (const Transform &t : transforms())
    if (id == t.id) return &t;
  return nullptr;
}

std::vector<Params> configurations(const std::vector<Axis> &axes) {
  std::vector<Params> out{Params{}};
  for (const Axis &a : axes) {
    std::vector<Params> next;
    for (const Params &p : out)
      for (const std::string &v : a.values) {
        Params q = p;
        q[a.name] = v;
        next.push_back(std::move(q));
      }
    out = std::move(next);
  }
  return out;
}

} // namespace kbcc::transform
