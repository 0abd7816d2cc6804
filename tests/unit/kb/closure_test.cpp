// Unit closures: which files are kept, the relocatable command, the JSON
// form and its checks, the store (dedup, cap, eviction) and writing one out.
#include "kb/closure.h"
#include "support/fs.h"
#include "support/hash.h"
#include "test_dir.h"

#include <gtest/gtest.h>

namespace kbcc::kb {
namespace {

// A checkout: <root>/proj/{src/k.cu, include/k.h, build/}, a "toolkit" at
// <root>/cuda/include/cuda_fake.h.
struct Checkout {
  test::TempDir d;
  std::string proj = d.path() + "/proj", cuda = d.path() + "/cuda";
  Checkout() {
    EXPECT_TRUE(write_file_atomic(proj + "/src/k.cu", "#include \"k.h\"\n__global__ void k(float *x) { x[0] = K; }\n"));
    EXPECT_TRUE(write_file_atomic(proj + "/include/k.h", "#define K 2.0f\n"));
    EXPECT_TRUE(write_file_atomic(cuda + "/include/cuda_fake.h", "// toolkit\n"));
    EXPECT_TRUE(make_dirs(proj + "/build"));
  }
  CompileInputs inputs() const {
    CompileInputs in;
    in.unit = proj + "/src/k.cu";
    in.working_dir = proj + "/build";
    in.command = {"/usr/local/cuda/bin/nvcc",
                  "-I" + proj + "/include",
                  "-isystem",
                  cuda + "/include",
                  "-DOUT=" + proj + "/out",
                  "-c",
                  proj + "/src/k.cu",
                  "-o",
                  "k.o"};
    in.included_files = {proj + "/src/k.cu", proj + "/include/k.h", cuda + "/include/cuda_fake.h"};
    in.toolchain = toolchain_dirs(cuda, d.path() + "/kbcc");
    return in;
  }
};

TEST(Closure, KeepsUserFilesAndMakesTheCommandRelative) {
  Checkout co;
  std::map<std::string, std::string> contents;
  auto c = make_closure(co.inputs(), contents);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->root, real_path(co.proj));
  EXPECT_EQ(c->unit, "src/k.cu");
  EXPECT_EQ(c->working_dir, "build");
  ASSERT_EQ(c->files.size(), 2u); // the toolkit header is not copied
  EXPECT_EQ(c->files[0].path, "include/k.h");
  EXPECT_EQ(c->files[1].path, "src/k.cu");
  EXPECT_EQ(contents.at(c->files[0].hash), "#define K 2.0f\n");
  std::vector<std::string> want{"/usr/local/cuda/bin/nvcc",
                                "-I../include",
                                "-isystem",
                                co.cuda + "/include",
                                "-DOUT=" + co.proj + "/out",
                                "-c",
                                "../src/k.cu",
                                "-o",
                                "k.o"};
  EXPECT_EQ(c->command, want);
}

TEST(Closure, ToolchainDirectories) {
  auto dirs = toolchain_dirs("/opt/cuda-13", "/home/u/.cache/kbcc");
  EXPECT_TRUE(in_dirs("/opt/cuda-13/include/cuda_runtime.h", dirs));
  EXPECT_TRUE(in_dirs("/usr/local/cuda-12.4/include/cuda.h", dirs));
  EXPECT_TRUE(in_dirs("/usr/include/stdio.h", dirs));
  EXPECT_TRUE(in_dirs("/home/u/.cache/kbcc/tooling/shims-v1/kbcc_cuda_shim.h", dirs));
  EXPECT_FALSE(in_dirs("/home/u/proj/include/k.h", dirs));
  EXPECT_FALSE(in_dirs("/opt/cuda-13x/k.h", dirs));
}

TEST(Closure, IdIsStableAndJsonIsChecked) {
  Checkout co;
  std::map<std::string, std::string> contents;
  auto c = make_closure(co.inputs(), contents);
  ASSERT_TRUE(c);
  auto back = closure_from_json(to_json(*c), "test");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(closure_id(*back), closure_id(*c));
  auto j = to_json(*c);
  j["files"][0]["path"] = "../../etc/passwd";
  auto bad = closure_from_json(j, "remote/closures/x");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, kErrClosureBad);
  EXPECT_NE(bad.error().message.find("remote/closures/x: file path '../../etc/passwd' leaves the closure"),
            std::string::npos)
      << bad.error().message;
  j = to_json(*c);
  j["unit"] = "/abs/k.cu";
  EXPECT_FALSE(closure_from_json(j, "x"));
  j = to_json(*c);
  j["unit"] = "src/other.cu";
  EXPECT_FALSE(closure_from_json(j, "x")); // the unit must be among the files
}

