// On-disk format of captured kernel launches, shared by the capture library,
// the kbcc-gpu runner and kbcc itself (no CUDA here).
//
//   $KBCC_DIR/captures/blobs/<2 hex>/<32 hex>   buffer contents and cubins, zstd
//   $KBCC_DIR/captures/launches/<id>.json       one manifest per captured launch
//   $KBCC_DIR/captures/sessions/<name>.json     counters of one `kbcc capture` run
//
// A manifest's id is the hash of its replay-relevant content (pointer words
// zeroed), so capturing the same launch twice stores it once; identical
// buffers are stored once because blobs are content-addressed.
#pragma once

#include "gpu/harness.h"
#include "support/expected.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kbcc::gpu {

constexpr int kCaptureFormat = 1;

// How the "after" state of a buffer is stored.
enum class AfterKind { Unchanged, Full, Ranges };

struct ByteRange {
  uint64_t offset = 0, size = 0;
};

// One device allocation (or module global) a launch reads or writes.
struct BufferRecord {
  uint64_t base = 0; // original device address of the allocation start
  uint64_t size = 0;
  std::string global;         // module global symbol name; empty for allocations
  std::string name;           // "param<i>" / "param<i>+<off>" / parameter name / global name
  std::string type = "bytes"; // element type name (element_type_name)
  std::string before;         // blob hash
  AfterKind after_kind = AfterKind::Unchanged;
  std::string after; // blob hash: whole buffer (Full) or concatenated ranges (Ranges)
  std::vector<ByteRange> ranges;
};

// A parameter word that holds a device pointer: param_bytes[offset..+8] =
// base(buffer) + delta at capture time; replay rewrites it.
struct PointerRecord {
  uint32_t offset = 0; // byte offset in the parameter buffer
  uint32_t param = 0;  // parameter index
  uint32_t buffer = 0; // index into Manifest::buffers
  uint64_t delta = 0;  // offset inside the buffer
};

struct ParamRecord {
  uint32_t offset = 0, size = 0;
};

struct Manifest {
  int format = kCaptureFormat;
  std::string kernel, kernel_hash, arch, gpu_name;
  std::string module; // blob hash of the module's cubin
  std::string api;    // "cuLaunchKernel", "cuLaunchKernelEx"
  Dim3 grid, block;
  uint32_t shared_mem = 0;
  std::vector<ParamRecord> params;
  std::string param_bytes; // raw bytes of the parameter buffer (hex in JSON)
  std::vector<BufferRecord> buffers;
  std::vector<PointerRecord> pointers;
  bool replayable = true;
  std::string reason; // why not replayable
  std::string command, created;
  uint64_t sequence = 0; // launch number within the captured process
};

// Serialises / parses a manifest; `origin` names the file in errors.
std::string manifest_to_json(const Manifest &m);
Expected<Manifest> manifest_from_json(const std::string &text, const std::string &origin);
// Content address (pointer words zeroed, addresses, times and command excluded).
std::string manifest_id(const Manifest &m);
// Summary used by listings.
CaptureInfo capture_info(const Manifest &m, const std::string &id, const std::string &path);

// Content-addressed, zstd-compressed blobs under <root>/blobs.
class BlobStore {
public:
  explicit BlobStore(std::string root) : root_(std::move(root)) {}
  // Stores `bytes` (no-op when present) and returns its hash.
  Expected<std::string> put(std::string_view bytes);
  Expected<std::string> get(const std::string &hash) const;
  std::string path(const std::string &hash) const;
  bool has(const std::string &hash) const;
  // Bytes written to disk by put() in this process (compressed sizes).
  uint64_t bytes_written() const { return written_; }

private:
  std::string root_;
  uint64_t written_ = 0;
};

// Changed byte ranges between equally long `before` and `after`, at
// `granule`-byte resolution, adjacent ranges merged.
std::vector<ByteRange> diff_ranges(std::string_view before, std::string_view after, uint64_t granule = 256);
// Fills a record's after_kind/after/ranges from the two states (stores blobs).
Status store_after(BlobStore &store, std::string_view before, std::string_view after, BufferRecord &record);
// Rebuilds the full "after" contents of a buffer.
Expected<std::string> load_after(const BlobStore &store, const BufferRecord &record, const std::string &before);

std::string to_hex(std::string_view bytes);
Expected<std::string> from_hex(std::string_view hex);

} // namespace kbcc::gpu
