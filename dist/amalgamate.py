#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the engine as one C file and one header, as SQLite ships itself:

    python3 dist/amalgamate.py [--out DIR]     (make amalgamation)

DIR/edge.h is the public API (engine/include/edge/edge.h with the headers
it includes); DIR/edge.c is every .c file under engine/src (found by
walking the folder, in sorted order) with the private headers it includes
pasted in where they are first needed. It compiles as strict C99
(-std=c99 -pedantic) for any target the engine builds for.

One translation unit instead of many: names that were private to a file
(static functions and data, file-local types, tags and enum constants)
may meet another file's. Each such name is renamed in its own file's
text, to <name>__<file>, unless it follows `.` or `->` or sits inside a
struct body (member names live apart). Macros a .c file defines are
#undef'd after it, as its compiler would have forgotten them.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.path.join(ROOT, "engine")
SRC = os.path.join(ENGINE, "src")
PUBLIC = os.path.join(ENGINE, "include")
API_HEADER = os.path.join(PUBLIC, "edge", "edge.h")

KEYWORDS = set("""auto break case char const continue default do double else enum extern
float for goto if inline int long register restrict return short signed sizeof static
struct switch typedef union unsigned void volatile while _Bool _Complex _Imaginary
_Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert _Thread_local
__attribute__ __asm__ asm __inline __inline__ __restrict __restrict__ __extension__
__typeof__ __volatile__ __builtin_va_list defined""".split())

TOKEN = re.compile(r"""
    (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])*')
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.])*)
  | (?P<newline>\n)
  | (?P<space>[ \t\r\f\v]+|\\\n)
  | (?P<punct>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\#\#|[-+*/%&|^!~<>=?:;,.()\[\]{}\#])
  | (?P<other>.)
""", re.S | re.X)


class Tok:
    __slots__ = ("kind", "text", "pp")

    def __init__(self, kind, text, pp):
        self.kind, self.text, self.pp = kind, text, pp


def lex(text):
    """Tokens with `pp` set on those of a preprocessor directive."""
    toks, in_pp, line_start = [], False, True
    for m in TOKEN.finditer(text):
        kind, s = m.lastgroup, m.group()
        if kind == "newline":
            in_pp = False
            line_start = True
        elif kind == "punct" and s == "#" and line_start:
            in_pp = True
        if kind not in ("space", "newline", "comment"):
            line_start = False
        toks.append(Tok(kind, s, in_pp))
    return toks


def code(toks):
    """Indices of the significant tokens outside directives."""
    return [i for i, t in enumerate(toks) if not t.pp and t.kind not in ("space", "newline", "comment")]


def directives(text):
    """(name, argument text) of each preprocessor line, continuations joined."""
    joined = re.sub(r"\\\n", " ", text)
    joined = re.sub(r"/\*.*?\*/", " ", joined, flags=re.S)
    for m in re.finditer(r"^[ \t]*#[ \t]*(\w+)(.*)$", joined, re.M):
        yield m.group(1), m.group(2).strip()


def file_scope_names(toks):
    """Names a file declares at file scope: (private, public). Private are
    static functions and data, typedefs, tags and enum constants; public
    are the other declarations (extern functions and data)."""
    idx = code(toks)
    private, public = set(), set()
    stmt = []            # significant tokens of the current top-level declaration
    stack = []           # kinds of the open braces: func, struct, enum, init
    i = 0
    while i < len(idx):
        t = toks[idx[i]]
        s = t.text
        if stack:
            if s == "{":
                stack.append("inner")
            elif s == "}":
                kind = stack.pop()
                if not stack and kind == "func":
                    stmt = []
            elif stack[-1] == "enum" and len(stack) == 1 and t.kind == "ident":
                nxt = toks[idx[i + 1]].text if i + 1 < len(idx) else ""
                prv = toks[idx[i - 1]].text
                if prv in ("{", ",") and nxt in ("=", ",", "}"):
                    private.add(s)
            i += 1
            continue
        if s == "{":
            texts = [x.text for x in stmt]
            if texts and texts[-1] == ")":
                stack.append("func")
                name = function_name(stmt)
                if name:
                    (private if "static" in texts else public).add(name)
            elif any(k in texts for k in ("struct", "union", "enum")) and texts[-1] != "=":
                kw = max(j for j, x in enumerate(texts) if x in ("struct", "union", "enum"))
                if kw + 1 < len(texts) and stmt[kw + 1].kind == "ident":
                    private.add(texts[kw + 1])
                stack.append("enum" if texts[kw] == "enum" else "struct")
                stmt.append(t)
            else:
                stack.append("init")
                stmt.append(t)
            i += 1
            continue
        if s == ";":
            names = declarators(stmt)
            texts = [x.text for x in stmt]
            if "typedef" in texts or "static" in texts:
                private |= names
            else:
                public |= names
            stmt = []
            i += 1
            continue
        stmt.append(t)
        i += 1
    return private, public