TEST(ClosureStore, FilesAreSharedAcrossClosures) {
  Checkout co;
  auto env = cache::Env::open(co.d.path() + "/kbcc");
  ASSERT_TRUE(env);
  ClosureStore store(**env, 1 << 20);
  auto id1 = store.record(co.inputs());
  ASSERT_TRUE(id1) << id1.error().message;
  ASSERT_TRUE(write_file_atomic(co.proj + "/src/k2.cu", "#include \"k.h\"\n__global__ void k2() {}\n"));
  CompileInputs in2 = co.inputs();
  in2.unit = co.proj + "/src/k2.cu";
  in2.included_files = {co.proj + "/src/k2.cu", co.proj + "/include/k.h"};
  auto id2 = store.record(in2);
  ASSERT_TRUE(id2) << id2.error().message;
  EXPECT_NE(*id1, *id2);
  // k.h once, k.cu, k2.cu.
  EXPECT_EQ(*store.bytes(), std::string("#define K 2.0f\n").size() * 1 + read_file(co.proj + "/src/k.cu")->size() +
                                read_file(co.proj + "/src/k2.cu")->size());
  EXPECT_EQ(*store.record(co.inputs()), *id1); // recording again changes nothing
  auto got = store.get(*id1);
  ASSERT_TRUE(got && *got);
  EXPECT_EQ((*got)->unit, "src/k.cu");
  EXPECT_FALSE(*store.get(std::string(32, '0')));
}

TEST(ClosureStore, EvictsLeastRecentlyRecordedBeyondTheCap) {
  Checkout co;
  auto env = cache::Env::open(co.d.path() + "/kbcc");
  ASSERT_TRUE(env);
  std::string big(600, 'x');
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    std::string unit = co.proj + "/src/u" + std::to_string(i) + ".cu";
    ASSERT_TRUE(write_file_atomic(unit, "// " + std::to_string(i) + big + "\n"));
    CompileInputs in = co.inputs();
    in.unit = unit;
    in.included_files = {unit};
    auto id = ClosureStore(**env, 1500).record(in);
    ASSERT_TRUE(id) << id.error().message;
    ids.push_back(*id);
    // Recorded 100 s, 50 s, 0 s ago (the store counts use in seconds).
    std::string key = std::string(kClosureTable) + '\x1f' + *id;
    ASSERT_TRUE((*env)->write([&](cache::Txn &t) {
      return t.put(cache::kAccessTable, key, std::to_string(cache::now_seconds() - 100 + 50 * i));
    }));
  }
  ClosureStore store(**env, 1500);
  EXPECT_FALSE(*store.get(ids[0])); // the oldest went, with its file
  EXPECT_TRUE(*store.get(ids[1]));
  EXPECT_TRUE(*store.get(ids[2]));
  EXPECT_LE(*store.bytes(), 1500u);

  CompileInputs huge = co.inputs();
  ASSERT_TRUE(write_file_atomic(co.proj + "/src/huge.cu", std::string(2000, 'y')));
  huge.unit = co.proj + "/src/huge.cu";
  huge.included_files = {huge.unit};
  auto refused = store.record(huge);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, kErrClosureTooLarge);
  EXPECT_TRUE(*store.get(ids[2])); // nothing was evicted for it
}

TEST(ClosureStore, PutChecksContentAndCompleteness) {
  Checkout co;
  auto env = cache::Env::open(co.d.path() + "/kbcc");
  ASSERT_TRUE(env);
  ClosureStore store(**env, 1 << 20);
  std::map<std::string, std::string> contents;
  auto c = make_closure(co.inputs(), contents);
  ASSERT_TRUE(c);
  auto partial = contents;
  partial.erase(c->files[0].hash);
  auto missing = store.put(*c, partial);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, kErrClosureMissing);
  auto forged = contents;
  forged.begin()->second += "// changed";
  EXPECT_EQ(store.put(*c, forged).error().code, kErrClosureBad);
  EXPECT_FALSE(*store.get(closure_id(*c))); // nothing of either attempt was kept
  ASSERT_TRUE(store.put(*c, contents));
  EXPECT_TRUE(store.missing_files(*c)->empty());
}

TEST(ClosureStore, MaterializeWritesTheTree) {
  Checkout co;
  auto env = cache::Env::open(co.d.path() + "/kbcc");
  ASSERT_TRUE(env);
  ClosureStore store(**env, 1 << 20);
  auto id = store.record(co.inputs());
  ASSERT_TRUE(id);
  auto c = store.get(*id);
  ASSERT_TRUE(c && *c);
  auto m = materialize(store, **c, co.d.path() + "/out");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->unit, co.d.path() + "/out/root/src/k.cu");
  EXPECT_EQ(m->working_dir, co.d.path() + "/out/root/build");
  EXPECT_EQ(*read_file(m->root + "/include/k.h"), "#define K 2.0f\n");
  EXPECT_TRUE(file_exists(m->working_dir));
  EXPECT_FALSE(file_exists(m->root + "/cuda_fake.h"));

  Closure other = **c;
  other.files[0].hash = hash_hex("not stored");
  auto gone = materialize(store, other, co.d.path() + "/out2");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, kErrClosureMissing);
  EXPECT_NE(gone.error().message.find("file include/k.h"), std::string::npos) << gone.error().message;
}

} // namespace
} // namespace kbcc::kb
