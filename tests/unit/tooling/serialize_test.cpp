#include "tooling/serialize.h"

#include <gtest/gtest.h>

using namespace kbcc::tooling;

TEST(Serialize, EveryFieldSurvivesARoundTrip) {
  Extraction x;
  x.source_path = "/src/a.cu";
  x.arch = "sm_90";
  x.included_files = {"/src/a.cu", "/src/a.h"};
  x.parse_errors = 2;
  x.parse_seconds = 1.5;
  Kernel k;
  k.qualified_name = "ns::k<float>";
  k.mangled_names = {"_ZN2ns1kIfEEvPf"};
  k.file = "/src/a.cu";
  k.begin = 10, k.end = 99, k.line = 3;
  k.in_main_file = false, k.is_template = true;
  Param p;
  p.name = "p", p.type = "float *", p.is_pointer = true, p.pointee_const = true, p.pointee_type = "float";
  p.size = 8, p.align = 8;
  Param n;
  n.name = "n", n.type = "int", n.is_integer = n.is_signed = true, n.size = 4, n.align = 4, n.offset = 8;
  k.params = {p, n};
  LaunchSite site{"/src/a.cu", 40, 3, kLaunchChevron, 120, 128, 140, 143, ""};
  LaunchSite api{"/src/a.cu", 50, 3, "cuLaunchKernel", 0, 0, 0, 0, "launch-api"};
  k.launches = {site, api};
  k.not_adaptable = "template-kernel";
  k.hash = "00112233445566778899aabbccddeeff";
  k.hash_inputs.push_back({"kernel", "__global__ void k ( ) { }\n# pragma unroll"});
  k.source = "__global__ void k() {}";
  k.dependencies = "#define N 1\n";
  k.not_optimizable = "kernel-in-header";
  x.kernels.push_back(k);

  auto back = extraction_from_json(extraction_to_json(x), "test");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->source_path, x.source_path);
  EXPECT_EQ(back->arch, x.arch);
  EXPECT_EQ(back->included_files, x.included_files);
  EXPECT_EQ(back->parse_errors, 2u);
  EXPECT_DOUBLE_EQ(back->parse_seconds, 1.5);
  ASSERT_EQ(back->kernels.size(), 1u);
  const Kernel &b = back->kernels[0];
  EXPECT_EQ(b.qualified_name, k.qualified_name);
  EXPECT_EQ(b.mangled_names, k.mangled_names);
  EXPECT_EQ(b.begin, 10u);
  EXPECT_EQ(b.end, 99u);
  EXPECT_EQ(b.line, 3u);
  EXPECT_FALSE(b.in_main_file);
  EXPECT_TRUE(b.is_template);
  ASSERT_EQ(b.params.size(), 2u);
  EXPECT_EQ(b.params[0].type, "float *");
  EXPECT_TRUE(b.params[0].pointee_const);
  EXPECT_EQ(b.params[0].size, 8u);
  EXPECT_TRUE(b.params[1].is_integer && b.params[1].is_signed);
  ASSERT_EQ(b.launches.size(), 2u);
  EXPECT_EQ(b.launches[0].line, 40u);
  EXPECT_EQ(b.launches[0].form, kLaunchChevron);
  EXPECT_EQ(b.launches[0].edit_begin, 120u);
  EXPECT_EQ(b.launches[0].edit_end, 128u);
  EXPECT_EQ(b.launches[0].close_begin, 140u);
  EXPECT_EQ(b.launches[0].close_end, 143u);
  EXPECT_EQ(b.launches[1].not_rewritable, "launch-api");
  EXPECT_EQ(b.not_adaptable, "template-kernel");
  EXPECT_EQ(b.hash, k.hash);
  ASSERT_EQ(b.hash_inputs.size(), 1u);
  EXPECT_EQ(b.hash_inputs[0].text, k.hash_inputs[0].text);
  EXPECT_EQ(b.source, k.source);
  EXPECT_EQ(b.dependencies, k.dependencies);
  EXPECT_EQ(b.not_optimizable, k.not_optimizable);
}

TEST(Serialize, BadInputIsAnErrorNamingTheOrigin) {
  auto x = extraction_from_json("{\"kernels\": 5", "/cache/entry.json");
  ASSERT_FALSE(x);
  EXPECT_NE(x.error().message.find("/cache/entry.json"), std::string::npos);
  auto y = extraction_from_json("{\"kernels\": [{\"begin\": \"not a number\"}]}", "e.json");
  ASSERT_FALSE(y);
  EXPECT_NE(y.error().message.find("e.json"), std::string::npos);
}
