#include "agent/unit_source.h"

#include "kb/closure.h"
#include "support/fs.h"

#include <filesystem>

namespace kbcc::agent {

namespace fs = std::filesystem;

Expected<UnitSource> materialize_unit(const KernelTask &task, cache::Env *store, const std::string &dir) {
  std::string why = "no closure was recorded for it";
  if (!task.closure.empty() && store) {
    kb::ClosureStore closures(*store, 0);
    auto closure = closures.get(task.closure);
    if (!closure) return closure.error();
    why = "its closure " + task.closure + " is not in the store";
    if (*closure) {
      auto m = kb::materialize(closures, **closure, dir + "/unit-" + task.closure.substr(0, 16));
      if (m)
        return UnitSource{m->unit, m->working_dir,   m->command,
                          m->root, (*closure)->root, "closure " + task.closure.substr(0, 16)};
      if (m.error().code != kb::kErrClosureMissing) return m.error();
      why = m.error().message;
    }
  }
  if (!task.tu_path.empty() && file_exists(task.tu_path))
    return UnitSource{task.tu_path, task.working_dir, task.compile_command, "", "", "checkout"};
  return make_error("cannot compile " + task.kernel.qualified_name + ": " + why + ", and its unit " +
                        (task.tu_path.empty() ? std::string("(unknown)") : task.tu_path) +
                        " does not exist (`kbcc kb pull` fetches closures)",
                    kErrNoUnitSource);
}

KernelTask at_unit(const KernelTask &task, const UnitSource &unit) {
  KernelTask t = task;
  t.tu_path = unit.tu_path;
  t.working_dir = unit.working_dir;
  t.compile_command = unit.compile_command;
  if (task.kernel.file.empty() || task.kernel.file == task.tu_path) {
    t.kernel.file = task.kernel.file.empty() ? "" : unit.tu_path;
  } else if (!unit.closure_root.empty()) {
    std::string rel = fs::path(task.kernel.file).lexically_relative(unit.recorded_root).string();
    if (!rel.empty() && rel.rfind("..", 0) != 0) t.kernel.file = unit.closure_root + "/" + rel;
  }
  return t;
}

} // namespace kbcc::agent
