// kb push/pull between two machines (two KBCC_DIRs) through one remote:
// trusted variants, candidates, registry entries, KB evidence merged without
// double counting, captures under a size cap.
#include "cache/env.h"
#include "kb/closure.h"
#include "kb/policy.h"
#include "kb/registry.h"
#include "remote/sync.h"
#include "remote/variants.h"
#include "servers.h"
#include "support/fs.h"
#include "support/hash.h"

#include <gtest/gtest.h>

namespace kbcc::remote {
namespace {

using test::sample_variant;
using test::Server;
constexpr const char *kHash = "0123456789abcdef0123456789abcdef";

struct Machine {
  std::string dir = test::temp_dir();
  std::unique_ptr<cache::Env> env;
  Machine() {
    cache::EnvOptions o;
    o.extra_tables = {kCandidateTable};
    env = std::move(cache::Env::open(dir, o).value());
  }
  SyncOptions options(const std::string &contributor) const {
    SyncOptions o;
    o.contributor = contributor;
    o.captures_dir = dir + "/captures";
    return o;
  }
  uint64_t attempts(const std::string &optimization) {
    auto p = kb::PolicyStore(*env).load();
    return p ? p->summary(optimization).attempts : 0;
  }
};

kb::RegistryEntry registry_entry(const std::string &hash) {
  kb::RegistryEntry e;
  e.hash = hash;
  e.qualified_name = "scale";
  e.mangled_names = {"_Z5scalePf"};
  e.source = "__global__ void scale(float *x) { x[threadIdx.x] *= 2; }";
  e.file = "/src/scale.cu";
  e.line = 3;
  e.archs = {"sm_90"};
  e.first_seen = e.last_seen = 1000;
  e.build_count = 7;
  return e;
}

// A (state, optimization) pair of the seed KB.
std::pair<std::string, std::string> seed_pair() {
  auto seed = kb::seed_policy();
  EXPECT_TRUE(seed);
  return {seed->states.front().id, seed->optimizations.front().id};
}

void exchange(Store &store) {
  Machine a, b;
  KeyPair alice_key = generate_key();
  auto [state, opt] = seed_pair();

  // Machine A: a signed variant, an unsigned one, a registry entry, evidence.
  auto signed_variant = sample_variant(kHash, "sm_90", 2);
  sign_variant(signed_variant, alice_key);
  ASSERT_TRUE(cache::VariantStore(*a.env).put(signed_variant));
  auto unsigned_variant = sample_variant(kHash, "sm_80", 3);
  ASSERT_TRUE(cache::VariantStore(*a.env).put(unsigned_variant));
  ASSERT_TRUE(kb::Registry(*a.env).upsert(registry_entry(kHash)));
  ASSERT_TRUE(kb::PolicyStore(*a.env).update(
      [&](kb::Policy &p) { return p.record(state, opt, "sm_90", "alice", kb::Outcome{true, true, true, 1.5}); }));
  uint64_t seed_attempts = b.attempts(opt);

  auto pushed = push(store, *a.env, a.options("alice"));
  ASSERT_TRUE(pushed) << pushed.error().message;
  EXPECT_EQ(pushed->variants_pushed, 2u);
  EXPECT_EQ(pushed->registry_pushed, 1u);
  EXPECT_EQ(pushed->kb_pushed, 1u);

  // Machine B trusts alice's key.
  SyncOptions bo = b.options("bob");
  bo.trusted = {{alice_key.public_hex, "alice"}};
  auto pulled = pull(store, *b.env, bo);
  ASSERT_TRUE(pulled) << pulled.error().message;
  EXPECT_EQ(pulled->variants_trusted, 1u);
  EXPECT_EQ(pulled->candidates, 1u);
  EXPECT_EQ(pulled->registry_added, 1u);
  EXPECT_EQ(pulled->kb_merged, 1u);
  auto got = cache::VariantStore(*b.env).get(kHash, "sm_90");
  ASSERT_TRUE(got && *got);
  EXPECT_EQ((*got)->signer, alice_key.public_hex);
  auto absent = cache::VariantStore(*b.env).get(kHash, "sm_80");
  ASSERT_TRUE(absent);
  EXPECT_FALSE(*absent) << "an unsigned variant never reaches the variant cache";
  auto candidates = list_candidates(*b.env);
  ASSERT_TRUE(candidates);
  ASSERT_EQ(candidates->size(), 1u);
  EXPECT_EQ((*candidates)[0].arch, "sm_80");
  auto entry = kb::Registry(*b.env).get(kHash);
  ASSERT_TRUE(entry && *entry);
  EXPECT_EQ((*entry)->build_count, 7u);
  EXPECT_EQ(b.attempts(opt), seed_attempts + 1);

  // Pulling again adds nothing twice.
  pulled = pull(store, *b.env, bo);
  ASSERT_TRUE(pulled);
  EXPECT_EQ(pulled->registry_added, 0u);
  EXPECT_EQ(b.attempts(opt), seed_attempts + 1);
  EXPECT_EQ((*kb::Registry(*b.env).get(kHash))->build_count, 7u);

  // B adds its own evidence; A sees both contributors' after a sync.
  ASSERT_TRUE(kb::PolicyStore(*b.env).update(
      [&](kb::Policy &p) { return p.record(state, opt, "sm_90", "bob", kb::Outcome{true, false, false, 0}); }));
  ASSERT_TRUE(push(store, *b.env, bo));
  ASSERT_TRUE(pull(store, *a.env, a.options("alice")));
  EXPECT_EQ(a.attempts(opt), seed_attempts + 2);
  ASSERT_TRUE(pull(store, *a.env, a.options("alice")));
  EXPECT_EQ(a.attempts(opt), seed_attempts + 2);

  ASSERT_TRUE(remove_candidate(*b.env, (*candidates)[0]));
  EXPECT_TRUE(list_candidates(*b.env)->empty());
}

TEST(RemoteSync, ExchangeThroughMemory) {
  auto store = make_memory_store();
  exchange(*store);
}

TEST(RemoteSync, ExchangeThroughRedis) {
  Server redis(Server::kRedis);
  KBCC_REQUIRE_SERVER(redis);
  exchange(*make_store(redis.url(), {}).value());
}

TEST(RemoteSync, ExchangeThroughWebdav) {
  Server dav(Server::kWebdav);
  KBCC_REQUIRE_SERVER(dav);
  exchange(*make_store(dav.url() + "/kbcc", {}).value());
}

TEST(RemoteSync, DamagedKbContributionIsRejected) {
  auto store = make_memory_store();
  Machine a;
  ASSERT_TRUE(store->put("kb/mallory", R"({"kbcc_remote":1,"kind":"kb","hash":"00","payload":{}})"));
  auto r = pull(*store, *a.env, a.options("alice"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->rejected, 1u);
  EXPECT_EQ(r->kb_merged, 0u);
}

TEST(RemoteSync, CapturesRespectTheSizeCap) {
  auto store = make_memory_store();
  Machine a, b;
  ASSERT_TRUE(write_file_atomic(a.dir + "/captures/launches/l1.json", std::string(100, 'a')));
  ASSERT_TRUE(write_file_atomic(a.dir + "/captures/blobs/ab/abcd", std::string(300, 'b')));
  ASSERT_TRUE(write_file_atomic(a.dir + "/captures/sessions/s.json", "local only"));
  SyncOptions o = a.options("alice");
  o.variants = o.registry = o.kb = false;
  o.captures = true;
  o.capture_max_size = 0;
  EXPECT_EQ(push(*store, *a.env, o)->captures_pushed, 0u) << "cap 0: captures are not shared";
  o.capture_max_size = 350;
  auto pushed = push(*store, *a.env, o);
  ASSERT_TRUE(pushed);
  EXPECT_EQ(pushed->captures_pushed, 1u) << "only what fits under the cap";
  o.capture_max_size = 1000;
  pushed = push(*store, *a.env, o);
  EXPECT_EQ(pushed->captures_pushed, 1u);
  SyncOptions bo = b.options("bob");
  bo.variants = bo.registry = bo.kb = false;
  bo.captures = true;
  bo.capture_max_size = 1000;
  auto pulled = pull(*store, *b.env, bo);
  ASSERT_TRUE(pulled) << pulled.error().message;
  EXPECT_EQ(pulled->captures_pulled, 2u);
  EXPECT_EQ(read_file(b.dir + "/captures/blobs/ab/abcd").value_or(""), std::string(300, 'b'));
  EXPECT_FALSE(file_exists(b.dir + "/captures/sessions/s.json"));
}

// A unit with one header on machine A, recorded as a closure named by a
// registry entry; returns the closure id.
std::string record_unit(Machine &a, const std::string &header) {
  std::string src = real_path(a.dir) + "/src";
  EXPECT_TRUE(write_file_atomic(src + "/k.cu", "#include \"k.h\"\n__global__ void scale(float *x) {}\n"));
  EXPECT_TRUE(write_file_atomic(src + "/k.h", header));
  kb::CompileInputs in{src + "/k.cu", src, {"nvcc", "-c", "k.cu"}, {src + "/k.cu", src + "/k.h"}, {}};
  auto id = kb::ClosureStore(*a.env, 1 << 20).record(in);
  EXPECT_TRUE(id) << id.error().message;
  kb::RegistryEntry e = registry_entry(kHash);
  e.closure = id.value_or("");
  EXPECT_TRUE(kb::Registry(*a.env).upsert(e));
  return id.value_or("");
}

SyncOptions closure_options(const Machine &m, uint64_t transfer) {
  SyncOptions o = m.options("x");
  o.variants = o.kb = false;
  o.closure_max_size = transfer;
  o.closure_store_size = 1 << 20;
  return o;
}

TEST(RemoteSync, ClosuresTravelWithTheRegistry) {
  auto store = make_memory_store();
  Machine a, b;
  std::string id = record_unit(a, "#define K 2\n");
  EXPECT_EQ(push(*store, *a.env, closure_options(a, 0))->closures_pushed, 0u) << "0: closures are not shared";
  EXPECT_EQ(push(*store, *a.env, closure_options(a, 10))->closures_pushed, 0u) << "files over the limit";
  EXPECT_FALSE(*store->check("closures/" + id)) << "a closure is published only after all its files";
  auto pushed = push(*store, *a.env, closure_options(a, 1 << 20));
  ASSERT_TRUE(pushed) << pushed.error().message;
  EXPECT_EQ(pushed->closures_pushed, 1u);
  EXPECT_EQ(push(*store, *a.env, closure_options(a, 1 << 20))->closures_pushed, 0u) << "already there";

  auto pulled = pull(*store, *b.env, closure_options(b, 1 << 20));
  ASSERT_TRUE(pulled) << pulled.error().message;
  EXPECT_EQ(pulled->registry_added, 1u);
  EXPECT_EQ(pulled->closures_pulled, 1u);
  kb::ClosureStore local(*b.env, 1 << 20);
  auto got = local.get(id);
  ASSERT_TRUE(got && *got);
  EXPECT_TRUE(local.missing_files(**got)->empty());
  EXPECT_EQ(pull(*store, *b.env, closure_options(b, 1 << 20))->closures_pulled, 0u) << "already here";
}

TEST(RemoteSync, DamagedClosuresAreRejected) {
  auto store = make_memory_store();
  Machine a, b, c;
  std::string id = record_unit(a, "#define K 2\n");
  ASSERT_TRUE(push(*store, *a.env, closure_options(a, 1 << 20)));
  auto closure = kb::ClosureStore(*a.env, 1 << 20).get(id).value().value();
  std::string header_key = "closure-files/" + closure.files[1].hash; // k.h sorts after k.cu
  ASSERT_EQ(closure.files[1].path, "k.h");
  ASSERT_TRUE(store->put(header_key, "#define K 3\n")); // changed behind kbcc's back
  auto pulled = pull(*store, *b.env, closure_options(b, 1 << 20));
  ASSERT_TRUE(pulled) << pulled.error().message;
  EXPECT_EQ(pulled->closures_pulled, 0u);
  EXPECT_EQ(pulled->rejected, 1u);
  EXPECT_FALSE(*kb::ClosureStore(*b.env, 1 << 20).get(id));

  ASSERT_TRUE(store->put(header_key, "#define K 2\n"));
  auto doc = nlohmann::json::parse(store->get("closures/" + id).value().value());
  doc["payload"]["unit"] = "../k.cu";
  doc["hash"] = hash_hex(doc["payload"].dump()); // a consistent envelope, a closure leaving its root
  ASSERT_TRUE(store->put("closures/" + id, doc.dump()));
  pulled = pull(*store, *c.env, closure_options(c, 1 << 20));
  ASSERT_TRUE(pulled) << pulled.error().message;
  EXPECT_EQ(pulled->closures_pulled, 0u);
  EXPECT_EQ(pulled->rejected, 1u);
}

} // namespace
} // namespace kbcc::remote
