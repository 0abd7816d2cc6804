#include "agent/update.h"

#include <gtest/gtest.h>

using namespace kbcc::agent;

TEST(Update, SpeedupDistributionIsWelford) {
  OptionStats s;
  apply_attempt(s, Outcome::Improved, 1.5, 1.0);
  apply_attempt(s, Outcome::Neutral, 1.0, 1.0);
  apply_attempt(s, Outcome::Improved, 2.0, 1.0);
  EXPECT_EQ(s.attempts, 3);
  EXPECT_EQ(s.successes, 2);
  EXPECT_EQ(s.speedup_count, 3);
  EXPECT_DOUBLE_EQ(s.speedup_mean, 1.5);
  EXPECT_DOUBLE_EQ(s.speedup_m2, 0.5); // (0 + 0.25 + 0.25)
  EXPECT_DOUBLE_EQ(s.speedup_min, 1.0);
  EXPECT_DOUBLE_EQ(s.speedup_max, 2.0);
}

TEST(Update, ConfidenceRuleAndClipping) {
  OptionStats s;                                 // confidence starts at 0.5
  apply_attempt(s, Outcome::Improved, 1.1, 1.0); // within 20% of prediction
  EXPECT_NEAR(s.confidence, 0.6, 1e-12);
  apply_attempt(s, Outcome::Improved, 2.0, 1.0); // far off
  EXPECT_NEAR(s.confidence, 0.5, 1e-12);
  for (int i = 0; i < 10; ++i)
    apply_attempt(s, Outcome::Failed, 0, 1.0);
  EXPECT_NEAR(s.confidence, 0.1, 1e-12);
  EXPECT_EQ(s.failures, 10);
  EXPECT_EQ(s.speedup_count, 2); // failures add no speedup sample
  for (int i = 0; i < 20; ++i)
    apply_attempt(s, Outcome::Neutral, 1.0, 1.0);
  EXPECT_NEAR(s.confidence, 1.0, 1e-12);
}

TEST(Update, RegressionsAreCounted) {
  OptionStats s;
  apply_attempt(s, Outcome::Regressed, 0.7, 1.2);
  EXPECT_EQ(s.regressions, 1);
  EXPECT_EQ(s.successes, 0);
  EXPECT_DOUBLE_EQ(s.speedup_mean, 0.7);
}

TEST(Update, ExpectedSpeedupBlendsPriorAndDiscountsFailures) {
  Option o;
  o.predicted_speedup = 1.4;
  EXPECT_DOUBLE_EQ(expected_speedup(o), 1.0 + 0.5 * 0.4); // no evidence: p_valid = 1/2
  apply_attempt(o.stats, Outcome::Improved, 2.0, 1.4);
  apply_attempt(o.stats, Outcome::Improved, 2.0, 1.4);
  // mean = (1.4*2 + 2*2)/4 = 1.7; p_valid = 3/4
  EXPECT_NEAR(expected_speedup(o), 1.0 + 0.75 * 0.7, 1e-12);
  apply_attempt(o.stats, Outcome::Failed, 0, 1.4);
  apply_attempt(o.stats, Outcome::Failed, 0, 1.4);
  // p_valid = 3/6
  EXPECT_NEAR(expected_speedup(o), 1.0 + 0.5 * 0.7, 1e-12);
}

TEST(Update, NoiseDecidesSignificance) {
  NoiseModel n; // 2% minimum gain, 2x spreads
  EXPECT_TRUE(significantly_faster({1.0, 0.001, 10}, {0.9, 0.001, 10}, n));
  EXPECT_FALSE(significantly_faster({1.0, 0.001, 10}, {0.99, 0.001, 10}, n)); // below 2%
  EXPECT_FALSE(significantly_faster({1.0, 0.05, 10}, {0.85, 0.05, 10}, n));   // within 2*(0.1)
  Evaluation e;
  e.compiled = e.validated = true;
  e.timing = {1.3, 0.001, 10};
  EXPECT_EQ(classify(e, {1.0, 0.001, 10}, n), Outcome::Regressed);
  e.validated = false;
  EXPECT_EQ(classify(e, {1.0, 0.001, 10}, n), Outcome::Failed);
}

TEST(Update, Reward) {
  EXPECT_DOUBLE_EQ(reward(Outcome::Failed, 0, 1.2), -1.0);
  EXPECT_NEAR(reward(Outcome::Improved, 1.3, 1.2), 0.3 + 0.2, 1e-12);
  EXPECT_NEAR(reward(Outcome::Regressed, 0.5, 1.2), -0.5 - 0.5, 1e-12);
}
