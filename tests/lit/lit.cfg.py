# lit configuration for kbcc's behaviour tests.
#
# Substitutions:  %kbcc  the built kbcc (%kbcc-full: the executable it hands commands to);  %fake-nvcc  a fake nvcc that logs argv;
#                 %nvcc  the real nvcc;   %cuda_root  its toolkit;  %python;  %S/%s/%t as usual;
#                 %emucc  g++ with the CPU model of tests/lit/gpu/Inputs/emu.h.
# Features:       nvcc (real nvcc present), cuda-gpu (a GPU is visible),
#                 cupti, redis, chromium, host-omp (gcc has <omp.h>), cpu-emulator (g++ has <ucontext.h>:
#                 kernels run on the CPU through gpu/Inputs/emu.h).
import os
import shutil
import subprocess

import lit.formats

config.name = "kbcc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test", ".cu"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kbcc_obj_root, "tests", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.kbcc_bin_dir, config.llvm_tools_dir, os.path.join(config.cuda_root, "bin"),
     config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("HOME", "TMPDIR", "LANG", "KBCC_TEST_WEBDAV"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Tests never touch the user's cache: every test sets KBCC_DIR=%t... itself;
# this default keeps a forgotten one out of ~/.cache.
config.environment["KBCC_DIR"] = os.path.join(config.test_exec_root, "default-kbcc-dir")
for var in ("KBCC_NVCC", "KBCC_SNAPSHOT", "KBCC_REMOTE", "KBCC_LLM_API", "NVCC_PREPEND_FLAGS",
            "NVCC_APPEND_FLAGS", "CUDA_HOME"):
    config.environment.pop(var, None)

nvcc = os.path.join(config.cuda_root, "bin", "nvcc")
# %kbcc-full first: %kbcc is a prefix of it.
config.substitutions.append(("%kbcc-full", os.path.join(config.kbcc_bin_dir, "kbcc-full")))
config.substitutions.append(("%kbcc", os.path.join(config.kbcc_bin_dir, "kbcc")))
config.substitutions.append(("%fake-nvcc", os.path.join(config.kbcc_src_root, "tests", "lit", "Inputs", "fake-nvcc")))
config.substitutions.append(("%nvcc", nvcc))
# The host compiler of the CPU model (feature cpu-emulator): a twin.h check as g++ builds it.
emu_inputs = os.path.join(config.kbcc_src_root, "tests", "lit", "gpu", "Inputs")
config.substitutions.append(("%emucc", "g++ -std=c++17 -O1 -w -x c++ -include " + os.path.join(emu_inputs, "emu.h") +
                             " -I" + os.path.join(emu_inputs, "emu-include")))
config.substitutions.append(("%cuda_root", config.cuda_root))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%cmake", config.cmake))
config.substitutions.append(("%src_root", config.kbcc_src_root))
config.substitutions.append(("%obj_root", config.kbcc_obj_root))

if os.path.exists(nvcc):
    config.available_features.add("nvcc")
if os.path.exists(os.path.join(config.cuda_root, "include", "cupti.h")):
    config.available_features.add("cupti")


def has_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
        return out.returncode == 0 and "GPU" in out.stdout
    except Exception:
        return False


def gcc_has_omp():
    """GCC (nvcc's default host compiler) ships <omp.h> in its own include directory."""
    gcc = shutil.which("gcc")
    if not gcc:
        return False
    try:
        out = subprocess.run([gcc, "-print-file-name=include/omp.h"], capture_output=True, text=True, timeout=20)
        return out.returncode == 0 and os.path.isabs(out.stdout.strip()) and os.path.exists(out.stdout.strip())
    except Exception:
        return False


def gxx_has_fibers():
    """g++ compiles C++17 with <ucontext.h>: what gpu/Inputs/emu.h runs a block's threads on."""
    gxx = shutil.which("g++")
    if not gxx:
        return False
    try:
        out = subprocess.run([gxx, "-std=c++17", "-fsyntax-only", "-x", "c++", "-"],
                             input="#include <ucontext.h>\nucontext_t c;\nint f() { return getcontext(&c); }\n",
                             capture_output=True, text=True, timeout=60)
        return out.returncode == 0
    except Exception:
        return False


if gcc_has_omp():
    config.available_features.add("host-omp")
if gxx_has_fibers():
    config.available_features.add("cpu-emulator")
if has_gpu():
    config.available_features.add("cuda-gpu")
# WebDAV tests run on nginx, or on tests/remote/webdav-server.py where it is missing.
for tool, feature in (("redis-server", "redis"), ("chromium", "chromium")):
    if shutil.which(tool) or os.path.exists("/usr/sbin/" + tool):
        config.available_features.add(feature)
