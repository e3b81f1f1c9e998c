# SPDX-License-Identifier: Apache-2.0
"""The firmware build systems' layouts, each compiled the way its tool
compiles it. None of the tools (arduino-cli, PlatformIO, Zephyr's west and
SDK, ESP-IDF) is installed here; what stands in for each:

- Arduino (`make arduino`): arduino-cli's steps done by hand: the sketch
  made a .cpp (`#include <Arduino.h>` + `#line`), every .c under the
  library's src/ and the sketch's other files compiled with the core's
  compilers, everything linked; the core is a stand-in (stubs/arduino)
  on the Cortex-M4 board of boards/cortex-m, so the sketch runs under
  QEMU and prints LiteRT's answer.
- PlatformIO (library.json): the Library Dependency Finder's build:
  srcDir's .c files with includeDir, build.flags (relative to the library)
  and the CPPDEFINES its extraScript adds (run with a stand-in SCons env).
- Zephyr (zephyr/): zephyr/Kconfig evaluated with kconfiglib (Zephyr's own
  Kconfig implementation, from PyPI) for an M4, an M55 and an M0+, then
  zephyr/CMakeLists.txt processed by CMake with the zephyr_library_*
  functions stubbed (stubs/zephyr), cross-compiled and linked.
- ESP-IDF (idf_component.yml, CMakeLists.txt): the component read in
  script mode (ESP-IDF's early expansion), then built through a stubbed
  idf_component_register (stubs/esp-idf) for the ESP32-C3's RV32IMC.
"""

import json
import os
import re
import subprocess

import pytest

from shiplib import (BUILD, MNIST, MNIST_LABEL, REPO, make, mnist_input, parse_run_model,
                     reference_output, require_tools, run)

STUBS = os.path.join(REPO, "tests", "ship", "stubs")
M4 = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]
FIRMWARE_MAIN = r"""
#include "edge/edge.h"
extern const unsigned char model_data[];
extern const unsigned int model_data_len;
static unsigned char arena[16384] __attribute__((aligned(16)));
int main(void) {
    edge_model m;
    if (edge_model_init(&m, model_data, model_data_len, arena, sizeof arena) != EDGE_OK) return 1;
    return edge_invoke(&m) == EDGE_OK ? 0 : 1;
}
const unsigned char model_data[16] __attribute__((aligned(16)));
const unsigned int model_data_len = 16;
"""


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    path = mnist_input(tmp_path_factory.mktemp("input"))
    return path, [int(v) for v in reference_output(MNIST, path)]


def mnist_ops(tmp_path):
    ops = str(tmp_path / "mnist_ops.h")
    run([os.path.join(BUILD, "edgeq"), "export", "--ops", MNIST, "-o", ops])
    return ops


def nm(elf, tool="arm-none-eabi-nm"):
    return run([tool, elf]).stdout


# ---------------------------------------------------------------- Arduino

def test_arduino_library_layout():
    make("arduino")
    lib = os.path.join(BUILD, "arduino", "edgeq")
    props = dict(line.split("=", 1) for line in open(os.path.join(lib, "library.properties")).read().splitlines()
                 if "=" in line)
    for key in ("name", "version", "author", "maintainer", "sentence", "paragraph", "category",
                "architectures"):
        assert props.get(key), key
    assert props["category"] in ("Display", "Communication", "Signal Input/Output", "Sensors", "Device Control",
                                 "Timing", "Data Storage", "Data Processing", "Other")
    assert re.fullmatch(r"\d+\.\d+\.\d+", props["version"])
    for f in ("src/edge.c", "src/edge.h", "LICENSE", "examples/edgeq_mnist/edgeq_mnist.ino",
              "examples/edgeq_mnist/model_data.c", "examples/edgeq_mnist/sample_data.c"):
        assert os.path.isfile(os.path.join(lib, f)), f
    assert os.path.isfile(os.path.join(BUILD, "arduino", "edgeq.zip"))


