/* SPDX-License-Identifier: Apache-2.0 */
// official_verify.cc — the official FlatBuffers verifier for TFLite models,
// built from flatc's C++ for ../shared/models/tflite_schema_flatc2.fbs (the
// same schema as tflite_schema.fbs with the `deprecated` attribute dropped
// from enum values, which flatc 2.0 cannot parse).
// Usage: official_verify FILE...  prints "<0|1> FILE" per file (1 = accepted).
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "tflite_generated.h"

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        std::ifstream f(argv[i], std::ios::binary);
        if (!f) {
            std::fprintf(stderr, "cannot read %s\n", argv[i]);
            return 2;
        }
        std::vector<char> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        // 16-byte aligned copy, as a runtime would have it in memory.
        std::vector<uint64_t> buf(raw.size() / 8 + 2);
        std::copy(raw.begin(), raw.end(), reinterpret_cast<char *>(buf.data()));
        flatbuffers::Verifier v(reinterpret_cast<const uint8_t *>(buf.data()), raw.size());
        bool ok = tflite::VerifyModelBuffer(v);
        std::printf("%d %s\n", ok ? 1 : 0, argv[i]);
    }
    return 0;
}
