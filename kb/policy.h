// The KB policy: a versioned JSON document (docs/kb-format.md, schema in
// kb/kb.schema.json) of performance states and optimizations, with numeric
// evidence per (optimization, arch, state, contributor). Each contributor
// (one machine or user) only ever grows its own counters, so merging two KBs
// keeps, per contributor, the more advanced counters: merge is associative,
// commutative and idempotent, and evidence adds up without double counting.
#pragma once

#include "cache/env.h"
#include "support/expected.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbcc::kb {

inline constexpr const char *kKbFormat = "kbcc-kb";
inline constexpr int kKbFormatVersion = 1;

// Mechanical (no-LLM) lowerings implemented by agent/; an optimization names
// one in its "mechanical" field (docs/kb-format.md lists them).
inline constexpr std::array<const char *, 20> kMechanicalLowerings = {"launch_bounds",
                                                                      "maxnreg",
                                                                      "unroll",
                                                                      "restrict_ldg",
                                                                      "fast_math",
                                                                      "block_size",
                                                                      "thread_coarsening",
                                                                      "split_loop_across_warp",
                                                                      "smem_privatized_atomics",
                                                                      "warp_aggregated_atomics",
                                                                      "smem_transpose_staging",
                                                                      "interchange_thread_axes",
                                                                      "smem_tiling",
                                                                      "register_blocking",
                                                                      "vectorized_loads",
                                                                      "cache_hint_streaming",
                                                                      "shuffle_collectives",
                                                                      "sliding_window",
                                                                      "value_versioning",
                                                                      "smem_padding"};

// One profiler metric range of a state's signature; a bound may be absent.
struct MetricRange {
  std::string metric; // e.g. "dram_throughput_pct" (names in docs/kb-format.md)
  std::optional<double> min, max;
  bool contains(double value) const;
};

struct State {
  std::string id;                     // e.g. "dram_bandwidth_bound"
  std::string name;                   // short human title
  std::string primary_bottleneck;     // e.g. "memory_bandwidth"
  std::vector<std::string> secondary; // secondary characteristics
  std::vector<MetricRange> signature; // all ranges hold for a kernel in this state
  std::string description;
  std::vector<std::string> optimizations; // candidate optimization ids, most promising first
  std::vector<std::string> insights;      // textual insights learned (kept sorted, unique)
  uint32_t revision = 1;                  // bumped by every edit of the definition
};

// Distribution of measured speedups (baseline / candidate) of validated
// attempts: log moments plus a fixed log-spaced histogram (kSpeedupEdges).
struct SpeedupStats {
  static constexpr size_t kBuckets = 10;
  uint64_t count = 0;
  double sum_log = 0;    // sum of ln(speedup)
  double sum_log_sq = 0; // sum of ln(speedup)^2
  double min = 0, max = 0;
  std::array<uint64_t, kBuckets> buckets{};

  void add(double speedup);
  void absorb(const SpeedupStats &other); // adds another contributor's distribution
  double geomean() const;                 // 0 when empty
  double quantile(double q) const;        // from the histogram, 0 when empty
};
// Upper bucket edges of SpeedupStats::buckets (the last bucket is open).
extern const std::array<double, SpeedupStats::kBuckets - 1> kSpeedupEdges;

// One contributor's counters for one (optimization, arch, state).
struct Evidence {
  uint64_t attempts = 0;
  uint64_t successes = 0; // validated and significantly faster
  uint64_t compile_failures = 0;
  uint64_t validation_failures = 0;
  SpeedupStats speedup; // of validated attempts
};

// The outcome of one attempt of an optimization.
struct Outcome {
  bool compiled = false;
  bool validated = false;
  bool success = false; // validated and significantly faster (the caller's test)
  double speedup = 0;   // baseline / candidate median; used when validated
};

// Evidence summed over contributors (and over archs/states when asked).
struct StatsSummary {
  uint64_t attempts = 0, successes = 0, compile_failures = 0, validation_failures = 0;
  uint32_t contributors = 0;
  double success_rate = 0;    // successes / attempts, 0 when no attempts
  double geomean_speedup = 0; // of validated attempts
  double median_speedup = 0;  // histogram estimate
  double max_speedup = 0;
  double confidence = 0; // in [0,1): grows with attempts (1 - 1/sqrt(1 + attempts))
};

