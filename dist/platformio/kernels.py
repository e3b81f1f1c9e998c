# SPDX-License-Identifier: Apache-2.0
"""PlatformIO extra script of the edgeq library (library.json): picks the
engine's kernel variant from the compiler's own target macros, as the
top-level CMake build does, and defines it for the library's sources
only. A project's build_flags (-DEDGE_SYSTOLIC_DSP, _MVE, _NEON or
-DEDGE_SYSTOLIC_PORTABLE) win over it."""

import subprocess

Import("env")  # noqa: F821 (SCons injects Import)

VARIANTS = ("EDGE_SYSTOLIC_DSP", "EDGE_SYSTOLIC_MVE", "EDGE_SYSTOLIC_NEON", "EDGE_SYSTOLIC_PORTABLE")


def target_macros(env):
    """The compiler's predefined macros for this build's flags."""
    cmd = [env.subst("$CC")] + env.subst("$CCFLAGS $CFLAGS").split() + ["-dM", "-E", "-x", "c", "-"]
    try:
        out = subprocess.run(cmd, input="", capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    macros = {}
    for line in out.splitlines():
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[0] == "#define":
            macros[parts[1]] = parts[2] if len(parts) == 3 else ""
    return macros


def variant(macros):
    if macros.get("__ARM_FEATURE_MVE", "0").isdigit() and int(macros.get("__ARM_FEATURE_MVE", "0")) & 1:
        return "EDGE_SYSTOLIC_MVE"
    if "__ARM_FEATURE_DSP" in macros and macros.get("__ARM_ARCH_PROFILE") in ("77", "'M'"):
        return "EDGE_SYSTOLIC_DSP"
    if "__ARM_NEON" in macros:
        return "EDGE_SYSTOLIC_NEON"
    return None


def chosen(env):
    flags = env.subst("$BUILD_FLAGS $CPPDEFINES $CCFLAGS")
    return any(v in flags for v in VARIANTS)


if not chosen(env):  # noqa: F821
    v = variant(target_macros(env))  # noqa: F821
    if v:
        env.Append(CPPDEFINES=[v])  # noqa: F821
