# SPDX-License-Identifier: Apache-2.0
"""Raspberry Pi builds under qemu-user, against the host build.

- classify on person_detect: person.bmp -> person, no_person.bmp -> no
  person, on the Pi 3/4/5 CPU models (aarch64) and Pi 2/4 (armhf), with
  stdout and output bytes equal to the host build's;
- the NEON kernel variants (with and without sdot) pass the systolic check
  and give the host build's output bytes on the real models;
- the Pi 5 build really uses sdot (it traps on a Pi 4's CPU);
- classify's GPIO logic through the fake backend, inside the Pi binary, and
  the libgpiod backend's error when there is no GPIO chip (qemu-user).
"""

import os

import numpy as np
import pytest

from boardlib import BUILD, MODELS, REPO, linux_cmd, linux_config, run

PERSON = os.path.join(MODELS, "tflite-micro", "models", "person_detect.tflite")
DATA = os.path.join(MODELS, "tflite-micro", "data")
LABELS = os.path.join(REPO, "tools", "person_labels.txt")
IMAGES = [("person.bmp", "person", [-113, 113]), ("no_person.bmp", "no person", None)]

# (configuration, Pi model) pairs classify must run on.
CLASSIFY_RUNS = [("rpi-aarch64", "pi3"), ("rpi-aarch64", "pi4"), ("rpi-aarch64", "pi5"),
                 ("rpi-aarch64-pi5", "pi5"), ("rpi-armhf", "pi2"), ("rpi-armhf", "pi4")]
SYSTOLIC_RUNS = CLASSIFY_RUNS
KERNEL = {"rpi-aarch64": "neon", "rpi-aarch64-pi5": "neon+sdot", "rpi-armhf": "neon"}


def classify_args(image, out):
    return [PERSON, os.path.join(DATA, image), "--raw", "--labels", LABELS, "--dump-output", str(out)]


@pytest.fixture(scope="module")
def host_classify(host_build, tmp_path_factory):
    """stdout and output bytes of the host classify for each image."""
    answers = {}
    tmp = tmp_path_factory.mktemp("host_classify")
    for image, label, known in IMAGES:
        out = tmp / (image + ".out")
        r = run([os.path.join(host_build, "classify")] + classify_args(image, out))
        assert r.returncode == 0, r.stderr.decode()
        data = out.read_bytes()
        assert r.stdout.decode().splitlines()[0].endswith("-> " + label)
        if known is not None:  # the answer TFLM and LiteRT give (../shared/docs/PEERS.md)
            assert list(np.frombuffer(data, np.int8)) == known
        answers[image] = (r.stdout, data)
    return answers


@pytest.mark.parametrize("config,pi", CLASSIFY_RUNS, ids=["%s@%s" % r for r in CLASSIFY_RUNS])
@pytest.mark.parametrize("image,label", [(i, l) for i, l, _ in IMAGES], ids=[i for i, _, _ in IMAGES])
def test_classify_person_detect(config, pi, image, label, host_classify, tmp_path):
    c = linux_config(config)
    out = tmp_path / "out.bin"
    r = run(linux_cmd(config, c["cpus"][pi], "classify", *classify_args(image, out)))
    assert r.returncode == 0, r.stderr.decode()
    first = r.stdout.decode().splitlines()[0]
    assert first.endswith("-> " + label), first
    host_stdout, host_bytes = host_classify[image]
    assert out.read_bytes() == host_bytes
    assert r.stdout == host_stdout


@pytest.mark.parametrize("config,pi", SYSTOLIC_RUNS, ids=["%s@%s" % r for r in SYSTOLIC_RUNS])
def test_systolic_variant_check(config, pi):
    c = linux_config(config)
    r = run(linux_cmd(config, c["cpus"][pi], "systolic_check"))
    text = r.stdout.decode()
    assert r.returncode == 0, text + r.stderr.decode()
    assert "kernel %s," % KERNEL[config] in text
    assert "tile cases match" in text and "systolic_check: OK" in text


def test_systolic_check_portable_on_host(host_build):
    """The same check on the host's portable kernel: the reference itself."""
    r = run([os.path.join(host_build, "systolic_check")])
    assert r.returncode == 0 and b"kernel portable," in r.stdout and b"systolic_check: OK" in r.stdout


def test_pi5_build_uses_sdot():
    """The Pi 5 build's kernel has sdot: a Pi 4's Cortex-A72 has no dotprod
    and must trap (SIGILL) on it."""
    linux_config("rpi-aarch64-pi5")
    r = run(linux_cmd("rpi-aarch64-pi5", "cortex-a72", "systolic_check"))
    assert r.returncode in (-4, 132), (r.returncode, r.stdout.decode(), r.stderr.decode())


# ---- conformance: the real models, board vs host, byte for byte ----

