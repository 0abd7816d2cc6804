// Trajectories (replay buffer): JSON form and the trajectories table.
#include "kb/trajectory.h"

#include "cache/json_fields.h"

#include <algorithm>

namespace kbcc::kb {

using cache::FieldReader;
using nlohmann::json;

namespace {

json step_to_json(const TrajectoryStep &s) {
  return {{"index", s.index},
          {"state", s.state},
          {"optimization", s.optimization},
          {"lowering", s.lowering},
          {"compiled", s.compiled},
          {"validated", s.validated},
          {"speedup", s.speedup},
          {"candidate_median_us", s.candidate_median_us},
          {"next_state", s.next_state},
          {"failure", s.failure},
          {"tokens_in", s.tokens_in},
          {"tokens_out", s.tokens_out},
          {"gpu_seconds", s.gpu_seconds},
          {"wall_seconds", s.wall_seconds},
          {"candidates", s.candidates},
          {"params", s.params},
          {"candidate_id", s.candidate_id},
          {"metrics", s.metrics}};
}

Expected<TrajectoryStep> step_from_json(const json &j, const std::string &origin, const std::string &path) {
  TrajectoryStep s;
  FieldReader f(j, origin, path);
  f.u32("index", s.index).str("state", s.state, true).str("optimization", s.optimization, true);
  f.str("lowering", s.lowering).boolean("compiled", s.compiled).boolean("validated", s.validated);
  f.num("speedup", s.speedup).num("candidate_median_us", s.candidate_median_us).str("next_state", s.next_state);
  f.str("failure", s.failure).u64("tokens_in", s.tokens_in).u64("tokens_out", s.tokens_out);
  f.num("gpu_seconds", s.gpu_seconds).num("wall_seconds", s.wall_seconds).str("candidate_id", s.candidate_id);
  f.u32("candidates", s.candidates);
  s.metrics = f.object("metrics");
  s.params = f.object("params");
  if (!f.ok()) return f.error();
  return s;
}

Expected<Trajectory> parse(std::string_view text, const std::string &origin) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return make_error(origin + ": not valid JSON", cache::kErrBadRecord);
  return trajectory_from_json(j, origin);
}

} // namespace

json to_json(const Trajectory &t) {
  json steps = json::array();
  for (const auto &s : t.steps)
    steps.push_back(step_to_json(s));
  return {{"id", t.id},
          {"kernel_hash", t.kernel_hash},
          {"arch", t.arch},
          {"gpu_name", t.gpu_name},
          {"llm_model", t.llm_model},
          {"contributor", t.contributor},
          {"kb_snapshot", t.kb_snapshot},
          {"index", t.index},
          {"started", t.started},
          {"finished", t.finished},
          {"baseline_median_us", t.baseline_median_us},
          {"initial_state", t.initial_state},
          {"best_speedup", t.best_speedup},
          {"best_candidate_id", t.best_candidate_id},
          {"cost", t.cost},
          {"steps", steps}};
}

Expected<Trajectory> trajectory_from_json(const json &j, const std::string &origin) {
  Trajectory t;
  FieldReader f(j, origin);
  f.str("id", t.id, true).str("kernel_hash", t.kernel_hash, true).str("arch", t.arch, true);
  f.str("gpu_name", t.gpu_name).str("llm_model", t.llm_model).str("contributor", t.contributor);
  f.str("kb_snapshot", t.kb_snapshot).u32("index", t.index).i64("started", t.started).i64("finished", t.finished);
  f.num("baseline_median_us", t.baseline_median_us).str("initial_state", t.initial_state);
  f.num("best_speedup", t.best_speedup).str("best_candidate_id", t.best_candidate_id).num("cost", t.cost);
  if (!f.ok()) return f.error();
  if (auto it = j.find("steps"); it != j.end()) {
    if (!it->is_array()) return make_error(origin + ": $.steps: expected an array", cache::kErrBadRecord);
    for (size_t i = 0; i < it->size(); ++i) {
      auto s = step_from_json((*it)[i], origin, "$.steps[" + std::to_string(i) + "]");
      if (!s) return s.error();
      t.steps.push_back(std::move(*s));
    }
  }
  return t;
}

Status TrajectoryStore::put(const Trajectory &t) {
  if (t.id.empty()) return make_error("trajectory without id", cache::kErrBadRecord);
  std::string text = to_json(t).dump();
  return env_.write([&](cache::Txn &txn) -> Status {
    if (auto st = txn.put(cache::kTrajectoryTable, t.id, text); !st) return st;
    return txn.touch(cache::kTrajectoryTable, t.id);
  });
}

Expected<std::optional<Trajectory>> TrajectoryStore::get(const std::string &id) {
  std::optional<std::string> text;
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    auto v = txn.get(cache::kTrajectoryTable, id);
    if (!v) return v.error();
    text = *v;
    return {};
  });
  if (!st) return st.error();
  if (!text) return std::optional<Trajectory>{};
  auto t = parse(*text, env_.path() + "/data.mdb: trajectory " + id);
  if (!t) return t.error();
  return std::optional<Trajectory>(std::move(*t));
}

Expected<std::vector<Trajectory>> TrajectoryStore::list(const std::string &kernel_hash, const std::string &arch) {
  std::vector<Trajectory> out;
  Error bad;
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    return txn.for_each(cache::kTrajectoryTable, "", [&](std::string_view key, std::string_view value) {
      auto t = parse(value, env_.path() + "/data.mdb: trajectory " + std::string(key));
      if (!t) {
        bad = t.error();
        return false;
      }
      if ((kernel_hash.empty() || t->kernel_hash == kernel_hash) && (arch.empty() || t->arch == arch))
        out.push_back(std::move(*t));
      return true;
    });
  });
  if (!st) return st.error();
  if (!bad.message.empty()) return bad;
  return out;
}

Expected<std::vector<Trajectory>> TrajectoryStore::recent(size_t limit) {
  auto all = list();
  if (!all) return all.error();
  auto v = std::move(*all);
  std::stable_sort(v.begin(), v.end(),
                   [](const Trajectory &a, const Trajectory &b) { return a.finished > b.finished; });
  if (v.size() > limit) v.resize(limit);
  return v;
}

} // namespace kbcc::kb
