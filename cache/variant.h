// The variant cache: validated, faster kernel variants keyed by (kernel hash,
// arch). A record carries its source, provenance, validation evidence and
// timing evidence (docs/store-format.md); the store refuses a record without
// validation evidence.
#pragma once

#include "cache/env.h"
#include "launch/mapping.h"
#include "support/expected.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kbcc::cache {

struct Provenance {
  std::string trajectory;                 // id of the trajectory that produced it (kb/trajectory.h)
  std::vector<std::string> optimizations; // KB optimization ids applied, in order
  std::string kb_snapshot;                // id of the KB policy it was produced under (may be empty)
  std::string llm_model;                  // empty when only mechanical transforms were used
  std::string contributor;                // who produced it (KB contributor id)
  int64_t created = 0;                    // unix seconds
};

struct ValidationEvidence {
  uint32_t captures_checked = 0; // captured launches replayed and compared (must be > 0)
  double max_error = 0;          // largest observed error (same unit as tolerance)
  double tolerance = 0;          // tolerance applied (per output type, noise calibrated)
  std::string sanitizer;         // "clean", "skipped" or "errors" (the last is refused)
  std::string notes;             // free text (e.g. per-capture summary)
};

struct TimingEvidence {
  double baseline_median_us = 0;
  double baseline_spread_us = 0; // e.g. inter-quartile range
  double variant_median_us = 0;
  double variant_spread_us = 0;
  uint32_t runs = 0;    // timed runs per side
  std::string gpu_name; // e.g. "NVIDIA H100 80GB HBM3"
  std::string driver;   // driver version text
  // baseline / variant median; 0 when unknown.
  double speedup() const;
};

// Numerics classes (docs/kernels.md): how a variant's floating-point results
// may differ from the original's.
inline constexpr const char *kNumericsExact = "exact";              // same operations in the same order
inline constexpr const char *kNumericsReassociates = "reassociates"; // reductions summed in another order
inline constexpr const char *kNumericsApproximate = "approximate";   // fast intrinsics or other approximations

// The order exact < reassociates < approximate (0, 1, 2; an empty or unknown
// class counts as exact).
inline int numerics_looseness(const std::string &numerics) {
  if (numerics == kNumericsApproximate) return 2;
  if (numerics == kNumericsReassociates) return 1;
  return 0;
}

struct VariantRecord {
  std::string kernel_hash;    // tooling::Kernel::hash (32 hex)
  std::string arch;           // "sm_90"
  std::string qualified_name; // for humans (`kbcc cache list`)
  std::string source;         // replacement definition of the kernel (+ unique helpers)
  std::string toolchain;      // nvcc version text it was validated with
  // Launch-changing variant: how its launch derives from the original's and
  // when it may run (launch/mapping.h). Empty: it keeps the launch.
  std::optional<launch::LaunchMapping> launch;
  std::string numerics; // one of the kNumerics* classes; empty in records that predate it
  Provenance provenance;
  ValidationEvidence validation;
  TimingEvidence timing;
  std::string signature; // optional detached signature (remote store), opaque here
  std::string signer;    // optional public key id of the signer

  // Content id: XXH3-128 over kernel hash, arch, source and toolchain (and
  // the launch mapping and numerics class when present).
  std::string id() const;
};

// JSON form (docs/store-format.md). from_json names `origin` in its errors.
nlohmann::json to_json(const VariantRecord &record);
Expected<VariantRecord> variant_from_json(const nlohmann::json &j, const std::string &origin);
// Parses JSON text (a file's content) into a record.
Expected<VariantRecord> parse_variant(const std::string &text, const std::string &origin);

// Succeeds when the record is complete and validated: hash, arch, source,
// captures_checked > 0, max_error <= tolerance, sanitizer != "errors", a
// launch mapping that parses and a known numerics class.
Status check_variant(const VariantRecord &record);

// The unqualified name of a kernel without template arguments
// ("ns::scale<float>" -> "scale"): the identifier its definition spells.
std::string kernel_base_name(const std::string &qualified);

// The store key of (kernel hash, arch).
std::string variant_key(const std::string &kernel_hash, const std::string &arch);

class VariantStore {
public:
  enum class PutMode { kKeepFaster, kReplace };
  explicit VariantStore(Env &env) : env_(env) {}

  // Stores `record` after check_variant. kKeepFaster keeps an existing record
  // with a higher timing speedup; returns whether `record` was stored.
  Expected<bool> put(const VariantRecord &record, PutMode mode = PutMode::kKeepFaster);
  // The record for (kernel hash, arch), if any; marks it used (LRU) when
  // `touch` is set.
  Expected<std::optional<VariantRecord>> get(const std::string &kernel_hash, const std::string &arch,
                                             bool touch = false);
  // Every record, ordered by key; `arch` filters when not empty.
  Expected<std::vector<VariantRecord>> list(const std::string &arch = {});
  // Removes the record; true when it existed.
  Expected<bool> remove(const std::string &kernel_hash, const std::string &arch);
  // Removes every variant; returns how many.
  Expected<uint64_t> clear();
  // Whether a variant for one of `archs` may belong to a kernel named by one
  // of `identifiers` (the identifiers of a unit's text): its name is among
  // them, or a record has no name. False positives only (a removed or
  // evicted variant's name may linger); never a false negative. Builds the
  // name index of a store written before it had one.
  Expected<bool> may_apply(const std::vector<std::string> &archs, const std::set<std::string> &identifiers);

private:
  Env &env_;
};

} // namespace kbcc::cache
