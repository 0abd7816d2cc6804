// The kbcc executable: everything lives in the libraries; see kbcc_main.cpp.
namespace kbcc::driver {
int kbcc_main(int argc, char **argv);
}

int main(int argc, char **argv) { return kbcc::driver::kbcc_main(argc, argv); }