def function_name(stmt):
    """The identifier before the last top-level parenthesis group."""
    depth = 0
    for j in range(len(stmt) - 1, -1, -1):
        s = stmt[j].text
        if s == ")":
            depth += 1
        elif s == "(":
            depth -= 1
            if depth == 0:
                if j > 0 and stmt[j - 1].kind == "ident" and stmt[j - 1].text not in KEYWORDS:
                    return stmt[j - 1].text
                return None
    return None


def declarators(stmt):
    """Names declared by one top-level declaration (without its braces'
    contents, which stmt keeps only as the brace tokens)."""
    names = set()
    paren = bracket = brace = 0
    in_init = False
    for j, t in enumerate(stmt):
        s = t.text
        if s == "(":
            paren += 1
        elif s == ")":
            paren -= 1
        elif s == "[":
            bracket += 1
        elif s == "]":
            bracket -= 1
        elif s == "{":
            brace += 1
        elif s == "}":
            brace -= 1
        elif s == "=" and paren == 0 and bracket == 0 and brace == 0:
            in_init = True
        elif s == "," and paren == 0 and bracket == 0 and brace == 0:
            in_init = False
        if t.kind != "ident" or s in KEYWORDS or in_init or bracket or brace:
            continue
        nxt = stmt[j + 1].text if j + 1 < len(stmt) else ";"
        prv = stmt[j - 1].text if j > 0 else ""
        if prv in ("struct", "union", "enum"):
            continue
        if paren == 0 and nxt in (";", ",", "=", "[", "(", ":"):
            names.add(s)
        elif paren == 1 and prv == "*" and nxt == ")" and j >= 2 and stmt[j - 2].text == "(":
            names.add(s)  # (*name) of a function pointer
    # __attribute__((...)) and asm("...") are not declarators.
    return {n for n in names if not n.startswith("__")}


def macros_defined(text):
    return [re.match(r"(\w+)", arg).group(1) for name, arg in directives(text)
            if name == "define" and re.match(r"\w+", arg)]


def paste_prefixes(text):
    """Prefixes of the static functions a file's own macros make by token
    pasting (`static void tile_##SUFFIX(...)`): every name they make is
    private to the file, though it never appears whole in its text."""
    bodies = {}
    for name, arg in directives(text):
        m = re.match(r"(\w+)(\([^)]*\))?\s*(.*)", arg, re.S) if name == "define" else None
        if m:
            bodies[m.group(1)] = (m.group(2) or "", m.group(3))
    makes_static = {n for n, (_, b) in bodies.items() if re.search(r"\bstatic\b", b)}
    found = set()
    for params, body in bodies.values():
        params = set(re.findall(r"\w+", params))
        toks = [t for t in lex(body) if t.kind not in ("space", "newline", "comment")]
        for j in range(len(toks) - 3):
            if (toks[j].kind == "ident" and toks[j + 1].text == "##" and toks[j + 2].text in params
                    and toks[j + 3].text == "("):
                k = j - 1
                while k >= 0 and toks[k].text not in (";", "{", "}"):
                    if toks[k].text == "static" or toks[k].text in makes_static:
                        found.add(toks[j].text)
                        break
                    k -= 1
    return found


