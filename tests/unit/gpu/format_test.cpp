#include "gpu/capture_format.h"
#include "support/fs.h"

#include <cstring>
#include <gtest/gtest.h>

using namespace kbcc::gpu;

namespace {

struct TempDir {
  std::string path = *kbcc::make_temp_dir("kbcc-gpu-test");
  ~TempDir() { kbcc::remove_all(path); }
};

Manifest sample(uint64_t base) {
  Manifest m;
  m.kernel = "_Z5saxpyifPKfPf";
  m.arch = "sm_90";
  m.grid = {4, 1, 1};
  m.block = {256, 1, 1};
  m.params = {{0, 4}, {4, 4}, {8, 8}, {16, 8}};
  m.param_bytes.assign(24, '\0');
  uint64_t x = base, y = base + 0x1000;
  std::memcpy(m.param_bytes.data() + 8, &x, 8);
  std::memcpy(m.param_bytes.data() + 16, &y, 8);
  BufferRecord b;
  b.base = base;
  b.size = 0x2000;
  b.name = "param2";
  b.type = "f32";
  b.before = std::string(32, 'a');
  m.buffers.push_back(b);
  m.pointers = {{8, 2, 0, 0}, {16, 3, 0, 0x1000}};
  m.created = "2026-01-01T00:00:00Z";
  return m;
}

} // namespace

TEST(Manifest, RoundTrip) {
  Manifest m = sample(0x7f0000000000);
  m.buffers[0].after_kind = AfterKind::Ranges;
  m.buffers[0].after = std::string(32, 'b');
  m.buffers[0].ranges = {{0x1000, 256}};
  auto back = manifest_from_json(manifest_to_json(m), "t.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->kernel, m.kernel);
  EXPECT_EQ(back->param_bytes, m.param_bytes);
  ASSERT_EQ(back->pointers.size(), 2u);
  EXPECT_EQ(back->pointers[1].delta, 0x1000u);
  EXPECT_EQ(back->buffers[0].after_kind, AfterKind::Ranges);
  EXPECT_EQ(back->buffers[0].ranges[0].offset, 0x1000u);
  EXPECT_EQ(manifest_id(*back), manifest_id(m));
}

TEST(Manifest, IdIgnoresAddressesAndTimes) {
  Manifest a = sample(0x7f0000000000), b = sample(0x7e0000200000);
  b.created = "2027-01-01T00:00:00Z";
  b.command = "other";
  EXPECT_EQ(manifest_id(a), manifest_id(b));
  b.grid.x = 8;
  EXPECT_NE(manifest_id(a), manifest_id(b));
}

TEST(Manifest, ErrorsNameTheFile) {
  auto bad = manifest_from_json("{not json", "/x/launches/abc.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("/x/launches/abc.json"), std::string::npos);
  Manifest m = sample(0x1000000);
  m.pointers[0].buffer = 7;
  auto out_of_range = manifest_from_json(manifest_to_json(m), "m.json");
  ASSERT_FALSE(out_of_range);
  EXPECT_NE(out_of_range.error().message.find("out of range"), std::string::npos);
  m = sample(0x1000000);
  m.format = 99;
  EXPECT_FALSE(manifest_from_json(manifest_to_json(m), "m.json"));
}

TEST(Blobs, DeduplicatedAndVerified) {
  TempDir t;
  BlobStore store(t.path);
  std::string data(1 << 20, 'z');
  auto h1 = store.put(data);
  ASSERT_TRUE(h1);
  uint64_t written = store.bytes_written();
  EXPECT_LT(written, data.size() / 100); // compressed
  auto h2 = store.put(data);
  ASSERT_TRUE(h2);
  EXPECT_EQ(*h1, *h2);
  EXPECT_EQ(store.bytes_written(), written); // second put stored nothing
  auto back = store.get(*h1);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, data);
  ASSERT_TRUE(kbcc::write_file_atomic(store.path(*h1), "garbage"));
  EXPECT_FALSE(store.get(*h1));
}

TEST(After, UnchangedRangesAndFull) {
  TempDir t;
  BlobStore store(t.path);
  std::string before(4096, '\0');
  BufferRecord r;
  ASSERT_TRUE(store_after(store, before, before, r));
  EXPECT_EQ(r.after_kind, AfterKind::Unchanged);

  std::string sparse = before;
  sparse[10] = 1;
  sparse[3000] = 2;
  ASSERT_TRUE(store_after(store, before, sparse, r));
  EXPECT_EQ(r.after_kind, AfterKind::Ranges);
  EXPECT_EQ(r.ranges.size(), 2u);
  auto back = load_after(store, r, before);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, sparse);

  std::string dense(4096, 'x');
  ASSERT_TRUE(store_after(store, before, dense, r));
  EXPECT_EQ(r.after_kind, AfterKind::Full);
  back = load_after(store, r, before);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, dense);
}

TEST(After, DiffRangesMerge) {
  std::string a(1024, '\0'), b = a;
  b[0] = b[300] = b[600] = 1; // granules 0,1,2 -> one range
  auto r = diff_ranges(a, b, 256);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].offset, 0u);
  EXPECT_EQ(r[0].size, 768u);
}

TEST(Captures, ListAndFind) {
  TempDir t;
  for (uint32_t g : {1u, 2u}) {
    Manifest m = sample(0x1000000);
    m.grid.x = g;
    std::string id = manifest_id(m);
    ASSERT_TRUE(kbcc::write_file_atomic(t.path + "/launches/" + id + ".json", manifest_to_json(m)));
  }
  auto all = list_captures(t.path);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  auto one = find_capture(t.path, (*all)[0].id.substr(0, 8));
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(one->id, (*all)[0].id);
  EXPECT_FALSE(find_capture(t.path, "zzzz"));
  EXPECT_FALSE(find_capture(t.path, "")); // every id matches: ambiguous
  auto filtered = list_captures(t.path, {.kernel = "_Z5other", .arch = "", .replayable_only = false});
  ASSERT_TRUE(filtered);
  EXPECT_TRUE(filtered->empty());
  ASSERT_TRUE(kbcc::write_file_atomic(t.path + "/launches/broken.json", "{}"));
  auto broken = list_captures(t.path);
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("broken.json"), std::string::npos);
}
