#include "kb/registry.h"
#include "kb/trajectory.h"
#include "test_dir.h"

#include <gtest/gtest.h>

namespace kbcc::kb {
namespace {

tooling::Kernel kernel(const std::string &hash) {
  tooling::Kernel k;
  k.qualified_name = "ns::scale<float>";
  k.mangled_names = {"_ZN2ns5scaleIfEEvPT_i"};
  k.file = "/src/a.cu";
  k.line = 3;
  k.hash = hash;
  k.source = "__global__ void scale(float *x, int n) {}";
  k.dependencies = "#define N 4";
  tooling::Param p;
  p.name = "x";
  p.type = "float *";
  p.is_pointer = true;
  p.pointee_type = "float";
  p.size = 8;
  p.align = 8;
  k.params = {p};
  return k;
}

TEST(Registry, FoldsRepeatedSightings) {
  test::TempDir d;
  auto env = cache::Env::open(d.path());
  ASSERT_TRUE(env);
  Registry reg(**env);
  auto e1 = entry_from_kernel(kernel("aa"), {"sm_90"}, "/src/a.cu", {"nvcc", "-c", "a.cu"}, "/src", "nvcc 13", 100);
  auto e2 =
      entry_from_kernel(kernel("aa"), {"sm_80", "sm_90"}, "/src/b.cu", {"nvcc", "-c", "b.cu"}, "/src", "nvcc 13", 200);
  ASSERT_TRUE(reg.upsert(e1));
  ASSERT_TRUE(reg.upsert(e2));
  ASSERT_TRUE(reg.upsert(entry_from_kernel(kernel("bb"), {"sm_90"}, "/src/a.cu", {}, "/src", "nvcc 13", 150)));
  auto got = reg.get("aa");
  ASSERT_TRUE(got && got->has_value());
  const RegistryEntry &e = **got;
  EXPECT_EQ(e.build_count, 2u);
  EXPECT_EQ(e.first_seen, 100);
  EXPECT_EQ(e.last_seen, 200);
  EXPECT_EQ(e.archs, (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(e.tu_path, "/src/b.cu");
  ASSERT_EQ(e.params.size(), 1u);
  EXPECT_EQ(e.params[0].pointee_type, "float");
  EXPECT_EQ(e.dependencies, "#define N 4");
  EXPECT_EQ(*reg.count(), 2u);
  EXPECT_EQ(reg.list()->size(), 2u);
  EXPECT_FALSE(reg.get("cc")->has_value());
}

TEST(Registry, KeepsTheClosureOfTheLatestSightingThatHasOne) {
  test::TempDir d;
  auto env = cache::Env::open(d.path());
  ASSERT_TRUE(env);
  Registry reg(**env);
  auto e = entry_from_kernel(kernel("aa"), {"sm_90"}, "/src/a.cu", {"nvcc", "-c", "a.cu"}, "/src", "nvcc 13", 100);
  e.closure = "c1";
  ASSERT_TRUE(reg.upsert(e));
  e.closure = ""; // a compile whose closure could not be stored
  ASSERT_TRUE(reg.upsert(e));
  EXPECT_EQ((*reg.get("aa"))->closure, "c1");
  e.closure = "c2";
  ASSERT_TRUE(reg.upsert(e));
  EXPECT_EQ((*reg.get("aa"))->closure, "c2");
  auto round = registry_entry_from_json(to_json(**reg.get("aa")), "test");
  ASSERT_TRUE(round) << round.error().message;
  EXPECT_EQ(round->closure, "c2");
}

TEST(Trajectories, PutListRecent) {
  test::TempDir d;
  auto env = cache::Env::open(d.path());
  ASSERT_TRUE(env);
  TrajectoryStore store(**env);
  for (int i = 0; i < 3; ++i) {
    Trajectory t;
    t.id = "t" + std::to_string(i);
    t.kernel_hash = i < 2 ? "aa" : "bb";
    t.arch = "sm_90";
    t.finished = 100 + i;
    TrajectoryStep s;
    s.state = "dram_bandwidth_bound";
    s.optimization = "vectorized_loads";
    s.validated = true;
    s.speedup = 1.3;
    s.tokens_in = 1000;
    s.gpu_seconds = 2.5;
    s.metrics = {{"dram_throughput_pct", 80.0}};
    t.steps = {s};
    ASSERT_TRUE(store.put(t));
  }
  auto aa = store.list("aa");
  ASSERT_TRUE(aa);
  EXPECT_EQ(aa->size(), 2u);
  auto recent = store.recent(2);
  ASSERT_TRUE(recent);
  ASSERT_EQ(recent->size(), 2u);
  EXPECT_EQ((*recent)[0].id, "t2");
  auto t0 = store.get("t0");
  ASSERT_TRUE(t0 && t0->has_value());
  EXPECT_EQ((*t0)->steps.at(0).metrics["dram_throughput_pct"], 80.0);
  EXPECT_EQ((*t0)->steps.at(0).tokens_in, 1000u);
}

} // namespace
} // namespace kbcc::kb