def rename(toks, names, suffix, prefixes=(), keep=()):
    """Renames `names` in the file's own tokens (code and directives),
    except after `.`/`->`, inside struct/union bodies and in #include;
    and the names starting with one of `prefixes` (the prefix gains the
    suffix) unless `keep` has them."""
    prefixes = sorted(prefixes, key=len, reverse=True)
    out = []
    prev_sig = ""
    stack = []
    pending_struct = False
    directive = None
    for t in toks:
        if t.kind == "newline":
            directive = None
        if t.pp and t.kind == "ident" and directive is None:
            directive = t.text
        s = t.text
        if not t.pp and t.kind not in ("space", "newline", "comment"):
            if s in ("struct", "union"):
                pending_struct = True
            elif s == "{":
                stack.append("struct" if pending_struct else "other")
                pending_struct = False
            elif s == "}":
                if stack:
                    stack.pop()
            elif s in (";", ")", "(", ",", "="):
                pending_struct = False
        in_struct = "struct" in stack
        if t.kind == "ident" and prev_sig not in (".", "->") and not in_struct and directive != "include":
            if s in names:
                s = "%s__%s" % (s, suffix)
            elif s not in keep:
                for x in prefixes:
                    if s.startswith(x):
                        s = "%s%s_%s" % (x, suffix, s[len(x):])
                        break
        out.append(s)
        if t.kind not in ("space", "newline", "comment"):
            prev_sig = t.text
    return "".join(out)


def guard_of(text):
    """The include guard macro of a header, or None."""
    d = list(directives(text))
    if len(d) >= 2 and d[0][0] == "ifndef" and d[1][0] == "define" and d[1][1].split()[0] == d[0][1] \
            and d[-1][0] == "endif":
        return d[0][1]
    return None


class Amalgamation:
    def __init__(self):
        self.done = set()      # headers pasted unconditionally (their guard makes repeats no-ops)
        self.provided = {os.path.realpath(API_HEADER)}  # edge.h's own, included by edge.c
        for inc in re.findall(r'#include "([^"]+)"', read(API_HEADER)):
            self.provided.add(os.path.realpath(os.path.join(os.path.dirname(API_HEADER), inc)))

    def resolve(self, name, here):
        for base in (here, SRC, PUBLIC):
            p = os.path.join(base, name)
            if os.path.isfile(p):
                return os.path.realpath(p)
        return None

    def paste(self, text, path, conditional):
        """text with its local #includes replaced by the headers' text."""
        out = []
        depth = 0
        guard = guard_of(text) if path.endswith((".h", ".inc")) else None
        for line in split_logical(text):
            m = re.match(r'\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b', line)
            if m:
                depth += {"if": 1, "ifdef": 1, "ifndef": 1, "endif": -1}.get(m.group(1), 0)
            inc = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            target = inc and self.resolve(inc.group(1), os.path.dirname(path))
            if not target:
                out.append(line)
                continue
            rel = os.path.relpath(target, ENGINE)
            if target in self.provided:
                out.append("/* #include \"%s\": in edge.h */\n" % rel)
                continue
            if target in self.done:
                out.append("/* #include \"%s\": above */\n" % rel)
                continue
            inner_conditional = conditional or depth > (1 if guard else 0)
            body = read(target)
            if guard_of(body) and not inner_conditional:
                self.done.add(target)
            out.append("/* ---- begin %s ---- */\n" % rel)
            out.append(self.paste(body, target, inner_conditional))
            out.append("/* ---- end %s ---- */\n" % rel)
        return "".join(out)


def split_logical(text):
    """Lines, keeping backslash continuations with their directive."""
    lines, cur = [], ""
    for line in text.splitlines(keepends=True):
        cur += line
        if not line.rstrip("\n").endswith("\\"):
            lines.append(cur)
            cur = ""
    if cur:
        lines.append(cur)
    return lines


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def sources():
    found = []
    for d, _, files in os.walk(SRC):
        found += [os.path.join(d, f) for f in files if f.endswith(".c")]
    return sorted(found, key=lambda p: os.path.relpath(p, SRC))


def headers():
    found = []
    for base in (SRC, PUBLIC):
        for d, _, files in os.walk(base):
            found += [os.path.join(d, f) for f in files if f.endswith((".h", ".inc"))]
    return sorted(found)


def suffix_of(path):
    return re.sub(r"\W", "_", os.path.splitext(os.path.relpath(path, SRC))[0])


def version():
    m = re.search(r'#define EDGE_VERSION_STRING "([^"]+)"', read(API_HEADER))
    return m.group(1) if m else "unknown"


def spdx_line(text):
    m = re.search(r"SPDX-License-Identifier: [\w.-]+", text)
    return "/* %s */\n" % m.group(0) if m else ""


HEADER_PROLOGUE = """\
%s/*
 * edge.h — the public API of libedge %s, the edgeq inference engine, for
 * the single-file build (edge.c). Generated by dist/amalgamate.py from
 * engine/include/edge/; do not edit. The API is documented below, and in
 * docs/engine-api.md.
 */
"""

