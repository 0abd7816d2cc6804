// kbcc_report_seed KBCC_DIR: fills KBCC_DIR with the report tests' seeded
// store (see seed.h), for the lit tests under tests/lit/report.
#include "seed.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: kbcc_report_seed KBCC_DIR\n");
    return 2;
  }
  if (kbcc::Status s = kbcc::report::testing::seed_store(argv[1]); !s) {
    std::fprintf(stderr, "kbcc_report_seed: %s\n", s.error().message.c_str());
    return 1;
  }
  return 0;
}
