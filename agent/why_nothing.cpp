#include "agent/why_nothing.h"

#include "support/config.h"

#include <set>

namespace kbcc::agent {
namespace {

// The same matching as run.cpp's task collection: by qualified name, hash
// prefix or mangled name; a capture belongs to an entry by hash, else by name.
bool matches(const kb::RegistryEntry &e, const std::string &filter) {
  if (filter.empty() || e.qualified_name == filter || e.hash.rfind(filter, 0) == 0) return true;
  for (const auto &m : e.mangled_names)
    if (m == filter) return true;
  return false;
}

bool capture_of(const gpu::CaptureInfo &c, const kb::RegistryEntry &e) {
  if (!c.kernel_hash.empty()) return c.kernel_hash == e.hash;
  for (const auto &m : e.mangled_names)
    if (m == c.kernel) return true;
  return false;
}

std::string join(const std::map<std::string, unsigned> &counts) {
  std::string out;
  for (const auto &[k, n] : counts)
    out += (out.empty() ? "" : ", ") + k + (n > 1 ? " x" + std::to_string(n) : "");
  return out;
}

bool has_prefix(const std::string &s, const std::string &p) { return s.rfind(p, 0) == 0; }

// Build-side reasons no kernel reached the registry: fallbacks to nvcc by
// extraction failure (with the first file) and compiles kbcc left alone.
void build_lines(const NothingInputs &in, std::vector<std::string> &out) {
  for (const auto &[name, n] : in.stats) {
    if (n == 0) continue;
    if (has_prefix(name, "extraction-failed:")) {
      std::string line =
          std::to_string(n) + " compile(s) fell back to nvcc without recording kernels (" + name.substr(18) + ")";
      if (auto f = in.firsts.find(name); f != in.firsts.end()) line += "; first: " + f->second;
      out.push_back(line);
    } else if (has_prefix(name, "cannot-optimize:")) {
      out.push_back(std::to_string(n) + " compile(s) kbcc does not parse (" + name.substr(16) +
                    "): their kernels are not recorded");
    }
  }
}

// Why one registry kernel is no task for `in.arch`; "" when it would be one.
std::string entry_line(const NothingInputs &in, const kb::RegistryEntry &e) {
  std::string who = e.qualified_name + " (" + e.hash.substr(0, 12) + ")";
  if (!e.not_optimizable.empty()) return who + ": not optimizable (" + e.not_optimizable + ")";
  if (std::find(e.archs.begin(), e.archs.end(), in.arch) == e.archs.end()) {
    std::map<std::string, unsigned> built;
    for (const std::string &a : e.archs)
      built[a]++;
    return who + ": not built for " + in.arch + " (built for " + join(built) + "); add " + in.arch +
           " to the archs of its build (captures made on any arch serve it)";
  }
  std::map<std::string, unsigned> not_replayable;
  unsigned here = 0, replayable_here = 0;
  for (const gpu::CaptureInfo &c : in.captures) {
    if (!capture_of(c, e)) continue;
    ++here;
    if (c.replayable)
      ++replayable_here;
    else
      not_replayable[c.not_replayable_reason.empty() ? "unknown" : c.not_replayable_reason]++;
  }
  if (replayable_here > 0) return "";
  if (here > 0)
    return who + ": " + std::to_string(here) + " capture(s), none replayable (" + join(not_replayable) + ")";
  for (const std::string &m : e.mangled_names) {
    auto t = in.sessions.find(m);
    if (t == in.sessions.end() || t->second.skipped_cap == 0 || t->second.captured > 0) continue;
    return who + ": launched under kbcc capture but skipped by the capture store's limit (smallest launch " +
           gpu::size_flag_value(t->second.smallest_capped) + "); capture again with --max-total " +
           gpu::size_flag_value(t->second.cap_needed);
  }
  return who + ": never captured (run `kbcc capture -- <program>` with a program that launches it)";
}

} // namespace

std::vector<std::string> why_nothing(const NothingInputs &in) {
  std::vector<std::string> out, unknown;
  std::set<std::string> reported;
  for (const gpu::CaptureInfo &c : in.captures) {
    bool known = false;
    for (const kb::RegistryEntry &e : in.entries)
      known = known || capture_of(c, e);
    if (known || (!in.filter.empty() && c.kernel != in.filter) || !reported.insert(c.kernel).second) continue;
    unknown.push_back("capture " + c.id.substr(0, 12) + " (" + c.kernel + " on " + c.arch +
                      "): its kernel is not in the registry (its unit was not built with kbcc, or its parse failed)");
  }
  if (in.entries.empty())
    out.push_back("the kernel registry is empty: no build through kbcc has recorded a kernel "
                  "(build with kbcc as the CUDA compiler, e.g. -DCMAKE_CUDA_COMPILER=kbcc)");
  if (in.entries.empty() || !unknown.empty()) build_lines(in, out);
  bool any_match = false;
  for (const kb::RegistryEntry &e : in.entries) {
    if (!matches(e, in.filter)) continue;
    any_match = true;
    if (std::string line = entry_line(in, e); !line.empty()) out.push_back(line);
  }
  if (!in.entries.empty() && !any_match) out.push_back("no registry kernel matches '" + in.filter + "'");
  out.insert(out.end(), unknown.begin(), unknown.end());
  if (out.empty()) out.push_back("every registry kernel has replayable captures");
  return out;
}

int explain_nothing_to_do(const Config &config, const std::vector<kb::RegistryEntry> &entries, const std::string &arch,
                          const std::string &filter, std::ostream &out, std::ostream &err) {
  NothingInputs in;
  in.entries = entries;
  in.arch = arch;
  in.filter = filter;
  auto captures = gpu::list_captures(config.dir() + "/captures");
  if (!captures) {
    err << "kbcc: " << captures.error().message << "\n";
    return 1;
  }
  in.captures = std::move(*captures);
  in.sessions = gpu::capture_session_tallies(config.dir() + "/captures");
  if (auto stats = cache::read_stats(config.dir())) in.stats = std::move(*stats);
  if (auto firsts = cache::read_firsts(config.dir())) in.firsts = std::move(*firsts);
  std::ostream &dest = filter.empty() ? out : err; // a --kernel that matches no task is a failure
  dest << "kbcc: nothing to optimize for " << arch << (filter.empty() ? std::string() : " matching '" + filter + "'")
       << ":\n";
  for (const std::string &line : why_nothing(in))
    dest << "  " << line << "\n";
  return filter.empty() ? 0 : 1;
}

} // namespace kbcc::agent