SOURCE_PROLOGUE = """\
%s/*
 * edge.c — libedge %s, the edgeq inference engine, in one C99 file.
 * Generated by dist/amalgamate.py from engine/src/; do not edit.
 *
 * Build it like any source file, with edge.h beside it:
 *     cc -std=c99 -O2 -c edge.c
 * Options (define them on the command line or before this point):
 *   EDGE_OPS_HEADER="model_ops.h"   only the ops that header lists (edgeq
 *                                   export --ops); other models are refused
 *                                   at load, naming the op
 *   EDGE_WITH_UINT8=0               without the uint8 (TF1-era) kernels
 *   EDGE_SYSTOLIC_PORTABLE          the portable C kernels on any target
 *   EDGE_SYSTOLIC_DSP / _MVE / _NEON  a kernel variant by name; by default
 *                                   the one the compiler's target has
 *                                   (Cortex-M55: MVE; Cortex-M4/M7/M33:
 *                                   DSP; Armv7-A/Armv8-A: NEON)
 *   EDGE_X86_MAX_LEVEL=0|1|2        x86: at most portable / AVX2 / VNNI
 *                                   (the CPU is asked at run time)
 * Link with --gc-sections (GCC/Clang put every function in a section of
 * its own with -ffunction-sections -fdata-sections) to keep only what a
 * program reaches.
 */
#include "edge.h"

#if defined(__clang__)
/* The private headers pasted in below define static inline helpers that
 * some configurations never call; as separate headers clang did not mind. */
#pragma clang diagnostic ignored "-Wunused-function"
#endif

#if !defined(EDGE_SYSTOLIC_PORTABLE) && !defined(EDGE_SYSTOLIC_NEON) && \\
    !defined(EDGE_SYSTOLIC_DSP) && !defined(EDGE_SYSTOLIC_MVE)
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define EDGE_SYSTOLIC_MVE 1
#elif defined(__ARM_FEATURE_DSP) && defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define EDGE_SYSTOLIC_DSP 1
#elif defined(__ARM_NEON)
#define EDGE_SYSTOLIC_NEON 1
#endif
#endif

"""


def build(out_dir):
    # Names private to a .c file that another file also declares, or that a
    # header declares or defines as a macro, are renamed in that file.
    header_names = set()
    for h in headers():
        text = read(h)
        priv, pub = file_scope_names(lex(text))
        header_names |= priv | pub | set(macros_defined(text))
    srcs = sources()
    private, public = {}, set()
    for s in srcs:
        private[s], pub = file_scope_names(lex(read(s)))
        public |= pub
    seen = {}
    for s in srcs:
        for n in private[s]:
            seen[n] = seen.get(n, 0) + 1
    clashing = {n for n, c in seen.items() if c > 1} | (set(seen) & header_names)

    amal = Amalgamation()
    body = []
    for s in srcs:
        text = read(s)
        names = private[s] & clashing
        prefixes = paste_prefixes(text)
        if names or prefixes:
            text = rename(lex(text), names, suffix_of(s), prefixes, header_names | public)
        rel = os.path.relpath(s, ENGINE)
        body.append("/* ======== %s ======== */\n" % rel)
        body.append(amal.paste(text, s, False))
        undef = sorted(set(macros_defined(text)))
        if undef:
            body.append("".join("#undef %s\n" % m for m in undef))
        body.append("\n")

    api = Amalgamation()
    api.provided = set()
    header = api.paste(read(API_HEADER), os.path.realpath(API_HEADER), False)
    ver = version()
    os.makedirs(out_dir, exist_ok=True)
    lic = spdx_line(read(API_HEADER))
    write(os.path.join(out_dir, "edge.h"), HEADER_PROLOGUE % (lic, ver) + header)
    write(os.path.join(out_dir, "edge.c"), SOURCE_PROLOGUE % (lic, ver) + "".join(body))
    return len(srcs), sorted(clashing)


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "amalgamation"))
    ap.add_argument("--verbose", action="store_true", help="list the renamed names")
    a = ap.parse_args()
    n, renamed = build(a.out)
    print("amalgamation: %d files -> %s/edge.c, edge.h (%d names renamed)" % (n, a.out, len(renamed)))
    if a.verbose:
        print(" ".join(renamed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