def test_arduino_sketch_builds_and_runs(sample, tmp_path):
    require_tools("arm-none-eabi-gcc", "arm-none-eabi-g++", "qemu-system-arm")
    make("arduino")
    lib = os.path.join(BUILD, "arduino", "edgeq")
    sketch = os.path.join(lib, "examples", "edgeq_mnist")
    cpp = tmp_path / "edgeq_mnist.ino.cpp"
    ino = os.path.join(sketch, "edgeq_mnist.ino")
    cpp.write_text('#include <Arduino.h>\n#line 1 "%s"\n' % ino + open(ino).read())
    board = os.path.join(REPO, "boards", "cortex-m")
    inc = ["-I", os.path.join(STUBS, "arduino"), "-I", os.path.join(lib, "src"), "-I", board]
    cflags = ["-Os", "-ffunction-sections", "-fdata-sections", "-Wall", "-Wextra", "-Werror"] + M4
    objs = []

    def cc(tool, std, src):
        obj = str(tmp_path / (os.path.basename(src) + ".o"))
        cxx = ["-fno-exceptions", "-fno-rtti"] if tool.endswith("g++") else []  # as ARM cores build
        run([tool, std] + cflags + cxx + inc + ["-c", src, "-o", obj])
        objs.append(obj)

    cc("arm-none-eabi-g++", "-std=gnu++17", str(cpp))
    for d, _, files in os.walk(os.path.join(lib, "src")):  # library format 1.5: src/ recursively
        for f in sorted(files):
            if f.endswith(".c"):
                cc("arm-none-eabi-gcc", "-std=gnu11", os.path.join(d, f))
    for f in ("model_data.c", "sample_data.c"):
        cc("arm-none-eabi-gcc", "-std=gnu11", os.path.join(sketch, f))
    cc("arm-none-eabi-g++", "-std=gnu++17", os.path.join(STUBS, "arduino", "core.cpp"))
    for f in ("startup.c", "console.c"):
        cc("arm-none-eabi-gcc", "-std=gnu11", os.path.join(board, f))
    elf = str(tmp_path / "sketch.elf")
    run(["arm-none-eabi-g++"] + M4 + objs + ["-nostartfiles", "--specs=nano.specs", "--specs=nosys.specs",
                                            "-T", os.path.join(board, "ld", "mps2.ld"), "-L",
                                            os.path.join(board, "ld"), "-Wl,--gc-sections", "-o", elf])
    assert "systolic_conv_variant" in nm(elf)  # the amalgamation picked the DSP kernels
    r = run(["qemu-system-arm", "-M", "mps2-an386", "-display", "none", "-monitor", "none",
             "-chardev", "stdio,id=con,mux=on", "-serial", "chardev:con",
             "-semihosting-config", "enable=on,target=native,chardev=con", "-kernel", elf], timeout=300)
    assert parse_run_model(r.stdout) == sample[1]
    assert "digit: %d" % MNIST_LABEL in r.stdout


# ---------------------------------------------------------------- PlatformIO

class SconsEnv:
    """The part of a PlatformIO (SCons) build environment the library's
    extraScript touches."""

    def __init__(self, cc, ccflags, build_flags=""):
        self.vars = {"CC": cc, "CCFLAGS": ccflags, "CFLAGS": "", "BUILD_FLAGS": build_flags, "CPPDEFINES": ""}
        self.defines = []

    def subst(self, text):
        return re.sub(r"\$(\w+)", lambda m: self.vars.get(m.group(1), ""), text)

    def Append(self, CPPDEFINES=()):  # noqa: N802, N803 (SCons names)
        self.defines += list(CPPDEFINES)


def platformio_defines(manifest, cc, ccflags, build_flags=""):
    env = SconsEnv(cc, ccflags, build_flags)
    script = os.path.join(REPO, manifest["build"]["extraScript"])
    exec(compile(open(script).read(), script, "exec"), {"Import": lambda name: None, "env": env})
    return env.defines


