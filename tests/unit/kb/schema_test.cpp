// The KB schema rejects malformed documents with errors naming the field.
#include "kb/policy.h"
#include "kb/schema.h"

#include <gtest/gtest.h>

namespace kbcc::kb {
namespace {

using nlohmann::json;

json seed_doc() {
  auto p = seed_policy();
  EXPECT_TRUE(p) << (p ? "" : p.error().message);
  return to_json(*p);
}

std::string error_of(const json &doc) {
  auto p = policy_from_json(doc, "kb.json");
  return p ? std::string() : p.error().message;
}

TEST(Schema, SeedAndItsExportAreValid) {
  json doc = seed_doc();
  EXPECT_TRUE(validate_policy_json(doc, "export"));
  auto again = policy_from_json(doc, "export");
  ASSERT_TRUE(again);
  EXPECT_EQ(canonical_text(*again), canonical_text(*seed_policy()));
}

TEST(Schema, WrongTypeNamesTheField) {
  json doc = seed_doc();
  doc["optimizations"][3]["category"] = 7;
  EXPECT_NE(error_of(doc).find("kb.json: $.optimizations[3].category: "), std::string::npos) << error_of(doc);
}

TEST(Schema, UnknownEnumValueNamesTheField) {
  json doc = seed_doc();
  doc["optimizations"][0]["mechanical"] = "rewrite_everything";
  std::string e = error_of(doc);
  EXPECT_NE(e.find("$.optimizations[0].mechanical"), std::string::npos) << e;
  EXPECT_NE(e.find("rewrite_everything"), std::string::npos) << e;
}

TEST(Schema, MissingRequiredFieldIsNamed) {
  json doc = seed_doc();
  doc["states"][2].erase("primary_bottleneck");
  EXPECT_NE(error_of(doc).find("$.states[2].primary_bottleneck: required field is missing"), std::string::npos)
      << error_of(doc);
}

TEST(Schema, UnknownFieldIsNamed) {
  json doc = seed_doc();
  doc["states"][1]["colour"] = "blue";
  EXPECT_NE(error_of(doc).find("$.states[1].colour: unknown field"), std::string::npos) << error_of(doc);
}

TEST(Schema, NegativeCounterInEvidenceIsNamed) {
  json doc = seed_doc();
  doc["optimizations"][0]["stats"]["sm_90"]["states"]["dram_bandwidth_bound"]["contributors"]["alice"] = {
      {"attempts", -1}, {"successes", 0}};
  EXPECT_NE(
      error_of(doc).find("$.optimizations[0].stats.sm_90.states.dram_bandwidth_bound.contributors.alice.attempts"),
      std::string::npos)
      << error_of(doc);
}

TEST(Schema, BadArchKeyAndVersionAreRejected) {
  json doc = seed_doc();
  doc["optimizations"][0]["stats"]["volta"] = {{"states", json::object()}};
  EXPECT_NE(error_of(doc).find("$.optimizations[0].stats.volta: unknown field"), std::string::npos) << error_of(doc);
  json v = seed_doc();
  v["version"] = 2;
  EXPECT_NE(error_of(v).find("$.version"), std::string::npos) << error_of(v);
}

TEST(Schema, DanglingReferencesAreNamed) {
  json doc = seed_doc();
  doc["states"][0]["optimizations"].push_back("no_such_optimization");
  EXPECT_NE(error_of(doc).find("$.states[0].optimizations["), std::string::npos) << error_of(doc);
  EXPECT_NE(error_of(doc).find("no_such_optimization"), std::string::npos);
  json dup = seed_doc();
  dup["states"].push_back(dup["states"][0]);
  EXPECT_NE(error_of(dup).find("duplicate state id"), std::string::npos) << error_of(dup);
}

TEST(Schema, ValidatorKeywords) {
  json schema = json::parse(R"({"type":"object","required":["a"],"additionalProperties":false,
    "properties":{"a":{"type":"array","items":{"type":"integer","minimum":0,"maximum":9},"minItems":1,"uniqueItems":true},
                  "s":{"type":"string","pattern":"^x+$","minLength":2},
                  "m":{"$ref":"#/$defs/m"}},
    "$defs":{"m":{"type":"object","patternProperties":{"^k":{"type":"boolean"}},"additionalProperties":false}}})");
  EXPECT_TRUE(validate_json(json::parse(R"({"a":[1,2],"s":"xx","m":{"k1":true}})"), schema, "t"));
  auto err = [&](const char *doc) {
    auto st = validate_json(json::parse(doc), schema, "t");
    return st ? std::string() : st.error().message;
  };
  EXPECT_EQ(err(R"({})"), "t: $.a: required field is missing");
  EXPECT_EQ(err(R"({"a":[]})"), "t: $.a: needs at least 1 items, has 0");
  EXPECT_EQ(err(R"({"a":[1,10]})"), "t: $.a[1]: 10 is above the maximum 9");
  EXPECT_EQ(err(R"({"a":[1,1]})"), "t: $.a[1]: duplicate item 1");
  EXPECT_EQ(err(R"({"a":[1.5]})"), "t: $.a[0]: expected integer, found number");
  EXPECT_EQ(err(R"({"a":[1],"s":"xy"})"), "t: $.s: \"xy\" does not match the pattern \"^x+$\"");
  EXPECT_EQ(err(R"({"a":[1],"m":{"z":1}})"), "t: $.m.z: unknown field");
  EXPECT_EQ(err(R"({"a":[1],"m":{"k":1}})"), "t: $.m.k: expected boolean, found integer");
}

} // namespace
} // namespace kbcc::kb