struct Optimization {
  std::string id;          // e.g. "vectorized_loads"
  std::string technique;   // short title
  std::string description; // what to do, precise enough for a lowering
  std::string category;    // "memory", "compute", "parallelism", "occupancy", "instruction", "latency", "algorithmic"
  struct AppliesWhen {
    std::vector<std::string> states;     // state ids ("*" = any)
    std::vector<std::string> conditions; // textual preconditions for the lowering
    int min_arch = 0;                    // lowest sm number (e.g. 80), 0 = any
  } applies_when;
  std::optional<std::string> mechanical; // one of kMechanicalLowerings, or none (LLM only)
  struct Prior {
    double success_rate = 0.5; // belief before evidence (not evidence)
    double typical_speedup = 1.0;
  } prior;
  std::vector<std::string> insights; // sorted, unique
  uint32_t revision = 1;
  // stats[arch][state][contributor]
  std::map<std::string, std::map<std::string, std::map<std::string, Evidence>>> stats;
  // Evidence per parameter value of the mechanical transform:
  // parameters[arch]["name=value"][contributor]
  std::map<std::string, std::map<std::string, std::map<std::string, Evidence>>> parameters;
};

struct Policy {
  int version = kKbFormatVersion;
  std::string description;
  std::vector<State> states;               // kept sorted by id
  std::vector<Optimization> optimizations; // kept sorted by id

  const State *find_state(const std::string &id) const;
  State *find_state(const std::string &id);
  const Optimization *find_optimization(const std::string &id) const;
  Optimization *find_optimization(const std::string &id);
  // Inserts or replaces by id (keeps the vectors sorted).
  void upsert_state(State s);
  void upsert_optimization(Optimization o);

  // Adds one attempt's outcome to `contributor`'s counters. Error when the
  // optimization is unknown.
  Status record(const std::string &state, const std::string &optimization, const std::string &arch,
                const std::string &contributor, const Outcome &outcome);
  // Adds one evaluated parameter setting ("name=value" per parameter) of the
  // optimization's transform to `contributor`'s counters.
  Status record_parameters(const std::string &optimization, const std::string &arch, const std::string &contributor,
                           const std::map<std::string, std::string> &params, const Outcome &outcome);
  // Evidence of one parameter value ("name=value") summed over contributors;
  // `arch` empty = over all archs.
  StatsSummary parameter_summary(const std::string &optimization, const std::string &parameter,
                                 const std::string &arch = {}) const;
  // Evidence of `optimization` summed over contributors; `arch`/`state`
  // empty = summed over all archs/states.
  StatsSummary summary(const std::string &optimization, const std::string &arch = {},
                       const std::string &state = {}) const;
  // Optimizations that apply to `state` on `arch` (sm number, 0 = any):
  // the state's list first, then those whose applies_when names it or "*".
  std::vector<const Optimization *> candidates(const std::string &state, int arch = 0) const;
  // States whose signature ranges the metrics satisfy, best first, with the
  // fraction of ranges satisfied (only metrics present count; >= 0.5 kept).
  std::vector<std::pair<std::string, double>> match_states(const std::map<std::string, double> &metrics) const;
};

// Full JSON document (with derived "summary" fields for readers).
nlohmann::json to_json(const Policy &policy);
// Validates against the schema, then converts. Errors name `origin` and the
// field path, e.g. "kb.json: $.optimizations[3].category: ...".
Expected<Policy> policy_from_json(const nlohmann::json &doc, const std::string &origin);
Expected<Policy> parse_policy(const std::string &text, const std::string &origin);
// Canonical text: evidence and definitions only, sorted keys, no whitespace.
std::string canonical_text(const Policy &policy);
// Content id of the policy: XXH3-128 of canonical_text.
std::string policy_id(const Policy &policy);

// Deterministic merge: union of states/optimizations (on a conflict the
// definition with the higher revision wins, ties by canonical text), union
// of insights, per contributor the more advanced counters.
Policy merge(const Policy &a, const Policy &b);

// The seed KB shipped with kbcc (kb/seed_kb.json, compiled in).
Expected<Policy> seed_policy();
// The KB JSON Schema (kb/kb.schema.json, compiled in).
const nlohmann::json &kb_schema();
// Validates `doc` against the KB schema; the error names `origin` and the field path.
Status validate_policy_json(const nlohmann::json &doc, const std::string &origin);

// The policy as stored in the KB table of the LMDB environment.
class PolicyStore {
public:
  explicit PolicyStore(cache::Env &env) : env_(env) {}

  // The stored policy, or the seed when none was stored yet.
  Expected<Policy> load();
  // Replaces the stored policy.
  Status save(const Policy &policy);
  // Read-modify-write in one write transaction (concurrent updaters never
  // lose each other's evidence). `fn` may run twice.
  Status update(const std::function<Status(Policy &)> &fn);
  // Merges `other` into the stored policy atomically.
  Status merge_in(const Policy &other);
  // The local contributor id: `configured` when not empty, else a random id
  // created once and kept in the store's meta table.
  Expected<std::string> contributor(const std::string &configured = {});

private:
  cache::Env &env_;
};

} // namespace kbcc::kb