M = MODELS
CONFORMANCE_MODELS = {
    "kws": (M + "/mlcommons-tiny/models/keyword_spotting/kws_ref_model.tflite", []),
    "vww": (M + "/mlcommons-tiny/models/visual_wake_words/vww_96_int8.tflite", []),
    "ic": (M + "/mlcommons-tiny/models/image_classification/pretrainedResnet_quant.tflite", []),
    "ad01": (M + "/mlcommons-tiny/models/anomaly_detection/ad01_int8.tflite", []),
    "str_ww": (M + "/mlcommons-tiny/models/streaming_wakeword/str_ww_ref_model.tflite", []),
    "person_detect": (M + "/tflite-micro/models/person_detect.tflite", ["person.bmp", "no_person.bmp"]),
    "micro_speech": (M + "/tflite-micro/models/micro_speech_quantized.tflite",
                     ["yes_micro_features_49x40_s8.bin", "no_micro_features_49x40_s8.bin"]),
    "hello_world": (M + "/tflite-micro/models/hello_world_int8.tflite", []),
    "simple_add": (M + "/tflite-micro/models/simple_add_model.tflite", []),
    "fc_qat": (M + "/litert/quantized/fc_qat.bin", ["mnist"]),
    "pc_conv": (M + "/litert/quantized/pc_conv.bin", []),
    "add_u8": (M + "/litert/quantized/add_quantized.bin", []),
    "add_s8": (M + "/litert/quantized/add_quantized_int8.bin", []),
    "add_a8w8": (M + "/litert/quantized/single_add_default_a8w8_recipe_quantized.tflite", []),
    "mul_a8w8": (M + "/litert/quantized/single_mul_default_a8w8_recipe_quantized.tflite", []),
}
N_RANDOM = 3
# One CPU per configuration: the variant, not the CPU, is what differs.
CONFORMANCE_RUNS = [("rpi-aarch64", "pi4"), ("rpi-aarch64-pi5", "pi5"), ("rpi-armhf", "pi4")]


def sample_bytes(name, nbytes):
    """A real input for the model, when one ships: person_detect's BMPs
    (stored int8 values, bottom-up rows), micro_speech's feature maps, the
    first MNIST digit."""
    if name.endswith(".bmp"):
        data = open(os.path.join(DATA, name), "rb").read()
        off = int.from_bytes(data[10:14], "little")
        rows = np.frombuffer(data[off:off + 96 * 96], np.uint8).reshape(96, 96)
        return rows[::-1].tobytes()
    if name == "mnist":
        return open(os.path.join(MODELS, "datasets", "mnist_first100_per_digit_28x28_u8.bin"),
                    "rb").read()[:nbytes]
    return open(os.path.join(DATA, name), "rb").read()