@pytest.mark.parametrize("cpu,flags,want", [
    ("cortex-m4", "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16", ["EDGE_SYSTOLIC_DSP"]),
    ("cortex-m55", "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard", ["EDGE_SYSTOLIC_MVE"]),
    ("cortex-m0plus", "-mcpu=cortex-m0plus -mthumb", [])])
def test_platformio_kernels_script(cpu, flags, want):
    require_tools("arm-none-eabi-gcc")
    manifest = json.load(open(os.path.join(REPO, "library.json")))
    assert platformio_defines(manifest, "arm-none-eabi-gcc", flags) == want
    # A project's own choice wins.
    assert platformio_defines(manifest, "arm-none-eabi-gcc", flags, "-DEDGE_SYSTOLIC_PORTABLE") == []


def test_platformio_library_builds(tmp_path):
    require_tools("arm-none-eabi-gcc")
    manifest = json.load(open(os.path.join(REPO, "library.json")))
    assert manifest["name"] == "edgeq" and manifest["license"] == "Apache-2.0"
    b = manifest["build"]
    flags = " ".join(M4)
    defines = platformio_defines(manifest, "arm-none-eabi-gcc", flags)
    inc = ["-I", os.path.join(REPO, b["includeDir"]), "-I", os.path.join(REPO, b["srcDir"])]
    for f in b["flags"]:  # "-I dir", relative to the library's root
        opt, arg = f.split(None, 1)
        inc += [opt, os.path.join(REPO, arg)]
    srcs = sorted(os.path.join(d, f) for d, _, files in os.walk(os.path.join(REPO, b["srcDir"]))
                  for f in files if f.endswith(".c"))
    objdir = tmp_path / "lib"
    objdir.mkdir()
    # PlatformIO's ststm32 C flags: gnu11, -Os, sections.
    run(["arm-none-eabi-gcc", "-std=gnu11", "-Os", "-Wall", "-Wextra", "-Werror", "-ffunction-sections",
         "-fdata-sections"] + M4 + ["-D" + d for d in defines] + inc + ["-c"] + srcs, cwd=str(objdir))
    main = tmp_path / "main.c"
    main.write_text(FIRMWARE_MAIN)
    elf = str(tmp_path / "fw.elf")
    run(["arm-none-eabi-gcc", "-std=gnu11", "-Os"] + M4 + ["-I", os.path.join(REPO, b["includeDir"]), str(main)] +
        sorted(str(p) for p in objdir.iterdir()) + ["--specs=nosys.specs", "-Wl,--gc-sections", "-o", elf])
    assert "systolic_conv_variant" in nm(elf)


# ---------------------------------------------------------------- Zephyr

def zephyr_config(arch_symbol, ops_header=""):
    """CONFIG_* for CONFIG_EDGEQ=y on a core with `arch_symbol`, by kconfiglib."""
    kconfiglib = pytest.importorskip("kconfiglib", reason="pip install -r tests/requirements.txt")
    os.environ["EDGEQ_MODULE_DIR"] = REPO
    kconf = kconfiglib.Kconfig(os.path.join(STUBS, "zephyr", "Kconfig"), warn_to_stderr=False)
    if arch_symbol:
        kconf.syms[arch_symbol].set_value(2)
    kconf.syms["EDGEQ"].set_value(2)
    if ops_header:
        kconf.syms["EDGEQ_OPS_HEADER"].set_value(ops_header)
    assert not [w for w in kconf.warnings if "edgeq" in w.lower()], kconf.warnings
    out = {}
    for name, sym in kconf.syms.items():
        if name.startswith("EDGEQ") and sym.str_value not in ("", "n"):
            out["CONFIG_" + name] = sym.str_value
    return out


@pytest.mark.parametrize("cpu,arch,kernels", [("cortex-m4", "CPU_CORTEX_M4", "DSP"),
                                              ("cortex-m55", "ARMV8_1_M_MVEI", "MVE"),
                                              ("cortex-m0plus", None, "PORTABLE")])
def test_zephyr_kconfig(cpu, arch, kernels):
    config = zephyr_config(arch)
    assert config.get("CONFIG_EDGEQ_KERNELS_" + kernels) == "y", config
    assert config.get("CONFIG_EDGEQ_WITH_UINT8") == "y"


