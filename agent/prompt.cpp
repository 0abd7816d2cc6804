#include "agent/prompt.h"

#include "cache/variant.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace kbcc::agent {
namespace {

const char *kSystem =
    "You optimize one CUDA kernel for one GPU architecture. You reply with exactly one ```cuda fenced "
    "block holding the complete replacement definition of the kernel, preceded by any new __device__ "
    "helper functions it needs (give helpers unique names starting with kbcc_). The contract:\n"
    "- keep the kernel's name, template parameters, parameter types and order, and return type exactly;\n"
    "- it must compute bit-for-bit or within floating-point tolerance the same outputs for every "
    "captured launch configuration listed, and for other inputs of the same sizes;\n"
    "- do all the work the original does: write every output it writes, keep every loop whose trip count "
    "depends on a parameter; no early exits that skip work, no calls to libraries;\n"
    "- do not define macros.\n"
    "You may change how the kernel is launched (grid, block, dynamic shared memory). Then also reply with one "
    "```json block: {\"launch\": {\"grid\": [X, Y, Z], \"block\": [X, Y, Z], \"shared\": S, \"preconditions\": "
    "[P, ...]}, \"numerics\": \"exact\" or \"reassociates\", \"reduction_length\": N}. Every X, Y, Z, S, P and N is "
    "a string in this language: 64-bit integers, + - * / %, == != < <= > >=, && || !, parentheses, "
    "ceil_div(a, b), min(a, b), max(a, b), aligned(pointer_parameter, bytes), distinct(pointer_parameter, "
    "pointer_parameter), and the names grid.x grid.y grid.z "
    "block.x block.y block.z shared (the original launch) and the kernel's integer parameters. The new launch "
    "must compute every output of the original launch exactly once; the preconditions are checked before each "
    "launch, and where one does not hold the original kernel runs instead. Use \"reassociates\" when "
    "floating-point sums are added in another order, with N the number of terms of the longest such sum.\n"
    "The candidate is compiled, replayed on real captured inputs (through the launch mapping) and fuzzed inputs, "
    "checked by a static check for removed work, then timed; the variant kept is checked with compute-sanitizer.";

std::string launches_text(const KernelTask &t) {
  std::ostringstream s;
  for (const launch::Launch &l : t.launches)
    s << "- grid (" << l.grid[0] << "," << l.grid[1] << "," << l.grid[2] << "), block (" << l.block[0] << ","
      << l.block[1] << "," << l.block[2] << "), dynamic shared memory " << l.shared << " bytes\n";
  return s.str();
}

// The ```json block contents that state `c`'s launch mapping and numerics.
std::string mapping_block(const Candidate &c) {
  nlohmann::json j = {{"launch", launch::to_json(*c.launch)},
                      {"numerics", c.numerics.empty() ? std::string(cache::kNumericsExact) : c.numerics}};
  if (!c.reduction_length.empty()) j["reduction_length"] = c.reduction_length;
  return j.dump();
}

std::string metrics_text(const Metrics &m) {
  std::ostringstream s;
  for (const auto &[k, v] : m)
    s << "- " << k << " = " << v << "\n";
  return s.str();
}

} // namespace

std::vector<llm::Message> lowering_prompt(const LoweringRequest &r) {
  std::ostringstream u;
  u << "Target architecture: " << r.task->arch << "\n\n";
  if (!r.task->kernel.dependencies.empty())
    u << "The kernel depends on these definitions (already in the translation unit; do not repeat them):\n```cuda\n"
      << r.task->kernel.dependencies << "\n```\n\n";
  u << "Current kernel:\n```cuda\n" << r.start->source << "\n```\n\n";
  u << "Captured launch configurations:\n" << launches_text(*r.task) << "\n";
  if (r.start->launch)
    u << "The current kernel is launched through this mapping of the original launch (keep it, or reply with "
         "another):\n```json\n"
      << mapping_block(*r.start) << "\n```\n\n";
  u << "Performance state: " << r.state.name;
  if (!r.state.bottleneck.empty()) u << " (bottleneck: " << r.state.bottleneck << ")";
  u << "\n" << r.state.description << "\nProfiler metrics of the current kernel:\n" << metrics_text(r.metrics) << "\n";
  u << "Apply this optimization: " << r.option.id << "\n" << r.option.description << "\n";
  if (!r.option.insights.empty()) u << "What the knowledge base learned about it:\n" << r.option.insights << "\n";
  u << "Expected speedup from past evidence: " << r.option.predicted_speedup << "x\n\n"
    << "Reply with the ```cuda block (and the ```json block when the launch changes) only.";
  return {{"system", kSystem}, {"user", u.str()}};
}

std::vector<llm::Message> fixer_prompt(const LoweringRequest &r, const Candidate &failed,
                                       const std::string &feedback) {
  auto m = lowering_prompt(r);
  std::string answer = "```cuda\n" + failed.source + "\n```";
  if (failed.launch) answer += "\n```json\n" + mapping_block(failed) + "\n```";
  m.push_back({"assistant", answer});
  m.push_back({"user", "That candidate was rejected:\n" + feedback.substr(0, 6000) +
                           "\n\nFix it. Reply with the complete corrected ```cuda block (and the ```json block "
                           "when the launch changes) only."});
  return m;
}

std::optional<std::string> fenced_block(const std::string &text, const std::vector<std::string> &languages) {
  for (size_t p = text.find("```"); p != std::string::npos;) {
    size_t eol = text.find('\n', p);
    if (eol == std::string::npos) return std::nullopt;
    std::string lang = text.substr(p + 3, eol - p - 3);
    lang.erase(lang.find_last_not_of(" \t\r") + 1);
    size_t end = text.find("```", eol + 1);
    if (end == std::string::npos) return std::nullopt;
    bool wanted = lang.empty();
    for (const auto &l : languages)
      wanted |= lang == l;
    if (wanted) return text.substr(eol + 1, end - eol - 1);
    p = text.find("```", end + 3);
  }
  return std::nullopt;
}

} // namespace kbcc::agent