def make_inputs(model, samples, info, tmp):
    """Groups of files for run_model: N_RANDOM seeded random inputs over the
    whole range of each input's type, then the real samples."""
    ins = [(int(i), t, int(n)) for kind, i, t, n in info if kind == "input"]
    outs = [int(i) for kind, i, _, _ in info if kind == "output"]
    rng = np.random.default_rng(20261123)
    sets = []
    for s in range(N_RANDOM):
        files = []
        for i, t, n in ins:
            if t == "float32":
                data = rng.uniform(-3, 3, n // 4).astype(np.float32).tobytes()
            else:
                data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
            files.append(data)
        sets.append(files)
    for name in samples:
        data = sample_bytes(name, ins[0][2])
        assert len(ins) == 1 and len(data) == ins[0][2], (name, len(data), ins)
        sets.append([data])
    args = []
    for k, files in enumerate(sets):
        for j, data in enumerate(files):
            p = tmp / ("set%d.in%d" % (k, j))
            p.write_bytes(data)
            args.append(str(p))
        for o in outs:
            args.append(str(tmp / ("set%d.out%d" % (k, o))))
    return args


@pytest.mark.parametrize("name", sorted(CONFORMANCE_MODELS))
@pytest.mark.parametrize("config,pi", CONFORMANCE_RUNS, ids=["%s@%s" % r for r in CONFORMANCE_RUNS])
def test_real_models_match_host(config, pi, name, host_build, tmp_path):
    c = linux_config(config)
    model, samples = CONFORMANCE_MODELS[name]
    if not os.path.isfile(model):
        pytest.fail("model %s missing from ../shared/models" % model)
    host = os.path.join(host_build, "run_model")
    r = run([host, model])
    assert r.returncode == 0, r.stderr.decode()
    info = [line.split() for line in r.stdout.decode().splitlines()]
    host_dir, board_dir = tmp_path / "host", tmp_path / "board"
    host_dir.mkdir()
    board_dir.mkdir()
    host_args = make_inputs(model, samples, info, host_dir)
    r = run([host, model] + host_args)
    assert r.returncode == 0, r.stderr.decode()
    is_out = lambda a: ".out" in os.path.basename(a)  # noqa: E731
    board_args = [a.replace(str(host_dir), str(board_dir)) if is_out(a) else a for a in host_args]
    r = run(linux_cmd(config, c["cpus"][pi], "run_model", model, *board_args))
    assert r.returncode == 0, r.stderr.decode()
    outs = [a for a in host_args if is_out(a)]
    assert outs
    for h in outs:
        b = h.replace(str(host_dir), str(board_dir))
        assert open(b, "rb").read() == open(h, "rb").read(), "%s differs on %s" % (os.path.basename(h), config)


# ---- GPIO ----

def gpio_args(image, extra):
    return [PERSON, os.path.join(DATA, image), "--raw", "--labels", LABELS] + extra


def run_classify(where, args):
    if where == "host":
        return run([os.path.join(BUILD, "host", "classify")] + args)
    c = linux_config("rpi-aarch64")
    return run(linux_cmd("rpi-aarch64", c["cpus"]["pi4"], "classify", *args))


@pytest.mark.parametrize("where", ["host", "rpi-aarch64"])
def test_gpio_led_per_class_and_button(where, host_build):
    """One LED per class (17: no person, 27: person); each of two fake
    presses classifies again; LEDs end low."""
    r = run_classify(where, gpio_args("person.bmp", ["--gpio-chip", "fake:presses=2", "--led", "17,27",
                                                     "--button", "22"]))
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert r.stdout.decode().count("-> person") == 3
    assert err.count("button line 22 pressed") == 2
    assert "gpio-fake: line 27 = 1" in err and "gpio-fake: line 17 = 1" not in err
    assert err.rstrip().endswith("gpio-fake: line 27 = 0\ngpio-fake: close")

    r = run_classify(where, gpio_args("no_person.bmp", ["--gpio-chip", "fake", "--led", "17,27"]))
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "gpio-fake: line 17 = 1" in err and "gpio-fake: line 27 = 1" not in err


def test_gpio_threshold_keeps_leds_off(host_build):
    r = run_classify("host", gpio_args("no_person.bmp", ["--gpio-chip", "fake", "--led", "17,27",
                                                         "--threshold", "0.9"]))
    assert r.returncode == 0, r.stderr.decode()
    assert "= 1" not in r.stderr.decode()  # no person scores 0.72 < 0.9


def test_gpio_usage_errors(host_build):
    r = run_classify("host", gpio_args("person.bmp", ["--led", "17,x"]))
    assert r.returncode == 2 and b"--led" in r.stderr
    r = run_classify("host", gpio_args("person.bmp", ["--gpio-chip", "fake"]))
    assert r.returncode == 2 and b"say which lines" in r.stderr
    r = run_classify("host", gpio_args("person.bmp", ["--led", "17"]))  # default chip, no libgpiod
    assert r.returncode == 1 and b"no libgpiod" in r.stderr


def test_libgpiod_backend_without_a_chip():
    """The Pi binary has the libgpiod backend: under qemu-user there is no
    GPIO chip, and it must say so (exit 1), not crash."""
    c = linux_config("rpi-aarch64")
    if not os.path.exists("/usr/lib/aarch64-linux-gnu/libgpiod.a"):
        pytest.skip("libgpiod-dev:arm64 not installed: the aarch64 classify has no libgpiod backend")
    if os.path.exists("/dev/gpiochip7"):
        pytest.skip("this machine has a /dev/gpiochip7")
    r = run(linux_cmd("rpi-aarch64", c["cpus"]["pi4"], "classify",
                      *gpio_args("person.bmp", ["--gpio-chip", "gpiochip7", "--led", "17"])))
    assert r.returncode == 1, r.stderr.decode()
    assert b"cannot open GPIO chip 'gpiochip7'" in r.stderr


PI_VM_RUN = os.path.join(os.path.dirname(MODELS), "tools", "pi-vm-run")


@pytest.mark.parametrize("machine,chip", [("virt", "gpiochip0"), ("raspi3b", "pinctrl-bcm2835")])
def test_libgpiod_on_a_real_gpiochip(machine, chip, tmp_path):
    """The static Pi classify inside an arm64 VM with a real GPIO chip
    (../shared/tools/pi-vm-run): PL061 on `virt`, the BCM2835 of QEMU's Pi 3
    (looked up by its label). The LED lines must be granted and driven.
    Opt-in (EDGEQ_VM_TESTS=1): the first run downloads a Debian kernel."""
    if os.environ.get("EDGEQ_VM_TESTS") != "1":
        pytest.skip("VM GPIO test not requested (set EDGEQ_VM_TESTS=1; needs %s, network on "
                    "first use)" % PI_VM_RUN)
    linux_config("rpi-aarch64")
    if not os.path.exists("/usr/lib/aarch64-linux-gnu/libgpiod.a"):
        pytest.skip("libgpiod-dev:arm64 not installed")
    model, image = tmp_path / "pd.tflite", tmp_path / "person.bmp"
    model.write_bytes(open(PERSON, "rb").read())
    image.write_bytes(open(os.path.join(DATA, "person.bmp"), "rb").read())
    lines = "3,4" if machine == "virt" else "17,27"
    r = run([PI_VM_RUN, "-M", machine, "-t", "240", "-f", str(model), "-f", str(image),
             os.path.join(BUILD, "rpi-aarch64", "classify-static"), "/bin/pd.tflite", "/bin/person.bmp",
             "--raw", "--gpio-chip", chip, "--led", lines], timeout=600)
    assert r.returncode == 0, (r.stdout.decode()[-2000:], r.stderr.decode()[-2000:])
    assert b"-> class 1" in r.stdout