def test_zephyr_module_builds(tmp_path):
    require_tools("arm-none-eabi-gcc", "cmake")
    app = tmp_path / "app"
    app.mkdir()
    (app / "main.c").write_text(FIRMWARE_MAIN)
    run([os.path.join(BUILD, "edgeq"), "export", "--ops", MNIST, "-o", str(app / "model_ops.h")])
    config = zephyr_config("CPU_CORTEX_M4", ops_header="model_ops.h")
    tc = os.path.join(REPO, "dist", "cmake", "toolchains", "arm-none-eabi.cmake")
    # The stub project's sources are the application's: copy it beside main.c.
    for f in ("CMakeLists.txt",):
        (app / f).write_text(open(os.path.join(STUBS, "zephyr", f)).read())
    run(["cmake", "-S", str(app), "-B", str(tmp_path / "b"), "-DCMAKE_TOOLCHAIN_FILE=" + tc,
         "-DEDGEQ_CPU=cortex-m4", "-DEDGEQ_MODULE_DIR=" + REPO, "-DAPP_MAIN=main.c",
         # Zephyr's C flags: the core's, C99, its warnings.
         "-DCMAKE_C_FLAGS=%s -std=c99 -Os -Wall -Werror" % " ".join(M4)] + ["-D%s=%s" % kv for kv in config.items()])
    run(["cmake", "--build", str(tmp_path / "b"), "-j2"])
    syms = nm(str(tmp_path / "b" / "app.elf"))
    assert "systolic_conv_variant" in syms  # CONFIG_EDGEQ_KERNELS_DSP
    assert "edge_op_conv_2d" in syms and "edge_op_mean" not in syms  # CONFIG_EDGEQ_OPS_HEADER


def test_zephyr_module_yml():
    text = open(os.path.join(REPO, "zephyr", "module.yml")).read()
    assert re.search(r"^name: edgeq$", text, re.M)
    assert re.search(r"^\s+cmake: zephyr$", text, re.M) and re.search(r"^\s+kconfig: zephyr/Kconfig$", text, re.M)


# ---------------------------------------------------------------- ESP-IDF

def test_esp_idf_component_builds(tmp_path):
    require_tools("riscv64-unknown-elf-gcc", "cmake")
    manifest = open(os.path.join(REPO, "idf_component.yml")).read()
    assert re.search(r'^version: "\d+\.\d+\.\d+"$', manifest, re.M)
    assert re.search(r'^license: "Apache-2.0"$', manifest, re.M)
    proj = tmp_path / "proj"
    proj.mkdir()
    for f in ("CMakeLists.txt", "early_expansion.cmake"):
        (proj / f).write_text(open(os.path.join(STUBS, "esp-idf", f)).read())
    (proj / "main.c").write_text(FIRMWARE_MAIN)
    tc = os.path.join(REPO, "dist", "cmake", "toolchains", "riscv32-none-elf.cmake")
    # ESP-IDF's C flags for an ESP32-C3 (its warnings, gnu17, -Os; picolibc stands in for its newlib).
    run(["cmake", "-S", str(proj), "-B", str(tmp_path / "b"), "-DCMAKE_TOOLCHAIN_FILE=" + tc,
         "-DEDGEQ_COMPONENT_DIR=" + REPO, "-DAPP_MAIN=main.c", "-DEDGEQ_WITH_UINT8=OFF",
         "-DCMAKE_C_FLAGS=-march=rv32imc -mabi=ilp32 --specs=picolibc.specs -std=gnu17 -Os -ffunction-sections -fdata-sections -Wall -Werror=all -Wextra "
         "-Wno-unused-parameter -Wno-sign-compare -Wno-old-style-declaration"])
    run(["cmake", "--build", str(tmp_path / "b"), "-j2"])
    syms = nm(str(tmp_path / "b" / "app.elf"), "riscv64-unknown-elf-nm")
    assert "edge_model_init" in syms and "edge_op_conv_2d" in syms
